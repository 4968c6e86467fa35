/** `bsk doctor --fix`: each repair said before it is made, made in a temp HOME, and not made again once done. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { homePaths } from "../../shared/home.ts";
import { launcherPath, manifestPath } from "../../shared/native-host-register.ts";
import { HARNESSES } from "../../skill/harnesses.ts";
import { status } from "../../skill/install.ts";
import { fixSkill, nativeHostCheck } from "../../cli/commands/doctor-fix.ts";
import { doctor } from "../../cli/commands/doctor.ts";
import { fakeDaemon } from "./cli-fake-daemon.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function tempHome() {
  const home = tempDir("bsk-doctor-fix-");
  homes.push(home);
  const env = { HOME: home, PATH: "", BSK_HOME: `${home}/.bsk`, XDG_CONFIG_HOME: "" };
  return { home, env, paths: homePaths(`${home}/.bsk`, env) };
}

describe.skipIf(process.platform === "win32")("native host", () => {
  test("not registered: reported; --fix says it, then registers it for the browsers found; then nothing to fix", () => {
    const { home, env, paths } = tempHome();
    mkdirSync(`${home}/.config/chromium`, { recursive: true });
    const manifest = manifestPath(`${home}/.config/chromium`);

    expect(nativeHostCheck(paths, env, undefined)).toMatchObject({ status: "warn", detail: "not registered for chromium" });
    expect(existsSync(manifest)).toBe(false);

    const said: string[] = [];
    const fixed = nativeHostCheck(paths, env, (line) => {
      said.push(line);
      expect(existsSync(manifest)).toBe(false); // said before it is done
    });
    expect(said).toEqual(["fixing: registering the native messaging host for chromium (as bsk native install does)"]);
    // As bsk native install: Chromium and Chrome even before first use.
    expect(fixed.detail).toStartWith("registered for chromium");
    expect(fixed.detail).toEndWith("(fixed)");
    expect(fixed.status).toBeUndefined();
    expect(JSON.parse(readFileSync(manifest, "utf8")).path).toBe(launcherPath(paths));

    const again: string[] = [];
    expect(nativeHostCheck(paths, env, (l) => again.push(l))).toEqual({ value: true, detail: fixed.detail.replace(" (fixed)", "") });
    expect(again).toEqual([]);
  });

  test("a manifest of another home is not this home's registration; no browser found is a warning with a way out", () => {
    const { home, env, paths } = tempHome();
    expect(nativeHostCheck(paths, env, () => {})).toMatchObject({ status: "warn", hint: expect.stringContaining("--profile-dir") });
    mkdirSync(`${home}/.config/chromium/NativeMessagingHosts`, { recursive: true });
    Bun.write(manifestPath(`${home}/.config/chromium`), JSON.stringify({ path: "/elsewhere/bsk-native-host" }));
    expect(nativeHostCheck(paths, env, undefined)).toMatchObject({ status: "warn", detail: "not registered for chromium" });
  });
});

describe("skill", () => {
  test("--fix installs into a detected harness without it and updates an outdated copy; said before; never an edited one", () => {
    const { home, env } = tempHome();
    mkdirSync(`${home}/.claude`, { recursive: true });
    const claude = HARNESSES.find((h) => h.id === "claude-code")!;
    expect(status(claude, env).state).toBe("not_installed");
    const said: string[] = [];
    const fixed = fixSkill(env, (line) => {
      said.push(line);
      expect(status(claude, env).state).toBe("not_installed");
    });
    expect(said).toEqual(["fixing: installing the bsk skill into claude-code (as bsk install-skill does)"]);
    expect(fixed).toEqual(["claude-code"]);
    expect(status(claude, env).state).toBe("current");
    expect(fixSkill(env, () => said.push("again"))).toEqual([]);

    // Edited by hand: kept as the person left it (doctor keeps warning, with --force in its hint).
    const skill = `${status(claude, env).path}/SKILL.md`;
    Bun.write(skill, "my own notes\n");
    expect(fixSkill(env, () => said.push("edited"))).toEqual([]);
    expect(readFileSync(skill, "utf8")).toBe("my own notes\n");
    expect(said.length).toBe(1);
  });
});

describe("daemon", () => {
  const statusOf = (version: string, sessions: { session_id: string; state: string }[]) => ({
    result: {
      daemon: { pid: 1, version, protocol_version: "1.0", ws_port: 1, started_at: new Date().toISOString() },
      sessions,
      browsers: [],
    },
  });

  test("another version with live sessions is never restarted by --fix: it says why instead", async () => {
    const fake = fakeDaemon((f) =>
      f.method === "system.status"
        ? statusOf("0.0.1", [{ session_id: "s1", state: "active" }])
        : f.method === "browser.list"
          ? { result: { browsers: [] } }
          : null,
    );
    homes.push(fake.home);
    const said: string[] = [];
    const env = { HOME: fake.home, PATH: "", BSK_AUTO_START: "0", BSK_DOCTOR_BROWSER_WAIT_MS: "1" };
    try {
      const out = await doctor({ paths: fake.paths, env, params: { fix: true }, say: (l) => said.push(l) });
      const check = (out as unknown as { jsonBody: { checks: { name: string; status: string; hint?: string }[] } }).jsonBody.checks[0]!;
      expect(check).toMatchObject({ name: "daemon", status: "warn" });
      expect(check.hint).toContain("not restarted while 1 session(s) are live");
      expect(fake.frames.some((f) => f.method === "system.shutdown")).toBe(false);
      expect(said.filter((l) => l.includes("daemon"))).toEqual([]);
    } finally {
      fake.stop();
    }
  }, 20_000);
});
