/** `bsk doctor`: green through the real browser with every hop listed; red with a precise hint when a part is missing. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ensureSecret } from "../../daemon/trust/secret.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { homePaths } from "../../shared/home.ts";
import { Peer } from "../integration/peer.ts";
import { BSK, freePort, startWorld, TEST_DURATIONS, type Run, type World } from "./harness.ts";
import { tempDir } from "../temp.ts";
import { runProcess } from "../run.ts";

const HOPS = [
  "daemon",
  "browser",
  "protocol",
  "native host",
  "skill",
  "transport",
  "session_start",
  "navigate",
  "snapshot",
  "click",
  "verify",
  "session_stop",
];

let w: World;
const homes: string[] = [];

function tempHome(): string {
  const dir = tempDir("bsk-doctor-home-");
  homes.push(dir);
  return dir;
}

beforeAll(async () => {
  w = await startWorld();
}, 60_000);

afterAll(async () => {
  await w?.stop();
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return runProcess([BSK, ...args], { env });
}

describe("doctor in a working setup", () => {
  test("every hop passes, timed, from daemon to session stop", async () => {
    const home = tempHome();
    expect((await w.bsk(["install-skill", "--harness", "claude-code"], { env: { HOME: home } })).code).toBe(0);
    expect((await w.bsk(["native", "install"], { env: { HOME: home } })).code).toBe(0);
    const r = await w.bsk(["doctor", "--json"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(r.json.ok).toBe(true);
    expect(r.json.checks.map((c: any) => c.name)).toEqual(HOPS);
    for (const c of r.json.checks) {
      expect(c.status).toBe("ok");
      expect(typeof c.ms).toBe("number");
      expect(c.detail.length).toBeGreaterThan(0);
    }
    const byName = Object.fromEntries(r.json.checks.map((c: any) => [c.name, c]));
    expect(byName.browser.detail).toContain('"e2e"');
    expect(byName.snapshot.detail).toMatch(/^button @e\d+ among/);
    expect(byName.verify.detail).toContain("bsk doctor: clicked");
    // Its session is gone again.
    const { sessions } = await w.ok(["session", "list"]);
    expect(sessions.filter((s: any) => s.name === "bsk doctor" && s.state !== "ended")).toEqual([]);
  });

  test("a missing skill and an unregistered native host are warnings, not failures; the human form marks each line", async () => {
    const r = await w.bsk(["doctor"], { env: { HOME: tempHome() } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.find((l) => l.startsWith("! skill"))).toContain("not installed");
    expect(lines.find((l) => l.startsWith("! native host"))).toBeDefined();
    expect(lines.filter((l) => l.startsWith("✓ ")).map((l) => /^✓ (.+?) +\d+ ms/.exec(l)?.[1])).toEqual(
      HOPS.filter((h) => h !== "skill" && h !== "native host"),
    );
    expect(lines.at(-1)).toBe("all good (2 warning(s))");
    expect(r.stdout).toContain("hint: Install it where your agent reads skills: bsk install-skill");
  });
});

/** Its own home and port, no browser at all; doctor waits only 300 ms for one. */
async function browserlessWorld(): Promise<{ env: Record<string, string>; port: number }> {
  const home = tempHome();
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...TEST_DURATIONS,
    HOME: home,
    BSK_HOME: `${home}/.bsk`,
    BSK_PORT: String(port),
    BSK_DOCTOR_BROWSER_WAIT_MS: "300",
  };
  delete env.BSK_AUTO_START;
  return { env, port };
}

describe("doctor when something is missing", () => {
  test("no extension connected: the browser check fails fast with how to load it", async () => {
    const { env, port } = await browserlessWorld();
    try {
      const r = await run(["doctor", "--json"], env);
      expect(r.code).toBe(1);
      const json = r.json as any;
      expect(json.ok).toBe(false);
      expect(json.checks.map((c: any) => [c.name, c.status])).toEqual([
        ["daemon", "ok"],
        ["browser", "fail"],
        ["native host", "warn"],
        ["skill", "warn"],
        ["transport", "ok"],
      ]);
      const browser = json.checks[1];
      expect(browser.detail).toBe("no browser connected within 0.3 s");
      expect(browser.hint).toContain("chrome://extensions");
      expect(browser.hint).toContain("Load unpacked");
      expect(browser.hint).toContain(EXTENSION_ID);
      expect(browser.hint).toContain(`127.0.0.1:${port}`);

      const human = await run(["doctor"], env);
      expect(human.code).toBe(1);
      expect(human.stdout).toMatch(/^✗ browser +\d+ ms {2}no browser connected within 0\.3 s\n {2}hint: Load the bsk extension/m);
    } finally {
      await run(["daemon", "stop"], env);
    }
  });

  test("an extension the daemon turned away: the browser check says why and how to fix it", async () => {
    const { env, port } = await browserlessWorld();
    try {
      expect((await run(["daemon", "start"], env)).code).toBe(0);
      // An extension holding another install's secret (or none) cannot prove it and is refused.
      const stranger = await Peer.connect({ port });
      expect((await stranger.handshake()).error?.data?.reason).toBe("untrusted_extension");
      const untrusted = (await run(["doctor", "--json"], env)).json as any;
      expect(untrusted.checks[1]).toMatchObject({ name: "browser", status: "fail" });
      expect(untrusted.checks[1].detail).toContain("could not prove it holds this install's secret");
      expect(untrusted.checks[1].hint).toContain("bsk daemon pair");

      // An extension of another protocol major is refused once it has proven the secret (nothing about versions is
      // said before), and doctor says which side to update.
      const { secret } = homePaths(env.BSK_HOME!, env);
      const old = await Peer.connect({ port, protocolVersion: "1.0", secret: ensureSecret(secret, env.BSK_HOME!).bytes });
      expect((await old.handshake()).error?.code).toBe("version_too_old");
      const r = await run(["doctor", "--json"], env);
      expect(r.code).toBe(1);
      const browser = (r.json as any).checks[1];
      expect(browser.detail).toContain("extension protocol 1.0 cannot talk to daemon protocol");
      expect(browser.hint).toContain("Update the extension");
    } finally {
      await run(["daemon", "stop"], env);
    }
  });

  test("no daemon and automatic start off: the daemon check fails with bsk daemon start", async () => {
    const home = tempHome();
    const env = { ...(process.env as Record<string, string>), HOME: home, BSK_HOME: `${home}/.bsk`, BSK_AUTO_START: "0" };
    const r = await run(["doctor", "--json"], env);
    expect(r.code).toBe(1);
    const daemon = (r.json as any).checks[0];
    expect(daemon).toMatchObject({ name: "daemon", status: "fail", detail: "the bsk daemon is not running" });
    expect(daemon.hint).toContain("bsk daemon start");
  });
});
