/**
 * Asking the person before a tab is borrowed: a small extension window (pages cannot cover, script or click it)
 * naming the session and the tab with a countdown, plus an OS notification where the system shows one.
 *
 * Fails closed: only an Allow click in the window this worker opened for this very prompt lets the borrow go on.
 * Deny, the countdown running out, the call being cancelled, the window not opening or closed unanswered, the
 * worker restarting (its prompts die with it; orphaned windows are closed when it wakes) are all a "no".
 */
import { browser, type Browser } from "wxt/browser";
import { BskError } from "../../../../protocol/errors.ts";
import { abortError, errorMessage } from "../../shared/abort.ts";
import { CONSENT_PAGE, CONSENT_PORT, type ConsentInfo, type ToPage, type ToWorker } from "../../shared/messages/consent.ts";

const WINDOW = { width: 460, height: 420 };
const NOTIFICATION_PREFIX = "bsk-consent:";

interface Prompt {
  id: string;
  info: ConsentInfo;
  /** The window opened for it; undefined until windows.create answers (or when it failed). */
  window: Promise<number | undefined>;
  windowId?: number;
  /** The page connected and got the prompt's text: the person could see it. */
  shown: boolean;
  port?: Browser.runtime.Port;
  /** Null: allowed. First call wins. */
  settle(outcome: BskError | null): void;
}

const prompts = new Map<string, Prompt>();
let orphansClosed: Promise<void> = Promise.resolve();

function refused(reason: "borrow_denied" | "borrow_timed_out", tabId: number, message: string, detail?: string): BskError {
  return new BskError("permission_denied", message, { data: { reason, tab_id: tabId, ...(detail ? { detail } : {}) } });
}

function randomId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface ConsentRequest {
  session: { session_id: string; name?: string };
  tab: Browser.tabs.Tab;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Resolves when the person allowed the borrow; throws the refusal otherwise. The prompt is gone either way. */
export async function askConsent(req: ConsentRequest): Promise<void> {
  await orphansClosed;
  if (req.signal.aborted) throw abortError(req.signal);
  const tabId = req.tab.id!;
  const id = randomId();
  let settle!: (outcome: BskError | null) => void;
  const outcome = new Promise<BskError | null>((resolve) => (settle = resolve));
  let settled = false;
  let resolveWindow!: (id: number | undefined) => void;
  const prompt: Prompt = {
    id,
    info: {
      session_id: req.session.session_id,
      ...(req.session.name ? { session_name: req.session.name } : {}),
      tab_id: tabId,
      title: req.tab.title ?? "",
      url: req.tab.url || req.tab.pendingUrl || "",
      ...(req.tab.favIconUrl && /^(https?|data):/.test(req.tab.favIconUrl) ? { fav_icon_url: req.tab.favIconUrl } : {}),
      deadline: Date.now() + req.timeoutMs,
    },
    window: new Promise((resolve) => (resolveWindow = resolve)),
    shown: false,
    settle(o) {
      if (settled) return;
      settled = true;
      settle(o);
    },
  };
  prompts.set(id, prompt);
  const timer = setTimeout(() => {
    prompt.settle(
      prompt.shown
        ? refused("borrow_timed_out", tabId, `the person did not answer within ${req.timeoutMs} ms`)
        : refused("borrow_denied", tabId, "the consent window never showed", "consent_not_shown"),
    );
  }, req.timeoutMs);
  const onAbort = () => prompt.settle(abortError(req.signal));
  req.signal.addEventListener("abort", onAbort, { once: true });
  // Nothing left to lend: the prompt goes at once rather than asking about a tab that is gone.
  const onTabRemoved = (removed: number) => {
    if (removed === tabId)
      prompt.settle(new BskError("not_found", `tab ${tabId} was closed while the person was asked`, { data: { tab_id: tabId } }));
  };
  browser.tabs.onRemoved.addListener(onTabRemoved);
  try {
    void openWindow(prompt).then(resolveWindow);
    void notify(prompt);
    const refusal = await outcome;
    if (refusal) throw refusal;
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onAbort);
    browser.tabs.onRemoved.removeListener(onTabRemoved);
    prompts.delete(id);
    void dismiss(prompt);
  }
}

async function openWindow(prompt: Prompt): Promise<number | undefined> {
  try {
    const win = await browser.windows.create({
      type: "popup",
      url: browser.runtime.getURL(`${CONSENT_PAGE}?id=${prompt.id}`),
      focused: true,
      ...WINDOW,
    });
    if (win?.id === undefined) throw new Error("no window id");
    prompt.windowId = win.id;
    if (!prompts.has(prompt.id)) void browser.windows.remove(win.id).catch(() => undefined); // settled meanwhile
    return win.id;
  } catch (err) {
    prompt.settle(
      refused("borrow_denied", prompt.info.tab_id, `the consent window could not be opened: ${errorMessage(err)}`, "consent_not_shown"),
    );
    return undefined;
  }
}

/** Best effort: a system notification; clicking it brings the consent window to the front. */
async function notify(prompt: Prompt): Promise<void> {
  const who = prompt.info.session_name ? `"${prompt.info.session_name}" (${prompt.info.session_id})` : `session ${prompt.info.session_id}`;
  await browser.notifications
    .create(NOTIFICATION_PREFIX + prompt.id, {
      type: "basic",
      iconUrl: browser.runtime.getURL("/icon-128.png"),
      title: "bsk: an agent asks to borrow a tab",
      message: `${who} wants to use "${prompt.info.title || prompt.info.url}". Answer in the bsk window.`,
      requireInteraction: true,
      priority: 2,
    })
    .catch(() => undefined);
}

async function dismiss(prompt: Prompt): Promise<void> {
  void browser.notifications.clear(NOTIFICATION_PREFIX + prompt.id).catch(() => undefined);
  prompt.port?.disconnect();
  const windowId = prompt.windowId ?? (await prompt.window);
  if (windowId !== undefined) await browser.windows.remove(windowId).catch(() => undefined);
}

function isConsentPage(url: string | undefined): boolean {
  return !!url && url.startsWith(browser.runtime.getURL(CONSENT_PAGE));
}

function onConnect(port: Browser.runtime.Port): void {
  if (port.name !== CONSENT_PORT) return;
  if (port.sender?.id !== browser.runtime.id || !isConsentPage(port.sender.url)) {
    port.disconnect();
    return;
  }
  let mine: Prompt | undefined;
  const send = (msg: ToPage) => port.postMessage(msg);
  port.onMessage.addListener((msg: ToWorker) => {
    if (msg?.type === "hello" && !mine) {
      const prompt = prompts.get(String(msg.id));
      void (async () => {
        // Only the window opened for this prompt may show and answer it, and only once.
        const windowId = prompt && (await prompt.window);
        if (!prompt || prompt.port || windowId === undefined || port.sender?.tab?.windowId !== windowId || !prompts.has(prompt.id)) {
          send({ type: "gone" });
          return;
        }
        mine = prompt;
        prompt.port = port;
        prompt.shown = true;
        send({ type: "info", info: prompt.info });
      })();
    } else if (msg?.type === "answer" && mine && msg.id === mine.id) {
      mine.settle(msg.allow ? null : refused("borrow_denied", mine.info.tab_id, "the person denied the borrow"));
    }
  });
  port.onDisconnect.addListener(() => {
    mine?.settle(refused("borrow_denied", mine.info.tab_id, "the consent window was closed without an answer", "consent_closed"));
  });
}

function onWindowRemoved(windowId: number): void {
  for (const prompt of prompts.values()) {
    if (prompt.windowId === windowId) {
      prompt.settle(refused("borrow_denied", prompt.info.tab_id, "the consent window was closed without an answer", "consent_closed"));
    }
  }
}

function onNotificationClicked(notificationId: string): void {
  if (!notificationId.startsWith(NOTIFICATION_PREFIX)) return;
  const windowId = prompts.get(notificationId.slice(NOTIFICATION_PREFIX.length))?.windowId;
  if (windowId !== undefined) void browser.windows.update(windowId, { focused: true }).catch(() => undefined);
}

/** Consent windows and notifications left by an earlier worker life: their borrows died with it. */
async function closeOrphans(): Promise<void> {
  const tabs = await browser.tabs.query({});
  const orphans = tabs.filter((t) => isConsentPage(t.url || t.pendingUrl) && !prompts.has(promptIdOf(t.url || t.pendingUrl!)));
  await Promise.all(orphans.map((t) => browser.tabs.remove(t.id!).catch(() => undefined)));
  const shown = await browser.notifications.getAll().catch(() => ({}));
  for (const id of Object.keys(shown)) {
    if (id.startsWith(NOTIFICATION_PREFIX) && !prompts.has(id.slice(NOTIFICATION_PREFIX.length))) {
      void browser.notifications.clear(id).catch(() => undefined);
    }
  }
}

function promptIdOf(url: string): string {
  return new URL(url).searchParams.get("id") ?? "";
}

/** Registered at worker start-up. */
export function installConsent(): void {
  browser.runtime.onConnect.addListener(onConnect);
  browser.windows.onRemoved.addListener(onWindowRemoved);
  browser.notifications.onClicked.addListener(onNotificationClicked);
  orphansClosed = closeOrphans().catch((err: unknown) => console.error("bsk: could not close orphaned consent windows", err));
}
