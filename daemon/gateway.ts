/**
 * The extension link: `Bun.serve` on 127.0.0.1, WebSocket at /extension only. The upgrade is checked by
 * gateway-policy.ts; after it the extension has `handshakeMs` to send `system.handshake`, and a browser
 * that sends nothing at all for `browserSilenceMs` is dropped. No message is larger than 64 KiB and no frame
 * before the handshake larger than 16 KiB; a handshaken extension sends larger frames in pieces (protocol/pieces.ts).
 */
import type { Server, ServerWebSocket } from "bun";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import { MAX_FRAME_BYTES } from "../protocol/frames.ts";
import { LINK_MESSAGE_MAX_BYTES, PieceJoiner, PRE_TRUST_FRAME_MAX_BYTES } from "../protocol/pieces.ts";
import type { AllowList } from "../shared/allow-list.ts";
import { browserGone, type BrowserConn } from "./browsers.ts";
import { CLOSE, handleExtensionFrame, send, type LinkDeps, type LinkState } from "./extension-link.ts";
import { checkUpgrade } from "./gateway-policy.ts";
import { limitWarnings } from "./log-limit.ts";
import type { Authorizer } from "./remote/authorize.ts";
import type { PeerLimiter } from "./remote/limits.ts";
import { checkCertificate, type ServerMode } from "./remote/server-options.ts";
import { corsHeaders, remoteRequest } from "./remote/remote-requests.ts";

export interface GatewayDeps extends LinkDeps {
  allowList: AllowList;
  /** Server mode: listen where the mode says (TLS or loopback), serve authorize, and take paired devices only. */
  server?: { mode: ServerMode; authorizer: Authorizer; limiter: PeerLimiter };
}

export interface Gateway {
  readonly port: number;
  /** Server mode with TLS: read the certificate again (SIGHUP); live links stay. Throws when the new one is unusable. */
  reloadTls(): void;
  /** Close every browser link (daemon stopping) and stop listening. */
  stop(): void;
}

export function startGateway(deps: GatewayDeps): Gateway {
  const { config, log } = deps;
  // What links that proved nothing cause is logged in bounded, summarised amounts.
  const untrusted = limitWarnings(log);
  const linkDeps: LinkDeps = { ...deps, untrustedLog: untrusted };
  const sockets = new Set<ServerWebSocket<LinkState>>();
  let stopping = false;

  const remote = deps.server;
  const tlsOf = (mode: ServerMode) => mode.tls && { cert: Bun.file(mode.tls.certFile), key: Bun.file(mode.tls.keyFile) };
  const options = () => ({
    hostname: remote ? remote.mode.listen : "127.0.0.1",
    port: remote ? remote.mode.port : config.port,
    ...(remote?.mode.tls && { tls: tlsOf(remote.mode) }),
    // The port is this daemon's alone: with a websocket handler Bun otherwise lets a second server bind it
    // too (SO_REUSEPORT), and the extension would reach either daemon.
    reusePort: false,
    development: false,
    async fetch(req: Request, srv: Server<LinkState>) {
      if (remote) {
        if (stopping) return new Response("daemon is stopping\n", { status: 503 });
        const r = remoteRequest(req, srv.requestIP(req)?.address, remote, deps.allowList);
        if (r.kind === "response") {
          if (r.refused) untrusted.warn("remote request refused", { reason: r.refused, path: new URL(req.url).pathname });
          return r.response;
        }
        if (r.kind === "authorize") {
          const res = await remote.authorizer.handle(req, r.extensionId, r.peer);
          for (const [k, v] of Object.entries(corsHeaders(`chrome-extension://${r.extensionId}`))) res.headers.set(k, v);
          return res;
        }
        const data: LinkState = { extensionId: r.extensionId, openedAt: performance.now(), trust: { port: 0 } };
        if (srv.upgrade(req, { data })) return undefined;
        return new Response("expected a WebSocket upgrade\n", { status: 426 });
      }
      const decision = checkUpgrade({
        url: req.url,
        peer: srv.requestIP(req)?.address,
        origin: req.headers.get("origin"),
        isAllowed: (id) => deps.allowList.has(id),
      });
      if (!decision.ok) {
        if (decision.status === 403)
          untrusted.warn("extension connection refused", { reason: decision.reason, origin: req.headers.get("origin") });
        return new Response(`${decision.reason}\n`, { status: decision.status });
      }
      if (stopping) return new Response("daemon is stopping\n", { status: 503 });
      const data: LinkState = {
        extensionId: decision.extensionId,
        openedAt: performance.now(),
        trust: { port: srv.port ?? config.port, peer: srv.requestIP(req)?.address },
      };
      if (srv.upgrade(req, { data })) return undefined;
      return new Response("expected a WebSocket upgrade\n", { status: 426 });
    },
    error(err: Error) {
      log.error("gateway error", { error: err });
      return new Response("internal error\n", { status: 500 });
    },
    websocket: {
      data: {} as LinkState,
      perMessageDeflate: false,
      // Per message, whatever the link: Bun closes a link that sends more (1009) before holding it (protocol/pieces.ts).
      maxPayloadLength: LINK_MESSAGE_MAX_BYTES,
      // Liveness is ours (heartbeat events and the silence check below), not uWS's idle timer.
      idleTimeout: 0,
      sendPings: false,
      open(ws: ServerWebSocket<LinkState>) {
        sockets.add(ws);
        ws.data.handshakeTimer = setTimeout(() => {
          if (ws.data.conn) return;
          untrusted.warn("no handshake in time; closing", { extension: ws.data.extensionId, ms: config.handshakeMs });
          ws.close(CLOSE.handshakeTimeout, "no system.handshake in time");
        }, config.handshakeMs);
      },
      message(ws: ServerWebSocket<LinkState>, message: string | Buffer) {
        if (typeof message !== "string") return onPiece(ws, message);
        if (!ws.data.conn && Buffer.byteLength(message) > PRE_TRUST_FRAME_MAX_BYTES) return tooLargeBeforeHandshake(ws);
        handleExtensionFrame(ws, message, linkDeps);
      },
      error(err: Error, ws: ServerWebSocket<LinkState>) {
        log.error("extension link handler failed", { error: err, browser: ws.data.conn?.instanceId });
      },
      close(ws: ServerWebSocket<LinkState>, code: number, reason: string) {
        sockets.delete(ws);
        if (ws.data.handshakeTimer) clearTimeout(ws.data.handshakeTimer);
        ws.data.stopGrantWatch?.();
        const conn = ws.data.conn;
        if (!conn) return;
        onBrowserClosed(conn, code, reason, ws.data.silent === true);
      },
    },
  });
  let server: Server<LinkState> = Bun.serve<LinkState>(options() as Parameters<typeof Bun.serve<LinkState>>[0]);

  /** Only a link that has handshaken sends pieces; a frame it cannot join is refused and the link lives on. */
  function onPiece(ws: ServerWebSocket<LinkState>, piece: Uint8Array) {
    if (!ws.data.conn) {
      untrusted.warn("binary message before the handshake; closing");
      send(ws, { id: null, error: toErrorBody(new BskError("protocol_error", "binary messages are accepted only after the handshake")) });
      ws.close(CLOSE.unsupportedData, "binary before handshake");
      return;
    }
    const joined = (ws.data.pieces ??= new PieceJoiner(MAX_FRAME_BYTES)).push(piece);
    if (!joined) return;
    if (joined.ok) return handleExtensionFrame(ws, joined.text, linkDeps);
    const err =
      joined.why === "too_large"
        ? new BskError("protocol_error", "frame larger than 16 MiB", { data: { reason: "frame_too_large" } })
        : new BskError("protocol_error", "a binary message must be a frame piece (flag byte 0 or 1 first)");
    send(ws, { id: null, error: toErrorBody(err) });
  }

  function tooLargeBeforeHandshake(ws: ServerWebSocket<LinkState>) {
    untrusted.warn("frame too large before the handshake; closing", {
      extension: ws.data.extensionId,
      max_bytes: PRE_TRUST_FRAME_MAX_BYTES,
    });
    const err = new BskError("protocol_error", `a frame before the handshake is limited to ${PRE_TRUST_FRAME_MAX_BYTES} bytes`, {
      data: { reason: "frame_too_large", max_bytes: PRE_TRUST_FRAME_MAX_BYTES },
      hint: "Before the handshake only system.hello, system.handshake and pairing frames are sent; they are small.",
    });
    send(ws, { id: null, error: toErrorBody(err) });
    ws.close(CLOSE.tooLarge, "frame too large before the handshake");
  }

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
    reloadTls() {
      if (!remote?.mode.tls) return;
      checkCertificate(remote.mode.tls.certFile, remote.mode.tls.keyFile, remote.mode.publicHost);
      // Bun cannot swap a listener's certificate: the old listener stops taking connections (its links live on) and
      // a new one takes the port with the new certificate.
      const old = server;
      old.stop(false);
      server = Bun.serve<LinkState>(options() as Parameters<typeof Bun.serve<LinkState>>[0]);
      log.info("TLS certificate reloaded", { cert: remote.mode.tls.certFile });
    },
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
