/**
 * What the extension keeps in chrome.storage, and the shapes the popup and the connect page read.
 *
 * storage.local (survives restarts):   port, label, instance_id, the ask-first origins, and the person's switches
 *                                      confirm_borrow, allow_help, show_hints, auto_takeover (on by default), allow_file_urls (off);
 *                                      sessions_left (a copy of the sessions, for the next instance after a reload)
 * storage.session (survives SW death): connection (ConnectionStatus), sessions (Record<id, SessionState>)
 */
import { browser } from "wxt/browser";
import type { Ownership } from "./scope.ts";
import { localStorageLocked } from "./storage-lock.ts";

export const DEFAULT_PORT = 52800;

export const LOCAL = {
  port: "port",
  label: "label",
  instanceId: "instance_id",
  confirmBorrow: "confirm_borrow",
  allowHelp: "allow_help",
  showHints: "show_hints",
  allowFileUrls: "allow_file_urls",
  autoTakeover: "auto_takeover",
  /** "Ask me before the agent acts here": the person's list of origins (features/approval/). Only the popup writes it. */
  askFirst: "ask_first_origins",
  /** The remote device grant (link/remote/grant-store.ts): only here, never logged, never in a URL. */
  remoteGrant: "remote_grant",
  /**
   * A copy of the sessions: storage.session goes with the extension when it reloads (an update, the person's reload,
   * Allow in Incognito switched), and the next instance ends what this one left open (session/sessions.ts).
   */
  sessionsLeft: "sessions_left",
} as const;

/** The person's switches (popup). Only the popup changes them; CLI flags and env vars cannot. */
export interface Switches {
  /** "Confirm before borrowing tabs" */
  confirm_borrow: boolean;
  /** "Allow help requests" */
  allow_help: boolean;
  /** "Show control hints" (the pill and the edge glow) */
  show_hints: boolean;
  /** "Let sessions open local files (file://)" (never with an origin allow-list, never below $BSK_HOME; guard/file-urls.ts) */
  allow_file_urls: boolean;
  /** "Take over when I use an agent tab": the person's own input in a session's tab takes it over (hands/). */
  auto_takeover: boolean;
}

export const DEFAULT_SWITCHES: Switches = {
  confirm_borrow: true,
  allow_help: true,
  show_hints: true,
  allow_file_urls: false,
  auto_takeover: true,
};

/**
 * Reads the switches; anything unreadable or not a boolean counts as the default (the safe side: consent on, file
 * URLs off), so no protection silently turns off. So does everything while storage.local is open to content scripts
 * (storage-lock.ts).
 */
export async function readSwitches(): Promise<Switches> {
  try {
    if (!(await localStorageLocked())) return { ...DEFAULT_SWITCHES };
    const got = await browser.storage.local.get([
      LOCAL.confirmBorrow,
      LOCAL.allowHelp,
      LOCAL.showHints,
      LOCAL.allowFileUrls,
      LOCAL.autoTakeover,
    ]);
    const pick = (key: string, fallback: boolean) => (typeof got[key] === "boolean" ? (got[key] as boolean) : fallback);
    return {
      confirm_borrow: pick(LOCAL.confirmBorrow, DEFAULT_SWITCHES.confirm_borrow),
      allow_help: pick(LOCAL.allowHelp, DEFAULT_SWITCHES.allow_help),
      show_hints: pick(LOCAL.showHints, DEFAULT_SWITCHES.show_hints),
      allow_file_urls: pick(LOCAL.allowFileUrls, DEFAULT_SWITCHES.allow_file_urls),
      auto_takeover: pick(LOCAL.autoTakeover, DEFAULT_SWITCHES.auto_takeover),
    };
  } catch {
    return { ...DEFAULT_SWITCHES };
  }
}
/** `control`: ids of the sessions the person has taken over (control.ts). */
/** `remote`: the remote link's RemoteStatus. */
/** `pill_hidden`: ids of the sessions one of whose tabs' page hides bsk's pill (features/overlay/hub.ts). */
/** `lend_refused`: session id → the last tab dragged into its group and refused (shared/lend-refused.ts). */
export const SESSION = {
  connection: "connection",
  sessions: "sessions",
  control: "control",
  recordings: "recordings",
  remote: "remote_connection",
  pillHidden: "pill_hidden",
  lendRefused: "lend_refused",
  dialogs: "dialogs",
} as const;

/**
 * The remote link (link/remote/), for the popup. refused: the server said device_not_paired; expired: grant_expired;
 * revoked: closed with 4008. The three stop reconnecting until the person pairs again.
 */
export type RemoteState = "connecting" | "connected" | "disconnected" | "untrusted" | "refused" | "expired" | "revoked";

/** Why the remote link is not connected, as a code the popup words (locales: remote.error.<reason>). */
export const REMOTE_REASONS = ["network", "untrusted", "refused", "not_paired", "expired", "revoked", "rate_limited", "malformed"] as const;
export type RemoteReason = (typeof REMOTE_REASONS)[number];

export interface RemoteStatus {
  state: RemoteState;
  host: string;
  authority: string;
  device_id: string;
  generation: number;
  key_id: string;
  expires_at: string;
  /** English detail, for logs and the popup's tooltip; the popup shows `reason` in the person's language. */
  error?: string;
  reason?: RemoteReason;
  since: number;
}

export interface Settings {
  port: number;
  label: string;
  instance_id: string;
}

/**
 * not_paired: no secret yet (no native messaging host, no pairing code entered), so no connection is tried.
 * untrusted: something answers on the port but could not prove this install's secret; it gets nothing.
 */
export type ConnectionState = "connecting" | "connected" | "version_skew" | "disconnected" | "not_paired" | "untrusted";

export interface ConnectionStatus {
  state: ConnectionState;
  port: number;
  /** From the handshake result, once connected. */
  daemon_version?: string;
  protocol_version?: string;
  /** Connected, but the protocol minors differ. */
  skew?: boolean;
  /** Public name of this browser's pairing key (the daemon's `bsk status` shows its own). */
  key_id?: string;
  /** Why the last attempt failed, for the popup. */
  error?: string;
  since: number;
}

/** One session as the service worker keeps it (small: it is rewritten on every change). */
export interface SessionState {
  session_id: string;
  name?: string;
  window_id: number;
  current_tab_id: number | null;
  tabs: Record<string, Ownership>;
  /** Owned tab ids that were current, most recent last: where `current` falls back when the current tab closes. */
  recent: number[];
  /** session start --allow-origin (canonical origins): nothing else loads in the session's tabs (guard/origins.ts). */
  allow_origins?: string[];
  /** --block-requests: every request to another origin is blocked, not only navigations. */
  block_requests?: boolean;
  /** Borrowed tab id → where it came from (tab.return and the session's end put it back there). */
  borrowed?: Record<string, BorrowOrigin>;
  /** Borrowed tab id → when the person agreed (ms since the epoch): its console and network start there. */
  borrowed_at?: Record<string, number>;
  /** Opened over the remote link: the server's host, where the agent is. Unset: a local session. */
  remote_host?: string;
  /** session start --isolated: its window is incognito (session/isolated.ts), closed whole at the end. */
  isolated?: boolean;
  /** session start --where group: the tab group in the person's window (`window_id`) that holds the session's tabs. */
  group_id?: number;
  /** session start --no-borrow: every lend is refused (tab borrow, a tab dragged into the group). */
  no_borrow?: boolean;
  /** session start --confirm-writes: every page-changing call waits for the person's Allow (features/approval/). */
  confirm_writes?: boolean;
}

/** Where a borrowed tab was in the person's windows (the `from` of tab.borrow's result). */
export interface BorrowOrigin {
  window_id: number;
  index: number;
  pinned: boolean;
  /** -1: not in a group. */
  group_id: number;
  muted: boolean;
}

/** Messages from extension pages (popup, connect page) to the service worker. */
export type PageMessage =
  | { type: "reconnect" }
  /** Close the local link and keep it closed until the person (or the connect page) asks to reconnect. */
  | { type: "local_disconnect" }
  | { type: "stop_session"; session_id: string }
  | { type: "takeover_session"; session_id: string }
  | { type: "resume_session"; session_id: string }
  | { type: "pair"; code: string }
  | { type: "unpair" }
  /** Pair with a server's link (`bsk daemon pair` on the server); the worker runs the exchange. */
  | { type: "remote_pair"; link: string }
  /** Close the remote link and forget its grant. */
  | { type: "remote_disconnect" };

export function validPort(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value.trim()) : value;
  return typeof n === "number" && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads the settings, creating the instance id on first use. */
export async function loadSettings(defaultLabel: string): Promise<Settings> {
  const got = await browser.storage.local.get([LOCAL.port, LOCAL.label, LOCAL.instanceId]);
  let instanceId = typeof got[LOCAL.instanceId] === "string" ? (got[LOCAL.instanceId] as string) : "";
  if (!instanceId) {
    instanceId = randomHex(4);
    await browser.storage.local.set({ [LOCAL.instanceId]: instanceId });
  }
  const label = typeof got[LOCAL.label] === "string" && got[LOCAL.label] ? (got[LOCAL.label] as string) : defaultLabel;
  return { port: validPort(got[LOCAL.port]) ?? DEFAULT_PORT, label: label.slice(0, 64), instance_id: instanceId };
}

export async function readConnectionStatus(): Promise<ConnectionStatus | undefined> {
  const got = await browser.storage.session.get(SESSION.connection);
  return got[SESSION.connection] as ConnectionStatus | undefined;
}

export async function readSessions(): Promise<Record<string, SessionState>> {
  return (await readStoredSessions()) ?? {};
}

/** The sessions in storage.session; undefined when this instance of the extension has never written them. */
export async function readStoredSessions(): Promise<Record<string, SessionState> | undefined> {
  const got = await browser.storage.session.get(SESSION.sessions);
  return got[SESSION.sessions] as Record<string, SessionState> | undefined;
}

/**
 * The sessions a previous instance of the extension left (it was reloaded, updated or the browser started: read only
 * when storage.session has never held sessions in this instance, never after a worker that only restarted).
 */
export async function readLeftSessions(): Promise<SessionState[]> {
  const all = (await browser.storage.local.get(LOCAL.sessionsLeft))[LOCAL.sessionsLeft];
  if (!all || typeof all !== "object") return [];
  return Object.values(all as Record<string, SessionState>).filter(
    (s) => typeof s?.session_id === "string" && typeof s.window_id === "number" && !!s.tabs && typeof s.tabs === "object",
  );
}
