import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { homePaths } from "../../shared/home.ts";
import { acquireLock } from "../../daemon/lock.ts";
import { pidAlive, psState } from "../../shared/pid.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home() {
  const h = tempDir("bsk-lock-");
  homes.push(h);
  return homePaths(h);
}

async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

describe("daemon.lock", () => {
  test("is created exclusively with our pid and removed on release", async () => {
    const paths = home();
    const lock = await acquireLock(paths);
    expect(lock.kind).toBe("acquired");
    expect(readFileSync(paths.lock, "utf8").trim()).toBe(String(process.pid));
    if (lock.kind === "acquired") lock.release();
    expect(existsSync(paths.lock)).toBe(false);
  });

  test("a lock whose process is gone is taken over", async () => {
    const paths = home();
    writeFileSync(paths.lock, `${await deadPid()}\n`);
    const lock = await acquireLock(paths);
    expect(lock.kind).toBe("acquired");
    expect(readFileSync(paths.lock, "utf8").trim()).toBe(String(process.pid));
  });

  test("an old empty lock (a starter that died mid-write) is taken over", async () => {
    const paths = home();
    writeFileSync(paths.lock, "");
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(paths.lock, old, old);
    expect((await acquireLock(paths)).kind).toBe("acquired");
  });

  test("a live holder that never answers is an error, not a second daemon", async () => {
    const paths = home();
    const sleeper = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(paths.lock, `${sleeper.pid}\n`);
      await expect(acquireLock(paths, 100)).rejects.toThrow("does not answer");
      expect(readFileSync(paths.lock, "utf8").trim()).toBe(String(sleeper.pid));
    } finally {
      sleeper.kill();
    }
  });
});

describe("pidAlive", () => {
  test("tells running and exited processes apart", async () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(await deadPid())).toBe(false);
    expect(pidAlive(0)).toBe(false);
    expect(pidAlive(-5)).toBe(false);
  });

  test.if(process.platform === "linux")("counts a zombie (exited, not yet reaped) as gone", async () => {
    // The child exits after its parent has become `sleep`, which never reaps it.
    const parent = Bun.spawn(["sh", "-c", "sleep 0.2 & echo $!; exec sleep 5"], { stdout: "pipe" });
    try {
      const reader = parent.stdout.getReader();
      const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
      const deadline = Date.now() + 3000;
      while (!readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ") && Date.now() < deadline) await Bun.sleep(10);
      expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toContain(") Z ");
      expect(pidAlive(pid)).toBe(false);
      // macOS's way (no /proc: ps's state), run here with the same /bin/ps on the same zombie.
      expect(psState(pid)).toBe("Z");
      expect(pidAlive(pid, "darwin")).toBe(false);
      expect(pidAlive(process.pid, "darwin")).toBe(true);
    } finally {
      parent.kill();
    }
  });
});
