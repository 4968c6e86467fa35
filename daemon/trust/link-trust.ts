/**
 * The extension link before its handshake: the mutual proof of this install's secret (protocol/trust.ts), and
 * pairing by code. Nothing else is served to a link that has not proven the secret: it gets no browser entry, so no
 * session, request or event ever reaches it. Every failure closes the link; secrets and MACs are never logged.
 * Nothing that names this install or its release (daemon name, versions, key id) is said before the extension's
 * proof: the version rule is applied to the proven handshake (extension-link.ts), so a page or extension that forges
 * bsk's Origin learns only that something answered.
 */
import type { ServerWebSocket } from "bun";
import { METHODS } from "../../protocol/catalog.ts";
import { BskError, toErrorBody } from "../../protocol/errors.ts";
import { encodeFrame, type Frame, type RequestFrame } from "../../protocol/frames.ts";
import { NONCE_BYTES, randomBase64url } from "../../protocol/trust.ts";
import type { Logger } from "../log.ts";
import { type PairingCodes, pairingRefused } from "./pairing-codes.ts";
import { checkExtensionProof, checkPairExtensionProof, daemonProof, pairDaemonProof, sealSecret, type Nonces } from "./proofs.ts";
import type { InstallSecret } from "./secret.ts";
import { REMOTE_LABELS } from "../../protocol/remote.ts";
import { grantExpired, notPaired } from "../remote/device-errors.ts";
import type { DeviceStore } from "../remote/devices.ts";
import { checkRemoteProof, remoteProof, type RemoteNonces } from "../remote/remote-proofs.ts";

export interface TrustDeps {
  log: Logger;
  secret: InstallSecret;
  pairing: PairingCodes;
  /** Server mode: links are paired devices proving their own secret; the install secret and local pairing are not served. */
  remote?: { authority: string; devices: DeviceStore };
}

/** Per link, before its handshake. */
export interface LinkTrust {
  /** The gateway's port, as the extension dialed it (part of every transcript). */
  port: number;
  /** The peer's address: pairing tries are limited per address (trust/pairing-codes.ts). */
  peer?: string;
  hello?: Nonces;
  /** A remote link's hello: the device, the generation it proves, and the nonces. */
  device?: { id: string; generation: number; key: Uint8Array; nonces: RemoteNonces };
  /** Set once a remote link's proof checked out: the device it is. */
  deviceId?: string;
  /** A pairing try in progress (one per link): the code's key and how to report its outcome. */
  pairing?: { key: Uint8Array; nonces: Nonces; nextTryInMs: number; done(paired: boolean): void };
}

export const TRUST_CLOSE = {
  untrusted: 4005,
  paired: 4006,
  pairingFailed: 4007,
} as const;

interface TrustWsData {
  extensionId: string;
  trust: LinkTrust;
}
type Ws = ServerWebSocket<TrustWsData>;

function send(ws: Ws, frame: object): void {
  try {
    ws.send(encodeFrame(frame));
  } catch {}
}

function refuse(ws: Ws, id: string | number | null, err: BskError, close?: { code: number; reason: string }): undefined {
  send(ws, { id, error: toErrorBody(err) });
  if (close) ws.close(close.code, close.reason);
  return undefined;
}

function parse<M extends "system.hello" | "system.handshake" | "system.pair_begin" | "system.pair_finish">(
  method: M,
  frame: RequestFrame,
): { ok: true; params: any } | { ok: false; err: BskError } {
  const r = METHODS[method].params().safeParse(frame.params ?? {});
  if (r.success) return { ok: true, params: r.data };
  const issue = r.error.issues[0];
  return {
    ok: false,
    err: new BskError("invalid_params", `${method}: params.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`),
  };
}

/**
 * A frame on a link that has not handshaken. Returns the handshake request once its proof checks out (the
 * caller registers the browser); handles and answers everything else itself.
 */
export function beforeHandshake(ws: Ws, value: Frame, deps: TrustDeps): RequestFrame | undefined {
  if (value.kind !== "request") {
    return refuse(
      ws,
      value.kind === "event" ? null : value.frame.id,
      new BskError("protocol_error", "the first frame must be a system.hello request"),
    );
  }
  const frame = value.frame;
  const t = ws.data.trust;
  switch (frame.method) {
    case "system.hello": {
      const p = parse("system.hello", frame);
      if (!p.ok) return refuse(ws, frame.id, p.err);
      if (t.hello || t.pairing || t.device) return refuse(ws, frame.id, new BskError("protocol_error", "this link has already said hello"));
      if (deps.remote || p.params.device_id !== undefined) return deviceHello(ws, frame, p.params, deps);
      t.hello = { port: t.port, nonceE: p.params.nonce, nonceD: randomBase64url(NONCE_BYTES) };
      send(ws, {
        id: frame.id,
        result: {
          nonce: t.hello.nonceD,
          proof: daemonProof(deps.secret.bytes, t.hello),
        },
      });
      return undefined;
    }
    case "system.handshake": {
      if (t.device) return deviceHandshake(ws, frame, deps);
      if (!t.hello) return refuse(ws, frame.id, new BskError("protocol_error", "send system.hello before system.handshake"));
      const proof = (frame.params as { proof?: unknown } | undefined)?.proof;
      if (!checkExtensionProof(deps.secret.bytes, t.hello, proof)) {
        deps.log.warn("extension refused: it could not prove this install's secret", { extension: ws.data.extensionId });
        return refuse(
          ws,
          frame.id,
          new BskError("permission_denied", "the extension could not prove it holds this bsk install's secret", {
            data: { reason: "untrusted_extension" },
          }),
          { code: TRUST_CLOSE.untrusted, reason: "untrusted extension" },
        );
      }
      t.hello = undefined;
      return frame;
    }
    case "system.pair_begin": {
      if (deps.remote)
        return refuse(ws, frame.id, new BskError("unsupported", "a server pairs devices at /extension/authorize, not on the link"), {
          code: TRUST_CLOSE.pairingFailed,
          reason: "pairing is not served here",
        });
      const p = parse("system.pair_begin", frame);
      if (!p.ok) return refuse(ws, frame.id, p.err);
      if (t.hello || t.pairing) return refuse(ws, frame.id, new BskError("protocol_error", "this link has already said hello"));
      const attempt = deps.pairing.begin(t.peer ?? "unknown");
      if (!attempt.ok) {
        const rateLimited = attempt.reason === "pairing_rate_limited";
        deps.log.warn(rateLimited ? "pairing refused: too many tries" : "pairing refused: no pending code", {
          extension: ws.data.extensionId,
        });
        return refuse(ws, frame.id, pairingRefused(attempt), {
          code: TRUST_CLOSE.pairingFailed,
          reason: rateLimited ? "too many pairing tries" : "no pairing code",
        });
      }
      const key = attempt.key;
      t.pairing = {
        key,
        done: attempt.done,
        nextTryInMs: attempt.nextTryInMs,
        nonces: { port: t.port, nonceE: p.params.nonce, nonceD: randomBase64url(NONCE_BYTES) },
      };
      send(ws, {
        id: frame.id,
        result: { nonce: t.pairing.nonces.nonceD, proof: pairDaemonProof(key, t.pairing.nonces) },
      });
      return undefined;
    }
    case "system.pair_finish": {
      const pairing = t.pairing;
      t.pairing = undefined;
      if (!pairing) return refuse(ws, frame.id, new BskError("protocol_error", "send system.pair_begin first"));
      const p = parse("system.pair_finish", frame);
      const paired = p.ok && checkPairExtensionProof(pairing.key, pairing.nonces, p.params.proof);
      pairing.done(paired);
      if (!paired) {
        deps.log.warn("pairing refused: the extension did not prove the code", {
          extension: ws.data.extensionId,
          next_try_in_ms: pairing.nextTryInMs,
        });
        const err = new BskError("permission_denied", "the pairing code did not match", {
          data: { reason: "pairing_failed", retry_after_ms: pairing.nextTryInMs },
        });
        return refuse(ws, frame.id, err, {
          code: TRUST_CLOSE.pairingFailed,
          reason: "pairing failed",
        });
      }
      send(ws, {
        id: frame.id,
        result: { sealed_secret: sealSecret(pairing.key, pairing.nonces, deps.secret.bytes), key_id: deps.secret.keyId },
      });
      deps.log.info("extension paired by code", { extension: ws.data.extensionId, key_id: deps.secret.keyId });
      ws.close(TRUST_CLOSE.paired, "paired; connect again");
      return undefined;
    }
    default:
      return refuse(ws, frame.id, new BskError("protocol_error", "the first frame must be a system.hello request"));
  }
}

/** A remote link's hello: the device must be paired, its grant current and its generation accepted; the daemon proves first. */
function deviceHello(
  ws: Ws,
  frame: RequestFrame,
  p: { nonce: string; device_id?: string; generation?: number },
  deps: TrustDeps,
): undefined {
  const remote = deps.remote;
  if (!remote || p.device_id === undefined || p.generation === undefined) {
    deps.log.warn("extension refused: a device hello on a local link, or a local hello on a server", { extension: ws.data.extensionId });
    const err = remote
      ? new BskError("permission_denied", "this is a bsk server: only paired devices connect here", {
          data: { reason: "device_not_paired" },
          hint: "Pair the browser: on the server run bsk daemon pair and paste the link in the popup's Remote connection.",
        })
      : new BskError("protocol_error", "this daemon serves local links only");
    return refuse(ws, frame.id, err, { code: TRUST_CLOSE.untrusted, reason: "untrusted extension" });
  }
  const d = remote.devices.get(p.device_id);
  const err =
    !d || !remote.devices.acceptedGenerations(d).includes(p.generation)
      ? notPaired(p.device_id)
      : remote.devices.expired(d)
        ? grantExpired(p.device_id)
        : null;
  if (err) {
    deps.log.warn("device refused", { device: p.device_id, reason: err.data?.reason });
    return refuse(ws, frame.id, err, { code: TRUST_CLOSE.untrusted, reason: String(err.data?.reason) });
  }
  const nonces: RemoteNonces = { authority: remote.authority, nonceE: p.nonce, nonceD: randomBase64url(NONCE_BYTES) };
  const key = remote.devices.secretOf(p.device_id, p.generation);
  ws.data.trust.device = { id: p.device_id, generation: p.generation, key, nonces };
  send(ws, {
    id: frame.id,
    result: {
      nonce: nonces.nonceD,
      proof: remoteProof(key, REMOTE_LABELS.deviceDaemon, nonces, p.device_id),
    },
  });
  return undefined;
}

function deviceHandshake(ws: Ws, frame: RequestFrame, deps: TrustDeps): RequestFrame | undefined {
  const dev = ws.data.trust.device!;
  ws.data.trust.device = undefined;
  const proof = (frame.params as { proof?: unknown } | undefined)?.proof;
  const d = deps.remote?.devices.get(dev.id);
  // Revoked between hello and handshake: refused like any stale credential.
  if (!d || !checkRemoteProof(dev.key, REMOTE_LABELS.deviceExtension, dev.nonces, proof, dev.id)) {
    deps.log.warn("device refused: it could not prove its credential", { device: dev.id });
    return refuse(
      ws,
      frame.id,
      d
        ? new BskError("permission_denied", "the device could not prove its credential", {
            data: { reason: "bad_proof", device_id: dev.id },
          })
        : notPaired(dev.id),
      {
        code: TRUST_CLOSE.untrusted,
        reason: "untrusted device",
      },
    );
  }
  deps.remote!.devices.seen(dev.id, dev.generation);
  ws.data.trust.deviceId = dev.id;
  return frame;
}
