/**
 * The distribution's nginx as the reverse proxy docs/remote.md tells people to run: the exact `nginx` block of that
 * page, pointed at a test's ports and certificate, terminating TLS and forwarding to a loopback daemon. Used by the
 * integration test (scripted devices) and the e2e (the real browser).
 */
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

export const nginx = Bun.which("nginx") ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : null);

/** The address docs/remote.md's block makes nginx connect from (proxy_bind): the daemon's --trusted-proxy. */
export const PROXY_ADDRESS = "127.0.0.2";

export interface NginxProxy {
  proc: ReturnType<typeof Bun.spawn>;
  accessLog(): string;
  stop(): Promise<void>;
}

/** The nginx block of docs/remote.md, pointed at this test's ports and certificate, in a whole config. */
export function proxyConfig(dir: string, port: number, daemonPort: number, cert: string, key: string): string {
  const doc = readFileSync(join(ROOT, "docs/remote.md"), "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/remote.md has no nginx block");
  if (!block.includes(`proxy_bind ${PROXY_ADDRESS};`)) throw new Error(`docs/remote.md's nginx block no longer binds ${PROXY_ADDRESS}`);
  const site = block
    .replace("listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`)
    .replace("server_name bsk.example.com;", "server_name localhost;")
    .replace("/etc/bsk/cert.pem", cert)
    .replace("/etc/bsk/key.pem", key)
    .replaceAll("127.0.0.1:8790", `127.0.0.1:${daemonPort}`);
  for (const t of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, t), { recursive: true });
  return `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${site}
}
`;
}

/**
 * Starts nginx and resolves once it listens: nginx writes its pid file after it has bound its sockets (and before it
 * serves), so the file's appearance is the signal; an nginx that exits first is an error with its stderr.
 */
export async function startProxy(o: { dir: string; port: number; daemonPort: number; cert: string; key: string }): Promise<NginxProxy> {
  if (!nginx) throw new Error("nginx is not installed (apt-get install nginx)");
  mkdirSync(o.dir, { recursive: true });
  writeFileSync(join(o.dir, "nginx.conf"), proxyConfig(o.dir, o.port, o.daemonPort, o.cert, o.key));
  const pidFile = join(o.dir, "nginx.pid");
  const { promise: up, resolve } = Promise.withResolvers<void>();
  const watcher = watch(o.dir, () => existsSync(pidFile) && resolve());
  const proc = Bun.spawn([nginx, "-c", join(o.dir, "nginx.conf"), "-p", o.dir], { stdout: "ignore", stderr: "pipe" });
  if (existsSync(pidFile)) resolve();
  try {
    const first = await Promise.race([up.then(() => "up" as const), proc.exited.then(() => "exited" as const)]);
    if (first === "exited") throw new Error(`nginx did not start: ${await new Response(proc.stderr as ReadableStream).text()}`);
  } finally {
    watcher.close();
  }
  return {
    proc,
    accessLog: () => readFileSync(join(o.dir, "access.log"), "utf8"),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
