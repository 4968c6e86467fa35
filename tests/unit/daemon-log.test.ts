import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { openLog } from "../../daemon/log.ts";
import { tempDir } from "../temp.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("daemon log", () => {
  test("writes one JSON object per line with ts, level and msg, in a private file", () => {
    const dir = tempDir("bsk-log-");
    dirs.push(dir);
    const log = openLog(`${dir}/daemon.log`);
    log.info("call", { method: "system.status", timings: { daemon: 0.1 } });
    log.warn("careful", { error: new Error("boom") });
    log.close();
    const lines = readFileSync(`${dir}/daemon.log`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ level: "info", msg: "call", method: "system.status", timings: { daemon: 0.1 } });
    expect(Date.parse(lines[0].ts)).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({ level: "warn", error: { message: "boom" } });
    expect(statSync(`${dir}/daemon.log`).mode & 0o777).toBe(0o600);
  });

  test("rotates to daemon.log.1 past its size", () => {
    const dir = tempDir("bsk-log-");
    dirs.push(dir);
    const log = openLog(`${dir}/daemon.log`, { rotateBytes: 200 });
    for (let i = 0; i < 5; i++) log.info("x".repeat(50));
    log.flush();
    log.info("after");
    log.close();
    expect(existsSync(`${dir}/daemon.log.1`)).toBe(true);
    expect(readFileSync(`${dir}/daemon.log`, "utf8")).toContain('"msg":"after"');
  });
});
