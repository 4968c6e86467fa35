/**
 * The soak's ledger on a small filesystem of its own (a tmpfs mounted over $BSK_HOME/ledger), so "the disk is full"
 * can be made true for a while and undone, without touching the machine's disks. Needs root on Linux; where that is
 * not possible the fault is skipped and the run says why.
 */
import { spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { World } from "../../e2e/harness.ts";
import { tempDir } from "../../temp.ts";

export const FILLER = ".soak-filler";

export interface LedgerDisk {
  dir: string;
  /** Fill the filesystem to the last byte. */
  fill(): void;
  /** Give the space back. */
  free(): void;
  unmount(): void;
}

/** Moves the ledger onto a tmpfs of `size` (daemon stopped meanwhile, started again on the same port). */
export async function ledgerOnTmpfs(w: World, size = "64m"): Promise<LedgerDisk | string> {
  if (process.platform !== "linux") return "the ledger's own small filesystem needs Linux (a tmpfs)";
  if (process.getuid?.() !== 0) return "mounting the ledger's own small filesystem needs root";
  const dir = join(w.home, "ledger");
  await w.bsk(["daemon", "stop"]);
  const keep = tempDir("bsk-soak-ledger-");
  if (existsSync(dir)) cpSync(dir, keep, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], { encoding: "utf8" });
  cpSync(keep, dir, { recursive: true });
  rmSync(keep, { recursive: true, force: true });
  const started = await w.bsk(["daemon", "start", "--port", String(w.port), "--json"]);
  if (started.code !== 0) throw new Error(`daemon start after the ledger move failed: ${started.stderr}`);
  if (mounted.status !== 0) return `mount -t tmpfs failed: ${mounted.stderr.trim()}`;
  const filler = join(dir, FILLER);
  return {
    dir,
    fill() {
      const fd = openSync(filler, "w");
      try {
        for (const chunk of [Buffer.alloc(1 << 20), Buffer.alloc(4096), Buffer.alloc(64)]) {
          try {
            for (;;) writeSync(fd, chunk);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      rmSync(filler, { force: true });
      const r = spawnSync("umount", [dir], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`umount ${dir} failed: ${r.stderr.trim()}`);
    },
  };
}
