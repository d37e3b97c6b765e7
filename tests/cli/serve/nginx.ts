/**
 * A real nginx (Debian's `/usr/sbin/nginx`) in front of replicas on 127.0.0.1, for the tests that
 * check what clients see through a proxy. It runs as a child process in the foreground
 * (`daemon off`, `master_process off`: one process, so killing it leaves nothing behind) with
 * its configuration, pid file, logs and temporary paths in a temporary directory; it listens on
 * a Unix socket there, so no port is picked. No `user` directive: as root (CI) the one process
 * stays root, as anyone else it runs as that user.
 *
 * @example
 * ```ts
 * import { startNginx } from "./nginx.ts";
 * await using nginx = await startNginx(["127.0.0.1:8001", "127.0.0.1:8002"]);
 * nginx.socket; // "/tmp/petri_serve_nginx_…/front.sock"
 * ```
 *
 * @module
 */

/** Where Debian's package puts nginx. */
export const NGINX = "/usr/sbin/nginx";

/** Whether nginx is installed (`.ci/run` installs it when a test uses it). */
export const HAS_NGINX = (() => {
  try {
    return Deno.statSync(NGINX).isFile;
  } catch {
    return false;
  }
})();

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /**
   * The `proxy_next_upstream` directive's value, or undefined for nginx's default
   * (`error timeout`).
   */
  readonly proxyNextUpstream?: string;
  /** Parameters after each upstream `server` address (default `max_fails=1 fail_timeout=2s`). */
  readonly serverParameters?: string;
}

/** A running nginx. */
export interface Nginx extends AsyncDisposable {
  /** The Unix socket it listens on. */
  readonly socket: string;
  /** The configuration it runs. */
  readonly config: string;
  /** Its error log so far. */
  errorLog(): Promise<string>;
}

/**
 * Starts nginx proxying every path to `upstreams` (`host:port` each) over keep-alive upstream
 * connections (`keepalive 16`, HTTP/1.1), and waits until its socket accepts connections.
 */
export async function startNginx(
  upstreams: readonly string[],
  options: NginxOptions = {},
): Promise<Nginx> {
  const dir = await Deno.makeTempDir({ prefix: "petri_serve_nginx_" });
  const socket = `${dir}/front.sock`;
  const parameters = options.serverParameters ?? "max_fails=1 fail_timeout=2s";
  const config = `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size 2m;
  upstream replicas {
${upstreams.map((address) => `    server ${address} ${parameters};`).join("\n")}
    keepalive 16;
  }
  server {
    listen unix:${socket};
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host, not the upstream's name: replicas answer only the hosts they allow.
      proxy_set_header Host $host;
${options.proxyNextUpstream ? `      proxy_next_upstream ${options.proxyNextUpstream};\n` : ""}    }
  }
}
`;
  const configPath = `${dir}/nginx.conf`;
  await Deno.writeTextFile(configPath, config);
  const child = new Deno.Command(NGINX, {
    args: ["-p", `${dir}/`, "-c", configPath, "-e", `${dir}/error.log`],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await stderr;
    await Deno.remove(dir, { recursive: true });
  };
  const errorLog = () => Deno.readTextFile(`${dir}/error.log`).catch(() => "");
  let exited = false;
  child.status.then(() => (exited = true));
  for (let i = 0; i < 100 && !exited; i++) {
    try {
      (await Deno.connect({ transport: "unix", path: socket })).close();
      return { socket, config, errorLog, [Symbol.asyncDispose]: stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const log = await errorLog();
  await stop();
  throw new Error(`nginx did not start: ${log}`);
}
