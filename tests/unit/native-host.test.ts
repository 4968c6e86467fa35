/** The native messaging host: Chrome's framing, who gets an answer, and the manifests bsk registers. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AllowList } from "../../shared/allow-list.ts";
import { homePaths } from "../../shared/home.ts";
import { answer, callerAllowed, decodeNativeMessage, encodeNativeMessage } from "../../daemon/native-host/host.ts";
import { watchDaemon } from "../../daemon/native-host/watch.ts";
import { HOST_NAME, launcherPath, manifestPath, registerNativeHost, unregisterNativeHost } from "../../shared/native-host-register.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { fromBase64url } from "../../protocol/trust.ts";
import { tempDir } from "../temp.ts";

function tmp(): string {
  return tempDir("bsk-native-");
}

describe("framing", () => {
  test("a 4-byte little-endian length, then JSON; partial input waits for the rest", () => {
    const bytes = encodeNativeMessage({ type: "get_secret" });
    expect(new DataView(bytes.buffer).getUint32(0, true)).toBe(bytes.length - 4);
    expect(decodeNativeMessage(bytes.subarray(0, 3))).toBeUndefined();
    expect(decodeNativeMessage(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(decodeNativeMessage(bytes)?.value).toEqual({ type: "get_secret" });
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setUint32(0, 1 << 30, true);
    expect(() => decodeNativeMessage(huge)).toThrow("too large");
  });
});

describe("answers", () => {
  test("only our extension ids are callers", () => {
    const home = tmp();
    try {
      const allow = new AllowList(join(home, "config.json"));
      expect(callerAllowed(`chrome-extension://${EXTENSION_ID}/`, allow)).toBe(true);
      expect(callerAllowed(`chrome-extension://${"a".repeat(32)}/`, allow)).toBe(false);
      expect(callerAllowed(undefined, allow)).toBe(false);
      expect(callerAllowed("https://evil.example/", allow)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("get_secret makes the home's secret once and returns it; unknown requests are refused", () => {
    const home = tmp();
    try {
      const paths = homePaths(home);
      const a = answer({ type: "get_secret" }, paths);
      expect(a.ok).toBe(true);
      expect(fromBase64url(a.secret)?.length).toBe(32);
      expect(answer({ type: "get_secret" }, paths).secret).toBe(a.secret);
      expect(readFileSync(paths.secret, "utf8").trim()).toBe(a.secret as string);
      expect(answer({ type: "other" }, paths).ok).toBe(false);
      expect(answer(null, paths).ok).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("doorbell (watch_daemon)", () => {
  /** Runs the watch with a recording writer; `next()` resolves at the next message it writes. */
  function watching(home: string) {
    const got: unknown[] = [];
    let wake: () => void = () => {};
    let close: () => void = () => {};
    const closed = new Promise<void>((r) => (close = r));
    const write = async (v: unknown) => {
      got.push(v);
      wake();
    };
    const next = () => new Promise<void>((r) => (wake = r));
    /** The first message, set up before the watch starts (a daemon already there rings at once). */
    const first = next();
    const done = watchDaemon(homePaths(home), write, closed);
    return { got, next, first, close, done };
  }
  const daemonJson = (home: string, pid: number) => {
    writeFileSync(join(home, ".daemon.json.x.tmp"), JSON.stringify({ pid }));
    renameSync(join(home, ".daemon.json.x.tmp"), join(home, "daemon.json"));
  };

  test("rings when a daemon writes daemon.json, again for the next daemon, and ends when the port closes", async () => {
    const home = tmp();
    try {
      const w = watching(home);
      let rang = w.next();
      daemonJson(home, 1);
      await rang;
      expect(w.got).toEqual([{ type: "daemon_up" }]);
      unlinkSync(join(home, "daemon.json"));
      rang = w.next();
      daemonJson(home, 2);
      await rang;
      expect(w.got).toEqual([{ type: "daemon_up" }, { type: "daemon_up" }]);
      w.close();
      expect(await w.done).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a daemon already there rings at once; other files in the home never ring", async () => {
    const home = tmp();
    try {
      daemonJson(home, 1);
      const w = watching(home);
      await w.first;
      writeFileSync(join(home, "daemon.json.bak"), "{}");
      writeFileSync(join(home, "trust.key"), "x");
      // The watch has seen those writes once a later daemon.json rings; only that one counts.
      const rang = w.next();
      daemonJson(home, 2);
      await rang;
      expect(w.got).toEqual([{ type: "daemon_up" }, { type: "daemon_up" }]);
      w.close();
      await w.done;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a caller that is not our extension gets no watch: refused and the host exits", async () => {
    const home = tmp();
    try {
      const host = Bun.spawn(
        [process.execPath, join(import.meta.dir, "../../cli/main.ts"), "native-host", `chrome-extension://${"a".repeat(32)}/`],
        {
          env: { ...process.env, BSK_HOME: home },
          stdin: "pipe",
          stdout: "pipe",
          stderr: "ignore",
        },
      );
      host.stdin.write(encodeNativeMessage({ type: "watch_daemon" }));
      await host.stdin.flush();
      const out = new Uint8Array(await new Response(host.stdout).arrayBuffer());
      expect(await host.exited).toBe(1);
      expect(decodeNativeMessage(out)?.value).toMatchObject({ ok: false, error: "this extension may not ask bsk for its secret" });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("registration", () => {
  test("a profile directory gets a manifest naming a launcher that fixes BSK_HOME; uninstall removes it", () => {
    const home = tmp();
    const fakeHome = tmp();
    try {
      const paths = homePaths(home);
      const profile = join(fakeHome, "profile");
      const done = registerNativeHost({ paths, mode: "explicit", explicitRoots: [profile], env: { HOME: fakeHome } });
      // --profile-dir alone: the default browser directories are left alone.
      expect(done.map((r) => r.manifest)).toEqual([manifestPath(profile)]);
      const manifest = JSON.parse(readFileSync(manifestPath(profile), "utf8"));
      expect(manifest).toMatchObject({
        name: HOST_NAME,
        type: "stdio",
        path: launcherPath(paths),
        allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
      });
      const launcher = readFileSync(launcherPath(paths), "utf8");
      expect(launcher.startsWith("#!/bin/sh\n")).toBe(true);
      expect(launcher).toContain(`BSK_HOME='${home}' exec `);
      expect(launcher).toContain(' native-host "$@"');
      expect(statSync(launcherPath(paths)).mode & 0o777).toBe(0o700);
      expect(registerNativeHost({ paths, mode: "explicit", explicitRoots: [profile], env: { HOME: fakeHome } })[0]!.state).toBe("kept");

      expect(unregisterNativeHost({ paths, explicitRoots: [profile], env: { HOME: fakeHome } })).toEqual([manifestPath(profile)]);
      expect(existsSync(manifestPath(profile))).toBe(false);
      expect(existsSync(launcherPath(paths))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(fakeHome, { recursive: true, force: true });
    }
  });

  test("auto (daemon start): only browsers whose directory exists, never over another live bsk home's manifest", () => {
    const home = tmp();
    const otherHome = tmp();
    const fakeHome = tmp();
    try {
      const env = { HOME: fakeHome, XDG_CONFIG_HOME: join(fakeHome, ".config") };
      const chromium = join(fakeHome, ".config/chromium");
      const chrome = join(fakeHome, ".config/google-chrome");
      mkdirSync(chromium, { recursive: true });
      mkdirSync(chrome, { recursive: true });
      // Chrome is already registered by another bsk home whose launcher exists.
      registerNativeHost({ paths: homePaths(otherHome), mode: "explicit", explicitRoots: [chrome], env });
      const done = registerNativeHost({ paths: homePaths(home), mode: "auto", env });
      expect(done.find((r) => r.browser === "chromium")?.state).toBe("written");
      expect(done.find((r) => r.browser === "chrome")?.state).toBe("skipped");
      expect(done.some((r) => r.browser === "brave")).toBe(false);
      expect(JSON.parse(readFileSync(manifestPath(chrome), "utf8")).path).toBe(launcherPath(homePaths(otherHome)));
      // A stale manifest (its launcher is gone) is taken over.
      rmSync(launcherPath(homePaths(otherHome)));
      expect(registerNativeHost({ paths: homePaths(home), mode: "auto", env }).find((r) => r.browser === "chrome")?.state).toBe("written");
      // explicit install takes over whatever is there
      writeFileSync(manifestPath(chromium), JSON.stringify({ path: "/bin/true" }));
      expect(registerNativeHost({ paths: homePaths(home), mode: "explicit", env }).find((r) => r.browser === "chromium")?.state).toBe(
        "written",
      );
    } finally {
      for (const d of [home, otherHome, fakeHome]) rmSync(d, { recursive: true, force: true });
    }
  });
  test("Snap and Flatpak browsers: registered when their profile root exists, never created; uninstall removes them", () => {
    const home = tmp();
    const fakeHome = tmp();
    try {
      const env = { HOME: fakeHome, XDG_CONFIG_HOME: join(fakeHome, ".config") };
      const snapChromium = join(fakeHome, "snap/chromium/common/chromium");
      const flatChrome = join(fakeHome, ".var/app/com.google.Chrome/config/google-chrome");
      const flatBrave = join(fakeHome, ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser");
      const flatEdge = join(fakeHome, ".var/app/com.microsoft.Edge/config/microsoft-edge");
      const flatChromium = join(fakeHome, ".var/app/org.chromium.Chromium/config/chromium");
      for (const d of [snapChromium, flatChrome, flatBrave]) mkdirSync(d, { recursive: true });
      // Edge's Flatpak is installed but never started: its app folder exists, its profile root does not.
      mkdirSync(join(fakeHome, ".var/app/com.microsoft.Edge"), { recursive: true });

      for (const mode of ["auto", "explicit"] as const) {
        const done = registerNativeHost({ paths: homePaths(home), mode, env });
        const sandboxed = done.filter((r) => r.sandbox).map((r) => [r.browser, r.manifest, r.sandbox]);
        expect(sandboxed).toEqual([
          ["chromium-snap", manifestPath(snapChromium), "snap"],
          ["chrome-flatpak", manifestPath(flatChrome), "flatpak"],
          ["brave-flatpak", manifestPath(flatBrave), "flatpak"],
        ]);
        for (const r of done.filter((r) => r.sandbox)) expect(r.note).toContain("bsk daemon pair");
        expect(existsSync(flatEdge)).toBe(false);
        expect(existsSync(flatChromium)).toBe(false);
        expect(existsSync(join(fakeHome, "snap/chromium/common/chromium/NativeMessagingHosts"))).toBe(true);
      }
      const manifest = JSON.parse(readFileSync(manifestPath(flatChrome), "utf8"));
      expect(manifest).toMatchObject({ name: HOST_NAME, path: launcherPath(homePaths(home)) });

      const removed = unregisterNativeHost({ paths: homePaths(home), env });
      for (const d of [snapChromium, flatChrome, flatBrave]) expect(removed).toContain(manifestPath(d));
      for (const d of [snapChromium, flatChrome, flatBrave]) expect(existsSync(manifestPath(d))).toBe(false);
    } finally {
      for (const d of [home, fakeHome]) rmSync(d, { recursive: true, force: true });
    }
  });

  test("macOS: Chrome, Chromium, Edge and Brave under ~/Library/Application Support; uninstall removes them", () => {
    const home = tmp();
    const fakeHome = tmp();
    try {
      const env = { HOME: fakeHome, XDG_CONFIG_HOME: join(fakeHome, ".config") };
      const base = join(fakeHome, "Library/Application Support");
      const roots = {
        chromium: join(base, "Chromium"),
        chrome: join(base, "Google/Chrome"),
        edge: join(base, "Microsoft Edge"),
        brave: join(base, "BraveSoftware/Brave-Browser"),
      };
      mkdirSync(roots.edge, { recursive: true });
      mkdirSync(roots.brave, { recursive: true });
      const done = registerNativeHost({ paths: homePaths(home), mode: "explicit", env, platform: "darwin" });
      // Chrome and Chromium even before their first start; Edge and Brave because they are there.
      expect(done.map((r) => [r.browser, r.manifest, r.state])).toEqual([
        ["chromium", manifestPath(roots.chromium), "written"],
        ["chrome", manifestPath(roots.chrome), "written"],
        ["brave", manifestPath(roots.brave), "written"],
        ["edge", manifestPath(roots.edge), "written"],
      ]);
      for (const dir of Object.values(roots)) {
        expect(JSON.parse(readFileSync(manifestPath(dir), "utf8"))).toMatchObject({ name: HOST_NAME, path: launcherPath(homePaths(home)) });
      }
      expect(existsSync(join(fakeHome, ".config"))).toBe(false);
      const removed = unregisterNativeHost({ paths: homePaths(home), env, platform: "darwin" });
      expect(removed.sort()).toEqual(Object.values(roots).map(manifestPath).sort());
      for (const dir of Object.values(roots)) expect(existsSync(manifestPath(dir))).toBe(false);
    } finally {
      for (const d of [home, fakeHome]) rmSync(d, { recursive: true, force: true });
    }
  });
});
