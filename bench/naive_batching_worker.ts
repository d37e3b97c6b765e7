/**
 * The ORT worker of `naive_batching_server.ts`: opens the session on the bundle it is sent, then
 * runs each batch announced in the shared buffer (inputs in, outputs out) and wakes the server.
 *
 * @module
 */

import * as ort from "onnxruntime-web";

/** Most rows a run takes. */
export const MAX_ROWS = 64;

/** The server's first and only message. */
export interface Start {
  readonly bytes: Uint8Array;
  readonly buffer: SharedArrayBuffer;
  readonly P: number;
  readonly T: number;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Start>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async ({ data: { bytes, buffer, P, T } }) => {
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(bytes);
  const IN = 4 * P + T, OUT = T + P;
  const control = new Int32Array(buffer, 0, 4);
  const inputs = new Float32Array(buffer, 16, MAX_ROWS * IN);
  const outputs = new Float32Array(buffer, 16 + 4 * MAX_ROWS * IN, MAX_ROWS * OUT);
  scope.postMessage("ready");
  for (let seen = 0;;) {
    while (Atomics.load(control, 0) === seen) {
      const wait = Atomics.waitAsync(control, 0, seen);
      if (wait.async) await wait.value;
    }
    seen = Atomics.load(control, 0);
    const B = control[2]!;
    // Rows are laid out whole (marking, its mask, values, its mask, target): split by column.
    const column = (at: number, width: number) => {
      const data = new Float32Array(B * width);
      for (let r = 0; r < B; r++) {
        data.set(inputs.subarray(r * IN + at, r * IN + at + width), r * width);
      }
      return new ort.Tensor("float32", data, [B, width]);
    };
    const out = await session.run({
      marking: column(0, P),
      marking_mask: column(P, P),
      values: column(2 * P, P),
      values_mask: column(3 * P, P),
      target: column(4 * P, T),
      with_gradient: new ort.Tensor("bool", [false], []),
    });
    const fired = out.transitions!.data as Float32Array;
    const marked = out.places!.data as Float32Array;
    for (let r = 0; r < B; r++) {
      outputs.set(fired.subarray(r * T, (r + 1) * T), r * OUT);
      outputs.set(marked.subarray(r * P, (r + 1) * P), r * OUT + T);
    }
    Atomics.store(control, 1, seen);
    Atomics.notify(control, 1, 1);
  }
};
