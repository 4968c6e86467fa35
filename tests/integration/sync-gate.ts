/** Fault injection for the ledger's disk sync (FileLedgerOptions.sync): hold syncs up, then let them through or fail them. */
import { fdatasync } from "node:fs";
import type { DiskSync } from "../../daemon/ledger.ts";

export class SyncGate {
  /** While true, each sync waits for release(). */
  holding = false;
  private readonly held: Array<(err?: Error) => void> = [];
  private readonly heldWaiters: Array<() => void> = [];

  readonly sync: DiskSync = (fd, done) => {
    if (!this.holding) return fdatasync(fd, done);
    this.held.push((err) => (err ? done(err) : fdatasync(fd, done)));
    for (const w of this.heldWaiters.splice(0)) w();
  };

  /** Resolves once a sync is being held (at once if one is). */
  aSyncHeld(): Promise<void> {
    if (this.held.length) return Promise.resolve();
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Stops holding; the held syncs go through, or fail with `err`. */
  release(err?: Error): void {
    this.holding = false;
    for (const go of this.held.splice(0)) go(err);
  }
}
