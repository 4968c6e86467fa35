/**
 * The worker's side of the help panel's note field (entrypoints/note/, shared/messages/note.ts). Only bsk's own note
 * page, in a frame of the top document of a tab whose help request it names, is heard; it sends the field's text on
 * every edit, and the worker keeps it (registry.ts). Before Done, Cancel or the criteria end a request, the field is
 * asked for its text once more: its edits and the panel's Done travel on different channels, in either order.
 */
import { browser, type Browser } from "wxt/browser";
import { NOTE_PAGE, NOTE_PORT, type NoteToPage, type NoteToWorker } from "../../shared/messages/note.ts";
import { FramesByTab, framedPage } from "../overlay/own-frames.ts";
import { helpNote, helpWords, setHelpNote } from "./registry.ts";

/** A frame that does not answer the last ask (busy, going) does not hold the request's end up longer than this. */
const FLUSH_CAP_MS = 1000;

interface NoteFrame {
  port: Browser.runtime.Port;
  helpId: string;
  flushes: Map<number, () => void>;
}

/** The note frame of each tab (the newest one heard: a reload's new frame replaces the old). */
const noteState = { frames: new FramesByTab<NoteFrame>(), nextFlush: 1 };

/**
 * Whether `port` is the note field of its tab's pending request: bsk's note page, in a frame (never a tab of its
 * own), naming the request's id, which only the worker and the overlay know.
 */
function accept(port: Browser.runtime.Port): NoteFrame | null {
  const framed = framedPage(port, NOTE_PAGE, "help");
  if (!framed || helpNote(framed.tabId, framed.value) === null) return null;
  const mine: NoteFrame = { port, helpId: framed.value, flushes: new Map() };
  const before = noteState.frames.set(framed.tabId, mine);
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
    noteState.frames.drop(tabId, mine);
  });
  const words = helpWords(tabId, mine.helpId) ?? { prompt: "" };
  port.postMessage({ type: "start", note: helpNote(tabId, mine.helpId) ?? "", ...words } satisfies NoteToPage);
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

/** Resolves once the tab's note frame is gone (see features/overlay/own-frames.ts why an ended request waits). */
export function noteFrameGone(tabId: number): Promise<void> {
  return noteState.frames.gone(tabId);
}

export function installNoteFrame(): void {
  browser.runtime.onConnect.addListener(onConnect);
}
