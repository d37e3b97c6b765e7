/**
 * The worker side of the ORT worker: a message loop that runs one session of the injected ORT
 * module on request. The runtime's entry file (for Deno, `adapter/deno/ort_worker.ts`) calls
 * {@link serveOrtWorker} with its global scope, so this file stays free of any runtime.
 *
 * @module
 */

import { messageOf } from "../errors.ts";
import type { OrtModule, OrtSession, OrtTensor } from "../session.ts";
import { RunChannel, runChannelSupported } from "./run_channel.ts";
import {
  type FromWorker,
  type MessageEndpoint,
  ownedBuffer,
  type ToWorker,
  type WireTensor,
} from "./protocol.ts";

/**
 * Answers {@link ToWorker} messages arriving at `scope` with `ort`: one session per worker,
 * requests handled one at a time in arrival order (ORT sessions are not re-entrant). A failing
 * request is answered with its error's message; the loop keeps serving.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { serveOrtWorker } from "./serve_ort_worker.ts";
 * import type { FromWorker, ToWorker } from "./protocol.ts";
 * const { port1, port2 } = new MessageChannel();
 * serveOrtWorker(port1, ort);
 * port1.start();
 * const ask = (message: ToWorker) =>
 *   new Promise<FromWorker>((resolve) => {
 *     port2.onmessage = (event) => resolve(event.data);
 *     port2.postMessage(message);
 *   });
 * // A failing request is answered with its message, and the loop keeps serving.
 * assert.deepEqual(await ask({ op: "run", id: 1, feeds: {} }), {
 *   op: "failed",
 *   id: 1,
 *   message: "This ORT worker holds no session",
 * });
 * assert.deepEqual(await ask({ op: "release", id: 2 }), { op: "released", id: 2 });
 * port1.close();
 * port2.close();
 * ```
 */
export function serveOrtWorker(scope: MessageEndpoint, ort: OrtModule): void {
  let session: OrtSession | undefined;
  let queue: Promise<void> = Promise.resolve();
  const reply = (message: FromWorker, transfer: Transferable[] = []) =>
    scope.postMessage(message, transfer);

  /** One run: the outputs as Float32Arrays that own their buffers (ready to transfer). */
  const run = async (wire: Record<string, WireTensor>): Promise<Record<string, Float32Array>> => {
    if (session === undefined) throw new Error("This ORT worker holds no session");
    const feeds: Record<string, OrtTensor> = {};
    for (const [name, { type, data, dims }] of Object.entries(wire)) {
      feeds[name] = new ort.Tensor(type, data, dims);
    }
    const result = await session.run(feeds);
    const outputs: Record<string, Float32Array> = {};
    for (const [name, tensor] of Object.entries(result)) {
      if (tensor.data instanceof Float32Array) {
        outputs[name] = new Float32Array(ownedBuffer(tensor.data));
      }
    }
    return outputs;
  };

  /** Answers run requests arriving through the shared buffer, in turn with the messages. */
  const serveChannel = async (channel: RunChannel): Promise<void> => {
    for (let seen = 0;;) {
      seen = await channel.nextRequest(seen);
      const seq = seen;
      queue = queue.then(async () => {
        try {
          const outputs = await run(channel.readFeeds());
          if (channel.writeOutputs(outputs)) return channel.respond(seq, true);
          channel.writeError("The run's outputs do not fit the shared buffer");
        } catch (error) {
          channel.writeError(messageOf(error));
        }
        channel.respond(seq, false);
      });
      await queue;
    }
  };

  const handle = async (message: ToWorker): Promise<void> => {
    try {
      switch (message.op) {
        case "create": {
          if (session !== undefined) throw new Error("This ORT worker already holds a session");
          session = await ort.InferenceSession.create(message.bytes, message.options);
          reply({ op: "created", id: message.id, outputNames: [...session.outputNames] });
          return;
        }
        case "run": {
          const outputs = await run(message.feeds);
          reply({ op: "ran", id: message.id, outputs }, Object.values(outputs).map(ownedBuffer));
          return;
        }
        case "channel": {
          if (!runChannelSupported()) throw new Error("This runtime has no Atomics.waitAsync");
          serveChannel(new RunChannel(message.buffer));
          reply({ op: "attached", id: message.id });
          return;
        }
        case "release": {
          await session?.release();
          session = undefined;
          reply({ op: "released", id: message.id });
          return;
        }
      }
    } catch (error) {
      reply({ op: "failed", id: message.id, message: messageOf(error) });
    }
  };

  scope.addEventListener("message", (event) => {
    const message = event.data as ToWorker;
    queue = queue.then(() => handle(message));
  });
}
