/**
 * Another local user posing as the daemon (issue #10 item 4). With a deep $BSK_HOME the socket lives in a per-user
 * folder outside it; a second user who creates that folder first and listens in it, or whose folder
 * XDG_RUNTIME_DIR names, gets nothing: the CLI refuses before it sends a byte, the daemon refuses to listen there,
 * and a connection from another uid that reaches the daemon is refused by its peer credentials.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homePaths } from "../../shared/home.ts";
import { runDaemon } from "../../daemon/main.ts";
import { localAttacker, sharedFolder } from "../local-attacker.ts";

const { attacker, skipReason } = localAttacker();
import { freePort, removeHome, ROOT, startDaemon, TEST_ENV } from "./harness.ts";

const MAIN = join(ROOT, "cli/main.ts");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A $BSK_HOME too deep for a socket path, so the socket goes outside it. */
function deepHome(): string {
  const base = mkdtempSync("/tmp/bsk-deep-");
  made.push(base);
  const home = join(base, "a-home-whose-path-is-much-longer-than-any-unix-socket-path-may-be-on-linux-or-macos");
  mkdirSync(home, { mode: 0o700 });
  return home;
}

function shared(): string {
  const dir = sharedFolder(true);
  made.push(dir);
  return dir;
}

/** Scripts the attacker runs: a folder both users can read. */
function scriptDir(): string {
  const dir = mkdtempSync("/tmp/bsk-sock-scripts-");
  chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

/**
 * As the attacker: make `dir` (0700, theirs) and listen on `socket` in it, logging every connection and byte to
 * `log` and answering any request as a daemon with pid 4242 would. Resolves once it listens.
 */
async function impostor(dir: string, socket: string): Promise<{ log: string; stop(): void }> {
  const scripts = scriptDir();
  const log = join(dir, "received.log");
  const script = join(scripts, "impostor.ts");
  writeFileSync(
    script,
    `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
const [dir, socket, log] = process.argv.slice(2);
mkdirSync(dir, { recursive: true, mode: 0o700 });
writeFileSync(log, "");
Bun.listen({ unix: socket, socket: {
  open() { appendFileSync(log, "connection\\n"); },
  data(s, chunk) {
    appendFileSync(log, chunk.toString());
    const id = JSON.parse(chunk.toString().split("\\n")[0]).id;
    s.write(JSON.stringify({ id, result: { daemon: { pid: 4242, socket, ws_port: 1, version: "0.1.0" }, browsers: [], sessions: [] } }) + "\\n");
  },
} });
console.log("listening");
`,
    { mode: 0o644 },
  );
  return { log, stop: await listenAsAttacker(script, [dir, socket, log]) };
}

/** Runs `script` as the attacker; resolves once it says it listens, with the way to stop it. */
async function listenAsAttacker(script: string, args: string[]): Promise<() => void> {
  const proc = Bun.spawn(["runuser", "-u", attacker!.name, "--", process.execPath, script, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  if (!first.includes("listening")) throw new Error(`the impostor did not start: ${first}`);
  return () => proc.kill();
}

async function bsk(args: string[], env: Record<string, string | undefined>) {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...TEST_ENV, BSK_PORT: String(await freePort()), ...env }))
    if (v !== undefined) full[k] = v;
  const proc = Bun.spawn([process.execPath, MAIN, ...args, "--json"], { env: full, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { stdout, code, json: JSON.parse(stdout) };
}

describe.skipIf(!attacker)("another local user posing as the daemon", () => {
  if (skipReason) test.skip(`skipped: ${skipReason}`, () => {});

  test("a deep home's socket lives in a 0700 folder of the daemon's own, created by it", async () => {
    const tmp = shared();
    const home = deepHome();
    const d = await startDaemon({ home, env: { TMPDIR: tmp, XDG_RUNTIME_DIR: "" } });
    try {
      expect(d.paths.runDir).toBe(join(tmp, `bsk-${process.getuid!()}`));
      expect(d.info.socket.startsWith(`${d.paths.runDir}/`)).toBe(true);
      const st = statSync(d.paths.runDir);
      expect({ uid: st.uid, mode: st.mode & 0o7777 }).toEqual({ uid: process.getuid!(), mode: 0o700 });
      const status = await bsk(["daemon", "status"], { BSK_HOME: home, TMPDIR: tmp, XDG_RUNTIME_DIR: undefined });
      expect(status.json.result.daemon.pid).toBe(process.pid);
    } finally {
      await d.stop();
    }
  });

  test("a folder planted by another user: the CLI refuses it, sends nothing, and never reports the impostor's pid", async () => {
    const tmp = shared();
    const home = deepHome();
    const paths = homePaths(home, { TMPDIR: tmp });
    const fake = await impostor(paths.runDir, paths.socket);
    try {
      const env = { BSK_HOME: home, TMPDIR: tmp, XDG_RUNTIME_DIR: undefined };
      for (const args of [
        ["daemon", "status"],
        ["session", "list"],
        ["type", "hunter2", "--session", "s-x"],
      ]) {
        const r = await bsk(args, env);
        expect(r.code).toBe(1);
        expect(r.json.error).toMatchObject({
          code: "permission_denied",
          message: expect.stringContaining(`belongs to uid ${attacker!.uid}, not to you`),
          data: { reason: "untrusted_socket", path: paths.runDir },
        });
        expect(r.json.error.hint).toContain("posing as the bsk daemon");
        expect(r.stdout).not.toContain("4242");
      }
      expect(readFileSync(fake.log, "utf8")).toBe("");
      // The auto-start did not leave a daemon behind either.
      expect(existsSync(join(home, "daemon.json"))).toBe(false);
    } finally {
      fake.stop();
    }
  });

  test("XDG_RUNTIME_DIR naming another user's folder is refused the same way", async () => {
    const xdg = shared();
    const home = deepHome();
    const paths = homePaths(home, { XDG_RUNTIME_DIR: xdg });
    expect(paths.runDir).toBe(join(xdg, "bsk"));
    const fake = await impostor(paths.runDir, paths.socket);
    try {
      const r = await bsk(["daemon", "status"], { BSK_HOME: home, XDG_RUNTIME_DIR: xdg });
      expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "untrusted_socket" } });
      expect(readFileSync(fake.log, "utf8")).toBe("");
    } finally {
      fake.stop();
    }
  });

  test("the daemon will not listen in a folder another user planted, and leaves no lock or port behind", async () => {
    const tmp = shared();
    const home = deepHome();
    const paths = homePaths(home, { TMPDIR: tmp });
    attacker!.run(["mkdir", "-m", "0755", paths.runDir]);
    const port = await freePort();
    await expect(runDaemon({ home, port, env: { ...TEST_ENV, TMPDIR: tmp } })).rejects.toMatchObject({
      code: "permission_denied",
      data: { reason: "untrusted_socket", path: paths.runDir },
    });
    expect(existsSync(paths.lock)).toBe(false);
    expect(existsSync(paths.socket)).toBe(false);
    const probe = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    probe.stop(true);
  });

  test("a connection from another uid that reaches the daemon is refused; the daemon's own user is served", async () => {
    const d = await startDaemon();
    try {
      // As if the person had opened the folder and socket to everyone: the peer check still holds.
      chmodSync(d.home, 0o711);
      chmodSync(d.paths.runDir, 0o755);
      chmodSync(d.paths.socket, 0o666);
      const script = join(scriptDir(), "client.ts");
      writeFileSync(
        script,
        `const sock = await Bun.connect({ unix: process.argv[2], socket: {
  data(_s, chunk) { process.stdout.write(chunk.toString()); process.exit(0); },
  close() { console.log("closed"); process.exit(0); },
} });
sock.write(JSON.stringify({ id: "x1", method: "session.start", params: { name: "from another user" } }) + "\\n");
`,
        { mode: 0o644 },
      );
      // Not attacker.run: its spawnSync would block this process, which is also the daemon's.
      const proc = Bun.spawn(["runuser", "-u", attacker!.name, "--", process.execPath, script, d.paths.socket], {
        stdin: "ignore",
        stdout: "pipe",
      });
      const line = (await new Response(proc.stdout).text()).trim();
      expect(JSON.parse(line)).toMatchObject({
        id: null,
        error: {
          code: "permission_denied",
          message: expect.stringContaining(`you are uid ${attacker!.uid}`),
          data: { reason: "foreign_peer" },
        },
      });
      const c = await d.client();
      expect((await c.call("session.list")).sessions).toEqual([]);
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });
  /**
   * As the attacker: a home of theirs with a link key and a daemon.json naming their loopback TCP listener, which logs
   * every connection and byte. Resolves once it listens.
   */
  async function tcpImpostor(home: string): Promise<{ log: string; stop(): void }> {
    const scripts = scriptDir();
    const log = join(scripts, "received.log");
    writeFileSync(log, "", { mode: 0o666 });
    chmodSync(log, 0o666);
    const script = join(scripts, "tcp-impostor.ts");
    writeFileSync(
      script,
      `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
const [home, log] = process.argv.slice(2);
mkdirSync(home, { mode: 0o755 });
const key = crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url", omitPadding: true });
writeFileSync(home + "/link.key", key + "\\n", { mode: 0o644 });
const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: {
  open() { appendFileSync(log, "connection\\n"); },
  data(_s, chunk) { appendFileSync(log, chunk.toString()); },
} });
writeFileSync(home + "/daemon.json", JSON.stringify({ pid: 4242, cli_port: server.port, ws_port: 1, version: "0.1.0" }), { mode: 0o644 });
console.log("listening");
`,
      { mode: 0o644 },
    );
    return { log, stop: await listenAsAttacker(script, [home, log]) };
  }

  test("a home another user made, with a key and a TCP port of theirs: the CLI refuses it and connects to nothing", async () => {
    const home = join(shared(), "home");
    const fake = await tcpImpostor(home);
    try {
      expect(statSync(join(home, "link.key")).uid).toBe(attacker!.uid);
      // The TCP port asked for, and the fallback when no socket answers: both refuse before connecting.
      for (const transport of ["tcp", "auto"]) {
        for (const args of [
          ["session", "list"],
          ["type", "hunter2", "--session", "s-x"],
        ]) {
          const r = await bsk(args, { BSK_HOME: home, BSK_TRANSPORT: transport, BSK_AUTO_START: "0" });
          expect(r.code, `${transport} ${args[0]}`).toBe(1);
          expect(r.json.error).toMatchObject({
            code: "permission_denied",
            message: expect.stringContaining(`belongs to uid ${attacker!.uid}, not to you`),
            data: { reason: "untrusted_home", path: home },
          });
          expect(r.json.error.hint).toContain("posing as the bsk daemon");
        }
      }
      expect(readFileSync(fake.log, "utf8")).toBe("");
    } finally {
      fake.stop();
    }
  });

  test("a home of one's own whose key or daemon.json another user could change is refused on the TCP port", async () => {
    const d = await startDaemon();
    try {
      const env = { BSK_HOME: d.home, BSK_TRANSPORT: "tcp" };
      expect((await bsk(["daemon", "status"], env)).json.result.daemon.pid).toBe(process.pid);
      for (const [path, mode, reason] of [
        [d.home, 0o777, "is open to other users"],
        [join(d.home, "link.key"), 0o644, "is not yours alone to read"],
        [d.paths.daemonJson, 0o666, "is not yours alone to change"],
      ] as const) {
        const before = statSync(path).mode & 0o777;
        chmodSync(path, mode);
        try {
          const r = await bsk(["daemon", "status"], env);
          expect(r.json.error, path).toMatchObject({
            code: "permission_denied",
            message: expect.stringContaining(reason),
            data: { reason: "untrusted_home", path },
          });
        } finally {
          chmodSync(path, before);
        }
      }
      expect((await bsk(["daemon", "status"], env)).json.result.daemon.pid).toBe(process.pid);
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });
});
