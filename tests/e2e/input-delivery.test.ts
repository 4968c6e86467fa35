/**
 * Input delivery is verified, in real Chromium: a click, a point click, a mouse press, keys or typed text the page
 * never received fails with input_not_delivered (exit 11, effect_state none, ledger not_executed), never "clicked".
 *
 * The deaf tab is real: headed Chromium on a virtual display (Xvfb; headless prints without a dialog), the page calls
 * print(), and while the browser's print dialog covers the tab the page gets no input — and none later: cancelling
 * the dialog does not deliver it. bsk normally knows that prompt and refuses input before sending it (prompt_pending,
 * prompts.test.ts); here a test hook hides browser prompts from bsk, so the input is sent into the deaf tab as it
 * would be under a prompt or browser surface bsk does not know of, and the verification is what answers. Before it,
 * these replies were `clicked button "Press me" → no visible effect`, exit 0.
 *
 * A frozen page (the browser froze a background tab) is not deaf to bsk: input brings the tab to the front, which
 * resumes it, and the page gets the click.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { evaluateInWorker, freezePage } from "./devtools.ts";
import { startWorld, until, type World } from "./harness.ts";
import { startXvfb, type Display } from "./xvfb.ts";

let w: World;
let s: string;
/** A world (with a session) for the tests of one describe; headed on `display` when given. */
function worldFor(display?: () => Display | null): void {
  beforeAll(async () => {
    w = await startWorld({ display: display?.()?.display });
    s = await w.startSession();
  });
  afterAll(async () => {
    await w.bsk(["session", "stop", s]);
    await w.stop();
  });
}

let n = 0;
const got = async (tab: number) =>
  (await w.ok(["evaluate", "JSON.stringify(got)", "--no-await", "--tab", String(tab), "--session", s])).value as string;

async function blind(on: boolean): Promise<void> {
  const worker = (expression: string) => evaluateInWorker(w.browser.cdpPort!, expression);
  await worker(`chrome.storage.local.${on ? "set({ bsk_test_blind: true })" : 'remove("bsk_test_blind")'}.then(() => true)`);
  await until("the worker to take the hook", async () => (await worker(`globalThis.bskArmedFault?.() ?? null`)) === (on ? "blind" : null));
}

let x: Display | null = null;
const headed = !!Bun.which("Xvfb");
if (!headed) console.warn("input-delivery: Xvfb is not installed (apt-get install xvfb): the print dialog test is skipped");
beforeAll(async () => {
  if (headed) x = await startXvfb();
});
afterAll(() => x?.stop());

describe.skipIf(!headed)("headed: input the page never received is reported as not delivered", () => {
  worldFor(() => x);
  test("under a print dialog bsk cannot see: click, point click, mouse down, press and type all fail input_not_delivered", async () => {
    await blind(true);
    try {
      const tab = (await w.ok(["tab", "create", w.fixtures.url(`/deaf.html?print-${++n}`), "--session", s])).tab_id as number;
      await w.ok(["evaluate", "document.getElementById('t').focus(); 1", "--tab", String(tab), "--session", s]);
      // The page prints on its own (a timer), not from bsk's input: nothing of bsk's waits on it.
      await w.ok(["evaluate", "setTimeout(() => print(), 0); 1", "--tab", String(tab), "--session", s]);
      await until("the print dialog", async () => (await got(tab)).includes("beforeprint"));
      const before = await got(tab);

      const calls: [string, string[]][] = [
        ["click", ["click", "#b"]],
        ["point click", ["click", "--x", "60", "--y", "60"]],
        ["mouse down", ["mouse", "down", "--x", "60", "--y", "60"]],
        ["press", ["press", "Enter"]],
        ["type", ["type", "abc"]],
      ];
      for (const [what, argv] of calls) {
        const opId = `deaf-${++n}`;
        const r = await w.bsk([...argv, "--tab", String(tab), "--session", s, "--op-id", opId, "--json"]);
        const where = `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`;
        expect({ where, code: r.code }).toEqual({ where, code: 11 });
        expect(r.json.error).toMatchObject({ code: "input_not_delivered", data: { tab_id: tab, effect_state: "none" } });
        expect(r.json.effect_state).toBe("none");
        const op = (await w.ok(["ops", "--session", s, "--limit", "20"])).ops.find((o: { op_id: string }) => o.op_id === opId);
        expect({ where, state: op?.state }).toEqual({ where, state: "not_executed" });
      }
      // The words say it too, never "clicked".
      const text = await w.bsk(["click", "#b", "--tab", String(tab), "--session", s]);
      expect(text.code).toBe(11);
      expect(text.stdout).not.toContain("clicked");
      expect(text.stderr).toContain("received none of the input");
      // And the page indeed saw none of it.
      expect(await got(tab)).toBe(before);
      expect(
        (await w.ok(["evaluate", "document.getElementById('t').value + '|' + clicks", "--no-await", "--tab", String(tab), "--session", s]))
          .value,
      ).toBe("|0");
      await w.ok(["tab", "close", String(tab), "--session", s]);
    } finally {
      await blind(false);
    }
  });
});

describe("headless: no false alarm, and a frozen tab", () => {
  worldFor();
  test("the same calls on a tab that hears them still succeed (no false alarm), also into a frame and on a focused frame", async () => {
    const tab = (await w.ok(["tab", "create", w.fixtures.url(`/deaf.html?ok-${++n}`), "--session", s])).tab_id as number;
    const at = ["--tab", String(tab), "--session", s];
    expect((await w.ok(["click", "#b", ...at])).effect.kind).not.toBe("none");
    expect((await w.ok(["click", "--x", "60", "--y", "60", ...at])).effect.kind).not.toBe("none");
    await w.ok(["evaluate", "document.getElementById('t').focus(); 1", ...at]);
    await w.ok(["type", "abc", ...at]);
    await w.ok(["press", "Enter", ...at]);
    expect((await w.ok(["evaluate", "document.getElementById('t').value", ...at])).value).toBe("abc");
    // Input that lands in a child frame fires no event in this document: not known here, so not refused.
    await w.ok(["click", "--x", "100", "--y", "300", ...at]);
    await w.ok(["evaluate", "document.getElementById('frame').contentDocument.getElementById('inner').focus(); 1", ...at]);
    await w.ok(["press", "a", ...at]);
    await w.ok(["tab", "close", String(tab), "--session", s]);
  });

  test("a frozen background tab is resumed by the input, and the reply is true: clicked, the page got it", async () => {
    const marker = `frozen-${++n}`;
    const tab = (await w.ok(["tab", "create", w.fixtures.url(`/deaf.html?${marker}`), "--background", "--session", s])).tab_id as number;
    await until(
      "the page to load",
      async () => (await w.ok(["evaluate", "document.readyState", "--tab", String(tab), "--session", s])).value === "complete",
    );
    await freezePage(w.browser.cdpPort!, marker);
    expect(await got(tab)).toContain("freeze");
    const r = await w.ok(["click", "#b", "--tab", String(tab), "--session", s]);
    expect(r.effect.kind).toBe("dom_changed");
    const seen = JSON.parse(await got(tab)) as string[];
    expect(seen.slice(seen.indexOf("resume"))).toEqual(["resume", "pointerdown", "mousedown", "click"]);
    await w.ok(["tab", "close", String(tab), "--session", s]);
  });
});
