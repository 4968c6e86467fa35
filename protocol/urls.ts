/** What an agent typed → a URL to load (navigate, tab new, session start URL): pure, shared by daemon and extension. */
import { BskError } from "./errors.ts";

const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:\d+)?(\/|$|\?|#)/i;
/** Schemes written without `//` that must not be mistaken for `host:port`. */
const OPAQUE_SCHEME =
  /^(about|data|blob|filesystem|javascript|mailto|view-source|chrome|chrome-extension|chrome-search|chrome-untrusted|devtools|edge):/i;

/**
 * `example.com/x` → `https://example.com/x`, `localhost:3000` → `http://localhost:3000`; a URL with a scheme is
 * kept. Throws invalid_params for what cannot be a URL and for `javascript:` (that is what evaluate is for).
 */
export function normalizeUrl(input: string): string {
  const text = input.trim();
  let url = text;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !OPAQUE_SCHEME.test(text)) {
    url = `${LOCAL_HOST.test(text) ? "http" : "https"}://${text}`;
  }
  if (/^javascript:/i.test(url)) {
    throw new BskError("invalid_params", "javascript: URLs are not navigated", { hint: "Run script with bsk evaluate." });
  }
  try {
    new URL(url);
  } catch {
    throw new BskError("invalid_params", `not a URL: ${JSON.stringify(input)}`, {
      hint: "Give an absolute URL such as https://example.com/ or http://localhost:3000/.",
    });
  }
  return url;
}
