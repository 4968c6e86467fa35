/** Sessions over real sockets: start and stop, browser choice, and every way a session ends. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { removeHome, startDaemon, startSession, withDaemon, withSession, type TestDaemon } from "./harness.ts";
import type { IpcClient } from "./ipc-client.ts";
import type { Peer } from "./peer.ts";

describe("start, list, stop", () => {
  let d: TestDaemon;
  let c: IpcClient;
  let peer: Peer;
  beforeAll(async () => {
    d = await startDaemon();
    peer = await d.peer({ label: "home" });
    c = await d.client();
  });
  afterAll(async () => {
    await d.stop();
    removeHome(d.home);
  });

  test("session.start opens an Agent Window through the browser and session.stop closes it", async () => {
    const reply = await c.request("session.start", { name: "compare prices", focus: false, width: 800, height: 600 });
    expect(Object.keys(reply.meta?.timings ?? {})).toEqual(expect.arrayContaining(["daemon", "extension", "relay"]));
    const r = reply.result;
    expect(r.session_id).toMatch(/^[abcdefghjkmnpqrstuvwxyz23456789]{4}$/);
    expect(r).toMatchObject({ browser_instance_id: peer.instanceId });
    expect(peer.sessions.get(r.session_id)).toMatchObject({ window_id: r.window_id, current_tab_id: r.tab_id });

    const status = await c.call("system.status");
    expect(status.browsers).toHaveLength(1);
    expect(status.browsers[0]).toMatchObject({ instance_id: peer.instanceId, label: "home", sessions: 1 });
    expect(status.sessions[0]).toMatchObject({ session_id: r.session_id, name: "compare prices", state: "live", window_id: r.window_id });

    const stopped = await c.call("session.stop", { session_id: r.session_id });
    expect(stopped).toEqual({ stopped: [r.session_id], failed: [], closed_tab_ids: [r.tab_id], returned_tab_ids: [] });
    const close = await peer.closes.next((x) => x.params.session_id === r.session_id);
    expect(close.params.reason).toBe("stopped");
    const { sessions } = await c.call("session.list");
    expect(sessions.find((s: any) => s.session_id === r.session_id)).toMatchObject({ state: "ended", end_reason: "stopped" });
    const again = await c.request("session.stop", { session_id: r.session_id });
    expect(again.error).toMatchObject({ code: "not_found", data: { end_reason: "stopped" } });
  });

  test("session.stop --all stops every live session", async () => {
    const a = await startSession(c);
    const b = await startSession(c);
    const r = await c.call("session.stop", { all: true });
    expect(r.stopped.sort()).toEqual([a, b].sort());
    expect((await c.call("system.status")).sessions).toEqual([]);
  });

  test("the browser closing the window ends the session with its reason and lost tabs, without a session.close back", async () => {
    const s = await startSession(c);
    peer.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [5, 6] });
    await peer.barrier();
    const { sessions } = await c.call("session.list");
    expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({
      state: "ended",
      end_reason: "window_closed",
      lost_tab_ids: [5, 6],
    });
    expect(peer.closes.all.some((x) => x.params.session_id === s)).toBe(false);
  });

  test("a call the browser still holds when it ends the session gets the browser's own answer, not 'cancelled'", async () => {
    const s = await startSession(c);
    const clicking = c.request("click", { session_id: s, target: "@e1" }, { op_id: `end-${s}` });
    const held = await peer.next("click");
    // The person closed the tab the call was asking about: the window goes with it and the browser says so first.
    peer.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [] });
    await peer.barrier();
    held.fail("approval_denied", "the tab closed while the person was asked", {
      effect_state: "none",
      approval: { decision: "tab_closed", by: "browser" },
    });
    const r = await clicking;
    expect(r.error).toMatchObject({ code: "approval_denied", data: { approval: { decision: "tab_closed" } } });
  });

  test("the person's decision on an asked call without an op is a call.approval event; a mutation's is not (it is in its op)", async () => {
    const s = await startSession(c);
    const approval = (decision: string) => ({
      decision,
      by: "person",
      description: "hover button 'More'",
      cause: "ask_first_site",
      origin: "https://bank.example",
      waited_ms: 900,
    });
    const hovering = c.request("hover", { session_id: s, target: "@e1" });
    (await peer.next("hover")).reply({ tab_id: 5, acted_on: { ref: "@e1", role: "button", name: "More" }, approval: approval("allowed") });
    await hovering;
    const denied = c.request("hover", { session_id: s, target: "@e1" });
    (await peer.next("hover")).fail("approval_denied", "hover was not done: the person denied it", {
      effect_state: "none",
      approval: approval("denied"),
    });
    expect((await denied).error).toMatchObject({ code: "approval_denied" });
    const clicking = c.request("click", { session_id: s, target: "@e1" }, { op_id: `approved-${s}` });
    (await peer.next("click")).fail("approval_denied", "click was not done: the person denied it", {
      effect_state: "none",
      approval: approval("denied"),
    });
    await clicking;
    const { events } = await c.call("events", { session_id: s, types: ["call.approval"] });
    expect(events.map((e: any) => [e.data.method, e.data.decision, e.data.description])).toEqual([
      ["hover", "allowed", "hover button 'More'"],
      ["hover", "denied", "hover button 'More'"],
    ]);
    expect(events[0].data).toMatchObject({ by: "person", cause: "ask_first_site", origin: "https://bank.example", waited_ms: 900 });
    expect(typeof events[0].data.trace_id).toBe("string");
  });

  test("a call the browser never answers after ending its session is cancelled within a bounded time", async () => {
    const s = await startSession(c);
    const clicking = c.request("click", { session_id: s, target: "@e1" }, { op_id: `end-${s}` });
    await peer.next("click");
    peer.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [] });
    const r = await clicking;
    expect(r.error).toMatchObject({ code: "cancelled", data: { reason: "session_ended", end_reason: "window_closed" } });
  });

  test("a browser cannot end another browser's session", async () => {
    const s = await startSession(c);
    const intruder = await d.peer({ label: "intruder" });
    intruder.event("session.ended", { session_id: s, reason: "window_closed" });
    await intruder.barrier();
    expect((await c.call("system.status")).sessions.map((x: any) => x.session_id)).toContain(s);
    intruder.close();
    await intruder.closed;
    await c.call("session.stop", { session_id: s });
  });

  test("a failed session.open ends the session with start_failed and closes what was opened", async () => {
    const failing = await d.peer({ label: "failing", autoSession: false });
    const start = c.request("session.start", { browser: failing.instanceId });
    const open = await failing.next("session.open");
    open.fail("cdp_failed", "window could not be created");
    const r = await start;
    expect(r.error).toMatchObject({ code: "cdp_failed", message: "window could not be created" });
    const close = await failing.next("session.close");
    expect(close.params).toEqual({ session_id: open.params.session_id, reason: "start_failed" });
    close.reply({ closed_tab_ids: [], returned_tab_ids: [] });
    const { sessions } = await c.call("session.list");
    expect(sessions.find((x: any) => x.session_id === open.params.session_id)?.end_reason).toBe("start_failed");
    failing.close();
    await failing.closed;
  });

  test("--isolated reaches the browser and is recorded; the browser's incognito_not_allowed is the agent's error", async () => {
    const iso = await d.peer({ label: "iso", autoSession: false });
    const start = c.request("session.start", { browser: iso.instanceId, isolated: true });
    const open = await iso.next("session.open");
    expect(open.params.isolated).toBe(true);
    open.reply({ window_id: 71, tab_id: 72 });
    const id = (await start).result.session_id;
    expect((await c.call("session.list", { session_id: id })).sessions[0]).toMatchObject({ isolated: true, window_id: 71 });
    expect((await c.call("system.status")).sessions.find((x: any) => x.session_id === id)?.isolated).toBe(true);

    // A browser that refuses (no incognito access): its error reaches the agent with the code's hint.
    const plain = c.request("session.start", { browser: iso.instanceId, isolated: true });
    const plainOpen = await iso.next("session.open");
    plainOpen.fail("incognito_not_allowed", "bsk is not allowed in Incognito");
    const refused = (await plain).error!;
    expect(refused.code).toBe("incognito_not_allowed");
    expect(refused.hint).toContain("Allow in Incognito");
    (await iso.next("session.close")).reply({ closed_tab_ids: [], returned_tab_ids: [] });

    // An incognito window of its own cannot also be a group in the person's window: refused before the browser hears of it.
    const both = (await c.request("session.start", { browser: iso.instanceId, isolated: true, where: "group" })).error!;
    expect(both.code).toBe("invalid_params");
    expect(both.data?.reason).toBe("isolated_group");
    iso.close();
    await iso.closed;
  });
});

describe("choosing a browser", () => {
  test("several browsers: no choice → multiple_browsers_online; a label shared by several → label_ambiguous; a unique label or id works", async () => {
    await withDaemon({}, async (d) => {
      const w1 = await d.peer({ label: "work" });
      const w2 = await d.peer({ label: "work" });
      const home = await d.peer({ label: "home" });
      const c = await d.client();

      const none = await c.request("session.start", {});
      expect(none.error?.code).toBe("multiple_browsers_online");
      expect(none.error?.data?.browsers.map((b: any) => b.instance_id).sort()).toEqual(
        [w1.instanceId, w2.instanceId, home.instanceId].sort(),
      );

      const ambiguous = await c.request("session.start", { browser: "work" });
      expect(ambiguous.error).toMatchObject({ code: "invalid_params", data: { reason: "label_ambiguous" } });
      expect(ambiguous.error?.data?.instance_ids.sort()).toEqual([w1.instanceId, w2.instanceId].sort());

      const byLabel = await c.call("session.start", { browser: "home", focus: false });
      expect(byLabel.browser_instance_id).toBe(home.instanceId);
      expect(home.sessions.has(byLabel.session_id)).toBe(true);

      const byId = await c.call("session.start", { browser: w2.instanceId, focus: false });
      expect(byId.browser_instance_id).toBe(w2.instanceId);

      const unknown = await c.request("session.start", { browser: "nope" });
      expect(unknown.error?.code).toBe("not_found");
    });
  });

  test("no browser: session.start waits for one, then answers no_browser_connected", async () => {
    await withDaemon({ env: { BSK_BROWSER_WAIT_MS: "150" } }, async (d) => {
      const c = await d.client();
      const r = await c.request("session.start", {});
      expect(r.error).toMatchObject({ code: "no_browser_connected", data: { waited_ms: 150 } });
    });
  });

  test("a browser that connects while session.start waits gets the session", async () => {
    await withDaemon({ env: { BSK_BROWSER_WAIT_MS: "10000" } }, async (d) => {
      const c = await d.client();
      const start = c.request("session.start", { focus: false });
      const peer = await d.peer();
      const r = await start;
      expect(r.result.browser_instance_id).toBe(peer.instanceId);
    });
  });
});

describe("session end triggers", () => {
  test("idle: a session with no call for the idle time ends; a call in flight keeps it alive", async () => {
    await withSession({ env: { BSK_SESSION_IDLE_MS: "150" } }, async ({ peer, c, s }) => {
      const call = c.request("tab.list", { session_id: s });
      const held = await peer.next("tab.list");
      // Not a synchronisation: time passes to show that nothing ends meanwhile.
      await Bun.sleep(400);
      expect((await c.call("system.status")).sessions.map((x: any) => x.session_id)).toEqual([s]);
      held.reply({ current_tab_id: null, tabs: [] });
      expect((await call).result).toBeDefined();
      const close = await peer.closes.next((x) => x.params.session_id === s);
      expect(close.params.reason).toBe("idle");
      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s)?.end_reason).toBe("idle");
    });
  });

  test("owner_exited: the session ends when its owner process exits", async () => {
    await withDaemon({}, async (d) => {
      const peer = await d.peer();
      const c = await d.client();
      const owner = Bun.spawn(["sleep", "60"]);
      const s = await startSession(c, { owner_pid: owner.pid });
      const other = await startSession(c);
      owner.kill("SIGKILL");
      await owner.exited;
      const close = await peer.closes.next((x) => x.params.session_id === s);
      expect(close.params.reason).toBe("owner_exited");
      const live = (await c.call("system.status")).sessions.map((x: any) => x.session_id);
      expect(live).toEqual([other]);
    });
  });

  test("a lease replaces the idle timeout: a session idle longer than the idle time lives until its lease lapses", async () => {
    await withSession({ env: { BSK_SESSION_IDLE_MS: "100" }, params: { lease_ms: 1000 } }, async ({ peer, s }) => {
      const close = await peer.closes.next((x) => x.params.session_id === s, "lease end", 5000);
      expect(close.params.reason).toBe("lease_expired");
    });
  });

  test("a lease longer than 1 h is refused in words", async () => {
    await withDaemon({}, async (d) => {
      await d.peer();
      const c = await d.client();
      const r = await c.request("session.start", { focus: false, lease_ms: 2 * 3_600_000 });
      expect(r.error).toMatchObject({ code: "invalid_params" });
      expect(r.error?.message).toContain("params.lease_ms: must be from 1s to 1h");
    });
  });

  test("wait --session is a call of that session: its idle clock waits; an ended session is refused", async () => {
    await withSession({ env: { BSK_SESSION_IDLE_MS: "150" } }, async ({ peer, c, s }) => {
      // Not a synchronisation: the wait outlasts the idle time, and the session must still be live after it.
      expect((await c.call("wait", { duration_ms: 400, session_id: s })).waited_ms).toBeGreaterThanOrEqual(390);
      expect((await c.call("system.status")).sessions.map((x: any) => x.session_id)).toEqual([s]);
      const close = await peer.closes.next((x) => x.params.session_id === s);
      expect(close.params.reason).toBe("idle");
      const r = await c.request("wait", { duration_ms: 1, session_id: s });
      expect(r.error).toMatchObject({ code: "not_found", data: { reason: "session_ended", end_reason: "idle" } });
    });
  });

  test("session.list with a session id lists only that one; an empty id is refused in words", async () => {
    await withSession({}, async ({ c, s }) => {
      const other = await startSession(c);
      expect((await c.call("session.list", { session_id: s })).sessions.map((x: any) => x.session_id)).toEqual([s]);
      expect((await c.call("session.list", { session_id: "zzzz" })).sessions).toEqual([]);
      expect((await c.call("session.list")).sessions.map((x: any) => x.session_id).sort()).toEqual([s, other].sort());
      const r = await c.request("session.list", { session_id: "" });
      expect(r.error?.message).toContain("params.session_id: is empty: pass the id bsk session start printed");
    });
  });

  test("lease_expired: a session whose lease is not renewed ends", async () => {
    await withSession({ params: { lease_ms: 1000 } }, async ({ peer, c, s }) => {
      const close = await peer.closes.next((x) => x.params.session_id === s, "lease end", 5000);
      expect(close.params.reason).toBe("lease_expired");
      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({ end_reason: "lease_expired", lease_ms: 1000 });
    });
  });
});
