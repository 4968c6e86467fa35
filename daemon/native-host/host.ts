/**
 * `bsk native-host <origin>`: what Chrome runs for chrome.runtime.sendNativeMessage("com.bsk.bridge", …). Chrome's
 * native messaging framing on stdio: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.
 * One request, one answer, exit. Requests: {type:"get_secret"} → {ok, secret, key_id} (the secret is made if this
 * home has none yet); {type:"ping"} → {ok, version}; {type:"watch_daemon"} keeps the port and rings `daemon_up`
 * until Chrome closes it (watch.ts). Only our extension ids get an answer; nothing is logged.
 */
import { AllowList } from "../../shared/allow-list.ts";
import type { HomePaths } from "../../shared/home.ts";
import { APP_VERSION } from "../../protocol/version.ts";
import { toBase64url } from "../../protocol/trust.ts";
import { ensureSecret } from "../trust/secret.ts";
import { watchDaemon } from "./watch.ts";

const MAX_REQUEST_BYTES = 64 * 1024;

export function encodeNativeMessage(value: unknown): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(value));
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length, true);
  out.set(body, 4);
  return out;
}

/** The first framed message in `bytes`, or undefined when it is not complete yet. Throws on a bad frame. */
export function decodeNativeMessage(bytes: Uint8Array): { value: unknown; rest: Uint8Array } | undefined {
  if (bytes.length < 4) return undefined;
  const len = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (len > MAX_REQUEST_BYTES) throw new Error(`native message of ${len} bytes is too large`);
  if (bytes.length < 4 + len) return undefined;
  const value = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + len)));
  return { value, rest: bytes.subarray(4 + len) };
}

/** chrome-extension://<id>/ → id, when the id may have the secret. */
export function callerAllowed(origin: string | undefined, allowList: AllowList): boolean {
  const m = /^chrome-extension:\/\/([a-p]{32})\/?$/.exec(origin ?? "");
  return !!m && allowList.has(m[1]!);
}

export function answer(request: unknown, paths: HomePaths): Record<string, unknown> {
  const type = request && typeof request === "object" ? (request as { type?: unknown }).type : undefined;
  if (type === "ping") return { ok: true, version: APP_VERSION };
  if (type === "get_secret") {
    const secret = ensureSecret(paths.secret, paths.home);
    return { ok: true, secret: toBase64url(secret.bytes), key_id: secret.keyId };
  }
  return { ok: false, error: `unknown request ${JSON.stringify(type)}` };
}

type StdinReader = ReadableStreamDefaultReader<Uint8Array>;

async function readOne(reader: StdinReader): Promise<unknown> {
  let buf: Uint8Array = new Uint8Array(0);
  for (;;) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    const next = new Uint8Array(buf.length + chunk.length);
    next.set(buf);
    next.set(chunk, buf.length);
    buf = next;
    const got = decodeNativeMessage(buf);
    if (got) return got.value;
  }
  throw new Error("stdin closed before a whole message arrived");
}

/** Resolves when Chrome closes the port (stdin ends); anything else it sends is ignored. */
async function drained(reader: StdinReader): Promise<void> {
  for (;;) if ((await reader.read()).done) return;
}

const isWatch = (request: unknown) => !!request && typeof request === "object" && (request as { type?: unknown }).type === "watch_daemon";

/** Runs the host; returns the process exit code. */
export async function runNativeHost(args: string[], paths: HomePaths): Promise<number> {
  const write = (v: unknown) => Bun.write(Bun.stdout, encodeNativeMessage(v));
  const origin = args.find((a) => a.startsWith("chrome-extension://"));
  if (!callerAllowed(origin, new AllowList(paths.config))) {
    await write({ ok: false, error: "this extension may not ask bsk for its secret" });
    return 1;
  }
  try {
    const reader = Bun.stdin.stream().getReader();
    const request = await readOne(reader);
    if (isWatch(request)) return await watchDaemon(paths, write, drained(reader));
    await write(answer(request, paths));
    return 0;
  } catch (err) {
    await write({ ok: false, error: err instanceof Error ? err.message : String(err) });
    return 1;
  }
}
