/**
 * The doorbell: while the local link is down, a native messaging port to bsk's host (com.bsk.bridge, `watch_daemon`)
 * stays open; the host watches its $BSK_HOME and says `daemon_up` the moment a daemon has written daemon.json (it
 * listens by then), and the link connects at once instead of at its next back-off retry or alarm. Nothing polls: the
 * host blocks on a file-system watch, the worker on the port (which also keeps it awake while the link is down).
 * The message only starts a connect; the daemon still has to prove the secret (trust/prove.ts). Once connected the
 * port is closed and the host exits. No host registered (paired by code): the port closes at once and is tried
 * again rarely.
 */
import { browser, type Browser } from "wxt/browser";
import { SESSION, type ConnectionStatus } from "../session/settings.ts";
import { connect } from "./connection.ts";
import { NATIVE_HOST } from "./trust/native.ts";

/** A host that is missing or exited: asked again this much later (the reconnect alarm runs meanwhile). */
const REOPEN_MS = 30_000;

let port: Browser.runtime.Port | null = null;
let reopen: ReturnType<typeof setTimeout> | undefined;

function ring(message: unknown): void {
  const type = message && typeof message === "object" ? (message as { type?: unknown }).type : undefined;
  if (type === "daemon_up") void connect();
}

function open(): void {
  if (port) return;
  clearTimeout(reopen);
  try {
    port = browser.runtime.connectNative(NATIVE_HOST);
  } catch {
    port = null;
    reopen = setTimeout(() => void sync(), REOPEN_MS);
    return;
  }
  const mine = port;
  mine.onMessage.addListener(ring);
  mine.onDisconnect.addListener(() => {
    if (port !== mine) return;
    port = null;
    reopen = setTimeout(() => void sync(), REOPEN_MS);
  });
  mine.postMessage({ type: "watch_daemon" });
}

function close(): void {
  clearTimeout(reopen);
  const was = port;
  port = null;
  was?.disconnect();
}

function follow(status: ConnectionStatus | undefined): void {
  if (status?.state === "connected") close();
  else open();
}

async function sync(): Promise<void> {
  const got = await browser.storage.session.get(SESSION.connection);
  follow(got[SESSION.connection] as ConnectionStatus | undefined);
}

/** Keeps the doorbell open exactly while the local link is not connected. */
export function installDoorbell(): void {
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && SESSION.connection in changes) follow(changes[SESSION.connection]!.newValue as ConnectionStatus | undefined);
  });
  void sync();
}
