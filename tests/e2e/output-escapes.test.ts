/**
 * Attack: a page title and a session name carrying terminal control sequences and bidi controls (set the terminal's
 * title, clear the screen, a C1 CSI, a right-to-left override, the isolates). Human `tab list`, `snapshot` and
 * `session list` must hand the terminal none of them raw; --json must return them exactly.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";

let w: World;

useWorld({}, (world) => (w = world));

/** OSC 0 (set title) … BEL, CSI 2 J (clear screen), C1 CSI, RIGHT-TO-LEFT OVERRIDE, the four isolates. */
const HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil\u2066a\u2067b\u2068c\u2069 end";
const SHOWN = "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202eevil\\u2066a\\u2067b\\u2068c\\u2069 end";

/** The code points in the bytes of a command's output that a terminal acts on (tab and newline aside). */
function raw(stdout: string): string[] {
  const text = new TextDecoder().decode(Buffer.from(stdout, "utf8"));
  const acted = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  return [...text.matchAll(acted)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).padStart(4, "0")}`);
}

describe("page and agent text in human output", () => {
  test("a hostile title and session name reach no terminal raw; --json returns them exactly", async () => {
    const s = await w.startSession(["--name", HOSTILE]);
    try {
      // The page's <title> and <h1> hold HOSTILE; Chromium itself drops C0 and C1 controls from a title, the bidi ones stay.
      await w.ok(["navigate", w.fixtures.url(`/echo-title/${encodeURIComponent(HOSTILE)}`), "--session", s]);
      const heading = "document.querySelector('h1').textContent";
      const [title, text] = (await w.ok(["evaluate", `[document.title, ${heading}]`, "--session", s])).value as string[];
      expect(title).toContain("\u202eevil\u2066a\u2067b\u2068c\u2069 end");
      expect(text).toContain("\x1b]0;pwned\x07\x1b[2J");

      expect((await w.ok(["tab", "list", "--session", s])).tabs[0].title).toBe(title!);
      expect((await w.ok(["snapshot", "--session", s])).text.split("\n")[0]).toContain(title!);
      const listed = (await w.ok(["session", "list"])).sessions.find((x: { session_id: string }) => x.session_id === s);
      expect(listed.name).toBe(HOSTILE);

      const runs: [string[], string][] = [
        [["tab", "list", "--session", s], "\\u202eevil\\u2066a\\u2067b\\u2068c\\u2069 end"],
        [["snapshot", "--session", s], "\\u202eevil\\u2066a\\u2067b\\u2068c\\u2069 end"],
        [["session", "list"], SHOWN],
        [["evaluate", heading, "--session", s], "\\u001b]0;pwned\\u0007\\u001b[2J"],
      ];
      for (const [args, shown] of runs) {
        const r = await w.bsk(args);
        expect({ args, code: r.code, raw: raw(r.stdout + r.stderr) }).toEqual({ args, code: 0, raw: [] });
        expect(r.stdout).toContain(shown);
      }
    } finally {
      await w.bsk(["session", "stop", s]);
    }
  });
});
