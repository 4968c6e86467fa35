/**
 * A background daemon runs without JavaScriptCore's JIT (cli/autostart.ts daemonEnv): against the compiled dist/bsk,
 * the daemon `bsk daemon start` leaves running has BUN_JSC_useJIT=0 in its environment, says so in its log, and after
 * a thousand calls holds no compiled code (no anonymous pages in an executable mapping); with BSK_DAEMON_JIT=1 it
 * compiles, which shows the probe sees JIT code where there is some. Without the JIT it reads no peer credentials
 * (bun:ffi needs the JIT), and its log says so. Linux: it reads /proc.
 */
import { expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { homePaths, type DaemonInfo } from "../../shared/home.ts";
import { runProcess } from "../run.ts";
import { compiledCodeBytes } from "../proc-memory.ts";
import { tempDir } from "../temp.ts";
import { ROOT, TEST_ENV } from "./harness.ts";
import { IpcClient } from "./ipc-client.ts";

const BSK = join(ROOT, "dist/bsk");

for (const [how, extra, jit] of [
  ["by default", {}, false],
  ["with BSK_DAEMON_JIT=1", { BSK_DAEMON_JIT: "1" }, true],
] as const) {
  test(`a background daemon started ${how} runs ${jit ? "with" : "without"} the JIT: its environment, its log, its code`, async () => {
    const home = tempDir("bsk-jit-");
    const { BUN_JSC_useJIT: _, ...outer } = process.env as Record<string, string>;
    const env: Record<string, string> = { ...outer, ...TEST_ENV, BSK_HOME: home, BSK_PORT: "0", ...extra };
    const paths = homePaths(home, env);
    try {
      const started = await runProcess([BSK, "daemon", "start", "--json"], { env });
      expect(started.json?.ok).toBe(true);
      const info: DaemonInfo = JSON.parse(readFileSync(paths.daemonJson, "utf8"));
      const environ = readFileSync(`/proc/${info.pid}/environ`, "utf8").split("\0");
      expect(environ.includes("BUN_JSC_useJIT=0")).toBe(!jit);
      const c = await IpcClient.connect(paths);
      try {
        for (let i = 0; i < 1_000; i++) expect((await c.call("system.status")).daemon.pid).toBe(info.pid);
      } finally {
        c.close();
      }
      // Read after the calls: the log is written off the path of the first ones.
      const lines = readFileSync(paths.log, "utf8").split("\n");
      const startLine = lines
        .filter((l) => l.includes('"daemon started"'))
        .map((l) => JSON.parse(l))
        .at(-1);
      expect(startLine).toMatchObject({ pid: info.pid, jit });
      // bun:ffi, which reads the peer's uid, needs the JIT: without it the log says the peer check is not there.
      const peerLine = lines.find((l) => l.includes("peer credentials unavailable"));
      if (jit) expect(peerLine).toBeUndefined();
      else expect(JSON.parse(peerLine!)).toMatchObject({ why: "this daemon runs without the JIT, which bun:ffi needs" });
      if (jit) expect(compiledCodeBytes(info.pid)).toBeGreaterThan(0);
      else expect(compiledCodeBytes(info.pid)).toBe(0);
    } finally {
      await runProcess([BSK, "daemon", "stop", "--json"], { env });
      rmSync(home, { recursive: true, force: true });
    }
  });
}
