/**
 * The baseline of `http_load.ts`: a bare `Deno.serve` JSON echo (`request.json()`, then
 * `Response.json()`), in its own process like the servers it is compared with. Prints
 * `echo on URL` on stderr; stops on SIGTERM.
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 bench/http_echo.ts
 * ```
 *
 * @module
 */

const server = Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.error(`echo on http://127.0.0.1:${port}`),
  },
  async (request) => Response.json(await request.json()),
);
Deno.addSignalListener("SIGTERM", () => void server.shutdown());
await server.finished;
