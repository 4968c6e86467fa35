/**
 * The session registry: ids, records, per-session queues and every way a session ends.
 * All ends go through `endSession(id, reason)`: it records the reason, fails the session's queued and
 * running calls, persists, logs, adds an event and (unless the browser itself ended it) asks the
 * browser to close the session's window.
 */
import { BskError } from "../protocol/errors.ts";
import type { BrowserRegistry } from "./browsers.ts";
import { cancelledError, type Call } from "./call.ts";
import type { DaemonConfig } from "./config.ts";
import type { EventSink } from "./event-log.ts";
import type { Logger } from "./log.ts";
import { OwnerWatch } from "./owner-watch.ts";
import { newSessionId } from "./session-ids.ts";
import { SessionQueue } from "./session-queue.ts";
import { ENDED_KEPT, loadSessionsFile, saveSessionsFile, type SessionRecord } from "./session-store.ts";

export type { SessionRecord } from "./session-store.ts";

export interface SessionDeps {
  config: DaemonConfig;
  log: Logger;
  browsers: BrowserRegistry;
  events: EventSink;
  /** Something that decides whether the daemon is idle changed. */
  onChange: () => void;
  /** A session ended (its staged files go). */
  onSessionEnded?: (id: string) => void;
}

export class SessionRuntime {
  readonly queue: SessionQueue;
  /** Calls that passed session lookup: waiting in the queue or running. */
  readonly calls = new Set<Call>();
  idleTimer: Timer | undefined;
  leaseTimer: Timer | undefined;
  /** Long waits that are not calls of the session (a recording): the idle and lease clocks stop while any is held. */
  holds = 0;
  /** Loaded from disk after a restart; live again once its browser reports it in a handshake. */
  awaitingBrowser = false;

  constructor(
    readonly record: SessionRecord,
    queueLimit: number,
  ) {
    this.queue = new SessionQueue(queueLimit);
  }

  get id(): string {
    return this.record.session_id;
  }
}

export interface CloseOutcome {
  closed_tab_ids: number[];
  returned_tab_ids: number[];
  /** Tabs the person held (taken over): left open with them. */
  left_tab_ids?: number[];
  error?: BskError;
}

export interface EndOptions {
  /** The browser ended it (or is gone): do not send it session.close. */
  fromBrowser?: boolean;
  /**
   * The browser said so over a live link: it still holds the session's calls and answers each one (a call waiting for
   * the person's approval ends "tab closed", which is truer than "cancelled"). They get a moment to do so.
   */
  browserAnswers?: boolean;
  lostTabIds?: number[];
  /** A finer cause than the reason (e.g. debugging_cancelled for stopped_by_person): in the event log and the log. */
  cause?: string;
  closeTimeoutMs?: number;
  traceId?: string;
  detail?: Record<string, unknown>;
}

export interface ReportedSession {
  session_id: string;
  window_id: number;
  tab_ids: number[];
  current_tab_id: number | null;
}

const CLOSE_TIMEOUT_MS = 10_000;
/** How long calls the browser still holds may take to answer after it ended their session. */
const ANSWER_GRACE_MS = 2_000;
const PERSIST_SOON_MS = 1_000;

export class SessionRegistry {
  private readonly live = new Map<string, SessionRuntime>();
  private ended: SessionRecord[] = [];
  private issued = new Set<string>();
  private readonly ownerWatch: OwnerWatch;
  private readonly graceTimers = new Map<string, Timer>();
  private readoptTimer: Timer | undefined;
  private persistTimer: Timer | undefined;

  constructor(private readonly deps: SessionDeps) {
    this.ownerWatch = new OwnerWatch(deps.config.ownerPollMs, (id, pid) => {
      void this.endSession(id, "owner_exited", { detail: { owner_pid: pid } });
    });
  }

  /** Load the registry; sessions that were live wait for their browser to re-handshake. */
  load(): void {
    const file = loadSessionsFile(this.deps.config.paths.sessions, (aside) =>
      this.deps.log.error("sessions.json was unreadable; moved aside", { aside }),
    );
    this.issued = file.issued;
    this.ended = file.ended;
    for (const record of file.sessions) {
      if (record.state === "ended") continue;
      const rt = new SessionRuntime(record, this.deps.config.queueLimit);
      rt.awaitingBrowser = true;
      this.live.set(record.session_id, rt);
      if (record.owner_pid) this.ownerWatch.watch(record.session_id, record.owner_pid);
    }
    if (this.awaiting().length > 0) {
      this.deps.log.info("sessions awaiting re-adoption", { sessions: this.awaiting().map((r) => r.id) });
      this.readoptTimer = setTimeout(() => {
        for (const rt of this.awaiting()) void this.endSession(rt.id, "browser_gone", { fromBrowser: true });
      }, this.deps.config.readoptWaitMs);
    }
  }

  get liveCount(): number {
    return this.live.size;
  }

  get(id: string): SessionRuntime | undefined {
    return this.live.get(id);
  }

  /** The live session with this id, or not_found saying whether it never existed or has ended. */
  lookup(id: string): SessionRuntime {
    const rt = this.live.get(id);
    if (rt) return rt;
    const ended = this.findEnded(id);
    if (ended) {
      throw new BskError("not_found", `session ${id} has ended (${ended.end_reason ?? "unknown reason"})`, {
        data: { reason: "session_ended", session_id: id, end_reason: ended.end_reason, ended_at: ended.ended_at },
      });
    }
    const known = this.issued.has(id) ? " (it ended long ago)" : "";
    throw new BskError("not_found", `no session ${id}${known}`, {
      hint: "List sessions with: bsk session list; start one with: bsk session start.",
      data: { session_id: id },
    });
  }

  findEnded(id: string): SessionRecord | undefined {
    for (let i = this.ended.length - 1; i >= 0; i--) if (this.ended[i]!.session_id === id) return this.ended[i];
    return undefined;
  }

  liveRecords(): SessionRecord[] {
    return [...this.live.values()].map((rt) => rt.record);
  }

  endedRecords(): SessionRecord[] {
    return [...this.ended];
  }

  liveOn(instanceId: string): SessionRuntime[] {
    return [...this.live.values()].filter((rt) => rt.record.browser_instance_id === instanceId);
  }

  /** Issue a fresh id and record a starting session; persisted before the browser is asked to open it. */
  reserve(opts: {
    browser_instance_id: string;
    name?: string;
    owner_pid?: number;
    lease_ms?: number;
    allow_origins?: string[];
    block_requests?: boolean;
    isolated?: boolean;
    where?: "window" | "group";
    borrow?: boolean;
    confirm_writes?: boolean;
  }): SessionRuntime {
    const id = newSessionId(this.issued);
    this.issued.add(id);
    const now = new Date().toISOString();
    const record: SessionRecord = {
      session_id: id,
      browser_instance_id: opts.browser_instance_id,
      state: "starting",
      created_at: now,
      last_used_at: now,
      ...(opts.name !== undefined && { name: opts.name }),
      ...(opts.owner_pid !== undefined && { owner_pid: opts.owner_pid }),
      ...(opts.lease_ms !== undefined && { lease_ms: opts.lease_ms }),
      ...(opts.allow_origins !== undefined && { allow_origins: opts.allow_origins }),
      ...(opts.block_requests && { block_requests: true }),
      ...(opts.isolated && { isolated: true }),
      ...(opts.where === "group" && { where: "group" as const }),
      ...(opts.borrow === false && { borrow: false }),
      ...(opts.confirm_writes && { confirm_writes: true }),
    };
    const rt = new SessionRuntime(record, this.deps.config.queueLimit);
    this.live.set(id, rt);
    this.persistNow();
    if (opts.owner_pid !== undefined) this.ownerWatch.watch(id, opts.owner_pid);
    this.deps.onChange();
    return rt;
  }

  /** The browser opened the Agent Window: the session is live and its idle clock starts. */
  markOpened(rt: SessionRuntime, windowId: number, tabId: number, groupId?: number): void {
    rt.record.window_id = windowId;
    if (groupId !== undefined) rt.record.group_id = groupId;
    rt.record.current_tab_id = tabId;
    if (rt.record.state === "starting") rt.record.state = "live";
    this.touch(rt);
    this.armTimers(rt);
    this.persistNow();
    this.deps.events.append(rt.id, "session.started", {
      browser_instance_id: rt.record.browser_instance_id,
      window_id: windowId,
      tab_id: tabId,
      ...(groupId !== undefined && { group_id: groupId }),
    });
    this.deps.log.info("session started", { session: rt.id, browser: rt.record.browser_instance_id, window_id: windowId });
  }

  /** A call of this session starts waiting or running: the idle and lease clocks stop until it is done. */
  beginCall(rt: SessionRuntime, call: Call): void {
    rt.calls.add(call);
    this.clearTimers(rt);
    this.touch(rt);
  }

  /** Keeps the session from idling out until the returned release is called (record start waits on the person). */
  hold(rt: SessionRuntime): () => void {
    rt.holds++;
    this.clearTimers(rt);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      rt.holds--;
      if (!this.live.has(rt.id)) return;
      this.touch(rt);
      this.armTimers(rt);
    };
  }

  endCall(rt: SessionRuntime, call: Call): void {
    rt.calls.delete(call);
    if (!this.live.has(rt.id)) return;
    this.touch(rt);
    this.armTimers(rt);
    this.persistSoon();
  }

  /** Keep the session's current tab in step with what the extension reports. */
  noteResult(rt: SessionRuntime, method: string, result: unknown): void {
    if (!result || typeof result !== "object") return;
    const r = result as Record<string, unknown>;
    if (typeof r.current_tab_id === "number" || r.current_tab_id === null) rt.record.current_tab_id = r.current_tab_id;
    else if ((method === "tab.create" || method === "tab.select") && typeof r.tab_id === "number") {
      rt.record.current_tab_id = r.tab_id;
    }
  }

  async endSession(id: string, reason: string, opts: EndOptions = {}): Promise<CloseOutcome | undefined> {
    const rt = this.live.get(id);
    if (!rt) return undefined;
    this.live.delete(id);
    this.clearTimers(rt);
    this.ownerWatch.unwatch(id);

    const record = rt.record;
    record.state = "ended";
    record.end_reason = reason;
    record.ended_at = new Date().toISOString();
    if (opts.lostTabIds?.length) record.lost_tab_ids = opts.lostTabIds;
    this.ended.push(record);
    if (this.ended.length > ENDED_KEPT) this.ended.splice(0, this.ended.length - ENDED_KEPT);

    const endData = { reason: "session_ended", session_id: id, end_reason: reason };
    for (const call of rt.calls) {
      // A call not yet sent never ran; one the extension has may be half-way and is cancelled there, unless the
      // browser ended the session itself and will answer it (its reply arrives after the end, on the same link).
      if (!call.dispatched) {
        call.abort(new BskError("not_found", `session ${id} ended (${reason}) before the call ran`, { data: endData }));
      } else if (opts.browserAnswers) {
        setTimeout(() => call.abort(cancelledError(`${call.method} on session ${id}`, endData)), ANSWER_GRACE_MS).unref();
      } else {
        call.abort(cancelledError(`${call.method} on session ${id}`, endData));
      }
    }
    this.persistNow();
    this.deps.onSessionEnded?.(id);
    this.deps.events.append(id, "session.ended", {
      reason,
      ...(opts.cause && { cause: opts.cause }),
      ...(record.lost_tab_ids && { lost_tab_ids: record.lost_tab_ids }),
    });
    this.deps.log.info("session ended", { session: id, reason, cause: opts.cause, trace_id: opts.traceId, ...opts.detail });
    this.deps.onChange();

    const conn = opts.fromBrowser ? undefined : this.deps.browsers.get(record.browser_instance_id);
    if (!conn) return { closed_tab_ids: [], returned_tab_ids: [] };
    try {
      const r = await conn.call(
        "session.close",
        { session_id: id, reason },
        {
          traceId: opts.traceId ?? `end-${id}`,
          timeoutMs: opts.closeTimeoutMs ?? CLOSE_TIMEOUT_MS,
          signal: AbortSignal.timeout(opts.closeTimeoutMs ?? CLOSE_TIMEOUT_MS),
        },
      );
      return {
        closed_tab_ids: r?.closed_tab_ids ?? [],
        returned_tab_ids: r?.returned_tab_ids ?? [],
        ...(r?.left_tab_ids?.length && { left_tab_ids: r.left_tab_ids }),
      };
    } catch (err) {
      const error = err instanceof BskError ? err : new BskError("timeout", `session.close for ${id} did not finish`);
      this.deps.log.warn("session.close failed", { session: id, code: error.code, message: error.message });
      return { closed_tab_ids: [], returned_tab_ids: [], error };
    }
  }

  /**
   * The browser's own account of a session the daemon already ended as not_adoptable (it was missing from
   * the handshake because it ended while the link was down): its reason and lost tabs replace ours.
   */
  amendEnd(id: string, instanceId: string, reason: string, lostTabIds: number[]): boolean {
    const record = this.findEnded(id);
    if (!record || record.browser_instance_id !== instanceId || record.end_reason !== "not_adoptable") return false;
    record.end_reason = reason;
    if (lostTabIds.length) record.lost_tab_ids = lostTabIds;
    this.persistNow();
    this.deps.events.append(id, "session.ended", { reason, lost_tab_ids: lostTabIds, replaces: "not_adoptable" });
    this.deps.log.info("session end reason from its browser", { session: id, reason, browser: instanceId });
    return true;
  }

  /** End every live session (daemon stopping), waiting at most `budgetMs` for the browsers to close them. */
  async endAll(reason: string, budgetMs: number): Promise<string[]> {
    const ids = [...this.live.keys()];
    const all = Promise.allSettled(ids.map((id) => this.endSession(id, reason, { closeTimeoutMs: budgetMs })));
    await Promise.race([all, Bun.sleep(budgetMs)]);
    return ids;
  }

  /**
   * A browser handshook and reported the sessions it holds. Ours (same instance, still live) are
   * adopted; the rest it must end. Our live sessions on that instance it did not report are gone.
   */
  adopt(instanceId: string, reported: readonly ReportedSession[]): { adopted: string[]; ended: { session_id: string; reason: string }[] } {
    const grace = this.graceTimers.get(instanceId);
    if (grace) clearTimeout(grace);
    this.graceTimers.delete(instanceId);

    const adopted: string[] = [];
    const ended: { session_id: string; reason: string }[] = [];
    const seen = new Set<string>();
    for (const s of reported) {
      seen.add(s.session_id);
      const rt = this.live.get(s.session_id);
      const owner = rt?.record.browser_instance_id;
      if (!rt || (owner && owner !== instanceId)) {
        ended.push({ session_id: s.session_id, reason: "not_adoptable" });
        continue;
      }
      rt.record.browser_instance_id = instanceId;
      rt.record.window_id = s.window_id;
      rt.record.current_tab_id = s.current_tab_id;
      if (rt.record.state === "starting") rt.record.state = "live";
      rt.awaitingBrowser = false;
      this.touch(rt);
      this.armTimers(rt);
      adopted.push(rt.id);
      this.deps.events.append(rt.id, "session.adopted", { window_id: s.window_id, tab_ids: s.tab_ids });
    }
    for (const rt of this.liveOn(instanceId)) {
      if (!seen.has(rt.id) && rt.record.state !== "starting") {
        void this.endSession(rt.id, "not_adoptable", { fromBrowser: true, detail: { cause: "not reported by its browser" } });
      }
    }
    if (this.readoptTimer && this.awaiting().length === 0) {
      clearTimeout(this.readoptTimer);
      this.readoptTimer = undefined;
    }
    if (adopted.length) {
      this.persistNow();
      this.deps.log.info("sessions adopted", { browser: instanceId, sessions: adopted });
    }
    return { adopted, ended };
  }

  /** The browser's socket closed: its sessions survive a short reconnect, then end with browser_gone. */
  browserLeft(instanceId: string): void {
    if (this.liveOn(instanceId).length === 0) return;
    // Born in the daemon: tells a reader of the stream why calls were cut off and events paused (adoption follows).
    for (const rt of this.liveOn(instanceId)) {
      this.deps.events.append(rt.id, "browser.disconnected", {
        browser_instance_id: instanceId,
        grace_ms: this.deps.config.reconnectGraceMs,
      });
    }
    const prior = this.graceTimers.get(instanceId);
    if (prior) clearTimeout(prior);
    this.graceTimers.set(
      instanceId,
      setTimeout(() => {
        this.graceTimers.delete(instanceId);
        if (this.deps.browsers.get(instanceId)) return;
        for (const rt of this.liveOn(instanceId)) void this.endSession(rt.id, "browser_gone", { fromBrowser: true });
      }, this.deps.config.reconnectGraceMs),
    );
  }

  /** The browser went silent: its sessions end now. */
  browserSilent(instanceId: string): void {
    for (const rt of this.liveOn(instanceId)) void this.endSession(rt.id, "browser_gone", { fromBrowser: true });
  }

  persistNow(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    try {
      saveSessionsFile(this.deps.config.paths.sessions, {
        version: 1,
        issued_ids: [...this.issued],
        sessions: this.liveRecords(),
        ended: this.ended,
      });
    } catch (err) {
      this.deps.log.error("could not write sessions.json", { error: err });
    }
  }

  /** last_used_at changes on every call; it is written within a second, off the reply path. */
  persistSoon(): void {
    this.persistTimer ??= setTimeout(() => this.persistNow(), PERSIST_SOON_MS);
  }

  dispose(): void {
    this.ownerWatch.stop();
    for (const rt of this.live.values()) this.clearTimers(rt);
    for (const t of this.graceTimers.values()) clearTimeout(t);
    this.graceTimers.clear();
    if (this.readoptTimer) clearTimeout(this.readoptTimer);
    if (this.persistTimer) this.persistNow();
  }

  private awaiting(): SessionRuntime[] {
    return [...this.live.values()].filter((rt) => rt.awaitingBrowser);
  }

  private touch(rt: SessionRuntime): void {
    rt.record.last_used_at = new Date().toISOString();
  }

  private clearTimers(rt: SessionRuntime): void {
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    if (rt.leaseTimer) clearTimeout(rt.leaseTimer);
    rt.idleTimer = rt.leaseTimer = undefined;
  }

  /**
   * Idle and lease clocks run only while no call of the session is in flight. A lease the caller chose replaces
   * the idle timeout (an agent that asked for 10 minutes between calls must not be cut at the default 5).
   */
  private armTimers(rt: SessionRuntime): void {
    this.clearTimers(rt);
    if (rt.calls.size > 0 || rt.holds > 0 || rt.awaitingBrowser || rt.record.state === "starting") return;
    if (rt.record.lease_ms) {
      rt.leaseTimer = setTimeout(() => void this.endSession(rt.id, "lease_expired"), rt.record.lease_ms);
    } else {
      rt.idleTimer = setTimeout(() => void this.endSession(rt.id, "idle"), this.deps.config.sessionIdleMs);
    }
  }
}
