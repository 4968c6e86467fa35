/**
 * state/sessions.json: every session id ever issued (so none is reused), the live sessions (for
 * re-adoption after a restart) and the last 50 ended ones with their end reason. Replaced atomically.
 */
import { existsSync, renameSync } from "node:fs";
import type { z } from "zod";
import type { SessionInfo } from "../protocol/define.ts";
import { readJsonFile, writeFileAtomic } from "../shared/fs-util.ts";

export type SessionRecord = z.infer<ReturnType<typeof SessionInfo>> & { lost_tab_ids?: number[] };

export interface SessionsFile {
  version: 1;
  issued_ids: string[];
  sessions: SessionRecord[];
  ended: SessionRecord[];
}

export const ENDED_KEPT = 50;

export interface LoadedSessions {
  issued: Set<string>;
  sessions: SessionRecord[];
  ended: SessionRecord[];
}

/**
 * Load the registry. A file that is present but unreadable is moved aside (never silently
 * overwritten: it holds the ids that must not be reused) and the daemon starts empty.
 */
export function loadSessionsFile(path: string, onCorrupt?: (aside: string) => void): LoadedSessions {
  const raw = readJsonFile(path);
  if (raw === undefined) {
    if (existsSync(path)) {
      const aside = `${path}.corrupt-${Date.now()}`;
      renameSync(path, aside);
      onCorrupt?.(aside);
    }
    return { issued: new Set(), sessions: [], ended: [] };
  }
  const obj = (raw && typeof raw === "object" ? raw : {}) as Partial<Record<keyof SessionsFile, unknown>>;
  const records = (v: unknown) => (Array.isArray(v) ? v.filter(isRecord) : []);
  const issued = new Set(Array.isArray(obj.issued_ids) ? obj.issued_ids.filter((x): x is string => typeof x === "string") : []);
  const sessions = records(obj.sessions);
  const ended = records(obj.ended);
  // Ids of recorded sessions count as issued even if an older file lacked them.
  for (const s of [...sessions, ...ended]) issued.add(s.session_id);
  return { issued, sessions, ended: ended.slice(-ENDED_KEPT) };
}

export function saveSessionsFile(path: string, file: SessionsFile): void {
  writeFileAtomic(path, JSON.stringify(file));
}

function isRecord(v: unknown): v is SessionRecord {
  if (!v || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  return typeof r.session_id === "string" && typeof r.state === "string" && typeof r.created_at === "string";
}
