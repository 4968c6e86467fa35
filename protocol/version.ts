/**
 * Versions. The app version comes from package.json; the protocol version is `major.minor`.
 * Rule: a different major is refused (`version_too_old`); a different minor is accepted and reported as skew.
 */
import pkg from "../package.json" with { type: "json" };

/** Set only by test builds (`--define BUILD_APP_VERSION=...`) to produce an "older" and a "newer" binary. */
declare const BUILD_APP_VERSION: string | undefined;

export const APP_VERSION: string = typeof BUILD_APP_VERSION !== "undefined" ? BUILD_APP_VERSION : pkg.version;
/**
 * 2.0: the link starts with a mutual proof of this install's secret (system.hello, then system.handshake with the
 * extension's proof); a 1.x peer cannot do it, hence a new major.
 */
/**
 * 2.1: record.* (the person's steps as a trace) and call.progress notes; a 2.0 peer answers record.* with
 * unknown_method and sends no progress.
 */
/**
 * 3.0: no message on the extension link is over 64 KiB (frames before the handshake 16 KiB); the extension sends a
 * larger frame in binary pieces (protocol/pieces.ts). A 2.x extension's large replies would be cut, hence a new major.
 */
/**
 * 3.1: error codes prompt_pending and input_not_delivered; effect kind browser_prompt; dialog.status and
 * dialog.dismiss carry the tab's browser prompt.
 */
/** 3.2: session start --isolated (session.open isolated, an incognito window); error code incognito_not_allowed. */
/** 3.3: error code approval_denied; page-changing results may carry `approval` (protocol/approval.ts). */
/**
 * 3.4: error codes approval_required (the person must be asked and cannot be, there or any longer), input_diverted and
 * navigated_during_input (keys stopped when the focus or the document they were aimed at went away).
 */
export const PROTOCOL_VERSION = "3.4";
export const DAEMON_NAME = "bsk-daemon";
export const EXTENSION_CLIENT = "bsk-extension";

export interface ProtocolVersion {
  major: number;
  minor: number;
}

export function parseProtocolVersion(v: unknown): ProtocolVersion | null {
  if (typeof v !== "string") return null;
  const m = /^(\d{1,9})\.(\d{1,9})$/.exec(v);
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export type Compatibility = { ok: true; skew: boolean } | { ok: false; reason: string };

export function checkCompatibility(ours: string, theirs: unknown): Compatibility {
  const a = parseProtocolVersion(ours);
  const b = parseProtocolVersion(theirs);
  if (!a || !b) return { ok: false, reason: `unparseable protocol version ${JSON.stringify(theirs)}` };
  if (a.major !== b.major) return { ok: false, reason: `protocol ${String(theirs)} cannot talk to protocol ${ours}` };
  return { ok: true, skew: a.minor !== b.minor };
}
