/**
 * Windows native messaging registration with reg.exe injected (an in-memory registry): the four HKCU keys written
 * to name one manifest, whose launcher fixes BSK_HOME and runs bsk; another live home's key left in auto mode and
 * taken over by install; uninstall removing only this home's keys; doctor's list of what is missing. The real
 * reg.exe under Wine is the windows-x64 lane.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { tempDir } from "../temp.ts";
import { removeTree } from "../../shared/fs-util.ts";
import { homePaths } from "../../shared/home.ts";
import {
  readHostKey,
  registerWindowsHost,
  type RegRunner,
  unregisterWindowsHost,
  WINDOWS_HOST_KEYS,
  windowsLauncherPath,
  windowsLauncherScript,
  windowsManifestPath,
  windowsUnregistered,
} from "../../shared/native-host-windows.ts";

/** reg.exe's add|query|delete of a key's default value, as Windows prints them. */
function fakeReg(): { reg: RegRunner; keys: Map<string, string>; calls: string[][] } {
  const keys = new Map<string, string>();
  const calls: string[][] = [];
  const reg: RegRunner = (args) => {
    calls.push(args);
    const [op, key] = args as [string, string];
    if (op === "query") {
      const v = keys.get(key);
      return v === undefined
        ? { code: 1, stdout: "", stderr: "ERROR: The system was unable to find the specified registry key or value." }
        : { code: 0, stdout: `\r\n${key}\r\n    (Default)    REG_SZ    ${v}\r\n\r\n`, stderr: "" };
    }
    if (op === "add") {
      keys.set(key, args[args.indexOf("/d") + 1]!);
      return { code: 0, stdout: "The operation completed successfully.", stderr: "" };
    }
    if (op === "delete") return keys.delete(key) ? { code: 0, stdout: "", stderr: "" } : { code: 1, stdout: "", stderr: "not found" };
    return { code: 1, stdout: "", stderr: "unknown" };
  };
  return { reg, keys, calls };
}

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) removeTree(h);
});
function paths() {
  const home = tempDir("bsk-native-win-");
  homes.push(home);
  return homePaths(home, {});
}
const manifestText = (launcher: string) => `${JSON.stringify({ name: "com.bsk.bridge", path: launcher })}\n`;

describe("bsk native install on Windows", () => {
  test("writes the launcher, the manifest and Chrome's, Chromium's, Edge's and Brave's keys naming it; again keeps them", () => {
    const p = paths();
    const { reg, keys } = fakeReg();
    const first = registerWindowsHost({ paths: p, mode: "explicit", command: ["C:\\bsk\\bsk.exe"], manifestText, reg });
    expect(first.map((r) => [r.browser, r.state])).toEqual([
      ["chrome", "written"],
      ["chromium", "written"],
      ["edge", "written"],
      ["brave", "written"],
    ]);
    expect([...keys.keys()]).toEqual([
      "HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.bsk.bridge",
      "HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.bsk.bridge",
      "HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.bsk.bridge",
      "HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.bsk.bridge",
    ]);
    for (const v of keys.values()) expect(v).toBe(windowsManifestPath(p));
    expect(JSON.parse(readFileSync(windowsManifestPath(p), "utf8")).path).toBe(windowsLauncherPath(p));
    expect(readFileSync(windowsLauncherPath(p), "utf8")).toContain(`"C:\\bsk\\bsk.exe" native-host %*`);
    expect(windowsUnregistered(p, reg)).toEqual([]);
    const again = registerWindowsHost({ paths: p, mode: "explicit", command: ["C:\\bsk\\bsk.exe"], manifestText, reg });
    expect(again.every((r) => r.state === "kept")).toBe(true);
  });

  test("the launcher fixes BSK_HOME and passes Chrome's arguments; a percent sign in a path is not expanded", () => {
    const text = windowsLauncherScript("C:\\Users\\ann\\100%\\bsk", ["C:\\Program Files\\bsk\\bsk.exe"]);
    expect(text.split("\r\n")).toEqual([
      "@echo off",
      "rem Written by bsk (bsk native install): Chrome runs this to fetch the secret of this bsk home.",
      'set "BSK_HOME=C:\\Users\\ann\\100%%\\bsk"',
      '"C:\\Program Files\\bsk\\bsk.exe" native-host %*',
      "",
    ]);
  });

  test("the daemon's auto mode leaves another live home's key; install takes it over; uninstall removes only ours", () => {
    const mine = paths();
    const other = paths();
    const { reg, keys } = fakeReg();
    registerWindowsHost({ paths: other, mode: "explicit", command: ["bsk.exe"], manifestText, reg });
    const auto = registerWindowsHost({ paths: mine, mode: "auto", command: ["bsk.exe"], manifestText, reg });
    expect(auto.every((r) => r.state === "skipped" && r.note?.includes(windowsManifestPath(other)))).toBe(true);
    expect(windowsUnregistered(mine, reg)).toEqual(["chrome", "chromium", "edge", "brave"]);
    expect(unregisterWindowsHost({ paths: mine, reg })).toEqual([]);
    expect(keys.size).toBe(4);

    registerWindowsHost({ paths: mine, mode: "explicit", command: ["bsk.exe"], manifestText, reg });
    expect(readHostKey(WINDOWS_HOST_KEYS[0]!.key, reg)).toBe(windowsManifestPath(mine));
    expect(unregisterWindowsHost({ paths: mine, reg })).toHaveLength(4);
    expect(keys.size).toBe(0);
    expect(existsSync(windowsManifestPath(mine))).toBe(false);
    expect(existsSync(windowsLauncherPath(mine))).toBe(false);
  });

  test("a reg add that fails is reported per browser, with reg's words", () => {
    const p = paths();
    const reg: RegRunner = (args) =>
      args[0] === "add" ? { code: 1, stdout: "", stderr: "ERROR: Access is denied." } : { code: 1, stdout: "", stderr: "" };
    const out = registerWindowsHost({ paths: p, mode: "explicit", command: ["bsk.exe"], manifestText, reg });
    expect(out.every((r) => r.state === "skipped" && r.note === "reg add failed: ERROR: Access is denied.")).toBe(true);
  });
});
