/**
 * Making a folder's entries durable (a new or renamed file's name survives a crash) by fsync'ing the folder. Windows
 * has no such call: a folder opened for reading cannot be flushed (FlushFileBuffers fails, EPERM; seen under Wine
 * on the ledger's first segment, which then refused every operation), and NTFS journals names itself.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";

export function fsyncDir(dir: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
