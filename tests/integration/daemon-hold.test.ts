/**
 * A held call (protocol/frames.ts HOLD_INPUT): the daemon sends a mutation to an extension that holds input while the
 * op's ledger line is still syncing, and `op.durable` once it is on disk. A sync that fails ends the call with
 * `effect_state: none` (the extension sent nothing) and no `op.durable`; an extension that does not hold is sent the
 * call only after the sync, and a client cannot hold a call itself.
 */
import { describe, expect, test } from "bun:test";
import { startSession, withDaemon } from "./harness.ts";
import type { IpcClient, Reply } from "./ipc-client.ts";
import type { Incoming, Peer } from "./peer.ts";
import { SyncGate } from "./sync-gate.ts";

const ACTED = { tab_id: 10, target: { ref: "@e1", role: "button", name: "Go" }, effect: { kind: "none", dom_changed: false } };
const durables = (peer: Peer) => peer.unmatched.all.filter((f: any) => f.event === "op.durable").map((f: any) => f.payload.request_id);

interface HeldClick {
  gate: SyncGate;
  peer: Peer;
  c: IpcClient;
  s: string;
  click: Promise<Reply>;
  req: Incoming;
}

/** A daemon whose ledger syncs pass `gate`, an extension that holds input, and a click that reached it held. */
async function withHeldClick(opId: string, fn: (w: HeldClick) => Promise<void>): Promise<void> {
  const gate = new SyncGate();
  await withDaemon({ ledgerSync: gate.sync }, async (d) => {
    const peer = await d.peer({ features: ["hold_input"] });
    const c = await d.client();
    const s = await startSession(c);
    gate.holding = true;
    const click = c.request("click", { session_id: s, target: "@e1" }, { op_id: opId });
    const req = await peer.next("click");
    expect(req.meta.hold).toBe(true);
    await gate.aSyncHeld();
    await fn({ gate, peer, c, s, click, req });
  });
}

describe("held calls", () => {
  test("an extension that holds input gets the call while its op syncs, and op.durable once the op is on disk", async () => {
    await withHeldClick("h-1", async ({ gate, peer, c, s, click, req }) => {
      expect(durables(peer)).toEqual([]);

      gate.release();
      const told: any = await peer.unmatched.next((f: any) => f.event === "op.durable", "op.durable");
      expect(told.payload).toEqual({ request_id: req.id });
      req.reply(ACTED);
      const r = await click;
      expect(r.meta).toMatchObject({ op_id: "h-1", effect_state: "committed" });
      expect(typeof r.meta?.timings?.ledger_sync).toBe("number");
      expect((await c.call("ops", { session_id: s })).ops.map((o: any) => [o.op_id, o.state])).toEqual([["h-1", "executed"]]);

      // Reads are never held.
      const read = c.request("snapshot", { session_id: s });
      const snap = await peer.next("snapshot");
      expect(snap.meta.hold).toBeUndefined();
      snap.reply({ text: "", tab_id: 10 });
      await read;
    });
  });

  test("a sync that fails: the call ends with ledger_unavailable and effect_state none, is cancelled, never told durable", async () => {
    await withHeldClick("h-2", async ({ gate, peer, c, s, click, req }) => {
      gate.release(new Error("EIO: injected"));

      const r = await click;
      expect(r.error).toMatchObject({ code: "unsupported", data: { reason: "ledger_unavailable", op_id: "h-2", effect_state: "none" } });
      expect(r.meta?.effect_state).toBe("none");
      await peer.nextCancel(req.id);
      // The extension's late answer changes nothing, and nothing ever tells it to act.
      req.reply(ACTED);
      await peer.barrier();
      expect(durables(peer)).not.toContain(req.id);

      // Forgotten, not recorded: the same op id runs afresh.
      const again = c.request("click", { session_id: s, target: "@e1" }, { op_id: "h-2" });
      const req2 = await peer.next("click");
      if (req2.meta.hold) await peer.unmatched.next((f: any) => f.event === "op.durable" && f.payload.request_id === req2.id, "op.durable");
      req2.reply(ACTED);
      expect((await again).meta).toMatchObject({ op_id: "h-2", effect_state: "committed" });
      expect(durables(peer)).not.toContain(req.id);
    });
  });

  test("an extension that does not hold input is sent the call only once its op is on disk; a client's own hold is ignored", async () => {
    const gate = new SyncGate();
    await withDaemon({ ledgerSync: gate.sync }, async (d) => {
      const peer = await d.peer();
      const c = await d.client();
      const s = await startSession(c);
      const other = await startSession(c);
      gate.holding = true;
      const click = c.request("click", { session_id: s, target: "@e1" }, { op_id: "h-3", hold: true });
      await gate.aSyncHeld();
      // A call sent after it reaches the browser; the click has not.
      const read = c.request("snapshot", { session_id: other });
      const snap = await peer.next("snapshot");
      expect(peer.requests.all.map((r) => r.method)).not.toContain("click");
      snap.reply({ text: "", tab_id: 10 });
      await read;

      gate.release();
      const req = await peer.next("click");
      expect(req.meta.hold).toBeUndefined();
      req.reply(ACTED);
      expect((await click).meta).toMatchObject({ op_id: "h-3", effect_state: "committed" });
      expect(durables(peer)).toEqual([]);
    });
  });
});
