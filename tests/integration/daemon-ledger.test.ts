/** The operation ledger through the daemon: effect_state on every mutation, replays, and a daemon killed mid-call. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { freePort, removeHome, startDaemon, startSession, tempHome, withSession } from "./harness.ts";
import { Peer } from "./peer.ts";
import type { IpcClient } from "./ipc-client.ts";
import { LEDGER_DEFAULTS } from "../../daemon/ledger-file.ts";

const ACTED = { tab_id: 10, target: { ref: "@e1", role: "button", name: "Go" }, effect: { kind: "none", dom_changed: false } };

describe("effect_state", () => {
  test("a result is committed; a refusal before or by the extension is none; a lost reply is unknown", async () => {
    await withSession({}, async ({ peer, c, s }) => {
      const ok = c.request("click", { session_id: s, target: "@e1" }, { op_id: "e-1" });
      (await peer.next("click")).reply(ACTED);
      expect((await ok).meta).toMatchObject({ op_id: "e-1", effect_state: "committed" });

      const stale = c.request("click", { session_id: s, target: "@e9" }, { op_id: "e-2" });
      (await peer.next("click")).fail("stale_ref", "gone");
      const r2 = await stale;
      expect(r2.meta?.effect_state).toBe("none");
      expect(r2.error?.data).toMatchObject({ effect_state: "none" });

      const noSession = await c.request("click", { session_id: "zzzz", target: "@e1" }, { op_id: "e-3" });
      expect(noSession.error).toMatchObject({ code: "not_found", data: { effect_state: "none" } });

      const cut = c.request("click", { session_id: s, target: "@e1" }, { op_id: "e-4", timeout_ms: 300 });
      await peer.next("click");
      const r4 = await cut;
      expect(r4.error).toMatchObject({ code: "timeout", data: { effect_state: "unknown" } });
      expect(r4.meta?.effect_state).toBe("unknown");

      // Reads carry none of it.
      const read = c.request("snapshot", { session_id: s });
      (await peer.next("snapshot")).reply({ text: "", tab_id: 10 });
      expect((await read).meta?.effect_state).toBeUndefined();

      const ops = await c.call("ops", { session_id: s });
      expect(ops.ops.map((o: any) => [o.op_id, o.state])).toEqual([
        ["e-1", "executed"],
        ["e-2", "not_executed"],
        ["e-4", "unknown"],
      ]);
      expect((await c.call("ops", { state: "unknown" })).ops.map((o: any) => o.op_id)).toEqual(["e-4"]);
    });
  });

  test("an op id the daemon makes up (the client sent none): answered with it, kept in ops and on disk like any other", async () => {
    await withSession({}, async ({ d, peer, c, s }) => {
      const click = c.request("click", { session_id: s, target: "@e1" });
      (await peer.next("click")).reply(ACTED);
      const r = await click;
      expect(r.meta).toMatchObject({ effect_state: "committed" });
      const opId = r.meta?.op_id as string;
      expect(opId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await c.call("ops", { session_id: s })).ops).toEqual([expect.objectContaining({ op_id: opId, state: "executed" })]);
      await d.stop();
      const dir = d.paths.ledgerDir;
      const written = readdirSync(dir)
        .filter((f) => f.endsWith(".jsonl"))
        .flatMap((f) => readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(Boolean))
        .map((l) => JSON.parse(l))
        .filter((l) => l.op_id === opId)
        .map((l) => l.e);
      expect(written).toEqual(["reserved", "outcome"]);
    });
  });

  test("a replay carries the recorded effect_state and replayed: true, and the peer never sees it", async () => {
    await withSession({}, async ({ peer, c, s }) => {
      const cut = c.request("click", { session_id: s, target: "@e1" }, { op_id: "r-1", timeout_ms: 300 });
      await peer.next("click");
      await cut;
      const again = await c.request("click", { session_id: s, target: "@e1" }, { op_id: "r-1" });
      expect(again.meta).toMatchObject({ replayed: true, effect_state: "unknown" });
      expect(again.error?.code).toBe("timeout");
      expect(peer.requests.pending()).toHaveLength(0);
    });
  });

  test("typed values never reach the ledger files", async () => {
    await withSession({}, async ({ d, peer, c, s }) => {
      const fill = c.request("fill", { session_id: s, target: "#pw", value: "hunter2-secret" }, { op_id: "f-1" });
      (await peer.next("fill")).reply({ ...ACTED, value_ok: false, actual: "hunter2" });
      await fill;
      await c.call("ops", {});
      await d.stop();
      const dir = d.paths.ledgerDir;
      const text = readdirSync(dir)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => readFileSync(`${dir}/${f}`, "utf8"))
        .join("");
      expect(text).toContain('"op_id":"f-1"');
      expect(text).not.toContain("hunter2");
      expect(statSync(`${dir}/key`).mode & 0o777).toBe(0o600);
    });
  });
});

describe("a daemon killed mid-call", () => {
  test("the op reads unknown after the restart; the same op id replays that and never reaches the browser again", async () => {
    const home = tempHome();
    const port = await freePort();
    const first = await startDaemon({ home, port, subprocess: true });
    const peer = await first.peer();
    const c1 = await first.client();
    const s = await startSession(c1);
    const inFlight = c1.request("click", { session_id: s, target: "@e1" }, { op_id: "k-1" });
    await peer.next("click");
    first.proc!.kill("SIGKILL");
    await first.done;
    await c1.closed;
    void inFlight;

    const second = await startDaemon({ home, port, subprocess: true });
    try {
      const back = await Peer.start({ port, secret: second.secret, instanceId: peer.instanceId, sessions: [...peer.sessions.values()] });
      const c2 = await second.client();
      const ops = await c2.call("ops", { session_id: s });
      expect(ops.ops).toEqual([
        expect.objectContaining({ op_id: "k-1", method: "click", state: "unknown", effect_state: "unknown", reason: "daemon_restarted" }),
      ]);
      expect(ops.ops[0].params_hash).toBeUndefined();
      const again = await c2.request("click", { session_id: s, target: "@e1" }, { op_id: "k-1" });
      expect(again.meta).toMatchObject({ replayed: true, effect_state: "unknown" });
      expect(again.error).toMatchObject({ code: "protocol_error", data: { reason: "daemon_restarted", effect_state: "unknown" } });
      // A barrier: the peer has had every frame the daemon sent before the replay's answer; no click among them.
      await back.barrier();
      expect(back.requests.pending()).toHaveLength(0);
      back.close();
    } finally {
      await second.stop();
      removeHome(home);
    }
  });
});

describe("ops older than the newest the ledger holds in full (read back from disk)", () => {
  test("a retry replays the recorded reply before and after a restart, never reaching the browser; ops lists them", async () => {
    const home = tempHome();
    const first = await startDaemon({ home });
    const peer = await first.peer();
    const c1 = await first.client();
    const s = await startSession(c1);
    const N = LEDGER_DEFAULTS.fullRecords + 40;
    for (let i = 0; i < N; i++) {
      const click = c1.request("click", { session_id: s, target: `@e${i}` }, { op_id: `old-${i}` });
      (await peer.next("click")).reply({ ...ACTED, n: i });
      expect((await click).meta?.effect_state).toBe("committed");
    }
    const retry = async (c: IpcClient, p: Peer, label: string) => {
      for (const i of [0, 7, N - 1]) {
        const again = await c.request("click", { session_id: s, target: `@e${i}` }, { op_id: `old-${i}` });
        expect(again.meta, label).toMatchObject({ replayed: true, effect_state: "committed" });
        expect(again.result, label).toEqual({ ...ACTED, n: i });
      }
      const reused = await c.request("click", { session_id: s, target: "@e999" }, { op_id: "old-3" });
      expect(reused.error, label).toMatchObject({ code: "invalid_params", data: { reason: "op_id_reused", op_id: "old-3" } });
      const ops = await c.call("ops", { session_id: s, limit: 10_000 });
      expect(ops.total, label).toBe(N);
      expect(
        ops.ops.map((o: any) => o.op_id),
        label,
      ).toEqual(Array.from({ length: N }, (_, i) => `old-${i}`));
      expect(ops.ops[0], label).toMatchObject({ method: "click", state: "executed", effect_state: "committed", session_id: s });
      // A barrier: the peer has had every frame the daemon sent before the answers above; no click among them.
      await p.barrier();
      expect(p.requests.pending(), label).toHaveLength(0);
    };
    try {
      await retry(c1, peer, "before the restart");
      await first.stop();
      const second = await startDaemon({ home });
      try {
        const back = await Peer.start({
          port: second.port,
          secret: second.secret,
          instanceId: peer.instanceId,
          sessions: [...peer.sessions.values()],
        });
        await retry(await second.client(), back, "after the restart");
        back.close();
      } finally {
        await second.stop();
      }
    } finally {
      removeHome(home);
    }
  });
});
