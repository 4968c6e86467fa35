/**
 * The extension link: `Bun.serve` on 127.0.0.1, WebSocket at /extension only. The upgrade is checked by
 * gateway-policy.ts; after it the extension has `handshakeMs` to send `system.handshake`, and a browser
 * that sends nothing at all for `browserSilenceMs` is dropped.
 */
import type { Server, ServerWebSocket } from "bun";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import { MAX_FRAME_BYTES } from "../protocol/frames.ts";
import type { AllowList } from "./allow-list.ts";
import { browserGone, type BrowserConn } from "./browsers.ts";
import { CLOSE, handleExtensionFrame, send, type LinkDeps, type LinkState } from "./extension-link.ts";
import { checkUpgrade } from "./gateway-policy.ts";
import { limitWarnings } from "./log-limit.ts";

export interface GatewayDeps extends LinkDeps {
  allowList: AllowList;
}

export interface Gateway {
  readonly port: number;
  /** Close every browser link (daemon stopping) and stop listening. */
  stop(): void;
}

// Frames up to a little past the cap reach us and get a protocol_error; Bun closes the socket (1009) beyond.
const MAX_PAYLOAD = MAX_FRAME_BYTES + 64 * 1024;

export function startGateway(deps: GatewayDeps): Gateway {
  const { config, log } = deps;
  // What links that proved nothing cause is logged in bounded, summarised amounts.
  const untrusted = limitWarnings(log);
  const linkDeps: LinkDeps = { ...deps, untrustedLog: untrusted };
  const sockets = new Set<ServerWebSocket<LinkState>>();
  let stopping = false;

  const server: Server<LinkState> = Bun.serve<LinkState>({
    hostname: "127.0.0.1",
    port: config.port,
    development: false,
    fetch(req, srv) {
      const decision = checkUpgrade({
        url: req.url,
        peer: srv.requestIP(req)?.address,
        origin: req.headers.get("origin"),
        isAllowed: (id) => deps.allowList.has(id),
      });
      if (!decision.ok) {
        if (decision.status === 403) untrusted.warn("extension connection refused", { reason: decision.reason, origin: req.headers.get("origin") });
        return new Response(`${decision.reason}\n`, { status: decision.status });
      }
      if (stopping) return new Response("daemon is stopping\n", { status: 503 });
      const data: LinkState = { extensionId: decision.extensionId, openedAt: performance.now(), trust: { port: srv.port ?? config.port } };
      if (srv.upgrade(req, { data })) return undefined;
      return new Response("expected a WebSocket upgrade\n", { status: 426 });
    },
    error(err) {
      log.error("gateway error", { error: err });
      return new Response("internal error\n", { status: 500 });
    },
    websocket: {
      data: {} as LinkState,
      perMessageDeflate: false,
      maxPayloadLength: MAX_PAYLOAD,
      // Liveness is ours (heartbeat events and the silence check below), not uWS's idle timer.
      idleTimeout: 0,
      sendPings: false,
      open(ws) {
        sockets.add(ws);
        ws.data.handshakeTimer = setTimeout(() => {
          if (ws.data.conn) return;
          untrusted.warn("no handshake in time; closing", { extension: ws.data.extensionId, ms: config.handshakeMs });
          ws.close(CLOSE.handshakeTimeout, "no system.handshake in time");
        }, config.handshakeMs);
      },
      message(ws, message) {
        if (typeof message !== "string") {
          send(ws, { id: null, error: toErrorBody(new BskError("protocol_error", "binary frames are not accepted; send JSON text")) });
          return;
        }
        handleExtensionFrame(ws, message, linkDeps);
      },
      error(err, ws) {
        log.error("extension link handler failed", { error: err, browser: ws.data.conn?.instanceId });
      },
      close(ws, code, reason) {
        sockets.delete(ws);
        if (ws.data.handshakeTimer) clearTimeout(ws.data.handshakeTimer);
        const conn = ws.data.conn;
        if (!conn) return;
        onBrowserClosed(conn, code, reason, ws.data.silent === true);
      },
    },
  });

  function onBrowserClosed(conn: BrowserConn, code: number, reason: string, silent: boolean) {
    const current = deps.browsers.remove(conn);
    conn.markClosed(browserGone(conn.instanceId));
    log.info("browser disconnected", { browser: conn.instanceId, code, reason, replaced: !current });
    if (current && !silent && !stopping) deps.sessions.browserLeft(conn.instanceId);
    deps.onChange();
  }

  const silenceCheck = setInterval(
    () => {
      const now = performance.now();
      for (const conn of deps.browsers.list()) {
        if (now - conn.lastFrameAt < config.browserSilenceMs) continue;
        log.warn("browser silent; dropping it", { browser: conn.instanceId, silent_ms: Math.round(now - conn.lastFrameAt) });
        for (const ws of sockets) if (ws.data.conn === conn) ws.data.silent = true;
        deps.sessions.browserSilent(conn.instanceId);
        conn.close(CLOSE.silent, "silent for too long");
      }
    },
    Math.max(20, Math.min(config.browserSilenceMs / 4, 5000)),
  );

  return {
    port: server.port ?? config.port,
    stop() {
      stopping = true;
      clearInterval(silenceCheck);
      untrusted.flushSummaries();
      for (const ws of sockets) {
        try {
          ws.close(CLOSE.goingAway, "daemon stopping");
        } catch {}
      }
      server.stop(true);
    },
  };
}
