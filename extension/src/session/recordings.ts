/**
 * The worker's recordings, one per session, kept in chrome.storage.session after every change so a worker that
 * was stopped and woken again carries on (its steps, its deadline, an ended recording's trace waiting to be
 * collected by the daemon's record.await). Changes are told to listeners (the overlay's step count).
 */
import { browser } from "wxt/browser";
import type { StopReason, TracePageT, TraceStepT } from "../../../protocol/trace.ts";
import { SESSION } from "./settings.ts";

export interface Recording {
  session_id: string;
  tab_id: number;
  purpose?: string;
  start_url: string;
  started_at: string;
  /** Epoch ms when the recording times out. */
  deadline_at: number;
  pages: TracePageT[];
  steps: TraceStepT[];
  /** Page.addScriptToEvaluateOnNewDocument's id of the recorder script. */
  script_id?: string;
  ended?: { stopped_by: StopReason; recorded_at: string };
}

const KEY = SESSION.recordings;
/** The recordings, as loaded from storage.session, and the write in progress. */
interface RecordingsState {
  all: Map<string, Recording> | null;
  loading: Promise<Map<string, Recording>> | null;
  saving: Promise<void>;
}
const recordingsState: RecordingsState = {
  all: null,
  loading: null,
  saving: Promise.resolve(),
};

const listeners: ((rec: Recording) => void)[] = [];

export function recordingsReady(): Promise<Map<string, Recording>> {
  recordingsState.loading ??= browser.storage.session
    .get(KEY)
    .then((got) => (recordingsState.all = new Map(Object.entries((got[KEY] as Record<string, Recording> | undefined) ?? {}))))
    .catch(() => (recordingsState.all = new Map()));
  return recordingsState.loading;
}

/** Loaded already (callers on hot paths have awaited recordingsReady first). */
export function recordings(): Map<string, Recording> {
  return recordingsState.all ?? new Map();
}

export function recordingOfTab(tabId: number): Recording | undefined {
  for (const r of recordings().values()) if (r.tab_id === tabId && !r.ended) return r;
  return undefined;
}

export function onRecordingChange(l: (rec: Recording) => void): void {
  listeners.push(l);
}

/** Persists every recording (writes queue up in order) and tells the listeners about `rec`. */
export function changed(rec: Recording): Promise<void> {
  const snapshot = Object.fromEntries(recordings());
  recordingsState.saving = recordingsState.saving.then(() =>
    browser.storage.session.set({ [KEY]: snapshot }).catch((err: unknown) => console.error("bsk: could not save recordings", err)),
  );
  for (const l of listeners) l(rec);
  return recordingsState.saving;
}

export function putRecording(rec: Recording): Promise<void> {
  recordings().set(rec.session_id, rec);
  return changed(rec);
}

export function dropRecording(rec: Recording): Promise<void> {
  recordings().delete(rec.session_id);
  return changed(rec);
}
