/**
 * A browser prompt is a tab state, like a JavaScript dialog, in real Chromium: while the browser waits for the
 * person (printing, a permission, another app) the tab takes no input, so input calls fail with prompt_pending
 * (reads still work), dialog status shows the prompt, dismiss reloads the page without it; a click that raised a
 * permission prompt or printing succeeded, with the effect browser_prompt. Input the page never received
 * (input_not_delivered) is tested in input-delivery.test.ts, on the headed browser's real print dialog.
 *
 * Before this, after print() the next click printed `clicked button "…" → no visible effect` (exit 0) although the
 * page never saw it, and `dialog status` said "no dialog". Headless Chromium answers permission prompts itself (denied)
 * and shows no external-protocol dialog.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startWorld, until, type World } from "./harness.ts";
import { tearDown } from "../teardown.ts";

let w: World;
let s: string;
beforeAll(async () => {
  w = await startWorld();
  s = await w.startSession();
});
afterAll(() => tearDown([() => w.ok(["session", "stop", s]), () => w.stop()]));

const frames = async () => (await w.ok(["evaluate", "document.querySelectorAll('iframe').length", "--session", s])).value as number;

describe("a browser prompt is a tab state", () => {
  test("print: input fails prompt_pending, reads work, dialog status shows it, dismiss reloads without it", async () => {
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    const printed = await w.ok(["click", "#print", "--session", s]);
    expect(printed.effect).toMatchObject({ kind: "browser_prompt", prompt: { kind: "print", pending: true } });
    const status = await until("the print prompt in dialog status", async () => {
      const r = await w.ok(["dialog", "status", "--session", s]);
      return r.prompt ? r : undefined;
    });
    expect(status).toMatchObject({ open: false, dialog: null, prompt: { kind: "print", url: w.fixtures.url("/guard.html") } });
    const text = await w.bsk(["dialog", "status", "--session", s]);
    expect(text.stdout).toContain("browser prompt print");

    const click = await w.bsk(["click", "#frame", "--session", s, "--json"]);
    expect(click.code).toBe(10);
    expect(click.json.error).toMatchObject({ code: "prompt_pending", data: { effect_state: "none", prompt: { kind: "print" } } });
    expect(click.json.error.hint).toContain("request-help");
    const press = await w.bsk(["press", "Enter", "--session", s, "--json"]);
    expect(press.json.error.code).toBe("prompt_pending");
    // The page never got it, and reads still work.
    expect(await frames()).toBe(0);
    const seen = (await w.ok(["snapshot", "--session", s])).text as string;
    expect(seen).toContain("Frame from another origin");
    // The snapshot's header says the tab is waiting for the person.
    expect(seen.split("\n")[0]).toContain("browser prompt print pending");

    const dismissed = await w.ok(["dialog", "dismiss", "--session", s]);
    expect(dismissed).toMatchObject({ dialog: null, prompt: { kind: "print" }, accepted: false });
    expect((await w.ok(["dialog", "status", "--session", s])).prompt).toBeNull();
    await until("the reloaded page", async () => (await w.ok(["evaluate", "document.readyState", "--session", s])).value === "complete");
    expect(((await w.ok(["snapshot", "--session", s])).text as string).split("\n")[0]).not.toContain("browser prompt");
    const ok = await w.ok(["click", "#frame", "--session", s]);
    expect(ok.effect.kind).toBe("dom_changed");
    expect(await frames()).toBe(1);
  });

  test("a script that printed succeeded: its value, and the prompt beside it (was an error with exit 1)", async () => {
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    const r = await w.bsk(["evaluate", "print(); 1", "--session", s, "--json"]);
    expect(r.code).toBe(0);
    expect(r.json.result).toMatchObject({ value: 1, prompt: { kind: "print", pending: true } });
    await w.ok(["dialog", "dismiss", "--session", s]);
  });

  test("printing again a moment later is a prompt of its own: the second script's reply says so too", async () => {
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    // Within the 2 s in which one page asking again is one browser.prompt event: each call still hears its own.
    for (const round of [1, 2]) {
      const r = await w.bsk(["evaluate", "print(); 1", "--session", s, "--json"]);
      expect(r.code, `round ${round}`).toBe(0);
      expect(r.json.result, `round ${round}`).toMatchObject({ value: 1, prompt: { kind: "print", pending: true } });
      await w.ok(["dialog", "dismiss", "--session", s]);
    }
  });

  test("a click that raised a permission prompt succeeded: effect browser_prompt, exit 0", async () => {
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    const r = await w.bsk(["click", "#geo", "--session", s, "--json"]);
    expect(r.code).toBe(0);
    expect(r.json.result.effect).toMatchObject({
      kind: "browser_prompt",
      prompt: { kind: "permission", detail: { permission: "geolocation" } },
    });
    expect(typeof r.json.result.effect.prompt.pending).toBe("boolean");
    const line = await w.bsk(["click", "#notify", "--session", s]);
    expect(line.code).toBe(0);
    expect(line.stdout).toContain("→ browser prompt permission notifications");
    // Headless answers (denies) it itself: the page's answer clears the state, and input works again.
    await until("the prompt answered", async () => (await w.ok(["dialog", "status", "--session", s])).prompt === null);
    expect((await w.ok(["click", "#frame", "--session", s])).effect.kind).toBe("dom_changed");
  });
});
