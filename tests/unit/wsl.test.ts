/** WSL (issue #37 item 9): detection, Windows ⇄ /mnt path mapping, the automount root, %LOCALAPPDATA% via interop. */
import { describe, expect, test } from "bun:test";
import {
  automountRoot,
  detectWsl,
  windowsHomeInWsl,
  windowsLocalAppData,
  windowsToWsl,
  wslChoice,
  wslEnvHint,
  wslToWindows,
  wslVersion,
} from "../../shared/wsl.ts";

/** A reader over a fixed set of files, recording what was read. */
function files(map: Record<string, string>) {
  const read: string[] = [];
  return {
    read(path: string) {
      read.push(path);
      return map[path];
    },
    reads: read,
  };
}

describe("detection", () => {
  test("the environment first: WSL_DISTRO_NAME or WSL_INTEROP", () => {
    expect(wslEnvHint({ WSL_DISTRO_NAME: "Ubuntu" })).toBe(true);
    expect(wslEnvHint({ WSL_INTEROP: "/run/WSL/8_interop" })).toBe(true);
    expect(wslEnvHint({ HOME: "/home/ann" })).toBe(false);
  });

  test("the kernel's release string tells WSL 2 from WSL 1", () => {
    expect(wslVersion("5.15.153.1-microsoft-standard-WSL2")).toBe(2);
    expect(wslVersion("4.19.128-microsoft-standard")).toBe(2);
    expect(wslVersion("4.4.0-19041-Microsoft")).toBe(1);
    expect(wslVersion("6.1.0-18-amd64")).toBeNull();
  });

  test("plain Linux reads no file (the CLI's hot path)", () => {
    const io = files({ "/proc/sys/kernel/osrelease": "5.15.0-microsoft-standard-WSL2" });
    expect(detectWsl({ HOME: "/home/ann" }, io)).toBeNull();
    expect(io.reads).toEqual([]);
  });

  test("an env hint reads the release and /etc/wsl.conf", () => {
    const io = files({ "/proc/sys/kernel/osrelease": "4.4.0-19041-Microsoft\n", "/etc/wsl.conf": "[automount]\nroot = /win/\n" });
    expect(detectWsl({ WSL_DISTRO_NAME: "Ubuntu" }, io)).toEqual({ version: 1, root: "/win/" });
  });

  test("/proc/version when osrelease cannot be read; WSL 2 when the env says WSL and the kernel says nothing", () => {
    const io = files({ "/proc/version": "Linux version 5.15.0-microsoft-standard-WSL2 (gcc)" });
    expect(detectWsl({ WSL_INTEROP: "x" }, io)).toEqual({ version: 2, root: "/mnt/" });
    expect(detectWsl({ WSL_INTEROP: "x" }, files({}))).toEqual({ version: 2, root: "/mnt/" });
  });

  test("a probe (doctor) reads the kernel without an env hint, and says not WSL on plain Linux", () => {
    expect(detectWsl({}, files({ "/proc/sys/kernel/osrelease": "6.1.0-18-amd64" }), true)).toBeNull();
    expect(detectWsl({}, files({ "/proc/sys/kernel/osrelease": "5.15.0-microsoft-standard-WSL2" }), true)?.version).toBe(2);
  });

  test("BSK_WSL: auto unless windows or off", () => {
    expect(wslChoice({})).toBe("auto");
    expect(wslChoice({ BSK_WSL: "windows" })).toBe("windows");
    expect(wslChoice({ BSK_WSL: "off" })).toBe("off");
    expect(wslChoice({ BSK_WSL: "yes" })).toBe("auto");
  });
});

describe("the automount root", () => {
  test("default /mnt/; [automount] root= with or without a trailing slash, quotes, comments, CRLF", () => {
    expect(automountRoot("")).toBe("/mnt/");
    expect(automountRoot("[automount]\nroot=/\n")).toBe("/");
    expect(automountRoot("[automount]\r\nenabled = true\r\nroot = /windir\r\n")).toBe("/windir/");
    expect(automountRoot('[Automount]\nRoot="/drives/" # mine\n')).toBe("/drives/");
    expect(automountRoot("[network]\nroot=/nope\n[automount]\n# root=/commented\n")).toBe("/mnt/");
    expect(automountRoot("[automount]\nroot=relative\n")).toBe("/mnt/");
  });
});

describe("path mapping", () => {
  test("Windows → WSL: drive letter lowered, separators turned, case of the rest kept", () => {
    expect(windowsToWsl("C:\\Users\\ann\\AppData\\Local\\bsk")).toBe("/mnt/c/Users/ann/AppData/Local/bsk");
    expect(windowsToWsl("d:/Data\\Mixed/")).toBe("/mnt/d/Data/Mixed");
    expect(windowsToWsl("C:\\")).toBe("/mnt/c");
    expect(windowsToWsl("E:")).toBe("/mnt/e");
    expect(windowsToWsl("C:\\Users\\ann", "/")).toBe("/c/Users/ann");
    expect(windowsToWsl("\\\\server\\share")).toBeNull();
    expect(windowsToWsl("%LOCALAPPDATA%")).toBeNull();
  });

  test("WSL → Windows, and back again", () => {
    expect(wslToWindows("/mnt/c/Users/ann/AppData/Local/bsk")).toBe("C:\\Users\\ann\\AppData\\Local\\bsk");
    expect(wslToWindows("/mnt/d")).toBe("D:\\");
    expect(wslToWindows("/win/c/x", "/win/")).toBe("C:\\x");
    expect(wslToWindows("/home/ann")).toBeNull();
    expect(wslToWindows("/mnt/wsl/x")).toBeNull();
    const win = "C:\\Users\\Ann Lee\\AppData\\Local\\bsk";
    expect(wslToWindows(windowsToWsl(win, "/drives/")!, "/drives/")).toBe(win);
  });

  test("the Windows bsk home in WSL", () => {
    expect(windowsHomeInWsl("C:\\Users\\ann\\AppData\\Local", "/mnt/")).toBe("/mnt/c/Users/ann/AppData/Local/bsk");
  });
});

describe("%LOCALAPPDATA% through interop", () => {
  test("asks cmd.exe, takes its first line", () => {
    const asked: string[][] = [];
    const run = (argv: string[]) => {
      asked.push(argv);
      return "C:\\Users\\ann\\AppData\\Local\r\n";
    };
    expect(windowsLocalAppData(run)).toBe("C:\\Users\\ann\\AppData\\Local");
    expect(asked[0]?.[0]).toBe("cmd.exe");
  });

  test("no interop, an unset variable, or garbage is none", () => {
    expect(windowsLocalAppData(() => undefined)).toBeUndefined();
    expect(windowsLocalAppData(() => "%LOCALAPPDATA%\r\n")).toBeUndefined();
    expect(windowsLocalAppData(() => "\r\n")).toBeUndefined();
    expect(windowsLocalAppData(() => "/home/ann\n")).toBeUndefined();
  });
});
