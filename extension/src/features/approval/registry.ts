/**
 * The calls waiting for the person's Allow, per tab, first come first asked: the first is shown in the tab's overlay
 * (ApprovalView); the next is shown only once the one before it has been decided and, if allowed, has finished.
 *
 * A wait ends with the person's Allow or Deny (a trusted click in the closed-shadow panel of the very document that
 * showed it: the answer must come from the tab's top frame with the documentId recorded when it was shown), the
 * clock (APPROVAL_WAIT_MS, or the call's deadline, whichever comes first), the tab closing, or the page navigating
 * (a new document, or a history/fragment change of the one shown: what the person saw is no longer what would be
 * acted on). The call's abort (Take over, Stop, Ctrl-C) ends it too, with the abort's reason.
 */
import { browser, type Browser } from "wxt/browser";
import { APPROVAL_WAIT_MS, type ApprovalDecision, type ApprovalRecord } from "../../../../protocol/approval.ts";
import type { ApprovalView } from "../../shared/messages/overlay.ts";

/** Answered this long before the call's deadline, so the reply is approval_denied and not the daemon's timeout. */
const DEADLINE_MARGIN_MS = 750;

type Decider = ApprovalRecord["by"];

interface Waiting {
  id: string;
  tabId: number;
  text: string;
  cause: ApprovalRecord["cause"];
  origin?: string;
  deadline: number;
  /** The shown document (webNavigation documentId), set when the panel is up. */
  documentId?: string;
  shown: boolean;
  end: (decision: ApprovalDecision, by: Decider) => void;
  turn: PromiseWithResolvers<void>;
}

interface ApprovalState {
  /** Tab id → its calls, in arrival order; the first one is asked (or, once allowed, running). */
  queues: Map<number, Waiting[]>;
  /** Told when what a tab shows changes; an allowed call waits until its panel is gone from the page. */
  listeners: ((tabId: number) => Promise<unknown> | undefined)[];
  installed: boolean;
}
const approvalState: ApprovalState = { queues: new Map(), listeners: [], installed: false };

export function onApprovalChange(l: (tabId: number) => Promise<unknown> | undefined): void {
  approvalState.listeners.push(l);
}

function changed(tabId: number): Promise<unknown> {
  return Promise.all(approvalState.listeners.map((l) => l(tabId)));
}

/** What the tab's overlay shows: the first waiting call, while it waits. */
export function approvalView(tabId: number): ApprovalView | null {
  const q = approvalState.queues.get(tabId);
  const head = q?.[0];
  if (!head?.shown) return null;
  return {
    id: head.id,
    text: head.text,
    cause: head.cause,
    ...(head.origin && { origin: head.origin }),
    deadline: head.deadline,
    queued: q!.length - 1,
  };
}

export interface AskRequest {
  tabId: number;
  text: string;
  cause: ApprovalRecord["cause"];
  origin?: string;
  /** The call's own deadline (epoch ms), when it has one. */
  callDeadline?: number;
  signal: AbortSignal;
}

export interface Asked {
  record: ApprovalRecord;
  /** The call is done (or failed): the next call waiting on the tab is asked. */
  release: () => void;
}

/** Waits for the person's answer on the tab; resolves with what was decided (only `allowed` lets the call run). */
export async function askPerson(req: AskRequest): Promise<Asked> {
  install();
  const started = Date.now();
  const deadline = Math.min(started + APPROVAL_WAIT_MS, (req.callDeadline ?? Number.POSITIVE_INFINITY) - DEADLINE_MARGIN_MS);
  const decided = Promise.withResolvers<{ decision: ApprovalDecision; by: Decider }>();
  const w: Waiting = {
    id: crypto.randomUUID(),
    tabId: req.tabId,
    text: req.text,
    cause: req.cause,
    ...(req.origin && { origin: req.origin }),
    deadline,
    shown: false,
    end: (decision, by) => decided.resolve({ decision, by }),
    turn: Promise.withResolvers<void>(),
  };
  let q = approvalState.queues.get(req.tabId);
  if (!q) approvalState.queues.set(req.tabId, (q = []));
  q.push(w);
  if (q.length === 1) w.turn.resolve();

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const queue = approvalState.queues.get(req.tabId);
    const i = queue?.indexOf(w) ?? -1;
    if (i < 0) return;
    queue!.splice(i, 1);
    if (queue!.length === 0) approvalState.queues.delete(req.tabId);
    else if (i === 0) queue![0]!.turn.resolve();
    void changed(req.tabId);
  };

  const timer = setTimeout(() => w.end("timed_out", "timeout"), Math.max(0, deadline - started));
  const onAbort = () => decided.reject(req.signal.reason);
  req.signal.addEventListener("abort", onAbort, { once: true });
  try {
    if (req.signal.aborted) throw req.signal.reason;
    void w.turn.promise.then(() => show(w));
    const { decision, by } = await decided.promise;
    w.shown = false;
    // Allowed: the panel leaves the page before the call acts there (it would cover what the call clicks).
    if (decision === "allowed") await changed(req.tabId);
    else release();
    return {
      record: {
        decision,
        by,
        description: req.text,
        cause: req.cause,
        ...(req.origin && { origin: req.origin }),
        waited_ms: Date.now() - started,
      },
      release,
    };
  } catch (err) {
    w.shown = false;
    release();
    throw err;
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The call's turn: the panel goes up in the document showing now, the tab comes to the front of its window, and
 * the window asks for attention (it does not take the focus: the person may be typing elsewhere).
 */
async function show(w: Waiting): Promise<void> {
  const frame = await browser.webNavigation.getFrame({ tabId: w.tabId, frameId: 0 }).catch(() => null);
  if (!approvalState.queues.get(w.tabId)?.includes(w)) return;
  if (!frame) return w.end("tab_closed", "browser");
  w.documentId = (frame as { documentId?: string }).documentId;
  w.shown = true;
  const tab = await browser.tabs.update(w.tabId, { active: true }).catch(() => undefined);
  if (tab?.windowId !== undefined) void browser.windows.update(tab.windowId, { drawAttention: true }).catch(() => undefined);
  void changed(w.tabId);
}

/** The person's Allow or Deny from the overlay: only for the call shown, from the document that showed it. */
export function answerFromPage(sender: Browser.runtime.MessageSender, approvalId: string, allow: boolean): void {
  const tabId = sender.tab?.id;
  const head = tabId === undefined ? undefined : approvalState.queues.get(tabId)?.[0];
  if (!head?.shown || head.id !== approvalId) return;
  const documentId = (sender as { documentId?: string }).documentId;
  if (head.documentId === undefined || documentId !== head.documentId) return;
  head.end(allow ? "allowed" : "denied", "person");
}

/**
 * Every call still waiting on the tab ends: the tab closed, or its page is no longer the one the person saw (calls
 * not shown yet were described from that page too). A call already allowed and running is not touched.
 */
function endWaiting(tabId: number, decision: ApprovalDecision): void {
  for (const w of [...(approvalState.queues.get(tabId) ?? [])]) w.end(decision, "browser");
}

function install(): void {
  if (approvalState.installed) return;
  approvalState.installed = true;
  browser.tabs.onRemoved.addListener((tabId) => endWaiting(tabId, "tab_closed"));
  const navigated = (d: { tabId: number; frameId: number }) => {
    if (d.frameId === 0 && approvalState.queues.has(d.tabId)) endWaiting(d.tabId, "navigated");
  };
  browser.webNavigation.onCommitted.addListener(navigated);
  browser.webNavigation.onHistoryStateUpdated.addListener(navigated);
  browser.webNavigation.onReferenceFragmentUpdated.addListener(navigated);
}
