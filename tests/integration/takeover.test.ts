/**
 * Take over and Resume in the daemon, with a scripted browser: the person's takeover cuts off the session's calls
 * (the extension is told to cancel them), refuses page actions and page reads with user_aborted/taken_over while
 * control calls and the session's lists pass, and Resume lets them through again. Only the browser that owns the session can take it over.
 */
import { describe, expect, test } from "bun:test";
import { startSession, withSession } from "./harness.ts";

describe("take over and resume", () => {
  test("a takeover cancels the call in flight and refuses actions and reads until Resume; the session's lists pass", () =>
    withSession({}, async ({ peer, c, s }) => {
      const waiting = c.request("wait_for", { session_id: s, text: "never" });
      const held = await peer.next("wait_for");
      peer.event("session.takeover", { session_id: s, tab_id: 7 });
      const cut = await waiting;
      expect(cut.error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over", session_id: s } });
      expect(cut.error?.hint).toContain("Resume");
      await peer.nextCancel(held.id);

      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s).state).toBe("taken_over");

      const click = await c.request("click", { session_id: s, target: "#buy" });
      expect(click.error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
      const hover = await c.request("hover", { session_id: s, target: "#menu" });
      expect(hover.error?.code).toBe("user_aborted");

      // What the person types is theirs: the page is not read either, and the browser never sees the call.
      for (const method of ["snapshot", "get_html", "screenshot", "console"]) {
        const read = await c.request(method, { session_id: s });
        expect(read.error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
      }
      const tabs = c.request("tab.list", { session_id: s });
      (await peer.next("tab.list")).reply({ tabs: [] });
      expect((await tabs).result).toMatchObject({ tabs: [] });

      peer.event("session.resume", { session_id: s, tab_id: 7 });
      await peer.barrier();
      expect((await c.call("system.status")).sessions[0].state).toBe("live");
      const again = c.request("click", { session_id: s, target: "#buy" });
      (await peer.next("click")).reply({ tab_id: 1, target: null, effect: { kind: "none", dom_changed: false } });
      expect((await again).result).toMatchObject({ tab_id: 1 });
    }));

  test("a call waiting in the session's queue is cut off too", () =>
    withSession({}, async ({ peer, c, s }) => {
      const first = c.request("wait_for", { session_id: s, text: "never" });
      await peer.next("wait_for");
      const queued = c.request("snapshot", { session_id: s });
      peer.event("session.takeover", { session_id: s });
      expect((await first).error?.code).toBe("user_aborted");
      expect((await queued).error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
    }));

  test("another browser cannot take over or resume a session it does not hold", () =>
    withSession({}, async ({ d, c, s }) => {
      const intruder = await d.peer({ label: "intruder" });
      intruder.event("session.takeover", { session_id: s });
      await intruder.barrier();
      expect((await c.call("system.status")).sessions.find((x: any) => x.session_id === s).state).toBe("live");
      intruder.close();
      await intruder.closed;
    }));

  test("Stop from the browser's debugging bar ends the session with its cause", () =>
    withSession({}, async ({ peer, c, s }) => {
      const other = await startSession(c);
      for (const id of [s, other])
        peer.event("session.ended", { session_id: id, reason: "stopped_by_person", cause: "debugging_cancelled" });
      await peer.barrier();
      const { sessions } = await c.call("session.list");
      for (const id of [s, other])
        expect(sessions.find((x: any) => x.session_id === id)).toMatchObject({ state: "ended", end_reason: "stopped_by_person" });
    }));
});
