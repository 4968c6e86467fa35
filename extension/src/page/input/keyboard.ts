/**
 * Real keyboard input through CDP (trusted key events, so page handlers and editing behave as for a person).
 * Events are pipelined in order; characters no US key types (é, 中, emoji) go in as Input.insertText.
 */
import { raceAbort } from "../../shared/abort.ts";
import { send } from "../../cdp/debugger.ts";
import { charEvents, chordEvents, type Chord, type KeyEvent } from "./keys.ts";

const isMac = typeof navigator !== "undefined" && /Mac/i.test(navigator.userAgent);
/** Key events queued at once while typing; bounded so a long text does not queue thousands of commands. */
const TYPE_BATCH = 64;

function key(tabId: number, e: KeyEvent, signal?: AbortSignal): Promise<unknown> {
  return send(tabId, "Input.dispatchKeyEvent", e, signal);
}

/** Keys bound to where they were aimed (aim.ts bindKeys). */
export interface KeyBinding {
  /** After a batch was delivered (`batches` of `total` so far): throws when the focus is no longer where aimed. */
  after: (batches: number, signal?: AbortSignal) => Promise<void>;
}

/** How many keyup events pressing a chord `count` times gives the page (its last events: effects.ts readAlong). */
export function chordKeyUps(chord: Chord, count = 1): number {
  return chordEvents(chord, { mac: isMac }).filter((e) => e.type === "keyUp").length * count;
}

/** Presses a chord `count` times; bound, each press after the first goes only once the focus is seen where aimed. */
export async function pressChord(tabId: number, chord: Chord, count = 1, signal?: AbortSignal, binding?: KeyBinding): Promise<void> {
  const events = chordEvents(chord, { mac: isMac });
  let sent: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    if (binding && i > 0) {
      await Promise.all(sent);
      sent = [];
      await binding.after(i, signal);
    }
    for (const e of events) sent.push(key(tabId, e, signal));
  }
  await Promise.all(sent);
}

/**
 * How many keyup events typing `text` gives the page, when its last character goes in by keys (its last events are
 * then keyups: effects.ts readAlong); null when it goes in as insertText, or there is nothing to type.
 */
export function typedKeyUps(text: string): number | null {
  let ups = 0;
  let byKeys = false;
  for (const ch of text) {
    const events = charEvents(ch);
    byKeys = !!events;
    if (events) for (const e of events) if (e.type === "keyUp") ups++;
  }
  return byKeys ? ups : null;
}

/**
 * Types text key by key; with a delay, one character at a time with that pause in between. Bound (aim.ts), each
 * character after the first goes only once the one before it was delivered and the focus was seen where aimed.
 */
export async function typeText(tabId: number, text: string, delayMs: number, signal?: AbortSignal, binding?: KeyBinding): Promise<void> {
  let batch: Promise<unknown>[] = [];
  let typed = 0;
  for (const ch of text) {
    if (binding && typed > 0) {
      await Promise.all(batch);
      batch = [];
      await binding.after(typed, signal);
    }
    typed++;
    const events = charEvents(ch);
    if (events) for (const e of events) batch.push(key(tabId, e, signal));
    else batch.push(send(tabId, "Input.insertText", { text: ch }, signal));
    if (delayMs > 0) {
      await Promise.all(batch);
      batch = [];
      await pause(delayMs, signal);
    } else if (batch.length >= TYPE_BATCH) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/** Inserts text as one edit (what fill does): beforeinput/input with inputType insertText, like an IME commit. */
export async function insertText(tabId: number, text: string, signal?: AbortSignal): Promise<void> {
  await send(tabId, "Input.insertText", { text }, signal);
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return raceAbort(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal);
}
