/** Which browser this is, from the user agent (pure, so it is unit-tested). */
export interface BrowserId {
  name: string;
  version: string;
}

interface Brand {
  brand: string;
  version: string;
}

const UA_NAMES: [RegExp, string][] = [
  [/\bEdg\/([\d.]+)/, "Edge"],
  [/\bOPR\/([\d.]+)/, "Opera"],
  [/\bHeadlessChrome\/([\d.]+)/, "Chromium"],
  [/\bChrome\/([\d.]+)/, "Chromium"],
];

/**
 * Name from the brand list when the browser gives one (Chromium hides its flavour in the UA string), version
 * from the UA string, which carries the full build number.
 */
export function parseBrowser(ua: string, brands: readonly Brand[] = []): BrowserId {
  let name = "Chromium";
  let version = "";
  for (const [re, n] of UA_NAMES) {
    const m = re.exec(ua);
    if (m) {
      name = n;
      version = m[1]!;
      break;
    }
  }
  const named = brands.find((b) => !/not.a.brand|^chromium$/i.test(b.brand));
  if (named) name = named.brand.replace(/^Google /, "");
  if (!version) version = brands.find((b) => /chromium/i.test(b.brand))?.version ?? "unknown";
  return { name, version };
}
