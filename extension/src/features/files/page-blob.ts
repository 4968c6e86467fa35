/**
 * Downloads the page makes from its own memory (blob: and data: URLs) never touch the network, so the response tap
 * cannot see them. While a download call runs, the acted-on frame's main world remembers the Blobs it turns into
 * URLs (a page often revokes the URL right after its click); the bytes are then read from the Blob itself through
 * CDP (IO.resolveBlob), or fetched by the page when it made the URL earlier.
 */
import { sendTo } from "../../cdp/debugger.ts";
import { backendNodeIdOf } from "../../cdp/refs/resolve.ts";
import type { CdpTarget, ResolvedTarget } from "../../cdp/refs/target.ts";
import { readStream } from "./io-stream.ts";
import { type DownloadMeta, type Finished, pushCounted, TransferOut } from "./transfer-out.ts";
import type { Progress } from "../../shared/handler.ts";

const ARM = `function () {
  const w = this.ownerDocument && this.ownerDocument.defaultView;
  if (!w || w.__bskBlobs) return;
  const orig = w.URL.createObjectURL;
  const blobs = new Map();
  const wrapped = function createObjectURL(o) {
    const url = orig.call(this, o);
    if (o instanceof w.Blob) blobs.set(url, o);
    return url;
  };
  Object.defineProperty(w, "__bskBlobs", { value: { blobs, orig, wrapped }, configurable: true });
  w.URL.createObjectURL = wrapped;
}`;

const DISARM = `function () {
  const w = this.ownerDocument && this.ownerDocument.defaultView;
  const s = w && w.__bskBlobs;
  if (!s) return;
  if (w.URL.createObjectURL === s.wrapped) w.URL.createObjectURL = s.orig;
  delete w.__bskBlobs;
}`;

const BLOB_OF = `function (url) {
  const w = this.ownerDocument.defaultView;
  const kept = w.__bskBlobs && w.__bskBlobs.blobs.get(url);
  return kept || w.fetch(url).then((r) => r.blob());
}`;

export class PageBlobs {
  private constructor(
    private readonly target: CdpTarget,
    private readonly objectId: string | null,
  ) {}

  /** Starts remembering the frame's new Blob URLs; never fails the call (a frame it cannot reach is read by fetch). */
  static async arm(rt: ResolvedTarget, signal: AbortSignal): Promise<PageBlobs> {
    try {
      const { object } = await sendTo<{ object: { objectId: string } }>(
        rt.cdp,
        "DOM.resolveNode",
        { backendNodeId: await backendNodeIdOf(rt, signal), objectGroup: "bsk-download" },
        signal,
      );
      await sendTo(rt.cdp, "Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration: ARM }, signal);
      return new PageBlobs(rt.cdp, object.objectId);
    } catch {
      return new PageBlobs(rt.cdp, null);
    }
  }

  /** Streams the bytes behind a blob: or data: URL into a staged transfer. */
  async take(
    url: string,
    sessionId: string,
    name: string,
    signal: AbortSignal,
    progress?: Progress,
  ): Promise<{ out: Finished; mime: string }> {
    if (!this.objectId) throw new Error("the page's frame is gone");
    const r = await sendTo<{ result: { objectId?: string }; exceptionDetails?: { text?: string; exception?: { description?: string } } }>(
      this.target,
      "Runtime.callFunctionOn",
      {
        objectId: this.objectId,
        functionDeclaration: BLOB_OF,
        arguments: [{ value: url }],
        awaitPromise: true,
        objectGroup: "bsk-download",
      },
      signal,
    );
    if (r.exceptionDetails || !r.result.objectId)
      throw new Error(r.exceptionDetails?.exception?.description ?? r.exceptionDetails?.text ?? "no blob");
    return takeBlob(this.target, r.result.objectId, { sessionId }, name, signal, progress);
  }

  /** Puts the page's URL.createObjectURL back and lets go of the objects (never throws). */
  async dispose(): Promise<void> {
    if (!this.objectId) return;
    await sendTo(this.target, "Runtime.callFunctionOn", { objectId: this.objectId, functionDeclaration: DISARM }).catch(() => undefined);
    await sendTo(this.target, "Runtime.releaseObjectGroup", { objectGroup: "bsk-download" }).catch(() => undefined);
  }
}

/** Streams a Blob the page holds (a remote object) into a staged transfer, with its MIME type; `size`: it must be that long. */
async function takeBlob(
  target: CdpTarget,
  blob: string,
  meta: DownloadMeta,
  name: string,
  signal: AbortSignal,
  progress?: Progress,
  size?: number,
): Promise<{ out: Finished; mime: string }> {
  const facts = await sendTo<{ result: { value: { type: string; size: number } } }>(
    target,
    "Runtime.callFunctionOn",
    { objectId: blob, functionDeclaration: "function () { return { type: this.type, size: this.size }; }", returnByValue: true },
    signal,
  );
  const mime = String(facts.result.value?.type ?? "")
    .split(";")[0]!
    .toLowerCase();
  if (size !== undefined && facts.result.value?.size !== size)
    throw new Error(`the page got ${facts.result.value?.size} bytes where ${size} were expected`);
  const { uuid } = await sendTo<{ uuid: string }>(target, "IO.resolveBlob", { objectId: blob }, signal);
  const out = await TransferOut.begin(meta.sessionId, name, mime, signal, meta.download);
  try {
    await readStream(target, `blob:${uuid}`, (b) => pushCounted(out, b, facts.result.value?.size, progress), signal);
    return { out: await out.finish(), mime };
  } catch (err) {
    out.release();
    throw err;
  }
}

/**
 * A blob: or data: URL's bytes (or an http(s) URL's, which must be `opts.size` long), read in the frame that started
 * the download (a blob: URL is readable only by its origin, and only until the page revokes it) into a staged transfer.
 * The read runs in an isolated world of that frame, so the page's Content-Security-Policy and its own fetch do not
 * stand in the way (its cookies go with it). For downloads a page starts itself, and those a remote agent's download
 * call gets from the browser's download manager (browser-item.ts).
 */
export async function takeUrlFromPage(
  target: CdpTarget,
  frameId: string,
  url: string,
  meta: DownloadMeta,
  name: string,
  signal: AbortSignal,
  opts: { size?: number; progress?: Progress } = {},
): Promise<{ out: Finished; mime: string }> {
  const { executionContextId } = await sendTo<{ executionContextId: number }>(
    target,
    "Page.createIsolatedWorld",
    { frameId, worldName: "bsk-download" },
    signal,
  );
  const r = await sendTo<{ result: { objectId?: string }; exceptionDetails?: { text?: string; exception?: { description?: string } } }>(
    target,
    "Runtime.evaluate",
    {
      expression: `fetch(${JSON.stringify(url)}).then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.blob(); })`,
      contextId: executionContextId,
      awaitPromise: true,
      objectGroup: "bsk-kept",
    },
    signal,
  );
  try {
    if (r.exceptionDetails || !r.result.objectId)
      throw new Error(r.exceptionDetails?.exception?.description ?? r.exceptionDetails?.text ?? "no blob");
    return await takeBlob(target, r.result.objectId, meta, name, signal, opts.progress, opts.size);
  } finally {
    void sendTo(target, "Runtime.releaseObjectGroup", { objectGroup: "bsk-kept" }).catch(() => undefined);
  }
}
