/**
 * The keep-alive content script (entrypoints/keepalive.ts) is registered only while some session is live or being
 * opened (and for LINGER_MS after the last one ended). Where it ran, the page loaded while a session was live, and
 * the overlay and hands scripts read that from it (LIVE_GLOBAL) rather than from storage.local, which is closed to
 * content scripts (storage-lock.ts). The person's own tabs load nothing of it otherwise. A session's first page must
 * find it registered, so session.open registers it beside opening the window and answers only once it is
 * (`whileOpening`).
 */
import { browser } from "wxt/browser";
import { allSessions } from "./sessions.ts";

const SCRIPT_ID = "bsk-keepalive";
const SCRIPT = {
  id: SCRIPT_ID,
  matches: ["<all_urls>"],
  js: ["keepalive.js"],
  runAt: "document_start",
  allFrames: true,
  matchOriginAsFallback: true,
  // A browser that restarts has no live session: the script goes with the browser session.
  persistAcrossSessions: false,
} as const;

/** After the last session ends the script stays this long: a session started right after finds it registered. */
const LINGER_MS = 5_000;

const liveScriptState = {
  /** Whether the script is registered as this worker last made it; undefined until it has looked. */
  registered: undefined as boolean | undefined,
  /** Registration changes, one after another. */
  chain: Promise.resolve(),
  /** session.open calls under way. */
  opening: 0,
  /** The unregistration waiting out LINGER_MS. */
  linger: undefined as ReturnType<typeof setTimeout> | undefined,
};

const wanted = (): boolean => liveScriptState.opening > 0 || allSessions().some((s) => Object.keys(s.tabs).length > 0);

/**
 * Brings the registration in line with the sessions (call once they are loaded): registers at once, unregisters
 * LINGER_MS after the last session went (sooner would cost a start right after a stop both calls). Resolves once a
 * registration asked for is made.
 */
export function reconcileLiveScript(): Promise<void> {
  const s = liveScriptState;
  if (wanted()) {
    clearTimeout(s.linger);
    s.linger = undefined;
    return change(true);
  }
  s.linger ??= setTimeout(() => {
    s.linger = undefined;
    if (!wanted()) void change(false);
  }, LINGER_MS);
  return s.chain;
}

function change(want: boolean): Promise<void> {
  const s = liveScriptState;
  s.chain = s.chain.then(async () => {
    try {
      if (s.registered === undefined) {
        const [was] = await browser.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
        // An older build registered it in the top frame only, for good: that one is replaced.
        if (was && (!was.allFrames || was.persistAcrossSessions !== false)) {
          await browser.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
          s.registered = false;
        } else s.registered = was !== undefined;
      }
      if (want === s.registered) return;
      if (want) await browser.scripting.registerContentScripts([{ ...SCRIPT, matches: [...SCRIPT.matches], js: [...SCRIPT.js] }]);
      else await browser.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
      s.registered = want;
    } catch (err) {
      s.registered = undefined;
      console.warn("bsk: could not change the keep-alive script", err);
    }
  });
  return s.chain;
}

/** Runs a session's opening with the script registered by the time it answers. */
export async function whileOpening<T>(open: () => Promise<T>): Promise<T> {
  liveScriptState.opening++;
  const ready = reconcileLiveScript();
  try {
    const out = await open();
    await ready;
    return out;
  } finally {
    liveScriptState.opening--;
    // A failed open leaves no session: the script goes again.
    void reconcileLiveScript();
  }
}
