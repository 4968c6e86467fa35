/**
 * The proof on the CLI link (issue #37 items 2 and 8), against the compiled dist/bsk and its daemon: a client without
 * $BSK_HOME/link.key is refused on the socket and on the loopback TCP port with nothing dispatched; a proof seen on
 * one connection fails on another; a listener on the socket's path that relays to the real daemon gets the hello
 * and never a typed secret; and a CLI in a bubblewrap sandbox without the socket's folder reaches the daemon over TCP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tempDir } from "../temp.ts";
import { runProcess } from "../run.ts";
import { join } from "node:path";
import { homePaths, type DaemonInfo, type HomePaths } from "../../shared/home.ts";
import { readLinkKey } from "../../shared/link-key.ts";
import { answerDaemon, clientHello, unixTransport } from "../../shared/link-proof.ts";
import { ROOT, TEST_ENV } from "./harness.ts";
import { IpcClient, type Reply } from "./ipc-client.ts";

const BSK = join(ROOT, "dist/bsk");
let home: string;
let paths: HomePaths;
let env: Record<string, string>;
let info: DaemonInfo;

function bsk(args: string[], extra: Record<string, string> = {}, argv0: string[] = []) {
  return runProcess([...argv0, BSK, ...args, "--json"], { env: { ...env, ...extra } });
}

/** One reply, and the connection's end: what a refused client gets. */
async function refusal(c: IpcClient): Promise<Reply> {
  const reply = await c.unmatched.next(() => true, "the daemon's refusal");
  await c.closed;
  return reply;
}

/** The daemon still runs and answers a client that holds the key: what the refused client sent was never dispatched. */
async function stillServes(): Promise<void> {
  const c = await IpcClient.connect(paths);
  try {
    expect((await c.call("system.status")).daemon.pid).toBe(info.pid);
  } finally {
    c.close();
  }
}

beforeAll(async () => {
  home = tempDir("bsk-link-");
  env = { ...(process.env as Record<string, string>), ...TEST_ENV, BSK_HOME: home, BSK_PORT: "0" };
  paths = homePaths(home, env);
  const started = await bsk(["daemon", "start"]);
  expect(started.json?.ok).toBe(true);
  info = JSON.parse(readFileSync(paths.daemonJson, "utf8"));
  expect(typeof info.cli_port).toBe("number");
});

afterAll(async () => {
  await bsk(["daemon", "stop"]);
  rmSync(home, { recursive: true, force: true });
});

describe("a client without the link key", () => {
  for (const where of ["socket", "tcp"] as const) {
    test(`on the ${where}: a request sent first gets one permission_denied frame and the connection closes; nothing runs`, async () => {
      const c = await IpcClient.connectRaw(where === "socket" ? { unix: paths.socket } : { port: info.cli_port! });
      c.send({ id: "k1", method: "system.shutdown" });
      const r = await refusal(c);
      expect(r).toMatchObject({ id: null, error: { code: "permission_denied", data: { reason: "unproven_client" } } });
      expect(r.error!.message).toContain("sent a request before proving it holds this home's link key");
      expect(r.error!.hint).toContain("link.key");
      await stillServes();
    });

    test(`on the ${where}: a hello, then a guessed proof with a request behind it: refused, the request unread`, async () => {
      const c = await IpcClient.connectRaw(where === "socket" ? { unix: paths.socket } : { port: info.cli_port! });
      c.sendRaw(clientHello().line.trimEnd());
      const proof = await c.unmatched.next(() => true, "the daemon's proof");
      expect(Object.keys(proof).sort()).toEqual(["link", "nonce", "proof"]);
      c.sendRaw(`${JSON.stringify({ link: "proof", proof: "A".repeat(43) })}\n${JSON.stringify({ id: "k2", method: "system.shutdown" })}`);
      const r = await refusal(c);
      expect(r).toMatchObject({ id: null, error: { code: "permission_denied", data: { reason: "unproven_client" } } });
      await stillServes();
    });
  }

  test("a proof replayed from another connection fails (the daemon's nonce is new each time)", async () => {
    // Connection 1 proves itself properly; an eavesdropper keeps its hello and proof lines.
    const key = readLinkKey(paths.linkKey);
    const hello = clientHello();
    const one = await IpcClient.connectRaw({ unix: paths.socket });
    one.sendRaw(hello.line.trimEnd());
    const answer = answerDaemon(key, unixTransport(paths.socket), hello, JSON.stringify(await one.unmatched.next()));
    if (!answer.ok) throw new Error(answer.why);
    one.sendRaw(answer.line.trimEnd());
    expect((await one.call("system.status")).daemon.pid).toBe(info.pid);
    one.close();
    // Connection 2 replays both lines, then a request.
    const two = await IpcClient.connectRaw({ unix: paths.socket });
    two.sendRaw(hello.line.trimEnd());
    await two.unmatched.next(() => true, "the daemon's proof");
    two.sendRaw(`${answer.line.trimEnd()}\n${JSON.stringify({ id: "k3", method: "system.shutdown" })}`);
    const r = await refusal(two);
    expect(r).toMatchObject({ error: { code: "permission_denied", data: { reason: "unproven_client" } } });
    await stillServes();
  });
});

describe("a listener in the daemon's place", () => {
  test("one on the socket's path that relays to the real daemon's TCP port gets the hello, never the typed secret", async () => {
    const secret = "hunter2-typed-secret";
    const log = join(home, "impostor.log");
    writeFileSync(log, "");
    // It took the path (the daemon's socket file is unlinked; the daemon goes on serving TCP) and relays every byte.
    unlinkSync(paths.socket);
    type Relay = { held: Uint8Array[]; up?: Awaited<ReturnType<typeof Bun.connect>> };
    const impostor = Bun.listen<Relay>({
      unix: paths.socket,
      socket: {
        open(s) {
          s.data = { held: [] };
          void Bun.connect({
            hostname: "127.0.0.1",
            port: info.cli_port!,
            socket: { data: (_u, chunk) => void s.write(chunk), close: () => void s.end() },
          }).then((up) => {
            s.data.up = up;
            for (const chunk of s.data.held.splice(0)) up.write(chunk);
          });
        },
        data(s, chunk) {
          appendFileSync(log, chunk);
          if (s.data.up) s.data.up.write(chunk);
          else s.data.held.push(chunk.slice());
        },
        close(s) {
          s.data.up?.end();
        },
      },
    });
    try {
      const r = await bsk(["type", secret, "--session", "s-1"], { BSK_AUTO_START: "0" });
      expect(r.code).toBe(1);
      expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "unproven_daemon" } });
      expect(r.json.error.message).toContain("its proof does not match this home's link key");
      expect(r.json.error.hint).toContain("only a random nonce was sent");
      const got = readFileSync(log, "utf8");
      expect(got).not.toContain(secret);
      expect(
        got
          .trim()
          .split("\n")
          .map((l) => Object.keys(JSON.parse(l)).sort()),
      ).toEqual([["link", "nonce", "v"]]);
    } finally {
      impostor.stop(true);
      rmSync(paths.socket, { force: true });
    }
    // The socket gone, the CLI falls back to the daemon's TCP port.
    const status = await bsk(["status"], { BSK_AUTO_START: "0" });
    expect(status.json?.result.daemon.pid).toBe(info.pid);
  });
});

describe("agents in a sandbox", () => {
  const bwrap = Bun.which("bwrap");
  test.skipIf(!bwrap)("the CLI in a bubblewrap sandbox without the socket's folder reaches the daemon over TCP", async () => {
    // The socket's folder is an empty tmpfs inside the sandbox; the home (link.key, daemon.json) is still readable.
    const sandbox = [bwrap!, "--dev-bind", "/", "/", "--perms", "0700", "--tmpfs", paths.runDir, "--"];
    const r = await bsk(["status"], { BSK_AUTO_START: "0" }, sandbox);
    expect(r.json?.ok).toBe(true);
    expect(r.json.result.daemon.pid).toBe(info.pid);
    // The socket really is out of reach there: told to use only it, the CLI finds no daemon.
    const unixOnly = await bsk(["status"], { BSK_AUTO_START: "0", BSK_TRANSPORT: "unix" }, sandbox);
    expect(unixOnly.json?.error).toMatchObject({ code: "unsupported", data: { reason: "daemon_not_running" } });
  });

  test.skipIf(!bwrap)("a sandboxed process that cannot read link.key gets nothing over TCP", async () => {
    const sandbox = [
      bwrap!,
      "--dev-bind",
      "/",
      "/",
      "--perms",
      "0700",
      "--tmpfs",
      paths.runDir,
      "--ro-bind",
      "/dev/null",
      paths.linkKey,
      "--",
    ];
    const r = await bsk(["status"], { BSK_AUTO_START: "0" }, sandbox);
    expect(r.json?.error).toMatchObject({ code: "permission_denied", data: { reason: "no_link_key" } });
    expect(r.json.error.hint).toContain("sandbox");
  });
});
