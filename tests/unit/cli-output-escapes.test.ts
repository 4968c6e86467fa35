/**
 * Human output never hands a terminal a control sequence or a bidi control from page or agent text (a title that
 * sets the terminal's title and clears the screen, a name that reads backwards): they are shown as escapes, by
 * output.ts for every formatter. --json stays exact.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { progressLine } from "../../cli/call-progress.ts";
import { loadFormatters, printStreamed, render, writeStderr } from "../../cli/output.ts";
import { visible } from "../../cli/visible-text.ts";
import { BskError } from "../../protocol/errors.ts";

// The see-and-act, history and trace formatters load on demand (cli/output.ts); these tests render them directly.
await loadFormatters();

/** OSC set-title … BEL, CSI clear screen, a C1 CSI, a right-to-left override, the isolates, CR, NUL, DEL. */
const HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil\u2066a\u2067b\u2068c\u2069\r\0\x7f end";
const SHOWN = "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202eevil\\u2066a\\u2067b\\u2068c\\u2069\\u000d\\u0000\\u007f end";
/** Any character a terminal acts on (tab and newline aside), built from a string so the test does not share the scan it checks. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function human(format: string, result: unknown, params: Record<string, unknown> = {}) {
  return render({ ok: true, format, result, params }, false);
}

const tab = (over: Record<string, unknown>) => ({
  tab_id: 12,
  window_id: 9,
  index: 0,
  url: `https://example.com/${HOSTILE}`,
  title: HOSTILE,
  active: true,
  owner: "session",
  group: { title: HOSTILE },
  ...over,
});

const session = {
  session_id: "s1",
  state: "active",
  name: HOSTILE,
  current_tab_id: 12,
  window_id: 9,
  browser_instance_id: "b1",
};

/** One result per human formatter that prints page- or agent-sourced text, each carrying HOSTILE. */
const CASES: [string, unknown, Record<string, unknown>?][] = [
  ["tab.list", { current_tab_id: 12, tabs: [tab({})] }],
  ["tab.create", tab({})],
  ["session.list", { sessions: [session] }],
  [
    "system.status",
    {
      daemon: { pid: 1, version: "1", protocol_version: "1", home: "/h", socket: "/s", ws_port: 1 },
      browsers: [{ instance_id: "b1", label: HOSTILE, name: "Chrome", version: "1", extension_version: "1", sessions: 1 }],
      sessions: [session],
    },
  ],
  ["session.stop", { stopped: [], failed: [{ session_id: "s1", code: "timeout", message: HOSTILE }] }],
  ["snapshot", { text: `[tab 12] https://example.com/ "${HOSTILE}" ~40 tokens\nheading "${HOSTILE}" @e1\n\tbutton "Go" @e2` }],
  ["find", { matches: [{ line: `button "${HOSTILE}" @e3`, ref: "@e3" }], total: 1 }],
  ["get_html", { html: `<title>${HOSTILE}</title>`, bytes: 40, truncated: false }],
  ["evaluate", { type: "string", value: HOSTILE }],
  ["text", { text: HOSTILE }],
  ["navigate", { url: `https://example.com/${HOSTILE}`, status: 200 }],
  ["events", { events: [{ seq: 1, ts: "2030-01-01T10:00:00.000Z", event: "navigation", data: { title: HOSTILE } }], next_since: 1 }],
  ["ops", { ops: [{ op_id: "o1", state: "failed", method: "click", reserved_at: "t", reason: HOSTILE }], total: 1 }],
  ["console", { messages: [{ seq: 1, level: "log", text: HOSTILE, url: `https://x/${HOSTILE}` }], next_since: 1 }],
  ["network", { requests: [{ seq: 1, method: "GET", url: `https://x/${HOSTILE}`, type: "fetch", error: HOSTILE }], next_since: 1 }],
  [
    "dialog.status",
    { tab_id: 1, open: true, dialog: { type: "prompt", message: HOSTILE, default_prompt: HOSTILE, url: "u" }, prompt: null },
  ],
  ["request_help", { outcome: "done", waited_ms: 5, url: "u", note: HOSTILE, targets: [{ target: HOSTILE, found: false }] }],
  ["fill", { target: { role: "textbox", name: HOSTILE, ref: "e4" }, value_ok: false, actual: HOSTILE, effect: {} }],
  ["click", { target: { role: "button", name: "Go" }, effect: { kind: "dialog", dialog: { type: "alert", message: HOSTILE } } }],
  ["downloads", { downloads: [{ download_id: "d1", state: "complete", size: 1, name: HOSTILE, tab_id: 1, url: "u" }] }],
  ["logs", { lines: [`{"ts":"2030-01-01T10:00:00.000Z","level":"info","msg":"${JSON.stringify(HOSTILE).slice(1, -1)}"}`, HOSTILE] }],
  ["a.format.without.formatter", { title: HOSTILE, nested: { list: [HOSTILE] } }],
];

describe("human output shows control and bidi characters as escapes", () => {
  for (const [format, result, params] of CASES) {
    test(`${format}: nothing raw reaches the terminal, the text is still there, visibly`, () => {
      const r = human(format, result, params);
      const printed = `${r.stdout ?? ""}\n${r.stderr ?? ""}`;
      expect({ format, raw: RAW.exec(printed)?.[0]?.charCodeAt(0) }).toEqual({ format, raw: undefined });
      expect(printed).toContain("\\u001b]0;pwned\\u0007");
      expect(printed).toContain("\\u202eevil");
    });
  }

  test("errors: message, hint and detail that quote page text", () => {
    const e = new BskError("not_found", `no element named ${HOSTILE}`, { hint: `try ${HOSTILE}`, data: { name: HOSTILE } });
    const r = render({ ok: false, error: e }, false);
    expect(RAW.test(r.stderr!)).toBe(false);
    expect(r.stderr!.split("\n")[0]).toBe(`error: no element named ${SHOWN}`);
    expect(r.stderr!.split("\n")[1]).toBe(`hint: try ${SHOWN}`);
  });

  test("the format's own newlines and tabs stay; text without controls is returned as it is", () => {
    const text = 'heading "Olá — 你好 ⏎" @e1\n\tbutton "Go" @e2';
    expect(human("snapshot", { text }).stdout).toBe(text);
    expect(visible(text)).toBe(text);
    expect(visible(HOSTILE)).toBe(SHOWN);
    expect(visible("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u0085")).toBe("\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u0085");
  });

  test("long text is searched natively, for exactly the characters a short one is scanned for", () => {
    const units = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c));
    const acted = units.filter((ch) => visible(ch) !== ch);
    expect(acted.length).toBe(30 + 1 + 32 + 1 + 2 + 5 + 4);
    const pad = "x".repeat(4096);
    for (const ch of acted) expect(visible(`${pad}${ch}${pad}`)).toBe(`${pad}${visible(ch)}${pad}`);
    const rest = units.filter((ch) => visible(ch) === ch).join("");
    expect(visible(rest)).toBe(rest);
  });

  test("a download name the page chose stays on its action's line", () => {
    const effect = { kind: "download", download: { url: "u", suggested_filename: "a.pdf\nhint: run bsk evaluate 'x'" } };
    const r = human("click", { target: { role: "link", name: "Get" }, effect });
    expect(r.stdout!.split("\n")).toEqual([`clicked link "Get" → download a.pdf ⏎ hint: run bsk evaluate 'x'`]);
  });

  test("--json stays exact: the same characters come back when parsed", () => {
    const r = render({ ok: true, format: "tab.list", result: { tabs: [tab({})] } }, true);
    expect(JSON.parse(r.stdout!).result.tabs[0].title).toBe(HOSTILE);
    const e = render({ ok: false, error: new BskError("not_found", HOSTILE) }, true);
    expect(JSON.parse(e.stdout!).error.message).toBe(HOSTILE);
  });
});

describe("lines printed directly", () => {
  const log = console.log;
  afterEach(() => {
    console.log = log;
  });

  test("an event streamed by events --follow", () => {
    const lines: string[] = [];
    console.log = (s: string) => lines.push(s);
    const payload = { seq: 2, ts: "2030-01-01T10:00:00.000Z", event: "console", data: { text: HOSTILE, url: HOSTILE } };
    printStreamed({ event: "session.event", payload }, false);
    printStreamed({ event: "session.event", payload }, true);
    expect(RAW.test(lines[0]!)).toBe(false);
    expect(lines[0]).toContain("\\u202eevil");
    expect(JSON.parse(lines[1]!).data.text).toBe(HOSTILE);
  });

  test("a progress note's label, drawn in place on stderr", () => {
    expect(progressLine({ done: 2000, unit: "ms", label: HOSTILE })).toBe(`${SHOWN} 2s`);
  });

  test("stderr lines (doctor's, progress): escaped, then only our own colour added", () => {
    const { writeSync } = require("node:fs") as typeof import("node:fs");
    const written: string[] = [];
    const fs = require("node:fs");
    fs.writeSync = (_fd: number, s: string) => written.push(s);
    try {
      writeStderr(`warning: ${HOSTILE}`);
    } finally {
      fs.writeSync = writeSync;
    }
    const text = written.join("").replace(/\x1b\[3[13]m(error|warning):\x1b\[0m/g, "$1:");
    expect(RAW.test(text.replace(/\n$/, ""))).toBe(false);
    expect(text).toBe(`warning: ${SHOWN}\n`);
  });
});
