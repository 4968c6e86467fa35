/**
 * A hint for a control nothing names (an icon-only reply arrow, trash can, star): what the page does say about it —
 * an SVG <title>, an icon font's ligature, its test id, id or class words — printed as `[hint: reply]`, never as
 * its name (the accessibility tree has none, and the words are the page's guess, not a label).
 */
import { normalize } from "./aria.ts";

const HINT_MAX = 30;
/** Elements looked at for words: the control and its first descendants (the icon is usually a child). */
const LOOK_MAX = 6;
const TEST_IDS = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];
/** Words that say "this is an icon or a control", not which one. */
const NOISE = new Set(
  (
    "icon icons ico btn button buttons fa fas far fab fal fad solid regular light duotone brands material symbols outlined rounded sharp " +
    "glyphicon bi svg img image wrapper wrap container inner outer item el js is has active small large clickable " +
    "click action actions control ctrl toolbar default primary secondary link nav menu ui component widget " +
    "the and for with"
  ).split(" "),
);

/** Icon-font ligatures are one lowercase word or snake_case words (`delete`, `arrow_back`). */
const LIGATURE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => /^[a-z]{2,}$/.test(w) && /[aeiouy]/.test(w) && !NOISE.has(w));
}

function firstWords(texts: Iterable<string>): string {
  const out: string[] = [];
  for (const t of texts) for (const w of words(t)) if (!out.includes(w) && out.length < 3) out.push(w);
  return out.join(" ");
}

function* elements(el: Element): Generator<Element> {
  yield el;
  const inner = el.getElementsByTagName("*");
  for (let i = 0; i < inner.length && i < LOOK_MAX - 1; i++) yield inner[i]!;
}

/** The hint for `el`, or "" when the page says nothing usable about it. */
export function hintOf(el: Element): string {
  const svg = el.localName === "svg" ? el : el.querySelector("svg");
  const title = svg?.querySelector("title")?.textContent;
  if (title && normalize(title)) return clipHint(normalize(title).toLowerCase());
  for (const d of el.querySelectorAll("[aria-hidden=true]")) {
    const t = normalize(d.textContent ?? "");
    if (LIGATURE.test(t)) return clipHint(t.replace(/_/g, " "));
  }
  const ids: string[] = [];
  for (const e of elements(el)) for (const a of TEST_IDS) ids.push(e.getAttribute(a) ?? "");
  const fromIds = firstWords([...ids, el.id]);
  if (fromIds) return fromIds;
  const classes: string[] = [];
  for (const e of elements(el)) classes.push(e.getAttribute("class") ?? "");
  return firstWords(classes);
}

function clipHint(t: string): string {
  return t.length > HINT_MAX ? `${t.slice(0, HINT_MAX - 1)}…` : t;
}
