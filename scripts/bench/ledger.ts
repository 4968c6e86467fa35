/**
 * What the operation ledger costs a mutation, in-process: `reserve` (an fdatasync'd append, awaited before the call
 * is dispatched: on the reply path) and reserve + outcome (the outcome is written off the reply path), with the
 * file ledger on $BSK_HOME's filesystem, against the in-memory ledger (the floor). Mutations are one after another,
 * as in one session; concurrent ones share an fdatasync (group commit).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FileLedger } from "../../daemon/ledger-file.ts";
import { MemoryLedger, type Ledger } from "../../daemon/ledger.ts";
import { row, RUNS, type Row } from "./timing.ts";

async function time(ledger: Ledger, runs: number, settle: boolean): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < runs + 10; i++) {
    const op_id = `bench-${settle}-${i}`;
    const params = { session_id: "bnch", target: "@e1", i };
    const t0 = performance.now();
    await ledger.reserve({ op_id, method: "click", params_hash: ledger.hashParams("click", params), session_id: "bnch", trace_id: "t" });
    const reply = { result: { tab_id: 1, target: null, effect: { kind: "none", dom_changed: false } } };
    if (settle) await ledger.outcome(op_id, { state: "executed", effect_state: "committed", reply });
    if (i >= 10) xs.push(performance.now() - t0);
    if (!settle) void ledger.outcome(op_id, { state: "executed", effect_state: "committed", reply });
  }
  return xs;
}

/** Rows for the file ledger (under `home`) and the in-memory floor. */
export async function ledgerCost(home: string, runs = Math.max(RUNS, 200)): Promise<Row[]> {
  const dir = mkdtempSync(join(home, "bench-ledger-"));
  try {
    const file = await FileLedger.open(dir);
    const memory = new MemoryLedger();
    const rows = [
      row("ledger reserve, fsync'd (on a mutation's reply path)", await time(file, runs, false), undefined, "in-process"),
      row("ledger reserve + outcome, fsync'd", await time(file, runs, true), undefined, "in-process"),
      row("ledger reserve + outcome, in memory (floor)", await time(memory, runs, true), undefined, "in-process"),
    ];
    await file.close();
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { printRows } = await import("./timing.ts");
  const home = mkdtempSync("/tmp/bsk-bench-ledger-");
  printRows(await ledgerCost(home));
  rmSync(home, { recursive: true, force: true });
}
