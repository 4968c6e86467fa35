/**
 * The worker's side of the help panel's note field (entrypoints/note/, shared/messages/note.ts). Only bsk's own note
 * page, in a frame of the top document of a tab whose help request it names, is heard; it sends the field's text on
 * every edit, and the worker keeps it (registry.ts). Before Done, Cancel or the criteria end a request, the field is
 * asked for its text once more: its edits and the panel's Done travel on different channels, in either order.
 */
import { browser, type Browser } from "wxt/browser";
import { NOTE_PAGE, NOTE_PORT, type NoteToPage, type NoteToWorker } from "../../shared/messages/note.ts";
import { helpNote, setHelpNote } from "./registry.ts";

/** A frame that does not answer the last ask (busy, going) does not hold the request's end up longer than this. */
const FLUSH_CAP_MS = 1000;

interface NoteFrame {
  port: Browser.runtime.Port;
  helpId: string;
  flushes: Map<number, () => void>;
}

/** How long an ended request waits for its note frame to go before it cleans the page up anyway. */
const GONE_CAP_MS = 2000;

/** The note frame of each tab (the newest one heard: a reload's new frame replaces the old), and who waits for it to go. */
const noteState = { frames: new Map<number, NoteFrame>(), nextFlush: 1, goneWaiters: new Map<number, (() => void)[]>() };

/** `note.html?help=<id>` of this extension, by its static or its per-session dynamic URL; the help id, or null. */
function notePageHelpId(url: string | undefined): string | null {
  if (!url) return null;
  const pages = [browser.runtime.getURL(NOTE_PAGE), `chrome-extension://${browser.runtime.id}${NOTE_PAGE}`];
  if (!pages.some((page) => url.startsWith(`${page}?`))) return null;
  return new URL(url).searchParams.get("help");
}

/**
 * Whether `port` is the note field of its tab's pending request: bsk's note page, in a frame (never a tab of its
 * own), naming the request's id, which only the worker and the overlay know. (webNavigation does not list extension
 * frames, so where in the tab the frame sits cannot be asked.)
 */
function accept(port: Browser.runtime.Port): NoteFrame | null {
  const s = port.sender;
  const tabId = s?.tab?.id;
  const helpId = notePageHelpId(s?.url);
  if (s?.id !== browser.runtime.id || tabId === undefined || s.frameId === undefined || s.frameId === 0 || !helpId) return null;
  if (helpNote(tabId, helpId) === null) return null;
  const mine: NoteFrame = { port, helpId, flushes: new Map() };
  const before = noteState.frames.get(tabId);
  noteState.frames.set(tabId, mine);
  before?.port.disconnect();
  if (before) settleFlushes(before);
  return mine;
}

function settleFlushes(frame: NoteFrame): void {
  for (const done of frame.flushes.values()) done();
  frame.flushes.clear();
}

function onConnect(port: Browser.runtime.Port): void {
  if (port.name !== NOTE_PORT) return;
  const mine = accept(port);
  const tabId = port.sender?.tab?.id;
  if (!mine || tabId === undefined) return port.disconnect();
  port.onMessage.addListener((msg: NoteToWorker) => {
    if (msg?.type !== "note" || msg.help_id !== mine.helpId || typeof msg.note !== "string") return;
    setHelpNote(tabId, mine.helpId, msg.note);
    if (msg.flush !== undefined) {
      mine.flushes.get(msg.flush)?.();
      mine.flushes.delete(msg.flush);
    }
  });
  port.onDisconnect.addListener(() => {
    settleFlushes(mine);
    if (noteState.frames.get(tabId) !== mine) return;
    noteState.frames.delete(tabId);
    for (const gone of noteState.goneWaiters.get(tabId) ?? []) gone();
    noteState.goneWaiters.delete(tabId);
  });
  port.postMessage({ type: "start", note: helpNote(tabId, mine.helpId) ?? "" } satisfies NoteToPage);
}

/** Asks the tab's note field for its text now and waits (at most FLUSH_CAP_MS) until the worker holds it. */
export async function freshNote(tabId: number): Promise<void> {
  const frame = noteState.frames.get(tabId);
  if (!frame) return;
  const flush = noteState.nextFlush++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    frame.flushes.set(flush, resolve);
    timer = setTimeout(() => {
      frame.flushes.delete(flush);
      resolve();
    }, FLUSH_CAP_MS);
    try {
      frame.port.postMessage({ type: "flush", flush } satisfies NoteToPage);
    } catch {
      resolve();
    }
  });
  clearTimeout(timer);
}

/**
 * Resolves once the tab's note frame is gone (at most GONE_CAP_MS): while it shows, the browser refuses bsk's debugger
 * on the whole tab (its dynamic URL counts as another extension's page, cdp/debugger.ts), so an ended request cleans
 * the page up after it.
 */
export function noteFrameGone(tabId: number): Promise<void> {
  if (!noteState.frames.has(tabId)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, GONE_CAP_MS);
    const waiters = noteState.goneWaiters.get(tabId) ?? [];
    waiters.push(() => {
      clearTimeout(timer);
      resolve();
    });
    noteState.goneWaiters.set(tabId, waiters);
  });
}

export function installNoteFrame(): void {
  browser.runtime.onConnect.addListener(onConnect);
}
