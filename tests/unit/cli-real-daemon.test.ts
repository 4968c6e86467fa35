/**
 * The source CLI auto-starting the real daemon (daemon/main.ts): three CLIs race, one daemon serves them all,
 * detached in its own session; daemon status/stop then manage it. Skipped until daemon/main.ts exists.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "../../shared/pid.ts";
import { freePort } from "../ports.ts";
import { tempDir } from "../temp.ts";
import { runProcess } from "../run.ts";

const MAIN = join(import.meta.dir, "../../cli/main.ts");
const hasDaemon = existsSync(join(import.meta.dir, "../../daemon/main.ts"));
const home = tempDir("bsk-cli-real-");
afterAll(() => rmSync(home, { recursive: true, force: true }));

function bsk(args: string[], env: Record<string, string>) {
  return runProcess([process.execPath, MAIN, ...args], { env });
}

test.skipIf(!hasDaemon)(
  "racing CLIs auto-start one detached daemon and all get answers; daemon stop ends it",
  async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), BSK_HOME: home, BSK_PORT: String(await freePort()) };
    delete env.BSK_AUTO_START;
    delete env.BSK_SESSION;
    const runs = await Promise.all([0, 1, 2].map(() => bsk(["session", "list", "--json"], env)));
    for (const r of runs) {
      expect(r).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, result: { sessions: [] } });
    }
    const { pid } = JSON.parse(readFileSync(join(home, "daemon.json"), "utf8"));
    expect(pidAlive(pid)).toBe(true);
    const sid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3]);
    expect(sid).toBe(pid);

    const status = await bsk(["daemon", "status", "--json"], env);
    expect(JSON.parse(status.stdout).result.daemon.pid).toBe(pid);
    const stop = await bsk(["daemon", "stop", "--json"], env);
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout).result).toMatchObject({ stopped: true, pid, killed: false });
    expect(pidAlive(pid)).toBe(false);
    expect((await bsk(["daemon", "status"], env)).code).toBe(1);
  },
  20_000,
);
