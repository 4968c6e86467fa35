/**
 * Actions, dialogs and waits end to end: real Chromium, the built extension, dist/bsk, the act-* fixture pages.
 * Whatever must be "in flight" is held by the fixture server (/hold/KEY until release), never by sleeps.
 */
import { describe, expect, test } from "bun:test";
import { evaluateInWorker } from "./devtools.ts";
import { until, useWorld, type Run, type World, refIn } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const run = (args: string[], opts?: { stdin?: string }) => w.bsk([...args, "--session", s, "--json"], opts);
const page = (name: string) => ok(["navigate", w.fixtures.url(`/${name}`)]);
const js = async (expression: string) => (await ok(["evaluate", expression])).value;

/** Clicks `selector` and expects a DOM change, whose status line then reads `status`. */
async function clickChanges(selector: string, status: string): Promise<void> {
  expect((await ok(["click", selector])).effect).toEqual({ kind: "dom_changed", dom_changed: true });
  expect(await js(`document.getElementById("status").textContent`)).toBe(status);
}

/** Expects the call to fail with `code` (and exit `exit`); returns the error object. */
async function fails(args: string[], code: string, exit = 1): Promise<any> {
  const r: Run = await run(args);
  if (r.json?.ok !== false)
    throw new Error(`expected ${args.join(" ")} to fail with ${code}, got (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  expect(r.code).toBe(exit);
  return r.json.error;
}

/** The ref the last snapshot gave the line that contains `text`. */
async function refFor(text: string): Promise<string> {
  return refIn((await ok(["snapshot"])).text as string, text);
}

describe("forms", () => {
  test("fill types like a person, reads back and reports a mismatch", async () => {
    await page("act-form.html");
    const filled = await ok(["fill", "#name", "Ada Lovelace"]);
    expect(filled).toMatchObject({ target: { role: "textbox", name: "Name" }, value_ok: true });
    expect(filled.actual).toBeUndefined();
    expect(await js(`document.getElementById("name").value`)).toBe("Ada Lovelace");
    // trusted input events, as from a keyboard
    expect(await js(`events.filter((e) => e.startsWith("name:input"))`)).toEqual(["name:input"]);

    expect((await ok(["fill", "#notes", "first line\nsecond"])).value_ok).toBe(true);
    expect(await js(`document.getElementById("notes").value`)).toBe("first line\nsecond");
    expect((await ok(["fill", "#notes", ""])).value_ok).toBe(true);
    expect(await js(`document.getElementById("notes").value`)).toBe("");

    // the field keeps 3 characters: reported, not silently "done"
    expect(await ok(["fill", "#short", "abcdef"])).toMatchObject({ value_ok: false, actual: "abc" });
    expect((await ok(["fill", "#date", "2024-05-06"])).value_ok).toBe(true);
    expect(await js(`document.getElementById("date").value`)).toBe("2024-05-06");
    expect((await ok(["fill", "#editor", "rich text"])).value_ok).toBe(true);
    expect(await js(`document.getElementById("editor").innerText`)).toBe("rich text");

    expect((await fails(["fill", "#fixed", "x"], "unsupported")).data.reason).toBe("read_only");
    const notText = await fails(["fill", "#terms", "x"], "invalid_params");
    expect(notText.data.reason).toBe("not_editable");
    expect(notText.hint).toContain("check");
  });

  test("fill's read-back rides right behind its text: what the page does to the value now, in a microtask, a timer, a message or the next frame is read back", async () => {
    await page("act-fill-effects.html");
    for (let round = 1; round <= 4; round++) {
      const text = `abc${round}`;
      expect(await ok(["fill", "#plain", text])).toMatchObject({ value_ok: true, effect: { kind: "none", dom_changed: false } });
      for (const id of ["now", "micro", "timer", "message", "frame", "stopped"]) {
        const r = await ok(["fill", `#${id}`, text]);
        expect({ id, round, value_ok: r.value_ok, actual: r.actual }).toEqual({ id, round, value_ok: false, actual: text.toUpperCase() });
      }
      // The page changes as the text lands and the value after a timer: the read-back waits for the value.
      const before = await ok(["fill", "#before", text]);
      expect({ round, value_ok: before.value_ok, actual: before.actual }).toEqual({ round, value_ok: false, actual: text.toUpperCase() });
      const echoed = await ok(["fill", "#echo", text]);
      expect(echoed).toMatchObject({ value_ok: true, effect: { kind: "dom_changed", dom_changed: true } });
      expect(await js(`document.getElementById("status").textContent`)).toBe(`typed ${text}`);
    }
    // A page's own input event (untrusted), dispatched before bsk's text lands, does not end the read early.
    await js(
      `document.getElementById("plain").addEventListener("beforeinput", (e) => e.target.dispatchEvent(new Event("input", { bubbles: true })), { once: true }); 1`,
    );
    expect(await ok(["fill", "#plain", "late"])).toMatchObject({ value_ok: true });
    expect(await js(`document.getElementById("plain").value`)).toBe("late");
  });

  test("press's and type's read rides right behind their keys: a change on the last keyup, on keydown, of a chord or of repeated presses, after a timer, or from a keyup the page keeps to itself is seen", async () => {
    await page("act-press-effects.html");
    await ok(["click", "#field"]);
    const status = () => js(`document.getElementById("status").textContent`);
    const changed = { kind: "dom_changed", dom_changed: true };
    for (let i = 1; i <= 4; i++) {
      expect({ i, effect: (await ok(["press", "x"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`up x ${i}`);
      expect({ i, effect: (await ok(["press", "Ctrl+B"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`up Control ${i}`);
      expect({ i, effect: (await ok(["press", "y"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`timer y ${i}`);
      expect({ i, effect: (await ok(["press", "z"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`micro z ${i}`);
      expect({ i, effect: (await ok(["press", "End", "--count", "3"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`ends ${3 * i}`);
      expect({ i, effect: (await ok(["press", "Shift"])).effect }).toEqual({ i, effect: { kind: "none", dom_changed: false } });
      // A change on keydown does not end the read before the keyups, nor stop their count.
      expect({ i, effect: (await ok(["press", "w"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`down w ${i}`);
    }
    // Enter changes the page on keydown and submits the form on keypress: the reply waits for what the keys started.
    for (let i = 1; i <= 4; i++) {
      await ok(["click", "#query"]);
      const sent = await ok(["press", "Enter"]);
      expect({ i, kind: sent.effect.kind, url: sent.effect.navigation?.url }).toEqual({
        i,
        kind: "navigated",
        url: w.fixtures.url("/act-press-effects.html?q="),
      });
    }
    // type's read rides behind its last character's keyup too (the page was reloaded: its counts start again).
    await ok(["click", "#field"]);
    for (let i = 1; i <= 4; i++) {
      expect({ i, effect: (await ok(["type", "qx"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`up x ${i}`);
      expect({ i, effect: (await ok(["type", "qw"])).effect }).toEqual({ i, effect: changed });
      expect(await status()).toBe(`down w ${i}`);
      expect({ i, effect: (await ok(["type", "q"])).effect }).toEqual({ i, effect: { kind: "none", dom_changed: false } });
    }
    expect(await js(`document.getElementById("field").value`)).toBe("qxqwq".repeat(4));
    // Tab takes the focus, and the keyup, into a child frame: the keys still land where the focus went.
    await ok(["click", "#query"]);
    expect((await ok(["press", "Tab"])).effect).toEqual({ kind: "none", dom_changed: false });
    expect((await ok(["type", "in"])).effect).toEqual({ kind: "none", dom_changed: false });
    expect(await js(`document.getElementById("child").contentDocument.getElementById("inner").value`)).toBe("in");
  });

  test("a screenshot of the current tab while a tab its page opened covers it: the tab comes to the front, stays current", async () => {
    await page("popup-opener.html?covered");
    const before = (await ok(["tab", "list"])).current_tab_id;
    expect((await ok(["click", "#blank"])).effect).toMatchObject({ kind: "new_tab" });
    await until("the new tab in front of it", async () => (await js("document.visibilityState")) === "hidden" || undefined);
    const shot = await ok(["screenshot", "--out", w.out]);
    expect(shot.width).toBeGreaterThan(0);
    expect(await js("document.visibilityState")).toBe("visible");
    const tabs = await ok(["tab", "list"]);
    expect(tabs.current_tab_id).toBe(before);
    const child = tabs.tabs.find((t: any) => t.url.includes("Blank%20child"));
    await ok(["tab", "close", String(child.tab_id)]);
  });

  test("a minimized Agent Window: what the page did is read without waiting for frames it runs only once shown; what needs a frame fails at once", async () => {
    await page("act-fill-effects.html");
    const { window_id } = ((await w.ok(["session", "list"])).sessions as any[]).find((x) => x.session_id === s);
    const state = (to: string) =>
      evaluateInWorker(w.browser.cdpPort!, `chrome.windows.update(${window_id}, { state: "${to}" }).then(() => true)`);
    const visibility = (want: string) =>
      until(`the page to be ${want}`, async () => (await js("document.visibilityState")) === want || undefined);
    await state("minimized");
    try {
      await visibility("hidden");
      for (let round = 1; round <= 2; round++) {
        const text = `min${round}`;
        for (const id of ["now", "micro", "message", "stopped"]) {
          const r = await ok(["fill", `#${id}`, text]);
          expect({ id, round, value_ok: r.value_ok, actual: r.actual }).toEqual({ id, round, value_ok: false, actual: text.toUpperCase() });
        }
        expect(await ok(["fill", "#echo", text])).toMatchObject({ value_ok: true, effect: { kind: "dom_changed" } });
        expect(await js(`document.getElementById("status").textContent`)).toBe(`typed ${text}`);
        expect((await ok(["click", "#plain"])).effect).toEqual({ kind: "none", dom_changed: false });
        expect((await ok(["type", "x"])).effect).toEqual({ kind: "none", dom_changed: false });
        // Its next frame waits for the window: not yet run when the fill replies.
        expect(await ok(["fill", "#frame", text])).toMatchObject({ value_ok: true });
      }
      // What completes only once the page paints fails at once, saying why, instead of waiting out its timeout: the
      // first such command after the window went down never gets its frame.
      const e = await fails(["hover", "#plain"], "unsupported");
      expect({ reason: e.data.reason, effect_state: e.data.effect_state }).toEqual({ reason: "page_hidden", effect_state: undefined });
      expect(e.message).toContain("so the pointer move cannot finish; the browser keeps the input");
      expect(e.hint).toContain("show the session's window");
      // After input queued that way the browser sometimes paints a frame (a fresh one: a background changed while
      // hidden shows in a screenshot); each of these then either works or fails the same way. Never a timeout.
      const more: [string[], string, string | undefined][] = [
        [["wheel", "--dy", "100"], "the wheel turn", "unknown"],
        [["drag", "#plain", "#now"], "the drag", "unknown"],
        [["screenshot", "--out", w.out], "the screenshot", undefined],
        [["mouse", "move", "--x", "40", "--y", "40", "--steps", "3"], "the pointer move", undefined],
      ];
      for (const [args, what, effectState] of more) {
        const r = await run(args);
        if (r.code === 0) continue;
        const err = r.json?.error;
        expect({
          args,
          reason: err?.data?.reason,
          effect_state: err?.data?.effect_state,
          what: err?.message?.includes(`so ${what} cannot finish`),
        }).toEqual({
          args,
          reason: "page_hidden",
          effect_state: effectState,
          what: true,
        });
      }
    } finally {
      await state("normal");
    }
    await visibility("visible");
    expect((await ok(["screenshot", "--out", w.out])).width).toBeGreaterThan(0);
    await until(
      "the frame callback to run once shown",
      async () => (await js(`document.getElementById("frame").value`)) === "MIN2" || undefined,
    );
  });

  test("a visible page that says it is hidden and holds a pointer move for 1.5 s: the hover waits, and works", async () => {
    await page("act-lying-page.html");
    expect(await js("document.visibilityState")).toBe("hidden");
    const hovered = await ok(["hover", "#slow"]);
    expect(hovered.target).toMatchObject({ role: "button", name: "Slow to hover" });
    expect(await js(`document.getElementById("status").textContent`)).toBe("hovered");
  });

  test("a React-like controlled input keeps the filled value and its state sees it", async () => {
    await page("act-form.html");
    // The fixture is honest: a value set behind the component's back is lost at its next render.
    expect(await js(`(() => { const c = document.getElementById("controlled"); c.value = "sneaky"; rerender(); return c.value; })()`)).toBe(
      "",
    );

    const r = await ok(["fill", "#controlled", "Grace Hopper"]);
    expect(r).toMatchObject({ value_ok: true, effect: { kind: "dom_changed" } });
    expect(await js(`rerender(), [appState.name, document.getElementById("controlled").value]`)).toEqual(["Grace Hopper", "Grace Hopper"]);

    // a component that transforms what is typed: the read-back says what the field really holds
    expect(await ok(["fill", "#shout", "quiet please"])).toMatchObject({ value_ok: false, actual: "QUIET PLEASE" });
  });

  test("fill --value-file - takes the secret from stdin; it appears in no output or log", async () => {
    await page("act-form.html");
    const secret = "correct-horse-battery-staple";
    const r = await run(["fill", "#password", "--value-file", "-"], { stdin: `${secret}\n` });
    expect(r.code).toBe(0);
    expect(r.json.result.value_ok).toBe(true);
    expect(await js(`document.getElementById("password").value`)).toBe(secret);
    // a mismatch on a secret field is masked
    const masked = await run(["fill", "#password", "--value-file", "-"], { stdin: "x".repeat(600_000) });
    expect(masked.json.result.value_ok).toBe(true);
    const logs = await w.bsk(["logs", "-n", "1000"]);
    expect(logs.stdout + r.stdout + r.stderr).not.toContain(secret);
  });

  test("select by value and by label; single and multiple rules", async () => {
    await page("act-form.html");
    expect((await ok(["select", "#country", "fr"])).selected).toEqual([{ value: "fr", label: "France" }]);
    expect((await ok(["select", "#country", "Germany"])).selected).toEqual([{ value: "de", label: "Germany" }]);
    expect((await ok(["select", "#country", "--value", "Washington, D.C."])).selected).toEqual([
      { value: "dc", label: "Washington, D.C." },
    ]);
    expect(await js(`document.getElementById("country").value`)).toBe("dc");
    // the page hears it as a choice: input then change
    expect(await js(`events.filter((e) => e.startsWith("country:")).slice(-2)`)).toEqual([
      "country:input:synthetic",
      "country:change:synthetic",
    ]);

    const multi = await ok(["select", "#toppings", "--value", "cheese", "--value", "Basil"]);
    expect(multi.selected.map((o: any) => o.value)).toEqual(["cheese", "basil"]);
    expect(await js(`[...document.getElementById("toppings").selectedOptions].map((o) => o.value)`)).toEqual(["cheese", "basil"]);

    // Refused before anything was chosen: the reply says nothing happened, and nothing did.
    const refusals = [
      await fails(["select", "#country", "de", "--value", "fr"], "invalid_params"),
      await fails(["select", "#country", "Narnia"], "not_found"),
      await fails(["select", "#country", "Atlantis"], "unsupported"),
      await fails(["select", "#name", "x"], "invalid_params"),
    ];
    expect(refusals.map((e) => [e.data.reason, e.data.effect_state])).toEqual([
      ["not_multiple", "none"],
      ["no_option", "none"],
      ["option_disabled", "none"],
      ["not_select", "none"],
    ]);
    expect(refusals[1].hint).toContain("France");
    expect(await js(`document.getElementById("country").value`)).toBe("dc");
  });

  test("check and uncheck: checkbox, a styled checkbox behind its label, radio, switch", async () => {
    await page("act-form.html");
    expect(await ok(["check", "#terms"])).toMatchObject({ checked: true, target: { role: "checkbox", name: "I agree" } });
    // already checked: nothing is clicked
    expect(await ok(["check", "#terms"])).toMatchObject({ checked: true, effect: { kind: "none" } });
    expect((await ok(["uncheck", "#terms"])).checked).toBe(false);
    expect(await js(`events.filter((e) => e === "terms:change").length`)).toBe(2);

    expect((await ok(["check", "#fancy"])).checked).toBe(true);
    expect(await js(`document.getElementById("fancy").checked`)).toBe(true);

    expect((await ok(["check", "#size-l"])).checked).toBe(true);
    expect((await fails(["uncheck", "#size-l"], "invalid_params")).data.reason).toBe("radio_uncheck");
    expect((await ok(["check", "#size-s"])).checked).toBe(true);
    expect(await js(`document.getElementById("size-l").checked`)).toBe(false);

    expect(await ok(["check", "#toggle"])).toMatchObject({ checked: true, target: { role: "switch" }, effect: { kind: "dom_changed" } });
    expect((await fails(["check", "#name"], "invalid_params")).data.reason).toBe("not_checkable");
  });

  test("keys: Ctrl+A then type replaces the text; Enter submits the form and the effect is the navigation", async () => {
    await page("act-form.html");
    await ok(["fill", "#name", "old text"]);
    expect((await ok(["press", "Ctrl+A", "--target", "#name"])).target).toMatchObject({ role: "textbox", name: "Name" });
    await ok(["type", "New Name!"]);
    expect(await js(`document.getElementById("name").value`)).toBe("New Name!");
    // key by key: a keydown per character
    expect(await js(`events.filter((e) => e === "name:keydown").length`)).toBeGreaterThanOrEqual("New Name!".length);
    await ok(["type", " 中文😀", "--target", "#name"]);
    expect(await js(`document.getElementById("name").value`)).toBe("New Name! 中文😀");

    const submitted = await ok(["press", "Enter"]);
    expect(submitted.effect).toMatchObject({ kind: "navigated", navigation: { status: 200 } });
    expect(submitted.effect.navigation.url).toContain("/echo-title/Submitted?name=New+Name");
    expect(await js("document.title")).toBe("Submitted");

    expect((await fails(["press", "Hyper+Q"], "invalid_params")).hint).toContain("Ctrl+A");
  });

  test("the browser's own shortcuts are out of the agent's keys' reach: no tab closed or opened, no window; the page still gets each key", async () => {
    await page("act-form.html");
    const tabs = async () => ((await ok(["tab", "list"])).tabs as { tab_id: number }[]).map((t) => t.tab_id).sort();
    const pages = async () => (await w.person.pages()).map((p) => p.targetId).sort();
    const [tabsBefore, pagesBefore] = [await tabs(), await pages()];
    await js(`events.length = 0`);
    // Close the tab, close the window, new tab, new window, new incognito window, history, downloads, reopen closed.
    const chords = ["Ctrl+W", "Ctrl+Shift+W", "Ctrl+T", "Ctrl+N", "Ctrl+Shift+N", "Ctrl+H", "Ctrl+J", "Ctrl+Shift+T"];
    for (const chord of chords) {
      const r = await ok(["press", chord, "--target", "#name"]);
      expect({ chord, effect: r.effect.kind }).toEqual({ chord, effect: "none" });
    }
    expect(await js(`events.filter((e) => e === "name:keydown").length`)).toBeGreaterThanOrEqual(chords.length);
    expect(await tabs()).toEqual(tabsBefore);
    expect(await pages()).toEqual(pagesBefore);
  });
});

describe("targets", () => {
  test("duplicate buttons: by selector and by ref, the right row opens", async () => {
    await page("act-table.html");
    const byCss = await ok(["click", "tr:nth-child(2) button"]);
    expect(byCss).toMatchObject({ target: { role: "button", name: "View" }, effect: { kind: "dom_changed", dom_changed: true } });
    expect(await js(`document.getElementById("opened").textContent`)).toBe("Opened: Grace");

    // The snapshot shows the button under Linus's row; find gives the line alone, labelled with its row.
    await ok(["snapshot"]);
    const ref = (await ok(["find", `"View"`])).matches.find((m: { line: string }) => m.line.endsWith(`[in: row "Linus"]`)).ref;
    const byRef = await ok(["click", ref]);
    expect(byRef.target).toEqual({ ref, role: "button", name: "View" });
    expect(await js(`document.getElementById("opened").textContent`)).toBe("Opened: Linus");

    expect((await ok(["dblclick", "h1"])).effect.kind).toBe("dom_changed");
    expect(await js(`document.querySelector("h1").textContent`)).toBe("People (double-clicked)");

    expect((await fails(["click", "button"], "invalid_params")).data.reason).toBe("ambiguous_selector");
    expect((await fails(["click", "#no-such-thing"], "not_found")).data.reason).toBe("selector_not_found");
  });

  test("a ref kept across a navigation is stale: nothing is clicked", async () => {
    await page("act-table.html");
    await js(`localStorage.removeItem("act-count")`);
    const ref = await refFor(`button "Count"`);
    await ok(["click", ref]);
    expect(await js(`localStorage.getItem("act-count")`)).toBe("1");
    await page("act-table.html");
    const stale = await fails(["click", ref], "stale_ref");
    expect(stale.message).toContain("nothing was done");
    expect(await js(`[document.getElementById("clicks").textContent, localStorage.getItem("act-count")]`)).toEqual(["0", "1"]);
  });

  // The checks ride right behind the ref's lookup in one round trip (refs/resolve.ts resolveWith): they may act only
  // on the element the lookup found, and on nothing when it found none.
  test("a ref whose element was replaced by a twin is refused: no focus, no value, no click on the twin", async () => {
    await page("act-form.html");
    const text = (await ok(["snapshot"])).text as string;
    const name = refIn(text, `textbox "Name"`);
    const terms = refIn(text, `checkbox "I agree"`);
    const send = refIn(text, `button "Send"`);
    // Each replaced by an identical element, the way a framework re-renders.
    await js(`for (const id of ["name", "terms", "submit"]) {
      const old = document.getElementById(id);
      old.replaceWith(old.cloneNode(true));
    }
    window.sent = 0;
    document.querySelector("form").addEventListener("submit", (e) => { e.preventDefault(); sent++; });
    document.activeElement.blur();
    true`);
    for (const [args, what] of [
      [["fill", name, "Ada"], "fill"],
      [["type", "Ada", "--target", name], "type"],
      [["check", terms], "check"],
      [["click", send], "click"],
      [["hover", send], "hover"],
    ] as const) {
      const err = await fails([...args], "stale_ref");
      // hover changes nothing the page keeps (TransientInput): it has no effect state to tell.
      const effect = what === "hover" ? undefined : "none";
      expect({ what, reason: err.data.reason, effect: err.data.effect_state }).toEqual({ what, reason: "node_removed", effect });
    }
    expect(
      await js(
        `[document.getElementById("name").value, document.getElementById("terms").checked, sent, document.activeElement === document.body]`,
      ),
    ).toEqual(["", false, 0, true]);
  });

  test("a page cannot hand bsk's page calls another element: its own __bsk is not bsk's", async () => {
    await page("act-form.html");
    const name = await refFor(`textbox "Name"`);
    // The page's world guesses at the hand-over bsk makes between its lookup and its checks.
    await js(`const trap = document.getElementById("email");
      const handoff = new Proxy({}, { get: (_, k) => (k === "key" ? undefined : trap) });
      window.__bsk = new Proxy({}, { get: (_, k) => (k === "handoff" ? handoff : () => trap), set: () => true });
      true`);
    expect(await ok(["fill", name, "Ada"])).toMatchObject({ target: { role: "textbox", name: "Name" }, value_ok: true });
    expect(await js(`[document.getElementById("name").value, document.getElementById("email").value]`)).toEqual(["Ada", ""]);
  });

  test("a covered button is element_obscured, naming the overlay; a sliding one is clicked once it settles", async () => {
    await page("act-overlay.html");
    const covered = await fails(["click", "#buy"], "element_obscured");
    expect(covered.message).toContain("div#overlay");
    expect(covered.data.covered_by.selector).toBe("div#overlay.overlay.backdrop");
    expect(await js(`document.getElementById("bought").textContent`)).toBe("not bought");
    await ok(["click", "#dismiss"]);
    expect((await ok(["click", "#buy"])).effect.kind).toBe("dom_changed");
    expect(await js(`document.getElementById("bought").textContent`)).toBe("bought");

    await js("slideIn()");
    await ok(["click", "#sliding"]);
    expect(await js(`document.getElementById("slid").textContent`)).toBe("clicked");
  });

  test("a page's own <bsk-overlay> is the page's: its cover is element_obscured, never clicked through; its buttons are clicked", async () => {
    await page("fake-overlay.html");
    // bsk's own pill is drawn in the same page, so both kinds of <bsk-overlay> are there at once.
    const person = await PersonPage.find(w.browser.cdpPort!, "/fake-overlay.html");
    await person.waitOverlay("bsk's pill", (o) => !!o?.pill);
    // The page's cover lets clicks through once bsk takes it for its pill (data-bsk-dodge): it must not.
    const covered = await fails(["click", "#buy"], "element_obscured");
    expect(covered.data.covered_by.selector).toBe("bsk-overlay#cover");
    const box = JSON.parse(await js(`JSON.stringify(document.getElementById("cover").getBoundingClientRect())`));
    // A click at a point on it reaches the cover, not what it covers.
    await ok(["click", "--x", String(Math.round(box.x + 60)), "--y", String(Math.round(box.y + 60))]);
    expect(await js(`[clicks, document.getElementById("cover").hasAttribute("data-bsk-dodge")]`)).toEqual([["cover"], false]);
    // The page's own element of that name and a web component of that name are clicked by ref like any other.
    const text = (await ok(["snapshot"])).text as string;
    expect((await ok(["click", refIn(text, `button "Pay"`)])).target).toMatchObject({ role: "button", name: "Pay" });
    expect((await ok(["click", refIn(text, `button "Subscribe"`)])).target).toMatchObject({ role: "button", name: "Subscribe" });
    expect(await js("clicks")).toEqual(["cover", "pay", "subscribe"]);
    expect(await js(`[...document.querySelectorAll("bsk-overlay[data-bsk-dodge]")].length`)).toBe(0);
    person.close();
  });

  test("get-html keeps the page's own <bsk-overlay> elements and leaves bsk's own host out", async () => {
    await page("fake-overlay.html");
    const person = await PersonPage.find(w.browser.cdpPort!, "/fake-overlay.html");
    await person.waitOverlay("bsk's pill", (o) => !!o?.pill);
    const html = (await ok(["get-html"])).html as string;
    expect(html).toContain(`<bsk-overlay id="cover">Are you sure?`);
    expect(html).toContain(`<bsk-overlay id="pay" role="button" tabindex="0">Pay</bsk-overlay>`);
    expect(html).toContain(`<bsk-overlay id="widget"></bsk-overlay>`);
    expect(html.match(/<bsk-overlay/g)).toHaveLength(3);
    expect(html).not.toContain("2147483647");
    person.close();
  });

  test("a disabled button and a hidden link are refused before any input", async () => {
    await page("act-form.html");
    expect((await fails(["click", "#save"], "unsupported")).data.reason).toBe("element_disabled");
    await page("act-hover.html");
    expect((await fails(["click", "#tea"], "not_found")).data.reason).toBe("not_visible");
  });
});

describe("effects", () => {
  test("navigated with status, new tab (owned), dom changed, none, same-document", async () => {
    await page("act-effects.html");
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });
    expect((await ok(["click", "#change"])).effect).toEqual({ kind: "dom_changed", dom_changed: true });
    const spa = await ok(["click", "#spa"]);
    expect(spa.effect).toMatchObject({ kind: "navigated", dom_changed: false, navigation: { status: null } });
    expect(spa.effect.navigation.url).toEndWith("#section-2");

    const next = await ok(["click", "#next"]);
    expect(next.effect).toEqual({
      kind: "navigated",
      dom_changed: true,
      navigation: { url: w.fixtures.url("/echo-title/Next"), status: 200 },
    });
    await page("act-effects.html");
    expect((await ok(["click", "#missing"])).effect.navigation).toEqual({ url: w.fixtures.url("/status/404"), status: 404 });

    await page("act-effects.html");
    const opened = await ok(["click", "#newtab"]);
    expect(opened.effect.kind).toBe("new_tab");
    expect(opened.effect.new_tab_ids).toHaveLength(1);
    const popup = await ok(["click", "#popup"]);
    expect(popup.effect.kind).toBe("new_tab");
    // a held modifier travels with the click: Ctrl+click opens the link in a new tab
    const ctrl = await ok(["click", "#next", "--modifiers", "Control"]);
    expect(ctrl.effect.kind).toBe("new_tab");
    expect(await js("document.title")).toBe("Act effects");
    const tabs = (await ok(["tab", "list"])).tabs;
    for (const id of [...opened.effect.new_tab_ids, ...popup.effect.new_tab_ids, ...ctrl.effect.new_tab_ids]) {
      expect(tabs.find((t: any) => t.tab_id === id)).toMatchObject({ owner: "session", ownership: "opened" });
      await ok(["tab", "close", String(id)]);
    }
  });

  test("a change the page makes in the frame after the input is seen; the page cannot reach bsk's change notice", async () => {
    await page("act-effects.html");
    // bsk's notice binding lives only in its own isolated world: the page has no such function, and one of its own
    // by that name is never called.
    expect(await js("typeof __bskEffect")).toBe("undefined");
    await js("window.forged = 0; window.__bskEffect = () => window.forged++; 1");
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });
    // The page's frame callback runs in the frame after the input, after bsk's own: every time, its change counts.
    for (let i = 1; i <= 8; i++) await clickChanges("#later", `changed in frame ${i}`);
    expect((await ok(["click", "#change"])).effect).toEqual({ kind: "dom_changed", dom_changed: true });
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });
    expect(await js("window.forged")).toBe(0);
  });

  test("a change after a timer or a message the page's handler queued is seen; so is one in the next frame of a page that silences the work registry", async () => {
    await page("act-effects.html");
    // With nothing queued the settle reads the page at once (no frame): still the truth.
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });
    for (let i = 1; i <= 8; i++) {
      await clickChanges("#timer", `changed by timer ${i}`);
      await clickChanges("#posted", `changed by message ${i}`);
    }
    // The page stops bsk's ask before the registry hears it (and answers nothing): the settle waits for the frame.
    await js(`addEventListener("bsk-work-ask", (e) => e.stopImmediatePropagation(), true); 1`);
    for (let i = 1; i <= 4; i++) await clickChanges("#later", `changed in frame ${i}`);
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });

    // A page that answers for the registry ("nothing queued", "nothing due") only makes bsk read sooner: a change its
    // handler makes is still seen, and nothing it did not change is reported.
    await page("act-effects.html");
    await js(
      `for (const t of ["bsk-work-ask", "bsk-work-mark"]) addEventListener(t, (e) => { e.preventDefault(); e.stopImmediatePropagation(); }, true); 1`,
    );
    await clickChanges("#change", "changed");
    expect((await ok(["click", "#nothing"])).effect).toEqual({ kind: "none", dom_changed: false });
    // The same for a select, whose read rides on its choice.
    expect((await ok(["select", "#changes", "now"])).effect).toEqual({ kind: "dom_changed", dom_changed: true });
    expect(await js(`document.getElementById("status").textContent`)).toBe("chose now 1");
    expect((await ok(["select", "#changes", "none"])).effect).toEqual({ kind: "none", dom_changed: false });
  });

  test("a select's effect is read in its own page call when nothing is queued; a change now, in a microtask, after a timer, a message or a frame is seen", async () => {
    await page("act-effects.html");
    let chosen = 0;
    for (let round = 1; round <= 4; round++)
      for (const v of ["now", "micro", "timer", "message", "frame", "none"]) {
        const effect = (await ok(["select", "#changes", v])).effect;
        chosen++;
        const changes = v !== "none";
        expect({ v, round, effect }).toEqual({ v, round, effect: { kind: changes ? "dom_changed" : "none", dom_changed: changes } });
        if (changes) expect(await js(`document.getElementById("status").textContent`)).toBe(`chose ${v} ${chosen}`);
      }
  });

  test("the work registry in the page's world tells what is queued, and the page's timers and frames work as before", async () => {
    await page("act-effects.html");
    // Answered by cancelling: false = nothing queued.
    const ask = `document.dispatchEvent(new Event("bsk-work-ask", { cancelable: true }))`;
    expect(await js(ask)).toBe(false);
    // Set up and asked in one call (a short timer would fire between two).
    const queued = async (setup: string, undo: string) => {
      expect(await js(`${setup}; ${ask}`)).toBe(true);
      expect(await js(`${undo}; ${ask}`)).toBe(false);
    };
    await queued("window.t = setTimeout(() => {}, 5)", "clearTimeout(window.t)");
    await queued("window.t = setInterval(() => {}, 0)", "clearInterval(window.t)");
    await queued("window.t = requestAnimationFrame(() => {})", "cancelAnimationFrame(window.t)");
    await queued(`window.f = () => {}; document.addEventListener("scroll", window.f)`, `document.removeEventListener("scroll", window.f)`);
    await queued(`document.body.onselectionchange = () => {}`, "document.body.onselectionchange = null");
    await queued("window.o = new ResizeObserver(() => {}); window.o.observe(document.body)", "window.o.disconnect()");
    await queued("window.o = new IntersectionObserver(() => {}); window.o.observe(document.body)", "window.o.disconnect()");
    // Posted work counts until the next mark (each action's probe sets one).
    await js(`postMessage("x", "*"); 1`);
    expect(await js(ask)).toBe(true);
    await js(`document.dispatchEvent(new Event("bsk-work-mark")); 1`);
    expect(await js(ask)).toBe(false);
    // Due: a short timer not yet fired, a message not yet delivered (to the window, or through a MessageChannel).
    // Answered by cancelling too, but the other way round: cancelled = something is due.
    const due = `!document.dispatchEvent(new Event("bsk-work-due", { cancelable: true }))`;
    expect(await js(due)).toBe(false);
    expect(await js(`window.t = setTimeout(() => {}, 0); ${due}`)).toBe(true);
    expect(
      await js(
        `new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = (e) => r([e.data, ${due}]); c.port2.postMessage("m"); window.sent = ${due}; })`,
      ),
    ).toEqual(["m", false]);
    expect(await js("window.sent")).toBe(true);
    expect(
      await js(
        `new Promise((r) => { addEventListener("message", (e) => r([e.data, ${due}]), { once: true }); postMessage("w", "*"); window.sent = ${due}; })`,
      ),
    ).toEqual(["w", false]);
    expect(await js("window.sent")).toBe(true);
    expect(
      await js(
        `new MessageChannel().constructor === MessageChannel && new MessageChannel() instanceof MessageChannel && String(MessageChannel)`,
      ),
    ).toBe("function MessageChannel() { [native code] }");
    await js(`document.dispatchEvent(new Event("bsk-work-mark")); 1`);
    // A long timer is no queued work; a timer or a frame callback that ran is gone.
    await js(`window.t = setTimeout(() => {}, 60000); 1`);
    expect(await js(ask)).toBe(false);
    expect(await js(`new Promise((r) => setTimeout(r, 0)).then(() => new Promise((r) => requestAnimationFrame(r))).then(() => 1)`)).toBe(1);
    expect(await js(ask)).toBe(false);
    // The page sees its own built-ins: their source, their arguments, `this`, ids it can clear.
    expect(
      await js(
        `[setTimeout, requestAnimationFrame, EventTarget.prototype.addEventListener, ResizeObserver.prototype.observe].map(String).join()`,
      ),
    ).toBe(
      "function setTimeout() { [native code] },function requestAnimationFrame() { [native code] },function addEventListener() { [native code] },function observe() { [native code] }",
    );
    expect(await js(`new Promise((r) => setTimeout((a, b) => r(a + b), 0, "x", "y"))`)).toBe("xy");
    expect(await js(`new Promise((r) => requestAnimationFrame((t) => r(typeof t)))`)).toBe("number");
    expect(
      await js(`new Promise((r) => { let n = 0; const id = setTimeout(() => n++, 0); clearTimeout(id); setTimeout(() => r(n), 5); })`),
    ).toBe(0);
    expect(await js(`setTimeout.name + setTimeout.length`)).toBe("setTimeout1");
  });

  test("a click whose navigation is still on its way waits for the commit, and reports it", async () => {
    await page("act-effects.html");
    const clicking = ok(["click", "#slow"]);
    await w.fixtures.seen("/hold/slow-nav");
    w.fixtures.release("slow-nav");
    const r = await clicking;
    expect(r.effect).toMatchObject({ kind: "navigated", navigation: { url: w.fixtures.url("/hold/slow-nav"), status: 200 } });
  });

  test("a click whose navigation stays on its way (a server that does not answer) returns it as started, status unknown", async () => {
    await page("act-effects.html");
    await js(`document.getElementById("slow").href = "/hold/stuck-nav"; 1`);
    // The server answers only after the click has returned: the click cannot have waited for the commit.
    const r = await ok(["click", "#slow"]);
    expect(r.effect).toMatchObject({ kind: "navigated", navigation: { url: w.fixtures.url("/hold/stuck-nav"), status: null } });
    w.fixtures.release("stuck-nav");
    expect((await ok(["wait-for", "--url", "*/hold/stuck-nav"])).url).toBe(w.fixtures.url("/hold/stuck-nav"));
  });
});

describe("dialogs", () => {
  test("a click that opens confirm() returns effect dialog; the next action is dialog_pending until answered", async () => {
    await page("act-dialogs.html");
    const clicked = await ok(["click", "#confirm"]);
    expect(clicked.effect).toMatchObject({ kind: "dialog", dialog: { type: "confirm", message: "Delete everything?" } });

    const pending = await fails(["click", "#alert"], "dialog_pending", 6);
    expect(pending.data).toMatchObject({ type: "confirm", message: "Delete everything?" });
    expect(pending.hint).toContain("bsk dialog accept");
    await fails(["evaluate", "1"], "dialog_pending", 6);
    expect(await ok(["dialog", "status"])).toMatchObject({ open: true, dialog: { type: "confirm", message: "Delete everything?" } });
    expect((await fails(["dialog", "accept", "--text", "x"], "invalid_params")).message).toContain("prompt");

    expect(await ok(["dialog", "accept"])).toMatchObject({ accepted: true, dialog: { type: "confirm" } });
    expect(await js(`document.getElementById("result").textContent`)).toBe("deleted");
    expect(await ok(["dialog", "status"])).toMatchObject({ open: false, dialog: null });
    expect((await fails(["dialog", "dismiss"], "not_found")).data.reason).toBe("no_dialog");

    await ok(["click", "#confirm"]);
    await ok(["dialog", "dismiss"]);
    expect(await js(`document.getElementById("result").textContent`)).toBe("kept");
  });

  test("a select whose page asks confirm() on change: effect dialog, the select named; a stale ref chooses nothing", async () => {
    await page("act-dialogs.html");
    const plan = refIn((await ok(["snapshot"])).text as string, `combobox "Plan"`);
    const chosen = await ok(["select", plan, "pro"]);
    expect(chosen).toMatchObject({ target: { ref: plan, role: "combobox", name: "Plan" }, selected: [] });
    expect(chosen.effect).toMatchObject({ kind: "dialog", dialog: { type: "confirm", message: "Switch to pro?" } });
    await ok(["dialog", "accept"]);
    expect(await js(`document.getElementById("result").textContent`)).toBe("plan pro");

    await page("act-dialogs.html");
    const stale = await run(["select", plan, "pro"]);
    expect(stale.json.error).toMatchObject({ code: "stale_ref", data: { effect_state: "none" } });
    expect(stale.json.effect_state).toBe("none");
    expect(await js(`document.getElementById("plan").value + " " + document.getElementById("result").textContent`)).toBe("free none");
  });

  test("alert, prompt with --text, a dialog opened by evaluate, and beforeunload", async () => {
    await page("act-dialogs.html");
    expect((await ok(["click", "#alert"])).effect.dialog).toEqual({ type: "alert", message: "Saved!" });
    await ok(["dialog", "accept"]);
    expect(await js(`document.getElementById("result").textContent`)).toBe("alerted");

    expect((await ok(["click", "#prompt"])).effect.dialog).toEqual({ type: "prompt", message: "Your name?" });
    expect((await ok(["dialog", "status"])).dialog.default_prompt).toBe("anonymous");
    await ok(["dialog", "accept", "--text", "Ada"]);
    expect(await js(`document.getElementById("result").textContent`)).toBe("name: Ada");
    await ok(["click", "#prompt"]);
    await ok(["dialog", "dismiss"]);
    expect(await js(`document.getElementById("result").textContent`)).toBe("name: null");

    // the agent's own script opened it: the call returns instead of hanging
    expect((await fails(["evaluate", `alert("from script")`], "dialog_pending", 6)).data.message).toBe("from script");
    await ok(["dialog", "accept"]);

    await ok(["click", "#guard"]);
    const leaving = await ok(["click", "#leave"]);
    expect(leaving.effect).toMatchObject({ kind: "dialog", dialog: { type: "beforeunload" } });
    await ok(["dialog", "accept"]);
    expect((await ok(["wait-for", "--url", "*/echo-title/Left"])).title).toBe("Left");
  });
});

describe("pointer", () => {
  test("drag and drop: HTML5 draggable onto a drop zone, and a pointer-based sortable", async () => {
    await page("act-dnd.html");
    const dropped = await ok(["drag", "#apple", "#bin"]);
    expect(dropped.dropped_on).toMatchObject({ name: "Basket" });
    expect(await js(`document.getElementById("dropped").textContent`)).toBe("dropped apple");
    expect(await js(`document.getElementById("apple").parentElement.id`)).toBe("bin");

    await ok(["drag", "#sortable li:nth-child(1)", "#sortable li:nth-child(3)"]);
    expect(await js(`document.getElementById("order").textContent`)).toBe("two,three,one");
  });

  test("hover reveals a hover-only menu, and the pointer stays for the next click", async () => {
    await page("act-hover.html");
    const hovered = await ok(["hover", "#menu"]);
    expect(hovered.effect.kind).toBe("dom_changed");
    expect(await js(`getComputedStyle(document.querySelector("#menu .sub")).display`)).toBe("block");
    const clicked = await ok(["click", "#tea"]);
    expect(clicked.effect).toMatchObject({ kind: "navigated", navigation: { status: 200 } });
    expect(await js("document.title")).toBe("Tea");
  });

  test("scroll-to, a button inside a nested scroller, the wheel, focus and blur", async () => {
    await page("act-scroll.html");
    const far = await ok(["scroll-to", "#far"]);
    const viewport = await js("[innerWidth, innerHeight, scrollY]");
    expect(viewport[2]).toBeGreaterThan(1000);
    expect(far.box.y).toBeGreaterThanOrEqual(0);
    expect(far.box.y + far.box.height).toBeLessThanOrEqual(viewport[1]);

    await ok(["click", "#deep"]);
    expect(await js(`[document.getElementById("clicked").textContent, document.getElementById("box").scrollTop > 0]`)).toEqual([
      "deep",
      true,
    ]);

    await page("act-scroll.html");
    const wheeled = await ok(["wheel", "--dy", "400"]);
    expect(wheeled.scroll.y).toBeGreaterThan(0);
    expect(wheeled.scroll.y).toBe(await js("scrollY"));

    await ok(["focus", "#focusme"]);
    expect(await js(`document.activeElement.id`)).toBe("focusme");
    expect((await ok(["blur", "#focusme"])).was_focused).toBe(true);
    expect((await ok(["blur", "#focusme"])).was_focused).toBe(false);
    expect(await js("focusLog")).toEqual(["focus", "blur"]);
    expect((await fails(["focus", "h1"], "unsupported")).data.reason).toBe("not_focusable");
  });

  test("input to a background tab: it is brought to the front of its window; the current tab stays", async () => {
    await page("act-hover.html");
    const current = (await ok(["tab", "list"])).current_tab_id;
    const bg = await ok(["tab", "create", w.fixtures.url("/act-scroll.html"), "--background"]);
    await ok(["tab", "select", String(current)]);
    expect((await ok(["evaluate", "document.visibilityState", "--tab", String(bg.tab_id)])).value).toBe("hidden");
    expect((await ok(["fill", "#focusme", "typed in the back", "--tab", String(bg.tab_id)])).value_ok).toBe(true);
    expect((await ok(["hover", "#far", "--tab", String(bg.tab_id)])).target.name).toBe("Far button");
    expect((await ok(["tab", "list"])).current_tab_id).toBe(current);
    await ok(["tab", "close", String(bg.tab_id)]);
  });

  test("a canvas: click at a point, right click, and a stroke with mouse down, move, up", async () => {
    await page("act-canvas.html");
    await ok(["click", "--x", "100", "--y", "50"]);
    await ok(["click", "--x", "120", "--y", "60", "--button", "right"]);
    expect(await js("clicks")).toEqual([
      [100, 50, 0],
      [120, 60, 2],
    ]);
    await ok(["mouse", "down", "--x", "10", "--y", "10"]);
    await ok(["mouse", "move", "--x", "110", "--y", "110", "--steps", "5"]);
    await ok(["mouse", "up", "--x", "110", "--y", "110"]);
    const strokes = await js("strokes");
    expect(strokes).toHaveLength(3);
    const stroke = strokes[2];
    expect(stroke[0]).toEqual([10, 10]);
    expect(stroke.length).toBeGreaterThanOrEqual(6);
    expect(stroke.at(-1)).toEqual([110, 110]);
    expect((await fails(["click", "#pad", "--x", "1", "--y", "1"], "invalid_params")).message).toContain("not both");
  });
});

describe("evaluate in frames", () => {
  test("--frame runs in the iframe's own page, same-site and cross-site", async () => {
    // navigate waits for the load event, which waits for both iframes
    await page("act-frames.html");
    expect(await ok(["evaluate", "location.href", "--frame", "#same"])).toMatchObject({
      value: w.fixtures.url("/echo-title/Inner%20same"),
    });
    await ok(["evaluate", "window.marker = 42", "--frame", "#same"]);
    expect(await js(`document.getElementById("same").contentWindow.marker`)).toBe(42);

    const cross = await ok(["evaluate", "[location.href, document.title]", "--frame", "#cross"]);
    expect(cross.value).toEqual([w.fixtures.crossUrl("/act-frame-inner.html"), "Inner cross"]);
    // by the iframe's ref from a snapshot, as an agent would
    const frameRef = await refFor(`iframe "Other site"`);
    expect((await ok(["evaluate", "document.title", "--frame", frameRef])).value).toBe("Inner cross");
    const thrown = await fails(["evaluate", "throw new Error('inner boom')", "--frame", "#cross"], "evaluation_failed");
    expect(thrown.message).toContain("inner boom");
    expect((await fails(["evaluate", "1", "--frame", "h1"], "invalid_params")).data.reason).toBe("not_a_frame");
  });

  test("inside a cross-site iframe: a click lands; covering the iframe from its parent is element_obscured", async () => {
    await page("act-frames.html");
    const button = await refFor(`button "Inner button"`);
    expect(await ok(["click", button])).toMatchObject({
      target: { ref: button, role: "button", name: "Inner button" },
      effect: { kind: "dom_changed" },
    });
    expect((await ok(["evaluate", "document.getElementById('pressed').textContent", "--frame", "#cross"])).value).toBe("1");
    await js(`(() => {
      const r = document.getElementById("cross").getBoundingClientRect();
      const d = document.createElement("div");
      d.id = "cover";
      d.style.cssText = \`position:absolute;left:\${r.left + scrollX}px;top:\${r.top + scrollY}px;width:\${r.width}px;height:\${r.height}px;background:#fff\`;
      document.body.append(d);
    })()`);
    const covered = await fails(["click", button], "element_obscured");
    expect(covered.data.covered_by.selector).toBe("div#cover");
    expect((await ok(["evaluate", "document.getElementById('pressed').textContent", "--frame", "#cross"])).value).toBe("1");
  });
  test("covering a cross-site iframe with the page's own <bsk-overlay> is element_obscured, never clicked through", async () => {
    await page("act-frames.html");
    const button = await refFor(`button "Inner button"`);
    // Like the pill, the page's cover would let clicks pass once bsk took it for its own and marked it (data-bsk-dodge).
    await js(`(() => {
      const r = document.getElementById("cross").getBoundingClientRect();
      const d = document.createElement("bsk-overlay");
      d.id = "cover";
      d.style.cssText = \`display:block;position:absolute;left:\${r.left + scrollX}px;top:\${r.top + scrollY}px;width:\${r.width}px;height:\${r.height}px;background:#fff\`;
      const trap = document.createElement("style");
      trap.textContent = "bsk-overlay[data-bsk-dodge] { pointer-events: none; }";
      document.head.append(trap);
      document.body.append(d);
    })()`);
    const covered = await fails(["click", button], "element_obscured");
    expect(covered.data.covered_by.selector).toBe("bsk-overlay#cover");
    expect((await ok(["evaluate", "document.getElementById('pressed').textContent", "--frame", "#cross"])).value).toBe("0");
    expect(await js(`document.getElementById("cover").hasAttribute("data-bsk-dodge")`)).toBe(false);
  });
});

describe("waits", () => {
  test("wait-for an element's state and for text, each change made when the test releases it", async () => {
    await page("act-wait.html");
    // Nothing changes until released: a short wait times out first.
    await fails(["wait-for", "--target", "#panel", "--state", "visible", "--timeout", "300ms"], "timeout", 4);

    const cases: [string, string, string[]][] = [
      ["show", "showPanel", ["--target", "#panel", "--state", "visible"]],
      ["hide", "hidePanel", ["--target", "#panel", "--state", "hidden"]],
      ["late", "addLate", ["--target", "#late", "--state", "attached"]],
      ["spin", "dropSpinner", ["--target", "#spinner", "--state", "detached"]],
      ["text", "showPanel", ["--text", "Results are ready"]],
      ["gone", "hidePanel", ["--text-gone", "Results are ready"]],
    ];
    for (const [key, fn, args] of cases) {
      await js(`afterHold(${JSON.stringify(key)}, ${JSON.stringify(fn)}), 1`);
      await w.fixtures.seen(`/hold/${key}`);
      const waiting = ok(["wait-for", ...args, "--timeout", "10s"]);
      w.fixtures.release(key);
      const r = await waiting;
      expect(r.matched).toBe(args[0] === "--target" ? "element" : args[0] === "--text" ? "text" : "text_gone");
    }
    // already true: answered at once
    expect((await ok(["wait-for", "--target", "#spinner", "--state", "detached"])).matched).toBe("element");
    // a ref whose element is gone never comes back
    await page("act-table.html");
    const ref = await refFor(`button "Count"`);
    await js(`document.getElementById("count").remove()`);
    await fails(["wait-for", "--target", ref, "--state", "visible"], "stale_ref");
    expect((await ok(["wait-for", "--target", ref, "--state", "detached"])).matched).toBe("element");
  });

  test("wait is bounded and cut by --timeout", async () => {
    const waited = await w.ok(["wait", "200ms"]);
    expect(waited.waited_ms).toBeGreaterThanOrEqual(195);
    const started = performance.now();
    const cut = await w.bsk(["wait", "20s", "--timeout", "300ms", "--json"]);
    expect(cut.code).toBe(4);
    expect(cut.json.error.code).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(5000);
    const tooLong = await w.bsk(["wait", "6m", "--json"]);
    expect(tooLong.json.error.code).toBe("invalid_params");
  });
});
