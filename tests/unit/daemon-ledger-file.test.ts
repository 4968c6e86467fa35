import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { FileLedger } from "../../daemon/ledger-file.ts";
import type { OpOutcome } from "../../daemon/ledger.ts";
import { storedReply } from "../../daemon/ledger-reply.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];

/** Resolves once `done()` holds; for what settles a few turns later (a failed write's warning). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(done()).toBe(true);
}
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir("bsk-ledger-");
  homes.push(d);
  return `${d}/ledger`;
}

const op = (l: FileLedger, op_id: string, params: unknown = { session_id: "abcd", target: "@e1" }, method = "click") => ({
  op_id,
  method,
  params_hash: l.hashParams(method, params),
  session_id: "abcd",
  trace_id: "t1",
});

const executed = (result: unknown = { ok: 1 }): OpOutcome => ({ state: "executed", effect_state: "committed", reply: { result } });

function lines(d: string): any[] {
  return readdirSync(d)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .flatMap((f) =>
      readFileSync(`${d}/${f}`, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
}

describe("FileLedger", () => {
  test("reserved is on disk before reserve resolves; files and key are private", async () => {
    const d = dir();
    const l = await FileLedger.open(d);
    expect(await l.reserve(op(l, "o1"))).toEqual({ kind: "fresh" });
    expect(lines(d)).toEqual([expect.objectContaining({ e: "reserved", op_id: "o1", method: "click", session_id: "abcd" })]);
    await l.outcome("o1", executed());
    expect(lines(d)[1]).toMatchObject({ e: "outcome", op_id: "o1", state: "executed", effect_state: "committed" });
    for (const f of readdirSync(d)) expect(statSync(`${d}/${f}`).mode & 0o777).toBe(0o600);
    expect(statSync(d).mode & 0o777).toBe(0o700);
    await l.close();
  });

  test("an op id the daemon made up does not wait for the disk: written after the caller's turn, kept like any other", async () => {
    const d = dir();
    const warned: unknown[] = [];
    const a = await FileLedger.open(d, { onWarn: (msg, fields) => warned.push({ msg, ...fields }) });
    expect(await a.reserve(op(a, "m1"), { wait: false })).toEqual({ kind: "fresh" });
    // Claimed at once (a repeat waits for it), on disk a turn later.
    expect(a.get("m1")).toMatchObject({ state: "reserved" });
    expect(lines(d)).toEqual([]);
    await until(() => lines(d).length === 1);
    expect(lines(d)).toEqual([expect.objectContaining({ e: "reserved", op_id: "m1" })]);
    await a.outcome("m1", executed());
    await a.close();
    // A write that fails (here: the ledger is closed) is warned about; the call it belongs to is not failed for it.
    expect(await a.reserve(op(a, "m2"), { wait: false })).toEqual({ kind: "fresh" });
    await until(() => warned.length === 1);
    expect(warned[0]).toMatchObject({ msg: "a ledger line could not be written", op_id: "m2" });
    // The caller's own op id still waits, and fails closed when the line cannot be written.
    await expect(a.reserve(op(a, "m3"))).rejects.toMatchObject({ code: "unsupported", data: { reason: "ledger_unavailable" } });

    const b = await FileLedger.open(d);
    const again = await b.reserve(op(b, "m1"));
    expect(again.kind === "replay" && again.record.outcome?.state).toBe("executed");
    await b.close();
  });

  test("reserved apart: claimed at once, durable once synced; a sync that fails forgets the op, so a retry runs it", async () => {
    const d = dir();
    const held: Array<(err: Error | null) => void> = [];
    const a = await FileLedger.open(d, { sync: (_fd, done) => held.push(done) });
    const r = await a.reserve(op(a, "p1"), { apart: true });
    expect(r.kind).toBe("fresh");
    const durable = r.kind === "fresh" ? r.durable! : Promise.reject(new Error("not fresh"));
    let synced = false;
    void durable.then(() => (synced = true));
    // Claimed (a repeat waits for it), written, not yet synced.
    expect(a.get("p1")).toMatchObject({ state: "reserved" });
    expect(await a.reserve(op(a, "p1"), { apart: true })).toMatchObject({ kind: "pending" });
    expect(held).toHaveLength(1);
    expect(synced).toBe(false);
    held.shift()!(null);
    await durable;

    const r2 = await a.reserve(op(a, "p2"), { apart: true });
    const failed = r2.kind === "fresh" ? r2.durable! : Promise.resolve();
    await until(() => held.length === 1);
    held.shift()!(new Error("EIO: injected"));
    await expect(failed).rejects.toMatchObject({
      code: "unsupported",
      data: { reason: "ledger_unavailable", op_id: "p2", effect_state: "none" },
    });
    expect(a.get("p2")).toBeUndefined();
    const retry = await a.reserve(op(a, "p2"), { apart: true });
    expect(retry.kind).toBe("fresh");
    await until(() => held.length === 1);
    held.shift()!(null);
    await (retry.kind === "fresh" && retry.durable);
    const settled = a.outcome("p1", executed());
    await until(() => held.length === 1);
    held.shift()!(null);
    await settled;
    await a.close();
  });

  test("after a restart a settled op replays its recorded reply and never runs again; other params are refused", async () => {
    const d = dir();
    const a = await FileLedger.open(d);
    await a.reserve(op(a, "o1"));
    await a.outcome("o1", executed({ tab_id: 3, effect: { kind: "navigated" } }));
    await a.close();

    const b = await FileLedger.open(d);
    const again = await b.reserve(op(b, "o1"));
    expect(again.kind).toBe("replay");
    expect(again.kind === "replay" && again.record.outcome?.reply).toEqual({ result: { tab_id: 3, effect: { kind: "navigated" } } });
    await expect(b.reserve(op(b, "o1", { session_id: "abcd", target: "@e2" }))).rejects.toMatchObject({
      code: "invalid_params",
      data: { reason: "op_id_reused" },
    });
    await b.close();
  });

  test("an op found reserved at start-up (the daemon died mid-call) becomes unknown, recorded on disk", async () => {
    const d = dir();
    const a = await FileLedger.open(d);
    await a.reserve(op(a, "o1"));
    // No close: as after kill -9, the reserved line is all there is.

    const b = await FileLedger.open(d);
    expect(b.get("o1")).toMatchObject({ state: "unknown", effect_state: "unknown", reason: "daemon_restarted" });
    const r = await b.reserve(op(b, "o1"));
    expect(r.kind === "replay" && r.record.outcome?.reply).toMatchObject({
      error: { code: "protocol_error", data: { reason: "daemon_restarted", effect_state: "unknown" } },
    });
    expect(lines(d).at(-1)).toMatchObject({ e: "outcome", op_id: "o1", state: "unknown" });
    expect(b.list({ state: "unknown" }).ops.map((o) => o.op_id)).toEqual(["o1"]);
    await b.close();
  });

  test("a torn last line is skipped and the next entry starts on a line of its own", async () => {
    const d = dir();
    const a = await FileLedger.open(d);
    await a.reserve(op(a, "o1"));
    await a.outcome("o1", executed());
    await a.close();
    const seg = `${d}/${readdirSync(d).find((f) => f.endsWith(".jsonl"))}`;
    appendFileSync(seg, '{"e":"reserved","op_id":"torn","meth');

    const b = await FileLedger.open(d);
    expect(b.get("torn")).toBeUndefined();
    await b.reserve(op(b, "o2"));
    await b.close();
    const c = await FileLedger.open(d);
    expect(c.get("o1")?.state).toBe("executed");
    expect(c.get("o2")?.state).toBe("unknown");
    await c.close();
  });

  test("the params hash is keyed per home: the key is made once, kept, and a plain hash is not what is stored", async () => {
    const d1 = dir();
    const d2 = dir();
    const a = await FileLedger.open(d1);
    const b = await FileLedger.open(d2);
    const params = { session_id: "abcd", target: "#pw", value: "hunter2" };
    expect(a.hashParams("fill", params)).not.toBe(b.hashParams("fill", params));
    const key = readFileSync(`${d1}/key`, "utf8");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    await a.reserve(op(a, "o1", params, "fill"));
    await a.close();
    expect(readFileSync(`${d1}/${readdirSync(d1).find((f) => f.endsWith(".jsonl"))}`, "utf8")).not.toContain("hunter2");
    const again = await FileLedger.open(d1);
    expect(readFileSync(`${d1}/key`, "utf8")).toBe(key);
    expect(again.hashParams("fill", params)).toBe(a.hashParams("fill", params));
    await again.close();
    await b.close();
  });

  test("a lost key fails closed: the old op id no longer matches and is refused, not run again", async () => {
    const d = dir();
    const a = await FileLedger.open(d);
    await a.reserve(op(a, "o1"));
    await a.outcome("o1", executed());
    await a.close();
    rmSync(`${d}/key`);
    const b = await FileLedger.open(d);
    await expect(b.reserve(op(b, "o1"))).rejects.toMatchObject({ data: { reason: "op_id_reused" } });
    await b.close();
  });

  test("an unreadable key stops the ledger from opening", async () => {
    const d = dir();
    (await FileLedger.open(d)).close();
    writeFileSync(`${d}/key`, "not a key");
    await expect(FileLedger.open(d)).rejects.toMatchObject({ data: { reason: "ledger_unavailable" } });
  });

  test("segments rotate at their size; old ones go past the total only once a day old, and past max age always", async () => {
    const d = dir();
    let now = Date.parse("2030-01-01T00:00:00Z");
    const opts = { segmentBytes: 600, maxTotalBytes: 1500, minKeepMs: 3600_000, maxAgeMs: 10 * 3600_000, now: () => now };
    const l = await FileLedger.open(d, opts);
    for (let i = 0; i < 12; i++) {
      await l.reserve(op(l, `o${i}`));
      await l.outcome(`o${i}`, executed());
    }
    const segs = () => readdirSync(d).filter((f) => f.endsWith(".jsonl"));
    // Over the total, but nothing is an hour old yet: all kept, every op still known.
    expect(segs().length).toBeGreaterThan(3);
    expect(l.get("o0")?.state).toBe("executed");

    now += 2 * 3600_000;
    await l.reserve(op(l, "late"));
    await l.outcome("late", executed());
    const total = segs().reduce((s, f) => s + statSync(`${d}/${f}`).size, 0);
    // The next rotation trims the oldest segments down to the total; their ops are forgotten.
    for (let i = 0; i < 4; i++) {
      await l.reserve(op(l, `m${i}`));
      await l.outcome(`m${i}`, executed());
    }
    expect(segs().reduce((s, f) => s + statSync(`${d}/${f}`).size, 0)).toBeLessThan(total + 600);
    expect(l.get("o0")).toBeUndefined();
    expect(l.get("m3")?.state).toBe("executed");

    now += 11 * 3600_000;
    for (let i = 0; i < 4; i++) {
      await l.reserve(op(l, `n${i}`));
      await l.outcome(`n${i}`, executed());
    }
    expect(l.get("late")).toBeUndefined();
    expect(l.get("n3")?.state).toBe("executed");
    await l.close();

    // A restart applies the same bounds to what is on disk (mtime is a segment's last write).
    for (const f of segs()) utimesSync(`${d}/${f}`, new Date(now - 20 * 3600_000), new Date(now - 20 * 3600_000));
    const again = await FileLedger.open(d, opts);
    expect(segs()).toHaveLength(1);
    await again.close();
  });

  test("an outcome is written after the caller's turn: a repeat replays it at once, a reserve queued meanwhile follows it", async () => {
    const d = dir();
    const l = await FileLedger.open(d);
    await l.reserve(op(l, "o1"));
    const written = l.outcome("o1", executed({ n: 1 }));
    // Not on disk yet (the reply goes out first), but already what a repeated op id gets.
    expect(lines(d).map((x) => x.e)).toEqual(["reserved"]);
    const again = await l.reserve(op(l, "o1"));
    expect(again.kind === "replay" && again.record.outcome?.reply).toEqual({ result: { n: 1 } });
    // The next op's reserve joins the same commit, after the outcome, and resolves only once both are on disk.
    expect(await l.reserve(op(l, "o2"))).toEqual({ kind: "fresh" });
    expect(lines(d).map((x) => [x.e, x.op_id])).toEqual([
      ["reserved", "o1"],
      ["outcome", "o1"],
      ["reserved", "o2"],
    ]);
    await written;
    // Closing waits for a deferred write still queued.
    const last = l.outcome("o2", executed({ n: 2 }));
    await l.close();
    await last;
    expect(lines(d).at(-1)).toMatchObject({ e: "outcome", op_id: "o2" });
  });

  test("concurrent reservations are group-committed and each gets its own outcome", async () => {
    const d = dir();
    const l = await FileLedger.open(d);
    const ids = Array.from({ length: 50 }, (_, i) => `c${i}`);
    await Promise.all(ids.map((id) => l.reserve(op(l, id, { session_id: "abcd", target: id }))));
    await Promise.all(ids.map((id, i) => l.outcome(id, executed({ i }))));
    await l.close();
    const b = await FileLedger.open(d);
    for (const [i, id] of ids.entries()) {
      const r = await b.reserve(op(b, id, { session_id: "abcd", target: id }));
      expect(r.kind === "replay" && r.record.outcome?.reply).toEqual({ result: { i } });
    }
    expect(b.list({ limit: 5 }).ops.map((o) => o.op_id)).toEqual(ids.slice(-5));
    expect(b.list({ session_id: "zzzz" }).total).toBe(0);
    await b.close();
  });
});

describe("FileLedger memory: settled ops beyond the newest fullRecords are held compact", () => {
  /** Settles ops `ids` (even ones on session efgh, every third not executed) in ledger `l`. */
  async function settle(l: FileLedger, ids: string[]): Promise<void> {
    for (const [i, id] of ids.entries()) {
      await l.reserve({ ...op(l, id, { session_id: "abcd", target: id }), session_id: i % 2 ? "abcd" : "efgh" });
      if (i % 3) await l.outcome(id, executed({ i }));
      else
        await l.outcome(id, {
          state: "not_executed",
          effect_state: "none",
          reason: "timeout",
          reply: { error: { code: "timeout", message: `t${i}` } },
        });
    }
  }
  const ids = Array.from({ length: 40 }, (_, i) => `k${i}`);

  test("the index holds a full record only for ops in flight and the newest settled ones, also after a restart", async () => {
    const d = dir();
    const a = await FileLedger.open(d, { fullRecords: 5 });
    await settle(a, ids);
    expect(a.held()).toEqual({ full: 5, compact: 35 });
    await a.reserve(op(a, "running"));
    expect(a.held()).toEqual({ full: 6, compact: 35 });
    await a.close();
    // Start-up reads every line back but keeps the same bound (the op left running became unknown: settled).
    const b = await FileLedger.open(d, { fullRecords: 5 });
    expect(b.held()).toEqual({ full: 5, compact: 36 });
    expect(b.get("running")).toMatchObject({ state: "unknown", reason: "daemon_restarted" });
    await b.close();
  });

  test("an old op's retry replays its recorded reply read back from disk, before and after a restart; other params are refused", async () => {
    const d = dir();
    for (const restarted of [false, true]) {
      const l = await FileLedger.open(d, { fullRecords: 0 });
      if (!restarted) await settle(l, ids);
      expect(l.held().full).toBe(0);
      for (const [i, id] of ids.entries()) {
        const r = await l.reserve({ ...op(l, id, { session_id: "abcd", target: id }), session_id: i % 2 ? "abcd" : "efgh" });
        expect(r.kind).toBe("replay");
        if (r.kind !== "replay") continue;
        expect(r.record).toMatchObject({ op_id: id, method: "click", state: i % 3 ? "executed" : "not_executed" });
        expect(r.record.outcome?.reply).toEqual(i % 3 ? { result: { i } } : { error: { code: "timeout", message: `t${i}` } });
      }
      await expect(l.reserve(op(l, "k7", { session_id: "abcd", target: "@e2" }))).rejects.toMatchObject({
        code: "invalid_params",
        data: { reason: "op_id_reused", op_id: "k7" },
      });
      await expect(l.reserve(op(l, "k7", { session_id: "abcd", target: "k7" }, "type"))).rejects.toMatchObject({
        data: { reason: "op_id_reused" },
      });
      // Nothing was reserved again: the ledger holds two lines per op, as before the retries.
      expect(lines(d)).toHaveLength(80);
      await l.close();
    }
  });

  test("listing old ops reads them back: the same records, order, filters and totals as full records give", async () => {
    const d = dir();
    const first = await FileLedger.open(d);
    await settle(first, ids);
    await first.reserve(op(first, "running"));
    await first.close();
    const queries = [
      {},
      { limit: 7 },
      { session_id: "efgh" },
      { state: "not_executed" as const, limit: 3 },
      { session_id: "abcd", state: "executed" as const },
      { session_id: "none" },
      { state: "unknown" as const },
    ];
    // The op left running became unknown at this start-up; the ledger after it reads the same.
    const full = await FileLedger.open(d);
    const want = queries.map((q) => full.list(q));
    expect(full.held()).toEqual({ full: 41, compact: 0 });
    await full.close();
    expect(want[0]!.total).toBe(41);
    expect(want.at(-1)!.ops.map((o) => o.op_id)).toEqual(["running"]);
    const compact = await FileLedger.open(d, { fullRecords: 0 });
    expect(compact.held()).toEqual({ full: 0, compact: 41 });
    expect(queries.map((q) => compact.list(q))).toEqual(want);
    await compact.close();
  });

  test("ops reserved in the same millisecond list in the order they were reserved, compact or full", async () => {
    const l = await FileLedger.open(dir(), { fullRecords: 3, now: () => Date.parse("2030-01-01T00:00:00Z") });
    await settle(l, ids.slice(0, 10));
    expect(l.held()).toEqual({ full: 3, compact: 7 });
    expect(l.list().ops.map((o) => o.op_id)).toEqual(ids.slice(0, 10));
    expect(l.list({ limit: 4 }).ops.map((o) => o.op_id)).toEqual(ids.slice(6, 10));
    await l.close();
  });

  test("an old op whose segment was changed is refused, not run: its record cannot be read back", async () => {
    const d = dir();
    const l = await FileLedger.open(d, { fullRecords: 0 });
    await settle(l, ["k0"]);
    const seg = readdirSync(d).find((f) => f.endsWith(".jsonl"))!;
    writeFileSync(`${d}/${seg}`, " ".repeat(statSync(`${d}/${seg}`).size));
    await expect(l.reserve(op(l, "k0", { session_id: "abcd", target: "k0" }))).rejects.toMatchObject({
      code: "unsupported",
      hint: expect.stringContaining("new op id"),
      data: { reason: "ledger_unavailable", op_id: "k0", effect_state: "none" },
    });
    await l.close();
  });

  test("a batch the disk took only part of (full disk): later ops list and replay from disk, before and after a restart", async () => {
    // The soak's disk-full fault left a piece of a line and every later offset short by its length: each old op's
    // read-back then failed (ledger_unavailable) and `bsk ops` listed nothing for the run's sessions.
    const d = dir();
    let full = false;
    // As write(2) on a filling disk: a short write, then ENOSPC.
    const write = (fd: number, bytes: Uint8Array, from: number) => {
      if (!full) return writeSync(fd, bytes, from);
      if (from === 0) return writeSync(fd, bytes, 0, 7);
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    const l = await FileLedger.open(d, { fullRecords: 0, write });
    await settle(l, ids.slice(0, 10));
    full = true;
    await expect(l.reserve(op(l, "lost"))).rejects.toMatchObject({ data: { reason: "ledger_unavailable", op_id: "lost" } });
    full = false;
    await settle(l, ids.slice(10));
    for (const restarted of [false, true]) {
      const m = restarted ? await FileLedger.open(d, { fullRecords: 0 }) : l;
      const listed = m.list({ limit: 1000 });
      expect(listed.ops.map((o) => o.op_id).sort()).toEqual([...ids, ...(restarted ? ["lost"] : [])].sort());
      for (const id of [ids[3]!, ids[25]!]) {
        const r = await m.reserve({ ...op(m, id, { session_id: "abcd", target: id }), session_id: ids.indexOf(id) % 2 ? "abcd" : "efgh" });
        expect(r.kind).toBe("replay");
      }
      // The op the full disk refused was never recorded: it runs when retried (and is then recorded).
      if (!restarted) {
        expect((await m.reserve(op(m, "lost"))).kind).toBe("fresh");
        await m.outcome("lost", executed());
      } else expect((await m.reserve(op(m, "lost"))).kind).toBe("replay");
      await m.close();
    }
  });

  test("an outcome line the full disk refused is written once the disk has room: a restart reads what the caller was told", async () => {
    // The soak: a type was answered committed while the disk was full; the daemon was killed a minute later and the
    // ledger, having only the reserved line on disk, said unknown.
    const d = dir();
    let full = false;
    const write = (fd: number, bytes: Uint8Array, from: number) => {
      if (full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return writeSync(fd, bytes, from);
    };
    const warned: string[] = [];
    const l = await FileLedger.open(d, { write, onWarn: (msg) => warned.push(msg) });
    expect((await l.reserve(op(l, "typed"))).kind).toBe("fresh");
    full = true;
    await expect(l.outcome("typed", executed({ typed: 1 }))).rejects.toThrow(/ENOSPC/);
    // Meanwhile the daemon still answers from memory.
    expect(l.get("typed")?.state).toBe("executed");
    expect(
      lines(d)
        .filter((x) => x.op_id === "typed")
        .map((x) => x.e),
    ).toEqual(["reserved"]);
    full = false;
    // The next line written takes the outcome with it.
    expect((await l.reserve(op(l, "next"))).kind).toBe("fresh");
    expect(
      lines(d)
        .filter((x) => x.op_id === "typed")
        .map((x) => x.e),
    ).toEqual(["reserved", "outcome"]);
    await l.close();
    const m = await FileLedger.open(d);
    expect(m.get("typed")).toMatchObject({ state: "executed", effect_state: "committed" });
    const r = await m.reserve(op(m, "typed"));
    expect(r.kind === "replay" && r.record.outcome?.reply).toEqual({ result: { typed: 1 } });
    // In flight when the ledger closed: unknown, as ever.
    expect(m.get("next")?.state).toBe("unknown");
    await m.close();
    expect(warned).toEqual([]);
  });

  test("an outcome line still unwritten when the ledger closes is written by close", async () => {
    const d = dir();
    let full = false;
    const write = (fd: number, bytes: Uint8Array, from: number) => {
      if (full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return writeSync(fd, bytes, from);
    };
    const l = await FileLedger.open(d, { write });
    await l.reserve(op(l, "a"));
    full = true;
    await expect(l.outcome("a", executed())).rejects.toThrow(/ENOSPC/);
    full = false;
    await l.close();
    expect((await FileLedger.open(d)).get("a")?.state).toBe("executed");
  });

  test("op ids whose hashes collide are told apart by the op id read back: each replays its own reply, a new one runs", async () => {
    const d = dir();
    const l = await FileLedger.open(d, { fullRecords: 0, opIdHash: () => 7n });
    await settle(l, ids.slice(0, 10));
    for (const [i, id] of ids.slice(0, 10).entries()) {
      const r = await l.reserve({ ...op(l, id, { session_id: "abcd", target: id }), session_id: i % 2 ? "abcd" : "efgh" });
      expect(r.kind === "replay" && r.record.op_id).toBe(id);
      expect(r.kind === "replay" && r.record.outcome?.reply).toEqual(
        i % 3 ? { result: { i } } : { error: { code: "timeout", message: `t${i}` } },
      );
    }
    await expect(l.reserve(op(l, "k4", { session_id: "abcd", target: "k5" }))).rejects.toMatchObject({
      data: { reason: "op_id_reused", op_id: "k4" },
    });
    expect(l.get("k99")).toBeUndefined();
    expect(await l.reserve(op(l, "k99"))).toEqual({ kind: "fresh" });
    await l.close();
  });

  test("closed segments' tables are sealed at 36 bytes an op: their ops replay, list in order and collide as before", async () => {
    const t0 = Date.now();
    const same = () => t0;
    for (const opIdHash of [undefined, () => 7n]) {
      const d = dir();
      for (const restarted of [false, true]) {
        const l = await FileLedger.open(d, { fullRecords: 0, segmentBytes: 1500, now: same, ...(opIdHash && { opIdHash }) });
        if (!restarted) await settle(l, ids);
        expect(readdirSync(d).filter((f) => f.endsWith(".jsonl")).length).toBeGreaterThan(4);
        const { full, compact } = l.held();
        expect(full + compact).toBe(40);
        expect(compact).toBeGreaterThan(30);
        // Only the open segment's table may still have room to grow (its first 64 rows and their index).
        expect(l.compactBytes()).toBeLessThanOrEqual(36 * compact + 64 * 36 + 128 * 4);
        // Reserved in one millisecond: listed in the order they were reserved, though sealed rows are in hash order.
        expect(l.list().ops.map((o) => o.op_id)).toEqual(ids);
        expect(l.list({ session_id: "efgh", limit: 3 }).ops.map((o) => o.op_id)).toEqual(["k34", "k36", "k38"]);
        for (const [i, id] of ids.entries()) {
          const r = await l.reserve({ ...op(l, id, { session_id: "abcd", target: id }), session_id: i % 2 ? "abcd" : "efgh" });
          expect(r.kind === "replay" && r.record.outcome?.reply).toEqual(
            i % 3 ? { result: { i } } : { error: { code: "timeout", message: `t${i}` } },
          );
        }
        await expect(l.reserve(op(l, "k4", { session_id: "abcd", target: "k5" }))).rejects.toMatchObject({
          data: { reason: "op_id_reused", op_id: "k4" },
        });
        expect(l.get("k99")).toBeUndefined();
        await l.close();
      }
    }
  });

  test("an op whose lines lie in two segments (in flight at a rotation) stays full and replays", async () => {
    const d = dir();
    const l = await FileLedger.open(d, { fullRecords: 0, segmentBytes: 1 });
    await settle(l, ["k0", "k1"]);
    expect(l.held()).toEqual({ full: 2, compact: 0 });
    const r = await l.reserve({ ...op(l, "k1", { session_id: "abcd", target: "k1" }) });
    expect(r.kind === "replay" && r.record.outcome?.reply).toEqual({ result: { i: 1 } });
    await l.close();
  });
});

describe("storedReply", () => {
  test("typed secrets and field read-backs are masked; big results are replaced by their size", () => {
    const params = { session_id: "abcd", target: "#pw", value: "hunter2" };
    const r = storedReply({ result: { value_ok: false, actual: "hunt", note: "typed hunter2!", n: 2 } }, params, ["value"]);
    expect(r).toEqual({ result: { value_ok: false, actual: "[redacted]", note: "[redacted]", n: 2 } });
    const e = storedReply({ error: { code: "timeout", message: "fill hunter2 timed out" } }, params, ["value"]);
    expect(JSON.stringify(e)).not.toContain("hunter2");
    expect(storedReply({ result: { value: "x".repeat(20_000) } }, {}, [])).toEqual({ result: { result_not_kept: true, bytes: 20_012 } });
    expect(storedReply({ result: { actual: "kept" } }, { value: "v" }, [])).toEqual({ result: { actual: "kept" } });
  });
});
