/** doctor's WSL line (issue #37 item 9): none on plain Linux; in WSL, the Windows home and whether loopback reaches it. */
import { expect, test } from "bun:test";
import { wslCheck } from "../../cli/commands/doctor-wsl.ts";
import { windowsHome, type WslDeps } from "../../cli/wsl-daemon.ts";

const HOME = "/mnt/c/Users/ann/AppData/Local/bsk";

/** A WSL (or plain Linux) box: its kernel, its files, and what cmd.exe answers. */
function box(release: string, files: Record<string, string>, interop = true): WslDeps {
  return {
    read: (path) => (path === "/proc/sys/kernel/osrelease" ? release : files[path]),
    run: (argv) => {
      if (!interop) return undefined;
      const cmd = argv.at(-1);
      if (cmd === "echo %LOCALAPPDATA%") return "C:\\Users\\ann\\AppData\\Local\r\n";
      return cmd === "echo %USERPROFILE%" ? "C:\\Users\\ann\r\n" : undefined;
    },
  };
}

test("plain Linux: no line", () => {
  expect(wslCheck({}, box("6.1.0-18-amd64", {}))).toBeNull();
});

test("WSL 2 in NAT mode with a Windows home: a warning naming networkingMode=mirrored", () => {
  const line = wslCheck({ WSL_DISTRO_NAME: "Ubuntu" }, box("5.15.0-microsoft-standard-WSL2", { [`${HOME}/link.key`]: "k" }));
  expect(line?.status).toBe("warn");
  expect(line?.detail).toContain("WSL 2 (networkingMode nat)");
  expect(line?.detail).toContain("Windows bsk home C:\\Users\\ann\\AppData\\Local\\bsk: found");
  expect(line?.hint).toContain("networkingMode=mirrored");
  expect(line?.value?.paths.home).toBe(HOME);
});

test("WSL 2 mirrored, or WSL 1: fine", () => {
  const mirrored = { [`${HOME}/link.key`]: "k", "/mnt/c/Users/ann/.wslconfig": "[wsl2]\r\nnetworkingMode=Mirrored\r\n" };
  const two = wslCheck({ WSL_DISTRO_NAME: "Ubuntu" }, box("5.15.0-microsoft-standard-WSL2", mirrored));
  expect(two?.status).toBeUndefined();
  expect(two?.detail).toContain("networkingMode mirrored");
  const one = wslCheck({ WSL_DISTRO_NAME: "Ubuntu" }, box("4.4.0-19041-Microsoft", { [`${HOME}/link.key`]: "k" }));
  expect(one?.status).toBeUndefined();
  expect(one?.detail).toStartWith("WSL 1, drives under /mnt/");
});

test("no Windows home, or BSK_WSL=off: said, and nothing to use", () => {
  const none = wslCheck({ WSL_DISTRO_NAME: "Ubuntu" }, box("5.15.0-microsoft-standard-WSL2", {}));
  expect(none?.detail).toContain(": none");
  expect(none?.value).toBeNull();
  const off = wslCheck({ WSL_DISTRO_NAME: "Ubuntu", BSK_WSL: "off" }, box("5.15.0-microsoft-standard-WSL2", { [`${HOME}/link.key`]: "k" }));
  expect(off?.detail).toContain("BSK_WSL=off");
  expect(off?.value).toBeNull();
});

test("interop is asked once: the Windows home it found is kept, and asked again only when that home is gone", () => {
  const files: Record<string, string> = { [`${HOME}/link.key`]: "k" };
  let asked = 0;
  const base = box("5.15.0-microsoft-standard-WSL2", files);
  const deps: WslDeps = {
    ...base,
    run: (argv) => {
      asked++;
      return base.run(argv);
    },
    write: (path, text) => void (files[path] = text),
  };
  const env = { WSL_DISTRO_NAME: "Ubuntu" };
  const cache = "/home/ann/.bsk/wsl-windows-home";
  expect(windowsHome(env, deps, false, cache)?.found).toBe(true);
  expect(asked).toBe(1);
  expect(files[cache]).toBe("C:\\Users\\ann\\AppData\\Local");
  expect(windowsHome(env, deps, false, cache)?.paths.home).toBe(HOME);
  expect(asked).toBe(1);
  // The kept home lost its install (bsk removed on Windows): Windows is asked again, nothing stale is used.
  delete files[`${HOME}/link.key`];
  expect(windowsHome(env, deps, false, cache)?.found).toBe(false);
  expect(asked).toBe(2);
  // A kept value that is not a Windows path (edited by hand) is never used as one.
  files[cache] = "/etc";
  files[`${HOME}/link.key`] = "k";
  expect(windowsHome(env, deps, false, cache)?.paths.home).toBe(HOME);
  expect(asked).toBe(3);
});
