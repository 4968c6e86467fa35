/** The session event stream through the daemon: daemon-owned seqs, acks, duplicates after reconnects and restarts. */
import { describe, expect, test } from "bun:test";
import { freePort, removeHome, startDaemon, startSession, tempHome, withDaemon } from "./harness.ts";
import type { IpcClient } from "./ipc-client.ts";
import { Peer } from "./peer.ts";

type D = Awaited<ReturnType<typeof startDaemon>>;

/** A peer that handshakes with an event stream; returns it and the daemon's events_acked. */
async function streamingPeer(d: D, stream: string, opts: { instanceId?: string; sessions?: any[] } = {}) {
  const peer = await Peer.connect({
    port: d.port,
    instanceId: opts.instanceId,
    sessions: opts.sessions,
    ...("secret" in d ? { secret: (d as any).secret } : {}),
  });
  const hs = await peer.handshake({ event_stream: stream });
  if (hs.error) throw new Error(`handshake refused: ${hs.error.code}`);
  return { peer, acked: hs.result.events_acked as number };
}

const nav = (session_id: string, i: number) => ({ session_id, tab_id: 10, url: `https://a.example/${i}`, cause: "link" });

function ackOf(peer: Peer, seq: number) {
  return peer.unmatched.next((f: any) => f.event === "system.ack" && f.payload.seq >= seq, `an ack of ${seq}`);
}

async function navUrls(c: IpcClient, s: string, since = 0): Promise<string[]> {
  const r = await c.call("events", { session_id: s, since, types: ["navigation"] });
  return r.events.map((e: any) => e.data.url);
}

describe("numbered events", () => {
  test("are acknowledged; resent ones after a reconnect are dropped; the public seqs have no gap", async () => {
    await withDaemon({}, async (d) => {
      const { peer, acked } = await streamingPeer(d, "st-1");
      expect(acked).toBe(0);
      const c = await d.client();
      const s = await startSession(c);
      for (let i = 1; i <= 3; i++) peer.send({ event: "navigation", payload: nav(s, i), seq: i });
      await ackOf(peer, 3);
      // The link drops before the daemon's ack of 4 reaches the extension: it resends 4 with 5.
      peer.send({ event: "navigation", payload: nav(s, 4), seq: 4 });
      await ackOf(peer, 4);
      const again = await streamingPeer(d, "st-1", { instanceId: peer.instanceId, sessions: [...peer.sessions.values()] });
      peer.close();
      expect(again.acked).toBe(4);
      again.peer.send({ event: "navigation", payload: nav(s, 4), seq: 4 });
      again.peer.send({ event: "navigation", payload: nav(s, 5), seq: 5 });
      await ackOf(again.peer, 5);
      expect(await navUrls(c, s)).toEqual([1, 2, 3, 4, 5].map((i) => `https://a.example/${i}`));
      const all = (await c.call("events", { session_id: s })).events.map((e: any) => e.seq);
      expect(all).toEqual(all.map((_: number, i: number) => i + 1));
      again.peer.close();
    });
  });

  test("a coalesced burst keeps its count; a new stream (browser restarted) starts its numbering over", async () => {
    await withDaemon({}, async (d) => {
      const { peer } = await streamingPeer(d, "st-a");
      const c = await d.client();
      const s = await startSession(c);
      peer.send({ event: "console.error", payload: { session_id: s, tab_id: 10, text: "e99", count: 99 }, seq: 1 });
      await ackOf(peer, 1);
      const fresh = await streamingPeer(d, "st-b", { instanceId: peer.instanceId, sessions: [...peer.sessions.values()] });
      peer.close();
      expect(fresh.acked).toBe(0);
      fresh.peer.send({ event: "console.error", payload: { session_id: s, tab_id: 10, text: "after" }, seq: 1 });
      await ackOf(fresh.peer, 1);
      const r = await c.call("events", { session_id: s, types: ["console"] });
      expect(r.events.map((e: any) => [e.data.text, e.count])).toEqual([
        ["e99", 99],
        ["after", undefined],
      ]);
      fresh.peer.close();
    });
  });

  test("after a daemon restart, what was recorded is known from disk: events_acked, and resends are dropped", async () => {
    const home = tempHome();
    const port = await freePort();
    const first = await startDaemon({ home, port, subprocess: true });
    const { peer } = await streamingPeer(first, "st-r");
    const c1 = await first.client();
    const s = await startSession(c1);
    for (let i = 1; i <= 3; i++) peer.send({ event: "navigation", payload: nav(s, i), seq: i });
    await ackOf(peer, 3);
    first.proc!.kill("SIGKILL");
    await first.done;

    const second = await startDaemon({ home, port, subprocess: true });
    try {
      const back = await streamingPeer(second, "st-r", { instanceId: peer.instanceId, sessions: [...peer.sessions.values()] });
      expect(back.acked).toBe(3);
      back.peer.send({ event: "navigation", payload: nav(s, 3), seq: 3 });
      back.peer.send({ event: "navigation", payload: nav(s, 4), seq: 4 });
      await ackOf(back.peer, 4);
      const c2 = await second.client();
      expect(await navUrls(c2, s)).toEqual([1, 2, 3, 4].map((i) => `https://a.example/${i}`));
      const seqs = (await c2.call("events", { session_id: s })).events.map((e: any) => e.seq);
      expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
      back.peer.close();
    } finally {
      await second.stop();
      removeHome(home);
    }
  });
});

describe("events born in the daemon", () => {
  test("the browser's link dropping and coming back is in the stream: browser.disconnected, then session.adopted", async () => {
    await withDaemon({ env: { BSK_RECONNECT_GRACE_MS: "5000" } }, async (d) => {
      const { peer } = await streamingPeer(d, "st-d");
      const c = await d.client();
      const s = await startSession(c);
      const follower = await d.client();
      void follower.request("events", { session_id: s, follow_ms: 60_000, types: ["browser"] });
      peer.close();
      await follower.unmatched.next((f: any) => f.payload?.event === "browser.disconnected", "browser.disconnected");
      const back = await streamingPeer(d, "st-d", { instanceId: peer.instanceId, sessions: [...peer.sessions.values()] });
      const evs = (await c.call("events", { session_id: s })).events;
      expect(evs.map((e: any) => e.event)).toEqual(["session.started", "browser.disconnected", "session.adopted"]);
      expect(evs[1].data).toMatchObject({ browser_instance_id: peer.instanceId, grace_ms: 5000 });
      back.peer.close();
    });
  });
});

describe("bsk events", () => {
  test("--follow streams each new event as a frame, then answers when the session ends", async () => {
    await withDaemon({}, async (d) => {
      const { peer } = await streamingPeer(d, "st-f");
      const c = await d.client();
      const s = await startSession(c);
      const follower = await d.client();
      const follow = follower.request("events", { session_id: s, follow_ms: 60_000, types: ["navigation", "session"] });
      const started = await follower.unmatched.next((f: any) => f.event === "session.event" && f.payload.event === "session.started");
      expect((started as any).payload).toMatchObject({ session_id: s, seq: 1 });
      peer.send({ event: "navigation", payload: nav(s, 1), seq: 1 });
      const navFrame = await follower.unmatched.next((f: any) => f.payload?.event === "navigation");
      expect((navFrame as any).payload.data.url).toBe("https://a.example/1");
      await c.call("session.stop", { session_id: s });
      const r = await follow;
      expect(r.result).toMatchObject({ session_id: s, events: [], ended: true });
      const last = follower.unmatched.all.at(-1) as any;
      expect(last.payload.event).toBe("session.ended");
      expect(r.result.next_since).toBe(last.payload.seq);
      peer.close();
    });
  });

  test("reads pages with --since and --limit, filters by family, and says what is no longer kept", async () => {
    await withDaemon({}, async (d) => {
      const { peer } = await streamingPeer(d, "st-p");
      const c = await d.client();
      const s = await startSession(c);
      for (let i = 1; i <= 5; i++) peer.send({ event: "navigation", payload: nav(s, i), seq: i });
      peer.send({ event: "tab.opened", payload: { session_id: s, tab_id: 11, url: "https://b.example/" }, seq: 6 });
      await ackOf(peer, 6);
      const page = await c.call("events", { session_id: s, since: 1, limit: 2 });
      expect(page.events.map((e: any) => e.seq)).toEqual([2, 3]);
      expect(page.next_since).toBe(3);
      const tabs = await c.call("events", { session_id: s, types: ["tab"] });
      expect(tabs.events.map((e: any) => e.event)).toEqual(["tab.opened"]);
      expect(tabs.next_since).toBe(7);
      const none = await c.request("events", { session_id: "zzzz" });
      expect(none.error?.code).toBe("not_found");
      peer.close();
    });
  });
});
