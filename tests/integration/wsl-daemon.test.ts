/**
 * WSL (issue #37 item 9): a CLI in WSL reaches the person's Windows daemon. A real daemon whose home plays the Windows
 * home (<root>/mnt/c/Users/ann/AppData/Local/bsk, with /etc/wsl.conf's automount root pointing at <root>/mnt/) and a CLI
 * with the WSL environment injected, finding that home from cmd.exe's %LOCALAPPDATA% and reaching it over TCP with
 * the link proof; a Windows home whose daemon does not answer is an error naming what to do, not a Linux daemon.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../temp.ts";
import { BskError } from "../../protocol/errors.ts";
import { call, nextRequestId } from "../../cli/daemon-client.ts";
import { realWslDeps, reachWindowsDaemon, windowsHome, type WslDeps } from "../../cli/wsl-daemon.ts";
import { ROOT, startDaemon, TEST_ENV, type TestDaemon } from "./harness.ts";

const LOCAL = "C:\\Users\\ann\\AppData\\Local";
const WSL_ENV = { WSL_DISTRO_NAME: "Ubuntu", WSL_INTEROP: "/run/WSL/1_interop" };
let root: string;
let daemon: TestDaemon;

/** WSL 2 (or 1) with its drives under <root>/mnt/, whose interop answers `local` for %LOCALAPPDATA% (null: no interop). */
function wsl(local: string | null = LOCAL, release = "5.15.153.1-microsoft-standard-WSL2"): WslDeps & { ran: string[][] } {
  const ran: string[][] = [];
  return {
    ran,
    read(path) {
      if (path === "/proc/sys/kernel/osrelease") return release;
      if (path === "/etc/wsl.conf") return `[automount]\nroot = ${root}/mnt/\n`;
      return realWslDeps.read(path);
    },
    run(argv) {
      ran.push(argv);
      return local === null ? undefined : `${local}\r\n`;
    },
  };
}

beforeAll(async () => {
  root = tempDir("bsk-wsl-");
  const home = join(root, "mnt/c/Users/ann/AppData/Local/bsk");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  daemon = await startDaemon({ home });
  expect(typeof daemon.info.cli_port).toBe("number");
});

afterAll(async () => {
  await daemon?.stop();
  rmSync(root, { recursive: true, force: true });
});

test("the Windows home is found through interop and the automount root", () => {
  const win = windowsHome(WSL_ENV, wsl());
  expect(win?.windows).toBe(`${LOCAL}\\bsk`);
  expect(win?.paths.home).toBe(daemon.home);
  expect(win?.found).toBe(true);
  expect(windowsHome({ ...WSL_ENV, BSK_WSL: "off" }, wsl())).toBeNull();
  // Plain Linux: nothing read, nothing run.
  const plain = wsl();
  expect(windowsHome({ HOME: "/home/ann" }, plain)).toBeNull();
  expect(plain.ran).toEqual([]);
});

test("a CLI in WSL reaches the Windows daemon over loopback TCP, proving the Windows home's link key", async () => {
  const conn = await reachWindowsDaemon(WSL_ENV, wsl());
  expect(conn).not.toBeNull();
  try {
    const reply = await call(conn!, { id: nextRequestId(), method: "system.status", params: {}, meta: {} }, { giveUpMs: 5_000 });
    expect(reply.ok).toBe(true);
    expect((reply as { result: { daemon: { pid: number } } }).result.daemon.pid).toBe(daemon.info.pid);
  } finally {
    conn!.close();
  }
});

test("no Windows bsk home: auto goes on as on Linux; BSK_WSL=windows says what is missing", async () => {
  const elsewhere = "D:\\Nobody\\AppData\\Local";
  expect(await reachWindowsDaemon(WSL_ENV, wsl(elsewhere))).toBeNull();
  expect(await reachWindowsDaemon(WSL_ENV, wsl(null))).toBeNull();
  const err = await reachWindowsDaemon({ ...WSL_ENV, BSK_WSL: "windows" }, wsl(elsewhere)).catch((e) => e);
  expect(err).toBeInstanceOf(BskError);
  expect(err.data.reason).toBe("windows_daemon_not_found");
  expect(err.hint).toContain(`${elsewhere}\\bsk`);
});

test("a Windows home whose daemon does not answer is an error with what to do, and no daemon is started", async () => {
  const other = join(root, "mnt/e/Users/bob/AppData/Local/bsk");
  mkdirSync(other, { recursive: true, mode: 0o700 });
  writeFileSync(join(other, "link.key"), readFileSync(daemon.paths.linkKey));
  const err = await reachWindowsDaemon(WSL_ENV, wsl("E:\\Users\\bob\\AppData\\Local")).catch((e) => e);
  expect(err).toBeInstanceOf(BskError);
  expect(err.data.reason).toBe("windows_daemon_unreachable");
  expect(err.hint).toContain("networkingMode=mirrored");
  const v1 = await reachWindowsDaemon(WSL_ENV, wsl("E:\\Users\\bob\\AppData\\Local", "4.4.0-19041-Microsoft")).catch((e) => e);
  expect(v1.hint).toContain("WSL 1 shares Windows' loopback");
  expect(() => readFileSync(join(other, "daemon.json"))).toThrow();
});

describe("the compiled CLI, with a stand-in cmd.exe on PATH", () => {
  let bin: string;
  let linuxHome: string;
  let marker: string;

  beforeAll(() => {
    bin = join(root, "bin");
    linuxHome = join(root, "linux-home");
    marker = join(root, "cmd-ran");
    mkdirSync(bin);
    // What interop's cmd.exe answers to `echo %LOCALAPPDATA%`, and a trace that it was asked.
    writeFileSync(join(bin, "cmd.exe"), `#!/bin/sh\ntouch '${marker}'\nprintf 'D:\\\\Nobody\\\\AppData\\\\Local\\r\\n'\n`, { mode: 0o755 });
  });

  async function bsk(extra: Record<string, string>) {
    rmSync(marker, { force: true });
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...TEST_ENV,
      BSK_HOME: linuxHome,
      PATH: `${bin}:${process.env.PATH}`,
      ...extra,
    };
    for (const name of ["WSL_DISTRO_NAME", "WSL_INTEROP", "BSK_WSL"]) if (!(name in extra)) delete env[name];
    const proc = Bun.spawn([join(ROOT, "dist/bsk"), "session", "list", "--json"], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { code, json: JSON.parse(stdout), asked: existsSync(marker) };
  }

  test("BSK_WSL=windows: the Windows home is looked for through cmd.exe, and no Linux daemon is started", async () => {
    const r = await bsk({ WSL_DISTRO_NAME: "Ubuntu", BSK_WSL: "windows" });
    expect(r.code).toBe(1);
    expect(r.json.error.data.reason).toBe("windows_daemon_not_found");
    expect(r.json.error.hint).toContain("D:\\Nobody\\AppData\\Local\\bsk (/mnt/d/Nobody/AppData/Local/bsk)");
    expect(r.asked).toBe(true);
    expect(existsSync(join(linuxHome, "daemon.json"))).toBe(false);
  });

  test("WSL without a Windows home goes on as on Linux; plain Linux and BSK_WSL=off never ask cmd.exe", async () => {
    const wslNoHome = await bsk({ WSL_DISTRO_NAME: "Ubuntu", BSK_AUTO_START: "0" });
    expect(wslNoHome.json.error.data.reason).toBe("daemon_not_running");
    expect(wslNoHome.asked).toBe(true);
    const plain = await bsk({ BSK_AUTO_START: "0" });
    expect(plain.json.error.data.reason).toBe("daemon_not_running");
    expect(plain.asked).toBe(false);
    const off = await bsk({ WSL_DISTRO_NAME: "Ubuntu", BSK_WSL: "off", BSK_AUTO_START: "0" });
    expect(off.json.error.data.reason).toBe("daemon_not_running");
    expect(off.asked).toBe(false);
  });
});
