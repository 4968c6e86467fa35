/**
 * linux-arm64 under qemu-user on an x86-64 machine (scripts/platform/setup-qemu.sh installs qemu-aarch64 and an
 * arm64 glibc): the binary is an arm64 ELF, says its version, runs a daemon that answers a status round trip, and
 * stops. The daemon is started in the foreground through qemu: a detached `bsk daemon start` re-executes bsk itself,
 * which only a binfmt_misc registration (a privileged, machine-wide setting) would send through qemu.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_VERSION } from "../../protocol/version.ts";
import { homePaths } from "../../shared/home.ts";
import type { PlatformContext } from "./context.ts";
import { okJson, run, waitForFile } from "./run.ts";

/** The arm64 glibc's root (libc6-arm64-cross), handed to qemu as -L. */
export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
const EM_AARCH64 = 0xb7;
/** How long a daemon may take to start under emulation on a busy 2-core machine. */
const START_MS = 120_000;

function qemu(): string {
  const path = Bun.which("qemu-aarch64");
  if (!path || !Bun.file(join(ARM64_SYSROOT, "lib/ld-linux-aarch64.so.1")).size) {
    throw new Error(
      `qemu-aarch64 or the arm64 glibc in ${ARM64_SYSROOT} is missing: run scripts/platform/setup-qemu.sh (apt: qemu-user libc6-arm64-cross)`,
    );
  }
  return path;
}

export async function prove({ bin, log }: PlatformContext): Promise<string[]> {
  const proven: string[] = [];
  const head = readFileSync(bin).subarray(0, 20);
  if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head.readUInt16LE(18) !== EM_AARCH64) {
    throw new Error(`${bin} is not a 64-bit arm64 ELF`);
  }
  proven.push("arm64 ELF");
  const emulator = qemu();
  const home = mkdtempSync(join(tmpdir(), "bsk-arm64-"));
  const env = { BSK_HOME: home, BSK_NATIVE_HOST: "off", BSK_AUTO_START: "0" };
  const bsk = (...args: string[]) => run([emulator, "-L", ARM64_SYSROOT, bin, ...args], env);
  let daemon: ReturnType<typeof Bun.spawn> | undefined;
  const daemonLog = join(home, "foreground.log");
  try {
    const version = await bsk("version");
    if (version.code !== 0 || !version.stdout.includes(`bsk ${APP_VERSION}`)) {
      throw new Error(`bsk version under qemu: exit ${version.code}, ${version.stdout.trim()} ${version.stderr.trim()}`);
    }
    proven.push(`version ${APP_VERSION}`);

    const out = openSync(daemonLog, "a", 0o600);
    try {
      // The daemon's output goes to a file, never a pipe: nothing here has to drain it.
      daemon = Bun.spawn([emulator, "-L", ARM64_SYSROOT, bin, "daemon", "start", "--foreground", "--port", "0"], {
        env: { ...process.env, ...env },
        stdin: "ignore",
        stdout: out,
        stderr: out,
      });
    } finally {
      closeSync(out);
    }
    log(`daemon pid ${daemon.pid} starting under qemu-aarch64`);
    await waitForFile(homePaths(home, env).daemonJson, daemon.exited, START_MS).catch((err: Error) => {
      throw new Error(`the daemon did not start: ${err.message}\n${readFileSync(daemonLog, "utf8").trim()}`);
    });
    proven.push("daemon start");

    const status = okJson<{ daemon: { pid: number; version: string } }>("bsk status", await bsk("status", "--json"));
    if (status.daemon.version !== APP_VERSION) throw new Error(`status reports version ${status.daemon.version}`);
    proven.push("status round trip");

    const stop = okJson<{ stopped: boolean }>("bsk daemon stop", await bsk("daemon", "stop", "--json"));
    const code = await daemon.exited;
    if (!stop.stopped || code !== 0) throw new Error(`daemon stop: stopped ${stop.stopped}, the daemon exited ${code}`);
    proven.push("daemon stop");
    return proven;
  } finally {
    if (daemon && daemon.exitCode === null) daemon.kill("SIGKILL");
    rmSync(home, { recursive: true, force: true });
  }
}
