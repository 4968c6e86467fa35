/**
 * Recording in the worker. record.begin loads the start page, then has Chromium run the recorder script
 * (entrypoints/bsk-recorder.ts) in bsk's "bsk-record" world of this and every later document of the tab, from
 * each document's start; what it reports through its binding and what webNavigation says about main-frame
 * navigations become the trace's steps (fold.ts). The recording ends once: Finish in the record panel, record stop,
 * its timeout, the tab closing or its session ending; the trace then waits for the daemon's record.await.
 */
import { browser } from "wxt/browser";
import { BskError } from "../../../../protocol/errors.ts";
import { RecordTrace, TraceStep, TRACE_VERSION, type RecordTraceT, type StopReason } from "../../../../protocol/trace.ts";
import { abortError } from "../../shared/abort.ts";
import { attach, onAttach, send, sendTo, tapCdp } from "../../cdp/debugger.ts";
import { childSessionIds, onChildAttach } from "../../cdp/frames.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import { learnOwnOverlay } from "../../page/own-overlay.ts";
import { scriptText } from "../../shared/script-text.ts";
import { allSessions, onSessionsChanged, resolveTab } from "../../session/sessions.ts";
import { pageState } from "../../page/page-state.ts";
import { navigate } from "../navigate.ts";
import { requestReason, transitionOf } from "../../cdp/nav-reasons.ts";
import { addStep, navCause, notePage, type RawStep } from "./fold.ts";
import { redactUrl } from "./secrets.ts";
import {
  changed,
  dropRecording,
  putRecording,
  recordingOfTab,
  recordings,
  recordingsReady,
  type Recording,
} from "../../session/recordings.ts";
import { RECORD_BINDING, RECORD_WORLD, type PageReport } from "./wire.ts";

/** How long a step on an element of the overlay's name waits to learn whether that was bsk's own host. */
const OVERLAY_ASK_MS = 2_000;

/** Tab → its page reports being handled: one after another, so a step that waits (onOwnOverlay) holds the later ones. */
const reports = new Map<number, Promise<void>>();

function inOrder(tabId: number, work: () => Promise<void>): Promise<void> {
  const done = (reports.get(tabId) ?? Promise.resolve()).then(work).catch((err: unknown) => console.debug("bsk recorder:", err));
  reports.set(tabId, done);
  void done.then(() => {
    if (reports.get(tabId) === done) reports.delete(tabId);
  });
  return done;
}

/** Session id → the daemon's record.await calls waiting for the trace. */
const waiters = new Map<string, Set<(trace: RecordTraceT) => void>>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();

/** The binding the recorder reports through, on a session with the Runtime domain on. */
async function bind(sendCdp: (method: string, params?: object) => Promise<any>): Promise<void> {
  await sendCdp("Runtime.enable");
  await sendCdp("Runtime.addBinding", { name: RECORD_BINDING, executionContextName: RECORD_WORLD });
}

/** The binding and the script for every new document of the tab; returns the script's id. */
async function installIn(_tabId: number, sendCdp: (method: string, params?: object) => Promise<any>): Promise<string> {
  const source = await scriptText("/bsk-recorder.js");
  await bind(sendCdp);
  const r = await sendCdp("Page.addScriptToEvaluateOnNewDocument", { source, worldName: RECORD_WORLD, runImmediately: true });
  return String(r.identifier);
}

/**
 * An out-of-process iframe (another site's) is its own target: the recorder goes into those already there when a
 * recording begins, and into later ones as they attach (onChildAttach). Same-process iframes run the tab's script.
 */
function installInFrame(tabId: number, sessionId: string): void {
  const child = { tabId, sessionId };
  void installIn(tabId, (method, params) => sendTo(child, method, params)).catch((err: unknown) =>
    console.warn(`bsk: the recorder could not reach iframe session ${sessionId}: ${String(err)}`),
  );
}

function armTimer(rec: Recording): void {
  clearTimeout(timers.get(rec.session_id));
  timers.set(
    rec.session_id,
    setTimeout(() => void finishRecording(rec.session_id, "timeout"), Math.max(0, rec.deadline_at - Date.now())),
  );
}

export async function beginRecording(
  p: { session_id: string; tab_id: number; url?: string; purpose?: string; timeout_ms: number },
  signal: AbortSignal,
): Promise<{ tab_id: number; start_url: string; started_at: string }> {
  await recordingsReady();
  const { tabId } = await resolveTab(p);
  if (recordings().has(p.session_id)) {
    throw new BskError("session_busy", `session ${p.session_id} is recording already`, { data: { reason: "recording_pending" } });
  }
  await attach(tabId);
  if (p.url) await navigate({ session_id: p.session_id, tab_id: tabId, url: p.url, wait_until: "load" }, signal);
  const state = await pageState(tabId, signal);
  state.url = redactUrl(state.url);
  const started = new Date();
  const rec: Recording = {
    session_id: p.session_id,
    tab_id: tabId,
    ...(p.purpose !== undefined && { purpose: p.purpose }),
    start_url: state.url,
    started_at: started.toISOString(),
    deadline_at: started.getTime() + p.timeout_ms,
    pages: [{ id: 1, url: state.url, title: state.title }],
    steps: [],
  };
  // Recording (and showing the panel) before the script runs, so its first reports are not dropped.
  await putRecording(rec);
  armTimer(rec);
  rec.script_id = await installIn(tabId, (method, params) => send(tabId, method, params, signal));
  for (const sessionId of childSessionIds(tabId)) installInFrame(tabId, sessionId);
  await changed(rec);
  return { tab_id: tabId, start_url: rec.start_url, started_at: rec.started_at };
}

function traceOf(rec: Recording): RecordTraceT {
  return {
    version: TRACE_VERSION,
    recorded_at: rec.ended?.recorded_at ?? new Date().toISOString(),
    started_at: rec.started_at,
    stopped_by: rec.ended?.stopped_by ?? "stop",
    ...(rec.purpose !== undefined && { purpose: rec.purpose }),
    start_url: rec.start_url,
    pages: rec.pages,
    steps: rec.steps,
  };
}

/** Hands an ended recording's trace to the waiting record.await calls; the first one collects it. */
function deliver(rec: Recording): boolean {
  const ws = waiters.get(rec.session_id);
  if (!rec.ended || !ws?.size) return false;
  const trace = RecordTrace().parse(traceOf(rec));
  waiters.delete(rec.session_id);
  for (const w of ws) w(trace);
  void dropRecording(rec);
  return true;
}

/** Ends the recording once (later ends are no-ops); returns its step count. */
export async function finishRecording(sessionId: string, stoppedBy: StopReason): Promise<number> {
  await recordingsReady();
  const rec = recordings().get(sessionId);
  if (!rec)
    throw new BskError("not_found", `session ${sessionId} is not recording`, { data: { reason: "no_recording", session_id: sessionId } });
  // The person's steps already reported are in before it ends (one may be waiting on onOwnOverlay).
  await reports.get(rec.tab_id);
  if (rec.ended) return rec.steps.length;
  rec.ended = { stopped_by: stoppedBy, recorded_at: new Date().toISOString() };
  clearTimeout(timers.get(sessionId));
  timers.delete(sessionId);
  await changed(rec);
  if (rec.script_id && stoppedBy !== "tab_closed") {
    void send(rec.tab_id, "Page.removeScriptToEvaluateOnNewDocument", { identifier: rec.script_id }).catch(() => undefined);
  }
  deliver(rec);
  return rec.steps.length;
}

/** record.await: the trace once the recording has ended (at once if it has). */
export async function awaitRecording(sessionId: string, signal: AbortSignal): Promise<{ trace: RecordTraceT }> {
  await recordingsReady();
  const rec = recordings().get(sessionId);
  if (!rec)
    throw new BskError("not_found", `session ${sessionId} is not recording`, { data: { reason: "no_recording", session_id: sessionId } });
  return new Promise((resolve, reject) => {
    let ws = waiters.get(sessionId);
    if (!ws) waiters.set(sessionId, (ws = new Set()));
    const got = (trace: RecordTraceT) => {
      signal.removeEventListener("abort", onAbort);
      resolve({ trace });
    };
    const onAbort = () => {
      ws.delete(got);
      reject(abortError(signal));
    };
    if (signal.aborted) return reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    ws.add(got);
    deliver(rec);
  });
}

/** The person's Finish in the record panel of `tabId`. */
export function finishFromPage(tabId: number): void {
  const rec = recordingOfTab(tabId);
  if (rec) void finishRecording(rec.session_id, "finish");
}

function record(rec: Recording, raw: RawStep): void {
  const parsed = TraceStep().safeParse({ ...raw, id: 1, page: 1, at: new Date().toISOString() });
  if (!parsed.success) return;
  addStep(rec, raw, new Date().toISOString());
  void changed(rec);
}

/**
 * Whether the element a step's event was on (numbered `ask` by the recorder's world `contextId`) was bsk's own
 * overlay host: the person's Finish is not a step, a page's own element of that name is (page/own-overlay.ts). Not
 * known within OVERLAY_ASK_MS (a page stuck in a dialog or a loop), the step is kept: the person did act.
 */
async function onOwnOverlay(source: CdpTarget, contextId: number, ask: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), OVERLAY_ASK_MS)));
  const known = learnOwnOverlay(source.tabId, source, { executionContextId: contextId }, undefined, ask).catch(() => false);
  return Promise.race([known, late]).finally(() => clearTimeout(timer));
}

async function fromPage(source: CdpTarget, contextId: number, payload: unknown): Promise<void> {
  if (!recordingOfTab(source.tabId)) return;
  let report: PageReport;
  try {
    report = JSON.parse(String(payload)) as PageReport;
  } catch {
    return;
  }
  if (report.kind === "step" && Number.isSafeInteger(report.ask) && report.ask! > 0) {
    if (await onOwnOverlay(source, contextId, report.ask!)) return;
  }
  const rec = recordingOfTab(source.tabId);
  if (!rec) return;
  if (report.kind === "step") record(rec, report.step);
  else if (report.kind === "page") {
    notePage(rec, String(report.url), String(report.title ?? "").slice(0, 500));
    void changed(rec);
  }
}

async function onNavigation(tabId: number, frameId: number, step: Extract<RawStep, { op: "navigate" }>): Promise<void> {
  if (frameId !== 0) return;
  await recordingsReady();
  const rec = recordingOfTab(tabId);
  if (rec) record(rec, step);
}

/** Recordings whose session ended on the browser side (Stop, window closed) end with it. */
function sessionsGone(): void {
  const live = new Set(allSessions().map((s) => s.session_id));
  for (const rec of recordings().values())
    if (!rec.ended && !live.has(rec.session_id)) void finishRecording(rec.session_id, "session_ended");
}

export function installRecorder(): void {
  onAttach(async (tabId, sendCdp, readopted) => {
    await recordingsReady();
    const rec = recordingOfTab(tabId);
    if (!rec) return;
    // An attachment taken over after a worker restart keeps its registration (the one its id names, removed when the
    // recording ends); only the binding went, with debugger.ts's Runtime.disable.
    if (readopted && rec.script_id) return bind(sendCdp);
    rec.script_id = await installIn(tabId, sendCdp);
  });
  // Another site's iframe of a recording tab, before its document runs.
  onChildAttach(async (send, tabId) => {
    await recordingsReady();
    if (recordingOfTab(tabId)) await installIn(tabId, send);
  });
  tapCdp({
    onEvent(source, method, params) {
      if (method === "Runtime.bindingCalled" && params.name === RECORD_BINDING) {
        void inOrder(source.tabId, () => recordingsReady().then(() => fromPage(source, params.executionContextId, params.payload)));
      }
    },
  });
  browser.webNavigation.onCommitted.addListener((d) => {
    const transition = transitionOf(d.transitionType, d.frameId === 0 ? requestReason(d.tabId, d.url) : undefined);
    void onNavigation(d.tabId, d.frameId, { op: "navigate", to: d.url, cause: navCause(transition, d.transitionQualifiers) });
  });
  browser.webNavigation.onHistoryStateUpdated.addListener((d) => {
    void onNavigation(d.tabId, d.frameId, {
      op: "navigate",
      to: d.url,
      cause: d.transitionQualifiers.includes("forward_back") ? "history" : "spa",
    });
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    void recordingsReady().then(() => {
      const rec = recordingOfTab(tabId);
      if (rec) void finishRecording(rec.session_id, "tab_closed");
    });
  });
  onSessionsChanged(() => void recordingsReady().then(sessionsGone));
  // A woken worker: deadlines of recordings still running are armed again.
  void recordingsReady().then((all) => {
    for (const rec of all.values()) if (!rec.ended) armTimer(rec);
  });
}
