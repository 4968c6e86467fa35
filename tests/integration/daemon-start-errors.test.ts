/**
 * A daemon the CLI starts in the background that cannot start (issue #10 item 15): the CLI prints the daemon's
 * own reason and hint (from daemon.start-error.json), not only its exit code.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, removeHome, ROOT, TEST_ENV, tempHome } from "./harness.ts";

const MAIN = join(ROOT, "cli/main.ts");
const homes: string[] = [];
afterAll(() => homes.forEach(removeHome));

async function sessionList(home: string, port: number) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...TEST_ENV, BSK_HOME: home, BSK_PORT: String(port) };
  delete env.BSK_AUTO_START;
  const proc = Bun.spawn([process.execPath, MAIN, "session", "list", "--json"], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, error: JSON.parse(stdout).error };
}

function home(): string {
  const h = tempHome();
  homes.push(h);
  return h;
}

describe("the CLI says why the daemon it started could not start", () => {
  test("port taken", async () => {
    const blocker = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const r = await sessionList(home(), blocker.port);
      expect(r.code).toBe(1);
      expect(r.error).toMatchObject({
        code: "unsupported",
        message: expect.stringContaining(
          `could not start the bsk daemon: port ${blocker.port} on 127.0.0.1 is already in use by pid ${process.pid} (`,
        ),
        hint: expect.stringMatching(/^Stop pid \d+, or pick another port with BSK_PORT .*More in .*daemon\.log/),
        data: { reason: "daemon_start_failed", daemon_error: { data: { reason: "port_in_use", port: blocker.port, pid: process.pid } } },
      });
    } finally {
      blocker.stop(true);
    }
  });

  test("a corrupt ledger key", async () => {
    const h = home();
    mkdirSync(join(h, "ledger"), { mode: 0o700 });
    writeFileSync(join(h, "ledger/key"), "not a key", { mode: 0o600 });
    const r = await sessionList(h, await freePort());
    expect(r.error).toMatchObject({
      code: "unsupported",
      message: `could not start the bsk daemon: the ledger key ${h}/ledger/key is not readable as 32 hex bytes`,
      hint: expect.stringContaining("Move it aside and restart the daemon"),
      data: { reason: "daemon_start_failed", daemon_error: { data: { reason: "ledger_unavailable" } } },
    });
  });

  test("a corrupt ledger segment", async () => {
    const h = home();
    // A segment that is not a readable file (a folder in its place).
    mkdirSync(join(h, "ledger/ops-000001.jsonl"), { recursive: true, mode: 0o700 });
    const r = await sessionList(h, await freePort());
    expect(r.error).toMatchObject({
      code: "unsupported",
      message: expect.stringContaining(`could not start the bsk daemon: the ledger segment ${h}/ledger/ops-000001.jsonl cannot be read`),
      hint: expect.stringContaining("Move it out of the ledger folder"),
      data: { reason: "daemon_start_failed", daemon_error: { data: { reason: "ledger_unavailable" } } },
    });
  });
});
