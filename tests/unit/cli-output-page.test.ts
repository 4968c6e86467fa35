/** Human output of the see-and-act commands: one short line per action, listings one entry per line. */
import { describe, expect, test } from "bun:test";
import { COMMANDS } from "../../cli/commands-table.ts";
import { humanSuccess, loadFormatters, render } from "../../cli/output.ts";
import { PAGE_FORMATTERS } from "../../cli/format-page.ts";
import { diagnosticsMethods } from "../../protocol/methods/diagnostics.ts";
import { dialogMethods } from "../../protocol/methods/dialogs.ts";
import { emulationMethods } from "../../protocol/methods/emulation.ts";
import { interactionMethods } from "../../protocol/methods/interaction.ts";
import { observationMethods } from "../../protocol/methods/observation.ts";
import { waitMethods } from "../../protocol/methods/waits.ts";

// The see-and-act, history and trace formatters load on demand (cli/output.ts); these tests render them directly.
await loadFormatters();

function human(format: string, result: unknown, params: Record<string, unknown> = {}, redact?: string[]) {
  return render({ ok: true, format, result, params, redact }, false);
}

const effect = (over: Record<string, unknown> = {}) => ({ kind: "none", dom_changed: false, ...over });
const act = (target: unknown, eff: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  tab_id: 1,
  target,
  effect: effect(eff),
  ...extra,
});
const save = { ref: "e12", role: "button", name: "Save" };

describe("every see-and-act command has a human formatter", () => {
  test("no catalog command of those families falls back to the outline (evaluate keeps its own)", () => {
    const families = [observationMethods, interactionMethods, waitMethods, dialogMethods, diagnosticsMethods, emulationMethods];
    const cli = new Set(COMMANDS.map((c) => c.method));
    const names = families.flatMap((f) => Object.keys(f)).filter((m) => cli.has(m) && m !== "evaluate");
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((m) => !(m in PAGE_FORMATTERS))).toEqual([]);
  });
});

describe("snapshot, find, screenshot, html", () => {
  test("snapshot prints its text as is; a cut one says how to go on, on stderr", () => {
    const text = '[tab 1] http://x/ "X" ~40 tokens\nbutton "Save" @e12';
    expect(human("snapshot", { text, truncated: false, cursor: null })).toEqual({ stdout: text, stderr: undefined, exitCode: 0 });
    expect(human("observe", { text, truncated: true, cursor: "c7" }).stderr).toBe("-- more: --cursor c7");
  });

  test("find prints the matching lines; none or more than shown go to stderr", () => {
    const r = human("find", { matches: [{ line: 'button "Save" @e12', ref: "@e12" }], total: 3 });
    expect(r.stdout).toBe('button "Save" @e12');
    expect(r.stderr).toBe("-- 2 more matches (--limit)");
    expect(human("find", { matches: [], total: 0 })).toMatchObject({ stdout: "", stderr: "no matches" });
  });

  test("screenshot prints the written path alone; get-html prints the html", () => {
    expect(human("screenshot", { path: "/tmp/a.png", bytes: 10, format: "png", width: 1, height: 1 }).stdout).toBe("/tmp/a.png");
    expect(human("get_html", { html: "<p>", bytes: 1024, truncated: true })).toMatchObject({
      stdout: "<p>",
      stderr: "-- cut at 1024 bytes (--max-bytes)",
    });
  });
});

describe("actions: one line, what was acted on and the effect", () => {
  test("click and its effects", () => {
    expect(human("click", act(save, { kind: "navigated", navigation: { url: "http://x/done", status: 200 } })).stdout).toBe(
      'clicked button "Save" @e12 → navigated http://x/done (200)',
    );
    expect(human("click", act(save, { kind: "new_tab", new_tab_ids: [123] })).stdout).toBe('clicked button "Save" @e12 → new tab 123');
    expect(human("click", act(save, { kind: "dialog", dialog: { type: "confirm", message: "Sure?" } })).stdout).toBe(
      'clicked button "Save" @e12 → dialog confirm "Sure?"',
    );
    expect(human("click", act(save, { kind: "dom_changed", dom_changed: true })).stdout).toBe('clicked button "Save" @e12 → dom changed');
    expect(human("click", act(save)).stdout).toBe('clicked button "Save" @e12 → no visible effect');
    expect(human("click", act(null), { x: 200, y: 340, count: 2 }).stdout).toBe("double-clicked at (200, 340) → no visible effect");
    expect(human("click", act({ ref: "@e3", role: "link", name: "" })).stdout).toBe("clicked link @e3 → no visible effect");
    // A download asked for and not begun is said, with or without a change.
    const late = "a download was asked for but had not started after 1.5 s";
    expect(human("click", act(save, { kind: "none", dom_changed: false, download_not_started: true })).stdout).toContain(`→ none; ${late}`);
    expect(human("click", act(save, { kind: "dom_changed", dom_changed: true, download_not_started: true })).stdout).toContain(
      `→ dom changed; ${late}`,
    );
  });

  test("fill never echoes the value; a mismatch says what the field holds", () => {
    const box = { ref: "e5", role: "textbox", name: "Email" };
    const ok = human("fill", act(box, {}, { value_ok: true }), { target: "@e5", value: "secret@example.com" }, ["value"]);
    // The field's value is what fill changes: that is its effect, never "no visible effect".
    expect(ok.stdout).toBe('filled textbox "Email" @e5 → value set');
    const bad = human(
      "fill",
      act(box, { kind: "dom_changed", dom_changed: true }, { value_ok: false, actual: "SECRET@EXAMPLE.COM" }),
      {
        value: "secret@example.com",
      },
      ["value"],
    );
    expect(bad.stdout).toBe('filled textbox "Email" @e5 (value mismatch: field holds "SECRET@EXAMPLE.COM") → dom changed');
    const typed = human("type", act(null), { text: "hunter2" }, ["text"]);
    expect(typed.stdout).toBe("typed → no visible effect");
    expect(JSON.stringify(typed)).not.toContain("hunter2");
  });

  test("press, select, check, wheel, blur, drag, mouse", () => {
    const box = { ref: "e3", role: "textbox", name: "Search" };
    expect(
      human("press", act(box, { kind: "navigated", navigation: { url: "http://x/?q=a", status: null } }), { key: "Enter", target: "@e3" })
        .stdout,
    ).toBe('pressed Enter on textbox "Search" @e3 → navigated http://x/?q=a (-)');
    expect(human("press", act(null), { key: "Tab", count: 3 }).stdout).toBe("pressed Tab ×3 → no visible effect");
    const country = { ref: "e9", role: "combobox", name: "Country" };
    expect(
      human("select", act(country, { kind: "dom_changed", dom_changed: true }, { selected: [{ value: "de", label: "Germany" }] })).stdout,
    ).toBe('selected "Germany" in combobox "Country" @e9 → dom changed');
    expect(human("check", act({ ref: "e4", role: "checkbox", name: "Terms" }, {}, { checked: true })).stdout).toBe(
      'checked checkbox "Terms" @e4 → no visible effect',
    );
    expect(human("wheel", act(null, {}, { scroll: { x: 0, y: 640 } }), { dy: 640 }).stdout).toBe(
      "wheeled 0,640 (scroll 0,640) → no visible effect",
    );
    expect(human("blur", act(box, {}, { was_focused: false })).stdout).toBe(
      'blurred textbox "Search" @e3 (it did not have focus) → no visible effect',
    );
    expect(
      human("drag", act({ ref: "e1", role: "listitem", name: "A" }, {}, { dropped_on: { ref: "e2", role: "list", name: "Done" } })).stdout,
    ).toBe('dragged listitem "A" @e1 onto list "Done" @e2 → no visible effect');
    expect(human("mouse.down", act(null), { x: 5, y: 6, button: "left" }).stdout).toBe("mouse left down at (5, 6) → no visible effect");
  });
});

describe("waits and dialogs", () => {
  test("wait-for says what matched; wait how long", () => {
    expect(human("wait_for", { tab_id: 1, url: "http://x/dash", title: "D", matched: "url", waited_ms: 120.4 }).stdout).toBe(
      "url after 120ms  http://x/dash",
    );
    expect(human("wait", { waited_ms: 500 }).stdout).toBe("waited 500ms");
  });

  test("dialog status, accept, dismiss", () => {
    const d = { type: "confirm", message: "Sure?", url: "http://x/" };
    expect(human("dialog.status", { tab_id: 1, open: true, dialog: d }).stdout).toBe('open confirm "Sure?"  (http://x/)');
    expect(human("dialog.status", { tab_id: 1, open: false, dialog: null }).stdout).toBe("no dialog");
    expect(human("dialog.accept", { tab_id: 1, dialog: { ...d, type: "prompt", default_prompt: "x" }, accepted: true }).stdout).toBe(
      'accepted prompt "Sure?"  default "x"  (http://x/)',
    );
    expect(human("dialog.dismiss", { tab_id: 1, dialog: d, accepted: false }).stdout).toBe('dismissed confirm "Sure?"  (http://x/)');
  });
});

describe("console and network: one entry per line with its seq, the cursor on stderr", () => {
  test("console", () => {
    const r = human("console", {
      tab_id: 1,
      messages: [
        { seq: 4, level: "error", text: "Uncaught Error: boom\n    at f (http://x/a.js:3:9)", url: "http://x/a.js", line: 3, ts: "t" },
        { seq: 5, level: "log", text: "hi", ts: "t" },
      ],
      next_since: 5,
      dropped: 2,
    });
    expect(r.stdout!.split("\n")).toEqual([
      "4  error    Uncaught Error: boom ⏎ at f (http://x/a.js:3:9)  (http://x/a.js:3)",
      "5  log      hi",
    ]);
    expect(r.stderr).toBe("-- next: --since 5\n-- 2 older entries were dropped by the ring buffer");
    expect(human("console", { tab_id: 1, messages: [], next_since: 9, dropped: 0 })).toMatchObject({
      stdout: "",
      stderr: "no messages (--since 9)",
    });
  });

  test("network: status or failed, method and URL, type, duration, error", () => {
    const r = human("network", {
      tab_id: 1,
      requests: [
        { seq: 1, method: "GET", url: "http://x/status/404", type: "fetch", status: 404, duration_ms: 7.6, ts: "t" },
        {
          seq: 2,
          method: "GET",
          url: "http://127.0.0.1:9/",
          type: "fetch",
          status: null,
          error: "net::ERR_CONNECTION_REFUSED",
          duration_ms: 3,
          ts: "t",
        },
      ],
      next_since: 2,
      dropped: 0,
    });
    expect(r.stdout!.split("\n")).toEqual([
      "1  404     GET http://x/status/404  fetch  7.6ms",
      "2  failed  GET http://127.0.0.1:9/  fetch  3ms  net::ERR_CONNECTION_REFUSED",
    ]);
    expect(r.stderr).toBe("-- next: --since 2");
  });
});

describe("emulation", () => {
  test("emulate and window resize", () => {
    expect(
      human("emulate", {
        tab_id: 1,
        emulating: true,
        viewport: { width: 390, height: 844, dpr: 3, mobile: true },
        touch: true,
        user_agent: "UA",
      }).stdout,
    ).toBe("emulating 390x844 @3x mobile touch — UA");
    expect(
      human("emulate", {
        tab_id: 1,
        emulating: false,
        viewport: { width: 945, height: 917, dpr: 1, mobile: false },
        touch: false,
        user_agent: "UA",
      }).stdout,
    ).toBe("not emulating 945x917 @1x — UA");
    expect(human("window.resize", { window_id: 7, width: 900, height: 700, viewport: { width: 900, height: 557 } }).stdout).toBe(
      "window 7 900x700  viewport 900x557",
    );
  });
});

describe("what an action itself changed is an effect", () => {
  test("upload into an input says the files are attached; a drop with nothing seen says so", () => {
    const input = { ref: "e7", role: "button", name: "Choose File" };
    const files = [{ name: "a.txt", size: 3, sha256: "x" }];
    const into = humanSuccess("upload", { files, mode: "input", input, effect: { kind: "none", dom_changed: false } }, {});
    expect(into.stdout).toBe('uploaded a.txt (3 B) into button "Choose File" @e7 → files attached');
    const dropped = humanSuccess("upload", { files, mode: "drop", target: input, effect: { kind: "dom_changed", dom_changed: true } }, {});
    expect(dropped.stdout).toBe('uploaded a.txt (3 B) dropped on button "Choose File" @e7 → dom changed');
  });
});
