/**
 * The fault matrix: every page-changing method of the catalog (effect class BrowserMutation) is made to fail once
 * before its first input, right after it, and after it finished (the extension's storage-armed test hook,
 * extension/src/session/input-mark.ts), and the reply and the ledger must say no more than is known: `none` /
 * `not_executed` only before anything was sent, `unknown` after. A method without a row here fails the test, so a
 * new mutation cannot skip it; one that dispatches outside `sending()` fails its "before" cell (no fault fires).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EFFECTS, type MethodName } from "../../protocol/catalog.ts";
import { evaluateInWorker } from "./devtools.ts";
import { until, useWorld, type World } from "./harness.ts";
import { tempDir } from "../temp.ts";

let w: World;
let s: string;
useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const dir = tempDir("bsk-fault-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const upload = join(dir, "up.txt");
writeFileSync(upload, "hello");
let n = 0;

type Stage = "before_dispatch" | "after_dispatch" | "after_reaction";
/** What the call needs in place (the fixture page, a dialog, a lent tab), then its argv. */
type Row = () => Promise<string[]>;

const page = () => w.ok(["navigate", w.fixtures.url(`/fault-matrix.html?n=${++n}`), "--session", s]);
/** Runs `steps` in order, then hands back `argv`. */
const after =
  (steps: Array<() => Promise<unknown>>, argv: string[]): Row =>
  async () => {
    for (const step of steps) await step();
    return argv;
  };
const atPage = (argv: string[]): Row => after([page], argv);
const ownTab = async () =>
  (await w.ok(["tab", "create", w.fixtures.url("/fault-matrix.html?tab"), "--background", "--session", s])).tab_id as number;
const chrome = (expression: string) => w.person.asExtension(expression);

async function personTab(): Promise<number> {
  await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
  return w.person.openInOwnWindow(w.fixtures.url(`/borrow-form.html?fault-${++n}`));
}

const ROWS: Record<string, Row> = {
  click: atPage(["click", "#b"]),
  dblclick: atPage(["dblclick", "#b"]),
  fill: atPage(["fill", "#t", "x"]),
  type: atPage(["type", "abc", "--target", "#t"]),
  press: atPage(["press", "Tab"]),
  select: atPage(["select", "#s", "b"]),
  check: atPage(["check", "#c"]),
  uncheck: atPage(["uncheck", "#c2"]),
  scroll_to: atPage(["scroll-to", "#far"]),
  wheel: atPage(["wheel", "--dy", "100"]),
  focus: atPage(["focus", "#t"]),
  blur: atPage(["blur", "#t"]),
  drag: atPage(["drag", "#d1", "#d2"]),
  "mouse.down": atPage(["mouse", "down", "--x", "20", "--y", "20"]),
  "mouse.up": atPage(["mouse", "up", "--x", "20", "--y", "20"]),
  evaluate: atPage(["evaluate", "window.touched = true"]),
  navigate: atPage(["navigate", w_url("/echo-title/next")]),
  "navigate.back": after([page, page], ["navigate", "back"]),
  "navigate.forward": after([page, page, () => w.ok(["navigate", "back", "--session", s])], ["navigate", "forward"]),
  reload: atPage(["reload"]),
  emulate: atPage(["emulate", "--width", "800", "--height", "600"]),
  "window.resize": atPage(["window", "resize", "--width", "900", "--height", "700"]),
  upload: atPage(["upload", "#f", "--file", upload]),
  download: atPage(["download", "#dl", "--out", join(dir, `notes-${n}.txt`)]),
  "dialog.accept": after([page, () => openDialog()], ["dialog", "accept"]),
  "dialog.dismiss": after([page, () => openDialog()], ["dialog", "dismiss"]),
  "tab.create": async () => ["tab", "create", w_url("/echo-title/created"), "--background"],
  "tab.select": async () => ["tab", "select", String(await ownTab())],
  "tab.close": async () => ["tab", "close", String(await ownTab())],
  "tab.borrow": async () => ["tab", "borrow", String(await personTab())],
  "tab.return": async () => {
    const id = await personTab();
    await w.ok(["tab", "borrow", String(id), "--session", s]);
    return ["tab", "return", String(id)];
  },
};

/** The fixture URL for `path` (a function: the world exists only once the tests run). */
function w_url(path: string): string {
  return `__fixture__${path}`;
}
const resolve = (argv: string[]) => argv.map((a) => (a.startsWith("__fixture__") ? w.fixtures.url(a.slice("__fixture__".length)) : a));

async function openDialog(): Promise<void> {
  await w.ok(["evaluate", "setTimeout(() => alert('hello'), 0); 1", "--session", s]);
  await until("the dialog to open", async () => (await w.ok(["dialog", "status", "--session", s])).open);
}

async function arm(method: string, stage: Stage): Promise<void> {
  const fault = JSON.stringify({ method, stage });
  await evaluateInWorker(w.browser.cdpPort!, `chrome.storage.local.set({ bsk_test_fault: ${fault} }).then(() => true)`);
  await until(
    "the worker to hold the fault",
    async () => (await evaluateInWorker(w.browser.cdpPort!, `JSON.stringify(globalThis.bskArmedFault?.() ?? null)`)) === fault,
  );
}

async function disarm(): Promise<void> {
  await evaluateInWorker(w.browser.cdpPort!, `chrome.storage.local.remove("bsk_test_fault").then(() => true)`);
  await until(
    "the worker to drop the fault",
    async () => (await evaluateInWorker(w.browser.cdpPort!, `globalThis.bskArmedFault?.() ?? null`)) === null,
  );
}

const mutations = (Object.keys(EFFECTS) as MethodName[]).filter((m) => EFFECTS[m] === "BrowserMutation");

describe("fault matrix: every page-changing method, failed before, right after and after its input", () => {
  test("every mutation of the catalog has a row", () => {
    expect(mutations.filter((m) => !ROWS[m])).toEqual([]);
  });

  const expected: Record<Stage, { effect: string; ledger: string }> = {
    before_dispatch: { effect: "none", ledger: "not_executed" },
    after_dispatch: { effect: "unknown", ledger: "unknown" },
    after_reaction: { effect: "unknown", ledger: "unknown" },
  };

  for (const method of mutations) {
    test(`${method}`, async () => {
      for (const stage of Object.keys(expected) as Stage[]) {
        const argv = resolve(await ROWS[method]!());
        await arm(method, stage);
        const opId = `fault-${method}-${stage}-${++n}`;
        const r = await w.bsk([...argv, "--session", s, "--op-id", opId, "--json"]);
        await disarm();
        const where = `${method} at ${stage}: exit ${r.code}\n${r.stdout}\n${r.stderr}`;
        if (r.json?.ok !== false || r.json.error.data?.reason !== "injected_fault") throw new Error(`the fault did not fire: ${where}`);
        expect({ where, effect: r.json.effect_state }).toEqual({ where, effect: expected[stage].effect });
        const op = (await w.ok(["ops", "--session", s, "--limit", "20"])).ops.find((o: { op_id: string }) => o.op_id === opId);
        expect({ where, state: op?.state }).toEqual({ where, state: expected[stage].ledger });
        // A dialog left open by a failed accept/dismiss would hold the next call.
        await w.bsk(["dialog", "dismiss", "--session", s, "--json"]);
      }
    }, 120_000);
  }
});
