/**
 * Browser prompts the agent cannot see or answer, in a session's tabs:
 * - HTTP and proxy sign-in (webRequest.onAuthRequired): bsk cancels it, so nothing waits on a dialog nobody
 *   watches, and never fills in anything (the page shows the site's 401). The person's own tabs get the browser's
 *   prompt as always; so does a session's tab while the person is asked to help in it (request-help) or has taken
 *   the session over.
 * - permission prompts, device choosers and printing (page-prompts.ts, through a CDP binding), in other sites'
 *   iframes too;
 * - opening another application (an external protocol such as mailto: or a custom scheme).
 * Each becomes a browser.prompt event and fails the page-changing call it happened in (incidents.ts), with a hint
 * to ask the person through bsk request-help. None is ever answered yes.
 */
import { browser, type Browser } from "wxt/browser";
import { onAttach, tapCdp } from "../../cdp/debugger.ts";
import { controlReady, isTakenOver } from "../control.ts";
import { onChildAttach } from "../../cdp/frames.ts";
import { emit } from "../../ports/outbox.ts";
import { ownerOfTab, sessionsReady } from "../../session/sessions.ts";
import { reportIncident } from "./incidents.ts";
import { PAGE_PROMPT_SCRIPT, PROMPT_BINDING } from "./page-prompts.ts";
import { clearPrompt, installPromptState, setPrompt, type PromptKind } from "../../page/prompt-state.ts";

type Kind = "http_auth" | "proxy_auth" | "permission" | "external_protocol" | "print" | "device_chooser";

/** Schemes the browser handles itself; anything else is handed to another application after asking. */
const OWN_SCHEMES = new Set([
  "http:",
  "https:",
  "ws:",
  "wss:",
  "about:",
  "data:",
  "blob:",
  "file:",
  "filesystem:",
  "javascript:",
  "chrome:",
  "chrome-extension:",
  "chrome-untrusted:",
  "chrome-search:",
  "chrome-error:",
  "devtools:",
  "view-source:",
  "edge:",
  "brave:",
  "opera:",
  "vivaldi:",
]);
const PAGE_KINDS = new Set(["permission", "print", "device_chooser"]);
const REPEAT_MS = 2000;

const personAnswers = new Set<number>();
const recent = new Map<string, number>();

/** While the person is asked to help in a tab, its prompts are theirs to answer (e.g. the HTTP sign-in). */
export function letPersonAnswer(tabId: number, on: boolean): void {
  if (on) personAnswers.add(tabId);
  else personAnswers.delete(tabId);
}

function externalScheme(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase();
  return !!scheme && !OWN_SCHEMES.has(scheme);
}

function prompt(tabId: number, kind: Kind, url: string, detail: Record<string, string>, answer: "cancelled" | "left_to_person"): void {
  const owner = ownerOfTab(tabId);
  if (!owner) return;
  // The browser's own prompt is up: the tab takes no input until it is answered (prompt-state.ts).
  if (answer === "left_to_person") setPrompt(tabId, { kind: kind as PromptKind, url, detail });
  const session_id = owner.session.session_id;
  // The call in flight raised it, whatever came before: its reply says so (a second print() a moment after the
  // first is a prompt of its own).
  reportIncident(session_id, { kind: "browser_prompt", tab_id: tabId, prompt: kind, url, detail, answer });
  // One page asking again and again (watchPosition, a retried link) is one event.
  const key = `${tabId}|${kind}|${detail.permission ?? ""}|${url}`;
  const now = Date.now();
  if (now - (recent.get(key) ?? 0) < REPEAT_MS) return;
  recent.set(key, now);
  if (recent.size > 500) recent.clear();
  emit("browser.prompt", { session_id, tab_id: tabId, kind, url, detail, answer });
}

async function onAuth(d: Browser.webRequest.OnAuthRequiredDetails): Promise<Browser.webRequest.BlockingResponse> {
  await Promise.all([sessionsReady(), controlReady()]);
  const owner = d.tabId < 0 ? undefined : ownerOfTab(d.tabId);
  // The person's to answer: not a session's tab, a tab they were asked to help in, or a session they took over.
  if (!owner || personAnswers.has(d.tabId) || isTakenOver(owner.session.session_id)) return {};
  const detail: Record<string, string> = { scheme: d.scheme };
  if (d.realm) detail.realm = d.realm;
  if (d.challenger?.host) detail.challenger = `${d.challenger.host}:${d.challenger.port}`;
  prompt(d.tabId, d.isProxy ? "proxy_auth" : "http_auth", d.url, detail, "cancelled");
  return { cancel: true };
}

function onBinding(tabId: number, payload: unknown): void {
  let msg: { kind?: unknown; permission?: unknown; url?: unknown; answered?: unknown };
  try {
    msg = JSON.parse(String(payload));
  } catch {
    return;
  }
  // The page can call this too: take only the shapes the script sends.
  if (typeof msg.kind !== "string" || !PAGE_KINDS.has(msg.kind)) return;
  const permission = typeof msg.permission === "string" && /^[a-z-]{0,40}$/.test(msg.permission) ? msg.permission : "";
  const url = typeof msg.url === "string" ? msg.url.slice(0, 2048) : "";
  // The page's call settled: the person (or the browser's policy) answered. A page can only clear its own tab's state.
  if (msg.answered === true) {
    if (msg.kind !== "print") clearPrompt(tabId, (p) => p.kind === msg.kind && (p.detail.permission ?? "") === permission);
    return;
  }
  prompt(tabId, msg.kind as Kind, url, permission ? { permission } : {}, "left_to_person");
}

export function installPromptWatch(): void {
  installPromptState();
  browser.webRequest.onAuthRequired.addListener(
    (d, callback): undefined => {
      // Fails closed for a session's tab: an error cancels the sign-in rather than leaving it to nobody.
      onAuth(d).then(callback, () => callback?.(ownerOfTab(d.tabId) ? { cancel: true } : {}));
      return undefined;
    },
    { urls: ["<all_urls>"] },
    ["asyncBlocking"],
  );

  const watchPage = async (send: (method: string, params?: object) => Promise<unknown>, readopted = false) => {
    await send("Runtime.addBinding", { name: PROMPT_BINDING });
    // An attachment taken over after a worker restart keeps its registration (only the binding went, with
    // debugger.ts's Runtime.disable): adding it again would run the script once more in every later document.
    if (!readopted) await send("Page.addScriptToEvaluateOnNewDocument", { source: PAGE_PROMPT_SCRIPT, runImmediately: true });
  };
  onAttach((_tabId, send, readopted) => watchPage(send, readopted));
  // Another site's iframe is a target of its own (its prompts are asked of the person all the same); a binding
  // reports only to a session with the Runtime domain on.
  onChildAttach(async (send) => {
    await send("Runtime.enable");
    await watchPage(send);
  });

  tapCdp({
    onEvent(source, method, p) {
      if (method === "Runtime.bindingCalled" && p.name === PROMPT_BINDING) onBinding(source.tabId, p.payload);
      else if (method === "Page.frameRequestedNavigation" && typeof p.url === "string" && externalScheme(p.url)) {
        prompt(source.tabId, "external_protocol", p.url, { scheme: p.url.split(":")[0]! }, "left_to_person");
      }
    },
  });

  // Without the debugger on the tab, the browser's own account: the navigation to the other app "fails" here.
  browser.webNavigation.onErrorOccurred.addListener((d) => {
    if (!externalScheme(d.url)) return;
    void sessionsReady().then(() => prompt(d.tabId, "external_protocol", d.url, { scheme: d.url.split(":")[0]! }, "left_to_person"));
  });
}
