/**
 * Is a document response a download? The browser decides after the headers arrive; bsk decides the same way, a
 * step earlier, so it can take the bytes itself (download-tap.ts): an attachment, a navigation the page asked to be
 * a download (<a download>), or a type the browser does not display. Anything else is left to the browser.
 */

export interface ResponseHead {
  url: string;
  status: number;
  headers: { name: string; value: string }[];
}

export interface DownloadHead {
  url: string;
  name: string;
  mime: string;
  /** From Content-Length, when the server sent one. */
  size: number | null;
}

/** Types a browser tab shows instead of saving (PDF too: the person's browser opens its viewer). */
const SHOWN =
  /^(text\/|image\/|audio\/|video\/|multipart\/x-mixed-replace$|application\/(xhtml\+xml|xml|json|javascript|x-javascript|ecmascript|pdf|wasm)$|[^/]+\/[^/]+\+(xml|json)$)/;

function header(h: ResponseHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  return h.headers.find((x) => x.name.toLowerCase() === lower)?.value;
}

/** The file name a Content-Disposition header gives (RFC 6266: filename* wins over filename). */
export function dispositionName(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(value);
  if (star) {
    try {
      return decodeURIComponent(star[2]!.trim());
    } catch {
      /* malformed: fall back to filename */
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(value);
  if (!plain) return undefined;
  return (plain[2] !== undefined ? plain[2].replace(/\\(.)/g, "$1") : plain[1]!).trim() || undefined;
}

/** The last path segment of a URL, decoded; "download" when it has none. */
export function urlName(url: string): string {
  try {
    const seg = new URL(url).pathname.split("/").filter(Boolean).pop();
    return seg ? decodeURIComponent(seg) : "download";
  } catch {
    return "download";
  }
}

/**
 * A download's facts when the response is one; null when the browser would show it (or it is no success).
 * `asked`: the page asked for this navigation to be a download (<a download>), with the attribute's name if any;
 * a name in Content-Disposition wins over it, as in the browser.
 */
export function downloadOf(h: ResponseHead, asked: { name?: string } | null): DownloadHead | null {
  if (h.status < 200 || h.status > 299 || h.status === 204 || h.status === 205) return null;
  const disposition = header(h, "content-disposition");
  const mime = (header(h, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const attachment = disposition !== undefined && /^\s*attachment/i.test(disposition);
  const undisplayable = mime !== "" && !SHOWN.test(mime);
  if (!attachment && !asked && !undisplayable) return null;
  const length = Number(header(h, "content-length"));
  return {
    url: h.url,
    name: dispositionName(disposition) || asked?.name || urlName(h.url),
    mime,
    size: Number.isSafeInteger(length) && length >= 0 && header(h, "content-encoding") === undefined ? length : null,
  };
}
