/**
 * `bsk daemon start | reader`, as an agent's harness runs it: the real CLI starts the real daemon detached, and the
 * reader sees EOF while the daemon still runs (the daemon holds none of its starter's stdio; were it to, this would
 * wait for the daemon's idle exit). The same step under Wine is in the windows-x64 lane.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { pidAlive } from "../../shared/pid.ts";
import { removeHome, ROOT, TEST_ENV, tempHome } from "./harness.ts";

test("bsk daemon start piped into a reader: EOF on both pipes while the daemon runs", async () => {
  const home = tempHome();
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, BSK_HOME: home, BSK_PORT: "0" };
  for (const name of ["BSK_SESSION", "BSK_OWNER_PID", "BSK_AUTO_START"]) delete env[name];
  const cli = (args: string) => `"${process.execPath}" "${join(ROOT, "cli/main.ts")}" ${args}`;
  let pid: number | undefined;
  try {
    const proc = Bun.spawn(["sh", "-c", `${cli("daemon start --json")} | cat`], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const started = JSON.parse(out).result;
    pid = started.pid as number;
    expect(started.already_running).toBe(false);
    expect(pidAlive(pid)).toBe(true);
  } finally {
    Bun.spawnSync(["sh", "-c", cli("daemon stop")], { cwd: ROOT, env });
    if (pid !== undefined && pidAlive(pid)) process.kill(pid, "SIGKILL");
    removeHome(home);
  }
});
