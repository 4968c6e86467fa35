import { describe, expect, test } from "bun:test";
import { classifyOutcome, MemoryLedger } from "../../daemon/ledger.ts";

const hasher = new MemoryLedger();
const paramsHash = (method: string, params: unknown) => hasher.hashParams(method, params);

const op = (op_id: string, params: unknown = { url: "https://a.example" }) => ({
  op_id,
  method: "navigate",
  params_hash: paramsHash("navigate", params),
  session_id: "abcd",
  trace_id: "t",
});

describe("MemoryLedger", () => {
  test("a fresh op is reserved; once settled, the same op replays its outcome", async () => {
    const l = new MemoryLedger();
    expect(await l.reserve(op("o1"))).toEqual({ kind: "fresh" });
    expect(l.get("o1")?.state).toBe("reserved");
    await l.outcome("o1", { state: "executed", effect_state: "committed", reply: { result: { ok: true } } });
    const again = await l.reserve(op("o1"));
    expect(again.kind).toBe("replay");
    expect(again.kind === "replay" && again.record.outcome?.reply).toEqual({ result: { ok: true } });
  });

  test("a repeat while the op is in flight waits for its outcome", async () => {
    const l = new MemoryLedger();
    await l.reserve(op("o2"));
    const pending = await l.reserve(op("o2"));
    expect(pending.kind).toBe("pending");
    await l.outcome("o2", {
      state: "unknown",
      effect_state: "unknown",
      reason: "timeout",
      reply: { error: { code: "timeout", message: "x" } },
    });
    expect(pending.kind === "pending" && (await pending.settled).state).toBe("unknown");
  });

  test("the same op id with other params or another method is refused (op_id_reused)", async () => {
    const l = new MemoryLedger();
    await l.reserve(op("o3"));
    await expect(l.reserve(op("o3", { url: "https://b.example" }))).rejects.toMatchObject({
      code: "invalid_params",
      data: { reason: "op_id_reused" },
    });
    await expect(l.reserve({ ...op("o3"), method: "reload" })).rejects.toMatchObject({ data: { reason: "op_id_reused" } });
  });

  test("keeps at most its cap of settled records, never dropping reserved ones", async () => {
    const l = new MemoryLedger(2);
    await l.reserve(op("r1"));
    for (const id of ["s1", "s2", "s3"]) {
      await l.reserve(op(id));
      await l.outcome(id, { state: "executed", effect_state: "committed", reply: { result: 1 } });
    }
    expect(l.get("r1")?.state).toBe("reserved");
    expect(l.get("s1")).toBeUndefined();
  });
});

describe("classifyOutcome", () => {
  const err = (code: string, data?: Record<string, unknown>) => ({ error: { code: code as any, message: "m", ...(data && { data }) } });

  test("a result is executed/committed", () => {
    expect(classifyOutcome({ result: 1 }, true, true)).toMatchObject({ state: "executed", effect_state: "committed" });
  });

  test("an error before dispatch is not_executed", () => {
    expect(classifyOutcome(err("timeout"), false, false)).toMatchObject({ state: "not_executed", effect_state: "none", reason: "timeout" });
  });

  test("a lost reply after dispatch is unknown", () => {
    expect(classifyOutcome(err("cancelled"), true, false)).toMatchObject({ state: "unknown", effect_state: "unknown" });
    expect(classifyOutcome(err("cdp_failed", { reason: "browser_gone" }), true, false).state).toBe("unknown");
  });

  test("the extension's own answer decides: declared effect_state, else refusals are not_executed and failures unknown", () => {
    expect(classifyOutcome(err("stale_ref"), true, true).state).toBe("not_executed");
    expect(classifyOutcome(err("cdp_failed"), true, true).state).toBe("unknown");
    expect(classifyOutcome(err("cdp_failed", { effect_state: "none" }), true, true).state).toBe("not_executed");
    expect(classifyOutcome(err("timeout", { effect_state: "committed" }), true, true).state).toBe("executed");
    expect(classifyOutcome(err("element_obscured", { effect_state: "unknown" }), true, true).state).toBe("unknown");
  });
});

describe("hashParams", () => {
  test("ignores key order and undefined values, and never contains the values", () => {
    const a = paramsHash("fill", { session_id: "abcd", value: "hunter2", opts: { x: 1, y: [1, 2] } });
    const b = paramsHash("fill", { opts: { y: [1, 2], x: 1 }, value: "hunter2", session_id: "abcd", extra: undefined });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(paramsHash("fill", { value: "other" })).not.toBe(paramsHash("fill", { value: "hunter2" }));
    expect(paramsHash("type", { value: "x" })).not.toBe(paramsHash("fill", { value: "x" }));
  });

  test("is keyed: another ledger (another key) hashes the same params differently, so a plain hash cannot be looked up", () => {
    const other = new MemoryLedger();
    expect(other.hashParams("fill", { value: "hunter2" })).not.toBe(paramsHash("fill", { value: "hunter2" }));
    const plain = new Bun.CryptoHasher("sha256").update('fill\n{"value":"hunter2"}').digest("hex");
    expect(paramsHash("fill", { value: "hunter2" })).not.toBe(plain);
  });
});
