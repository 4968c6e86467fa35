/**
 * No browser connected: session start says within a second what it waits for and how to fix it, and with --launch
 * (or config.json launch_browser) it starts the browser named by BSK_BROWSER_COMMAND (here a script that leaves a
 * mark) and carries on once that browser's extension links.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installedBrowsers, isRunning, runsIn, startBrowser } from "../../daemon/browser-launch.ts";
import { removeHome, startDaemon, tempHome, type TestDaemon } from "./harness.ts";

const daemons: TestDaemon[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    await d.stop();
    removeHome(d.home);
  }
  for (const dir of dirs.splice(0)) removeHome(dir);
});

/** A fresh folder, removed after the test. */
function dir(): string {
  const made = tempHome();
  dirs.push(made);
  return made;
}

/** A stand-in browser: starting it leaves `mark`. */
function fakeBrowser(dir: string): { command: string; mark: string } {
  const mark = join(dir, "launched");
  const command = join(dir, "fake-browser.sh");
  writeFileSync(command, `#!/bin/sh\n: > "${mark}"\n`);
  chmodSync(command, 0o755);
  return { command, mark };
}

function appears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const w = watch(join(path, ".."), () => {
      if (existsSync(path)) {
        w.close();
        resolve();
      }
    });
    if (existsSync(path)) {
      w.close();
      resolve();
    }
  });
}

describe("session start with no browser connected", () => {
  test("progress notes within a second say what is awaited and how to fix it; then no_browser_connected", async () => {
    const d = await startDaemon();
    daemons.push(d);
    const c = await d.client();
    const r = await c.request("session.start", { focus: false });
    expect(r.error?.code).toBe("no_browser_connected");
    const notes = c.unmatched
      .pending()
      .filter((f: any) => f.event === "call.progress")
      .map((f: any) => f.payload);
    expect(notes.length).toBeGreaterThanOrEqual(2);
    expect(notes[0]).toMatchObject({ unit: "ms", total: 3000, label: expect.stringContaining("bsk browser launch") });
    expect(notes[0].done).toBeLessThan(1000);
  });

  test("--launch starts the browser (BSK_BROWSER_COMMAND) and the session opens once its extension links", async () => {
    const fake = fakeBrowser(dir());
    const d = await startDaemon({ env: { BSK_BROWSER_COMMAND: fake.command, BSK_BROWSER_WAIT_MS: "20000" } });
    daemons.push(d);
    const c = await d.client();
    const pending = c.request("session.start", { focus: false, launch: true });
    await appears(fake.mark);
    const peer = await d.peer();
    await peer.handshake();
    const r = await pending;
    expect(r.error).toBeUndefined();
    expect([...peer.sessions.keys()]).toContain(r.result.session_id);
    const notes = c.unmatched
      .pending()
      .filter((f: any) => f.event === "call.progress")
      .map((f: any) => f.payload);
    for (const n of notes) expect(n.label).toContain("starting BSK_BROWSER_COMMAND");
  });

  test("config.json launch_browser: true launches without the flag; bsk browser launch starts it on demand", async () => {
    const home = dir();
    const fake = fakeBrowser(dir());
    writeFileSync(join(home, "config.json"), JSON.stringify({ launch_browser: true }));
    const d = await startDaemon({ home, env: { BSK_BROWSER_COMMAND: fake.command, BSK_BROWSER_WAIT_MS: "20000" } });
    daemons.push(d);
    const c = await d.client();
    const pending = c.request("session.start", { focus: false });
    await appears(fake.mark);
    const peer = await d.peer();
    await peer.handshake();
    expect((await pending).error).toBeUndefined();
    const launched = await c.call("browser.launch");
    expect(launched).toMatchObject({ launched: true, browser: "BSK_BROWSER_COMMAND", command: fake.command });
  });
});

describe("which browser, and whether it runs", () => {
  test("a server-mode daemon refuses to start a browser, whatever BSK_BROWSER_COMMAND says", () => {
    const fake = fakeBrowser(dir());
    const config = { server: {}, env: { BSK_BROWSER_COMMAND: fake.command } } as unknown as Parameters<typeof startBrowser>[0]["config"];
    expect(() => startBrowser({ config })).toThrow(/starts no browser/);
    expect(existsSync(fake.mark)).toBe(false);
  });

  test("BSK_BROWSER_COMMAND wins; none found is an empty list", () => {
    expect(installedBrowsers({ BSK_BROWSER_COMMAND: "/opt/b/chrome" })).toEqual([
      { name: "BSK_BROWSER_COMMAND", command: "/opt/b/chrome", processNames: [] },
    ]);
    expect(installedBrowsers({ PATH: dir() }, "linux")).toEqual([]);
  });

  test("macOS: /Applications first, then the person's ~/Applications; Chrome, Chromium, Edge and Brave", () => {
    const app = (dir: string, name: string) => `${dir}/${name}.app/Contents/MacOS/${name}`;
    const there = new Set([
      app("/Users/p/Applications", "Google Chrome"),
      app("/Applications", "Microsoft Edge"),
      app("/Users/p/Applications", "Microsoft Edge"),
      app("/Users/p/Applications", "Brave Browser"),
      app("/Applications", "Chromium"),
    ]);
    expect(installedBrowsers({ HOME: "/Users/p", PATH: "/usr/bin" }, "darwin", (p) => there.has(p))).toEqual([
      { name: "Google Chrome", command: app("/Users/p/Applications", "Google Chrome"), processNames: ["Google Chrome"] },
      { name: "Chromium", command: app("/Applications", "Chromium"), processNames: ["Chromium"] },
      { name: "Microsoft Edge", command: app("/Applications", "Microsoft Edge"), processNames: ["Microsoft Edge"] },
      { name: "Brave", command: app("/Users/p/Applications", "Brave Browser"), processNames: ["Brave Browser"] },
    ]);
    expect(installedBrowsers({ HOME: "/Users/p" }, "darwin", () => false)).toEqual([]);
    // Linux places are never looked at on macOS, nor macOS places on Linux.
    expect(installedBrowsers({ HOME: "/Users/p", PATH: "/usr/bin" }, "linux", (p) => there.has(p))).toEqual([]);
  });

  test("a browser process counts only when it is this user's", () => {
    // This test's own process stands in for the browser: its name is read from /proc like a browser's would be.
    const own = readFileSync("/proc/self/comm", "utf8").trim();
    const b = { name: "x", command: "x", processNames: [own] };
    expect(isRunning(b)).toBe(true);
    expect(isRunning(b, 4242)).toBe(false);
    expect(isRunning({ ...b, processNames: ["no-such-process-name"] })).toBe(false);
  });

  test("macOS: whether it runs comes from /bin/ps (no /proc), also only when it is this user's", () => {
    const chrome = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
    const b = { name: "Google Chrome", command: chrome, processNames: ["Google Chrome"] };
    const ps = [
      `  501 ${chrome}`,
      "  501 /Applications/Google Chrome.app/Contents/Frameworks/Google Chrome Framework.framework/Helpers/Google Chrome Helper.app/Contents/MacOS/Google Chrome Helper",
      "    0 /sbin/launchd",
    ].join("\n");
    expect(runsIn(ps, b, 501)).toBe(true);
    expect(runsIn(ps, b, 502)).toBe(false);
    expect(runsIn(ps.split("\n").slice(1).join("\n"), b, 501)).toBe(false); // a helper alone is not the browser
    // The real /bin/ps, asked the macOS way (procps answers it too): this test's own process stands in.
    const own = readFileSync("/proc/self/comm", "utf8").trim();
    const self = { name: "x", command: "x", processNames: [own] };
    expect(isRunning(self, process.getuid!(), "darwin")).toBe(true);
    expect(isRunning(self, 4242, "darwin")).toBe(false);
    expect(isRunning({ ...self, processNames: ["no-such-process-name"] }, process.getuid!(), "darwin")).toBe(false);
  });
});
