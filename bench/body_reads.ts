/**
 * What one read of a request body costs the serving thread in a bare `Deno.serve`, with no code
 * of this project: the floor under `POST /batch`'s effect on other requests (issue 28). `curl -T`
 * uploads a file of `--mib` MiB to a handler that reads the body `--read-kib` KiB at a time (a
 * BYOB read of 2 MiB by default, as `server/log_scoring/log_body.ts` does) and either streams a
 * 100 kB piece back after each read (`streaming`, as a log's answer does) or answers once the
 * body has been read (`drained`).
 * For each case: the reads, the time each `read()` call holds the thread before it returns its
 * promise (p50, p99, max) and the serving thread's CPU time (`/proc`) per MiB of body, over
 * HTTP/1.1 and HTTP/2 (h2c), with the upload as fast as loopback goes or paced by curl's
 * `--limit-rate`. Medians of `--rounds` rounds.
 *
 * ```sh
 * deno run -A bench/body_reads.ts [--mib 80] [--rounds 3] [--rate 100M] [--read-kib 2048]
 * ```
 *
 * Needs `curl`. Not part of the package.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { median, quantile } from "./stats.ts";

const PIECE = new TextEncoder().encode("x".repeat(100_000) + "\n");

/** One upload's figures. */
interface Upload {
  readonly reads: number;
  readonly callP50Ms: number;
  readonly callP99Ms: number;
  readonly callMaxMs: number;
  readonly cpuMsPerMiB: number;
}

/**
 * The serving thread's CPU time so far, in ms (`/proc`, 10 ms ticks). Read synchronously, not
 * with `thread_cpu.ts`: an `await` before the answer begins changes what the reads cost (tried:
 * 97 cheap reads instead of 44 of about 2 ms).
 */
function threadCpuMs(): number {
  const stat = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Serves one upload at a time on `port`; `take()` resolves with the next upload's figures. */
function serve(streaming: boolean, readBytes: number) {
  let settle: ((upload: Upload) => void) | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const reader = request.body!.getReader({ mode: "byob" });
    const calls: number[] = [];
    let bytes = 0;
    const cpu = threadCpuMs();
    const read = async () => {
      const buffer = new Uint8Array(readBytes);
      const before = performance.now();
      const reading = reader.read(buffer);
      calls.push(performance.now() - before);
      const result = await reading;
      if (!result.done) bytes += result.value.byteLength;
      return result.done;
    };
    const report = () => {
      const sorted = calls.toSorted((a, b) => a - b);
      settle?.({
        reads: calls.length,
        callP50Ms: quantile(sorted, 0.5),
        callP99Ms: quantile(sorted, 0.99),
        callMaxMs: sorted.at(-1)!,
        cpuMsPerMiB: (threadCpuMs() - cpu) / (bytes / 2 ** 20),
      });
    };
    if (!streaming) {
      return (async () => {
        while (!(await read()));
        report();
        return new Response(String(bytes));
      })();
    }
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (await read()) {
            report();
            controller.close();
          } else controller.enqueue(PIECE);
        },
      }),
    );
  });
  const take = () => new Promise<Upload>((resolve) => (settle = resolve));
  return { port: server.addr.port, take, shutdown: () => server.shutdown() };
}

async function upload(port: number, file: string, http2: boolean, rate?: string) {
  const args = [
    ...(http2 ? ["--http2-prior-knowledge"] : []),
    ...(rate ? ["--limit-rate", rate] : []),
    "-sS",
    "-o",
    "/dev/null",
    "-T",
    file,
    `http://127.0.0.1:${port}/`,
  ];
  const { success, stderr } = await new Deno.Command("curl", { args, stdout: "null" }).output();
  if (!success) throw new Error(`curl failed: ${new TextDecoder().decode(stderr)}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      mib: { type: "string", default: "80" },
      rounds: { type: "string", default: "3" },
      rate: { type: "string", default: "100M" },
      "read-kib": { type: "string", default: "2048" },
    },
  });
  const rounds = Number(values.rounds);
  const file = await Deno.makeTempFile({ suffix: ".body" });
  try {
    // Text of the log's kind (compressible, no NUL): what a log's body looks like to the reader.
    const line = new TextEncoder().encode(
      '{"case_id": "A-1", "events": [{"activity": "approve loan", "risk_score": 0.92}]},\n',
    );
    const chunk = new Uint8Array(line.length * Math.floor((1 << 20) / line.length));
    for (let at = 0; at < chunk.length; at += line.length) chunk.set(line, at);
    await Deno.writeFile(file, new Uint8Array(0));
    using out = await Deno.open(file, { write: true });
    for (let mib = 0; mib < Number(values.mib); mib++) await out.write(chunk);

    const rows: string[] = [];
    for (const streaming of [true, false]) {
      const server = serve(streaming, Number(values["read-kib"]) * 1024);
      for (const http2 of [false, true]) {
        for (const rate of [undefined, values.rate]) {
          const runs: Upload[] = [];
          for (let round = 0; round < rounds; round++) {
            const taken = server.take();
            await upload(server.port, file, http2, rate);
            runs.push(await taken);
          }
          const m = (pick: (u: Upload) => number) => median(runs.map(pick));
          rows.push(
            `| ${streaming ? "streaming" : "drained"} | ${http2 ? "HTTP/2" : "HTTP/1.1"} | ` +
              `${rate ? `paced, ${rate}B/s` : "unpaced"} | ${m((u) => u.reads).toFixed(0)} | ` +
              `${m((u) => u.callP50Ms).toFixed(3)} | ${m((u) => u.callP99Ms).toFixed(3)} | ` +
              `${m((u) => u.callMaxMs).toFixed(3)} | ${m((u) => u.cpuMsPerMiB).toFixed(2)} |`,
          );
        }
      }
      await server.shutdown();
    }
    console.log(
      [
        `${values.mib} MiB uploads by curl -T, read ${
          values["read-kib"]
        } KiB at a time; medians of ${rounds} rounds; ` +
        `Deno ${Deno.version.deno}`,
        "",
        "| answer | protocol | upload | reads | `read()` call p50 ms | p99 ms | max ms | serving-thread CPU ms / MiB |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
        ...rows,
      ].join("\n"),
    );
  } finally {
    await Deno.remove(file);
  }
}

if (import.meta.main) await main();
