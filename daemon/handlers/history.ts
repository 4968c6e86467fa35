/**
 * ops and events: the operation ledger and a session's event stream. `events --follow` streams each new event as a
 * frame `{event: "session.event", payload: {session_id, seq, ts, event, data, count?}}` on the caller's connection,
 * then answers once the follow ends: the caller's --timeout, a cancel (Ctrl-C), or the session's end.
 */
import type { Result } from "../../protocol/catalog.ts";
import { matchesTypes, type SessionEvent } from "../event-log.ts";
import type { DaemonHandler } from "./types.ts";

const ops: DaemonHandler<"ops"> = async ({ ctx, params: p }) => {
  const { ops, total } = ctx.ledger.list({ session_id: p.session_id, state: p.state, limit: p.limit });
  // The params hash only compares retries; it tells a reader nothing.
  return { ops: ops.map(({ outcome: _o, params_hash: _h, ...op }) => op), total };
};

const events: DaemonHandler<"events"> = async ({ call, ctx, client, params: p }) => {
  const id = p.session_id;
  const types = p.types
    ?.flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  const live = ctx.sessions.get(id) !== undefined;
  // An ended session's stream stays readable as long as it is kept, even once the registry forgot the session.
  if (!live && !ctx.sessions.findEnded(id) && ctx.events.read(id, { limit: 1 }).next_since === 0) ctx.sessions.lookup(id);

  if (!p.follow_ms) {
    const page = ctx.events.read(id, { since: p.since, limit: p.limit, types });
    return { session_id: id, ...page, ended: !live } satisfies Result<"events">;
  }

  const followMs = Math.min(p.follow_ms, call.meta.timeout_ms ?? p.follow_ms);
  const { promise: over, resolve: end } = Promise.withResolvers<void>();
  let last = p.since;
  let ended = !live;
  const forward = (e: SessionEvent) => {
    if (e.seq <= last) return;
    last = e.seq;
    if (matchesTypes(e.event, types)) client.push({ event: "session.event", payload: { session_id: id, ...e } });
    if (e.event === "session.ended") {
      ended = true;
      end();
    }
  };
  // Subscribed before the backlog is read, in the same turn: nothing falls between the two.
  const unsubscribe = ctx.events.subscribe(id, forward);
  const backlog = ctx.events.read(id, { since: p.since });
  for (const e of backlog.events) forward(e);
  last = Math.max(last, backlog.next_since);
  if (ended) end();
  const timer = setTimeout(end, followMs);
  call.signal.addEventListener("abort", () => end(), { once: true });
  try {
    await over;
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
  return { session_id: id, events: [], next_since: last, dropped: backlog.dropped, ended } satisfies Result<"events">;
};

export const historyHandlers = { ops, events };
