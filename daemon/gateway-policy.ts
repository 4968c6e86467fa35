/**
 * Who may open the extension link: a loopback peer, on path /extension with no query string, whose
 * Origin is an allowed extension. Every branch that is not an explicit yes is a refusal.
 */
export type UpgradeDecision = { ok: true; extensionId: string } | { ok: false; status: 403 | 404; reason: string };

export function isLoopbackAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  if (a === "::1" || a === "0:0:0:0:0:0:0:1") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return !!m && m[1] === "127" && m.slice(2).every((x) => Number(x) <= 255);
}

const ORIGIN = /^chrome-extension:\/\/([a-p]{32})$/;

export function checkUpgrade(req: {
  url: string;
  peer: string | undefined | null;
  origin: string | null;
  isAllowed: (extensionId: string) => boolean;
}): UpgradeDecision {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { ok: false, status: 404, reason: "bad request URL" };
  }
  if (url.pathname !== "/extension") return { ok: false, status: 404, reason: "not found" };
  if (url.search !== "" || req.url.includes("?")) return { ok: false, status: 403, reason: "query strings are refused" };
  if (!isLoopbackAddress(req.peer)) return { ok: false, status: 403, reason: "only loopback peers may connect" };
  const m = req.origin ? ORIGIN.exec(req.origin) : null;
  if (!m) return { ok: false, status: 403, reason: "origin must be chrome-extension://<allowed id>" };
  if (!req.isAllowed(m[1]!)) {
    return { ok: false, status: 403, reason: `extension ${m[1]} is not allowed (extension_not_allowed): bsk daemon allow-extension <id>` };
  }
  return { ok: true, extensionId: m[1]! };
}
