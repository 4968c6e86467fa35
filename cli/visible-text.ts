/**
 * Text for a terminal, from pages and agents: the characters a terminal acts on instead of showing are shown as
 * their escape (`\u001b`, `\u202e`), so a page title or a session name cannot set the terminal's title, clear the
 * screen, move the cursor or make the text around it read backwards. Tab and newline stay: the formats put them.
 * A scan without a regular expression: most text has none of them and comes back as it is.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi controls (marks, embeddings, overrides, isolates). */
function acted(c: number): boolean {
  if (c < 0x20) return c !== 0x09 && c !== 0x0a;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true;
  if (c < 0x061c) return false;
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

export function visible(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || !acted(c)) continue;
    out += `${text.slice(from, i)}\\u${c.toString(16).padStart(4, "0")}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
