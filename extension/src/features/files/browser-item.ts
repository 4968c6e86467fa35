/**
 * A download the browser's download manager saved (the click's download started where neither the response tap nor
 * the page's Blobs could take it, e.g. in a cross-site frame) for a session whose agent is remote: the server cannot
 * take the file from this machine's disk, and the extension cannot read it. Its bytes are fetched again by the frame
 * that asked for it (its cookies go with it) when that is provably the same resource: the frame's request for it was
 * a GET, and the fetch brings exactly as many bytes as the browser saved. Anything else fails with
 * download_unavailable (the click happened: effect_state committed); the caller removes the browser's file and item
 * either way, so nothing of the agent's stays in the person's Downloads folder.
 */
import { BskError } from "../../../../protocol/errors.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import type { Progress } from "../../shared/handler.ts";
import { onTabEvent } from "./cdp-events.ts";
import type { DownloadItem } from "./download-claim.ts";
import { takeUrlFromPage } from "./page-blob.ts";
import { type Finished, isCapRefusal } from "./transfer-out.ts";

/** Requests remembered per call (a busy page makes many; the download's is among the last). */
const SEEN_MAX = 500;

interface Seen {
  method: string;
  target: CdpTarget;
  frameId: string;
}

/** The tab's requests during a download call, by URL, from every session of it: who asked for what, and how. */
export class TabRequests {
  private readonly seen = new Map<string, Seen>();
  private readonly off: () => void;

  constructor(tabId: number) {
    this.off = onTabEvent(tabId, "Network.requestWillBeSent", (source, p) => {
      const url = String(p.request?.url ?? "");
      if (!url) return;
      this.seen.delete(url);
      this.seen.set(url, { method: String(p.request?.method ?? ""), target: source, frameId: String(p.frameId ?? "") });
      if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.keys().next().value!);
    });
  }

  of(url: string): Seen | undefined {
    return this.seen.get(url);
  }

  dispose(): void {
    this.off();
  }
}

function unavailable(url: string, why: string): BskError {
  return new BskError(
    "unsupported",
    `the download finished in the person's browser, but its bytes cannot reach this server: ${why}; the browser's copy was removed`,
    {
      hint: "This download started where bsk cannot read it (e.g. a cross-site frame) and cannot be fetched again as the same file. Use the frame's own link (bsk download on it), or ask the person to download it themselves (bsk request-help).",
      data: { reason: "download_unavailable", effect_state: "committed", url },
    },
  );
}

/** The finished item's bytes into a staged transfer, fetched again by the frame that asked for them. */
export async function refetchItem(
  item: DownloadItem,
  requests: TabRequests,
  sessionId: string,
  name: string,
  signal: AbortSignal,
  progress?: Progress,
): Promise<{ out: Finished; mime: string; url: string }> {
  const url = item.finalUrl || item.url;
  if (!/^https?:/i.test(url)) throw unavailable(url, "it is not an http(s) download");
  const seen = requests.of(url);
  if (!seen) throw unavailable(url, "no frame of the tab was seen asking for it");
  if (seen.method !== "GET") throw unavailable(url, `the page asked for it with ${seen.method || "an unknown method"}, not GET`);
  try {
    const got = await takeUrlFromPage(seen.target, seen.frameId, url, { sessionId }, name, signal, { size: item.fileSize, progress });
    return { ...got, mime: got.mime || item.mime || "", url };
  } catch (err) {
    if (signal.aborted) throw err;
    // The daemon's caps stand as they are; anything else means the bytes are not provably the same.
    if (isCapRefusal(err)) throw err;
    throw unavailable(url, `fetching it again did not give the same file (${err instanceof Error ? err.message : String(err)})`);
  }
}
