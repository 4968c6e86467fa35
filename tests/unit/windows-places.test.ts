/**
 * Windows places, with the platform injected: the home under %LOCALAPPDATA%\bsk with one kind of separator, the
 * daemon's named pipe (one per home, case ignored), no socket folder to prepare or check for a pipe, and a failed
 * listen said as what it is, and where Chrome, Chromium, Edge and Brave install. The run under Wine itself is the windows-x64 lane (scripts/platform/windows-x64.ts).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tempDir } from "../temp.ts";
import { join } from "node:path";
import { installedBrowsers, windowsCandidates } from "../../daemon/browser-launch.ts";
import { listenFailed } from "../../daemon/ipc-server.ts";
import { removeTree } from "../../shared/fs-util.ts";
import { bskHome, homePaths, isPipe, pipeName, winPath } from "../../shared/home.ts";
import { checkSocket } from "../../shared/socket-check.ts";
import { prepareSocketDir } from "../../shared/socket-dir.ts";

const WIN = "win32" as const;

describe("the home on Windows", () => {
  test("defaults to %LOCALAPPDATA%\\bsk, else the profile's AppData\\Local", () => {
    expect(bskHome({ LOCALAPPDATA: "C:\\Users\\ann\\AppData\\Local", HOME: "/home/ann" }, WIN)).toBe("C:\\Users\\ann\\AppData\\Local\\bsk");
    expect(bskHome({ USERPROFILE: "C:\\Users\\ann" }, WIN)).toBe("C:\\Users\\ann\\AppData\\Local\\bsk");
    expect(bskHome({ LOCALAPPDATA: "C:\\Users\\ann\\AppData\\Local\\" }, WIN)).toBe("C:\\Users\\ann\\AppData\\Local\\bsk");
  });

  test("BSK_HOME is taken with one kind of separator and no trailing one; a drive's root stays whole", () => {
    expect(bskHome({ BSK_HOME: "C:/Users/ann/bsk-home/" }, WIN)).toBe("C:\\Users\\ann\\bsk-home");
    expect(bskHome({ BSK_HOME: "D:\\" }, WIN)).toBe("D:\\");
    expect(winPath("C:/x\\y//")).toBe("C:\\x\\y");
  });

  test("every path in the home uses backslashes; the socket is the home's named pipe", () => {
    const home = "C:\\Users\\ann\\AppData\\Local\\bsk";
    const paths = homePaths(home, {}, WIN);
    expect(paths.log).toBe(`${home}\\logs\\daemon.log`);
    expect(paths.sessions).toBe(`${home}\\state\\sessions.json`);
    for (const [name, path] of Object.entries(paths)) if (name !== "socket") expect(path).not.toContain("/");
    expect(paths.socket).toBe(pipeName(home));
    expect(paths.runDir).toBe(home);
    expect(paths.socket).toMatch(/^\\\\\.\\pipe\\bsk-[0-9a-f]{16}$/);
  });

  test("one pipe per home: case and separators do not make another one; another home does", () => {
    expect(pipeName("C:\\Users\\Ann\\AppData\\Local\\bsk")).toBe(pipeName("c:/users/ann/appdata/local/bsk"));
    expect(pipeName("C:\\Users\\ann\\bsk")).not.toBe(pipeName("C:\\Users\\bob\\bsk"));
    expect(isPipe(pipeName("C:\\x"))).toBe(true);
    expect(isPipe("/home/ann/.bsk/run/daemon.sock")).toBe(false);
  });

  test("Linux and macOS keep their socket and separators", () => {
    const paths = homePaths("/home/ann/.bsk", {}, "linux");
    expect(paths.socket).toBe("/home/ann/.bsk/run/daemon.sock");
    expect(paths.log).toBe("/home/ann/.bsk/logs/daemon.log");
    expect(bskHome({ HOME: "/Users/ann", LOCALAPPDATA: "C:\\x" }, "darwin")).toBe("/Users/ann/.bsk");
  });
});

describe("a pipe has no folder", () => {
  test("the daemon prepares no socket folder and the CLI checks none for a pipe", () => {
    const home = tempDir("bsk-win-home-");
    try {
      const paths = { ...homePaths(home, {}), socket: pipeName("C:\\x\\bsk"), runDir: join(home, "not-made") };
      prepareSocketDir(paths);
      expect(existsSync(paths.runDir)).toBe(false);
      expect(checkSocket(paths.socket)).toBe(true);
    } finally {
      removeTree(home);
    }
  });
});

describe("a failed listen", () => {
  test("is reported as a listen failure at its address with a hint, not as a malformed frame", () => {
    const pipe = pipeName("C:\\Users\\ann\\AppData\\Local\\bsk");
    const err = listenFailed(pipe, Object.assign(new Error(`Failed to listen at ${pipe}`), { code: "EADDRINUSE" }));
    expect(err.code).toBe("unsupported");
    expect(err.message).toContain(`could not listen at ${pipe}`);
    expect(err.data).toEqual({ reason: "listen_failed", address: pipe, errno: "EADDRINUSE" });
    expect(err.hint).toContain("named pipe");
    expect(err.hint).not.toContain("frame");
    const sock = listenFailed("/home/ann/.bsk/run/daemon.sock", new Error("EACCES"));
    expect(sock.hint).toContain("socket's folder");
  });
});

describe("removeTree", () => {
  test("removes a folder and what is in it, removing links without following them; a missing one is no error", () => {
    const base = tempDir("bsk-tree-");
    const outside = tempDir("bsk-tree-keep-");
    try {
      mkdirSync(join(base, "a/b"), { recursive: true });
      writeFileSync(join(base, "a/b/f"), "x");
      writeFileSync(join(outside, "kept"), "x");
      symlinkSync(outside, join(base, "a/link"));
      removeTree(base);
      expect(existsSync(base)).toBe(false);
      expect(readdirSync(outside)).toEqual(["kept"]);
      removeTree(base);
    } finally {
      removeTree(base);
      removeTree(outside);
    }
  });
});

describe("browsers on Windows", () => {
  const env = {
    ProgramFiles: "C:\\Program Files",
    "ProgramFiles(x86)": "C:\\Program Files (x86)",
    LOCALAPPDATA: "C:\\Users\\ann\\AppData\\Local",
  };

  test("each browser is looked for in Program Files, Program Files (x86) and Local AppData", () => {
    const places = Object.fromEntries(windowsCandidates(env).map((b) => [b.name, b.paths]));
    expect(places["Google Chrome"]).toEqual([
      "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Users\\ann\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
    ]);
    expect(places["Microsoft Edge"]).toContain("C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe");
    expect(places.Brave).toContain("C:\\Program Files\\BraveSoftware\\Brave-Browser\\Application\\brave.exe");
    expect(places.Chromium).toContain("C:\\Users\\ann\\AppData\\Local\\Chromium\\Application\\chrome.exe");
  });

  test("the ones installed are found in order of preference, with their process names; none is none", () => {
    const present = new Set([
      "C:\\Users\\ann\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe",
    ]);
    expect(installedBrowsers(env, "win32", (p) => present.has(p))).toEqual([
      {
        name: "Google Chrome",
        command: "C:\\Users\\ann\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
        processNames: ["chrome.exe"],
      },
      {
        name: "Microsoft Edge",
        command: "C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe",
        processNames: ["msedge.exe"],
      },
    ]);
    expect(installedBrowsers(env, "win32", () => false)).toEqual([]);
    expect(installedBrowsers({ ...env, BSK_BROWSER_COMMAND: "D:\\portable\\chrome.exe" }, "win32", () => false)[0]?.command).toBe(
      "D:\\portable\\chrome.exe",
    );
  });

  test("without the variables, the usual folders (the profile's AppData\\Local for Local AppData)", () => {
    const chrome = windowsCandidates({ USERPROFILE: "C:\\Users\\bob" }).find((b) => b.name === "Google Chrome")!;
    expect(chrome.paths).toEqual([
      "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Users\\bob\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
    ]);
  });
});
