/**
 * Text for a terminal, from pages and agents: the characters a terminal acts on instead of showing are shown as
 * their escape (`\u001b`, `\u202e`), so a page title or a session name cannot set the terminal's title, clear the
 * screen, move the cursor or make the text around it read backwards. Tab and newline stay: the formats put them.
 * Most text has none of them and comes back as it is.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi controls (marks, embeddings, overrides, isolates). */
function acted(c: number): boolean {
  if (c < 0x20) return c !== 0x09 && c !== 0x0a;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true;
  if (c < 0x061c) return false;
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** The same characters as `acted`, for finding the first one in long text (native search is ~5× a scan here). */
const ACTED_SOURCE = "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
let actedPattern: RegExp | undefined;

/** Below this length a scan is cheaper than building the pattern (which a short output then never pays for). */
const LONG = 2048;

export function visible(text: string): string {
  let from = 0;
  if (text.length >= LONG) {
    actedPattern ??= new RegExp(ACTED_SOURCE);
    from = text.search(actedPattern);
    if (from < 0) return text;
  }
  let out = "";
  let start = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || !acted(c)) continue;
    out += `${text.slice(start, i)}\\u${c.toString(16).padStart(4, "0")}`;
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}
