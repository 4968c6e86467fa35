/** The daemon's life with a real browser: auto-start, detachment, restart with re-adoption. */
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, daemonPid as pidOf } from "./daemon-process.ts";
import { BSK, until, useWorld, type World } from "./harness.ts";
import { runProcess } from "../run.ts";

let w: World;

useWorld({}, (world) => (w = world));

const daemonPid = () => pidOf(w.home);

test("with BSK_AUTO_START=0 and no daemon, commands fail naming `bsk daemon start`", async () => {
  const r = await w.bsk(["session", "list"], { env: { BSK_AUTO_START: "0", BSK_HOME: `${w.home}/nowhere` } });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("bsk daemon start");
});

test("a killed daemon is replaced by the next command, and the live session is re-adopted", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/echo-title/Before"), "--session", s]);
  const old = daemonPid();
  process.kill(old, "SIGKILL");
  await until("the old daemon to die", () => !alive(old));

  // Any command brings up a new daemon; the extension reconnects and reports its session.
  const title = await w.ok(["evaluate", "document.title", "--session", s, "--timeout", "20s"]);
  expect(title.value).toBe("Before");
  expect(daemonPid()).not.toBe(old);
  const list = (await w.ok(["session", "list"])).sessions;
  expect(list.find((x: any) => x.session_id === s)?.state).toBe("live");
  await w.ok(["session", "stop", s]);
});

test("a harness reading the CLI's output to EOF is not held by the auto-started daemon", async () => {
  await w.bsk(["daemon", "stop"]);
  // Like a harness: run through a shell, capture stdout and stderr through pipes, read both to EOF.
  const { stdout: out } = await runProcess(["sh", "-c", `"${BSK}" status --json`], { env: w.env });
  expect(JSON.parse(out).ok).toBe(true);
  const pid = daemonPid();
  expect(alive(pid)).toBe(true);
  // The daemon runs in its own session, so it is not in the harness's process group either.
  const sid = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3];
  expect(Number(sid)).toBe(pid);
});

test("a hostile working directory: neither the CLI nor the daemon it starts reads its bunfig.toml or .env", async () => {
  // A repo an agent works in: a Bun preload that would run inside bsk, and a .env pointing bsk at another home.
  const dir = mkdtempSync(join(tmpdir(), "bsk-hostile-cwd-"));
  const marker = join(dir, "preload-ran");
  writeFileSync(join(dir, "evil.js"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid));`);
  writeFileSync(join(dir, "bunfig.toml"), `preload = ["./evil.js"]\n[run]\npreload = ["./evil.js"]\n`);
  writeFileSync(join(dir, ".env"), `BSK_HOME=${join(dir, "home")}\nBSK_AUTO_START=0\n`);
  try {
    await w.bsk(["daemon", "stop"]);
    const inDir = async (args: string[]) => {
      const { stdout: out, stderr: err, code } = await runProcess([BSK, ...args], { cwd: dir, env: w.env });
      return { out, err, code };
    };
    expect((await inDir(["--version"])).code).toBe(0);
    // The daemon is started from here too (auto-start), and answers from the test's own home.
    const status = await inDir(["status", "--json"]);
    expect({ code: status.code, err: status.err }).toEqual({ code: 0, err: "" });
    const daemon = JSON.parse(status.out).result.daemon;
    expect(daemon.home).toBe(w.home);
    // Nor does the daemon keep that directory as its own.
    expect(readlinkSync(`/proc/${daemon.pid}/cwd`)).toBe(w.home);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(dir, "home"))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
