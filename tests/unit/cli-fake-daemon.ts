/**
 * A fake daemon for CLI tests: a Bun.listen unix server on $BSK_HOME's socket that proves the home's link key as the
 * daemon does (shared/link-proof.ts), records every frame it receives after that and answers through a handler the
 * test supplies (which may hold a reply until the test releases it).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homePaths, type HomePaths } from "../../shared/home.ts";
import { ensureLinkKey } from "../../shared/key-file.ts";
import { LinkProofServer, unixTransport } from "../../shared/link-proof.ts";
import { tempDir } from "../temp.ts";

export interface Frame {
  id: string;
  method: string;
  params?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export type Answer =
  | { result: unknown; meta?: Record<string, unknown> }
  | { error: Record<string, unknown>; meta?: Record<string, unknown> };

export interface FakeDaemon {
  home: string;
  paths: HomePaths;
  /** Every frame received, in order. */
  frames: Frame[];
  /** Resolves with the first frame (received after this call or already) whose method is `method`. */
  received(method: string): Promise<Frame>;
  /** Send a raw line to every connected client. */
  broadcast(line: string): void;
  stop(): void;
}

export function makeHome(): string {
  return tempDir("bsk-cli-test-");
}

function flush(s: { write(b: Uint8Array): number; data: { out: Uint8Array } }): void {
  if (!s.data.out.length) return;
  const n = s.write(s.data.out);
  if (n > 0) s.data.out = s.data.out.subarray(n);
}

export function fakeDaemon(handler: (f: Frame) => Answer | Promise<Answer> | null, home = makeHome()): FakeDaemon {
  const paths = homePaths(home);
  mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  const frames: Frame[] = [];
  const waiters: { method: string; resolve: (f: Frame) => void }[] = [];
  type Client = { send(line: string): void };
  const clients = new Set<Client>();
  const encoder = new TextEncoder();
  const linkKey = ensureLinkKey(paths);
  const server = Bun.listen<{ buf: string; decoder: TextDecoder; out: Uint8Array; client: Client; proof?: LinkProofServer }>({
    unix: paths.socket,
    socket: {
      open(s) {
        // write() may take only part of a large frame: keep the rest (bytes) until drain.
        const send = (line: string) => {
          const bytes = encoder.encode(line);
          const out = new Uint8Array(s.data.out.length + bytes.length);
          out.set(s.data.out);
          out.set(bytes, s.data.out.length);
          s.data.out = out;
          flush(s);
        };
        s.data = {
          buf: "",
          decoder: new TextDecoder(),
          out: new Uint8Array(0),
          client: { send },
          proof: new LinkProofServer(linkKey, unixTransport(paths.socket)),
        };
        clients.add(s.data.client);
      },
      drain: (s) => flush(s),
      close(s) {
        clients.delete(s.data.client);
      },
      data(s, chunk) {
        s.data.buf += s.data.decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = s.data.buf.indexOf("\n")) !== -1) {
          const line = s.data.buf.slice(0, nl);
          s.data.buf = s.data.buf.slice(nl + 1);
          if (s.data.proof) {
            const step = s.data.proof.take(line);
            if (step.kind === "reply") s.data.client.send(step.line);
            else if (step.kind === "proven") s.data.proof = undefined;
            else s.end();
            continue;
          }
          const f = JSON.parse(line) as Frame;
          frames.push(f);
          for (const w of waiters.filter((x) => x.method === f.method)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(f);
          }
          void Promise.resolve(handler(f)).then((answer) => {
            if (answer) s.data.client.send(`${JSON.stringify({ id: f.id, ...answer })}\n`);
          });
        }
      },
    },
  });
  writeFileSync(
    paths.daemonJson,
    JSON.stringify({
      pid: process.pid,
      socket: paths.socket,
      ws_port: 1,
      version: "0.0.0-fake",
      protocol_version: "1.0",
      started_at: new Date().toISOString(),
    }),
  );
  return {
    home,
    paths,
    frames,
    received(method) {
      const seen = frames.find((f) => f.method === method);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ method, resolve }));
    },
    broadcast(line) {
      for (const c of clients) c.send(`${line}\n`);
    },
    stop() {
      server.stop(true);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
