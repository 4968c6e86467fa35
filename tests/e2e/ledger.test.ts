/** The operation ledger with a real browser: a daemon killed mid-click, effect_state, replays by --op-id. */
import { expect, test } from "bun:test";
import { alive, daemonPid } from "./daemon-process.ts";
import { evaluateInPage } from "./devtools.ts";
import { until, useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

/**
 * The page's click counter (localStorage), read by the person in a tab of their own on the same origin: the tab that
 * was clicked has a navigation pending, during which neither bsk nor DevTools can run script in it.
 */
async function clicks(): Promise<number> {
  const marker = "/echo-title/click-counter";
  if (!(await w.person.pages()).some((p) => p.url.includes(marker))) await w.person.openTab(w.fixtures.url(marker));
  // A tab just opened still shows its first blank document (no localStorage) until the page commits.
  const read = await until("the counter page to load", async () => {
    try {
      return { n: Number(await evaluateInPage(w.browser.cdpPort!, marker, "localStorage.getItem('clicks') || '0'")) };
    } catch {
      return undefined;
    }
  });
  return read.n;
}

test("kill -9 while a click is in flight: after the restart the op is unknown, and its op id never clicks again", async () => {
  await w.ok(["navigate", w.fixtures.url("/ledger.html?key=kill9"), "--session", s]);
  const opId = `click-${Date.now()}`;
  const click = w.bsk(["click", "#go", "--session", s, "--op-id", opId, "--json"]);
  // The click's navigation reached the server, which holds it: the click waits for that navigation to commit.
  await w.fixtures.seen("/hold/kill9");
  const pid = daemonPid(w.home);
  process.kill(pid, "SIGKILL");
  await until("the daemon to die", () => !alive(pid));

  const cut = await click;
  expect(cut.code).toBe(2);
  expect(cut.json).toMatchObject({ ok: false, op_id: opId, error: { code: "protocol_error", data: { reason: "connection_lost" } } });
  expect(cut.json.error.hint).toContain(`--op-id ${opId}`);

  // Any command starts a new daemon; its ledger found the click reserved and never settled.
  const ops = await w.ok(["ops", "--session", s]);
  expect(ops.ops.find((o: any) => o.op_id === opId)).toMatchObject({
    method: "click",
    session_id: s,
    state: "unknown",
    effect_state: "unknown",
    reason: "daemon_restarted",
  });
  const human = await w.bsk(["ops", "--state", "unknown"]);
  expect(human.stdout).toContain(`${opId}  unknown`);

  // The page still shows the button (its navigation is held): a retry under the same op id must not click it.
  const again = await w.bsk(["click", "#go", "--session", s, "--op-id", opId, "--json", "--timeout", "20s"]);
  expect(again.json).toMatchObject({
    ok: false,
    op_id: opId,
    replayed: true,
    effect_state: "unknown",
    error: { code: "protocol_error", data: { reason: "daemon_restarted", effect_state: "unknown" } },
  });
  const humanAgain = await w.bsk(["click", "#go", "--session", s, "--op-id", opId]);
  expect(humanAgain.stderr).toContain("effect: unknown");
  expect(humanAgain.stderr).toContain(`op ${opId} already ran`);
  expect(await clicks()).toBe(1);

  // The same op id for another target is another call: refused, and nothing is clicked either.
  const reused = await w.bsk(["click", "h1", "--session", s, "--op-id", opId, "--json"]);
  expect(reused.json).toMatchObject({
    ok: false,
    effect_state: "none",
    error: { code: "invalid_params", data: { reason: "op_id_reused" } },
  });
  expect(await clicks()).toBe(1);
  w.fixtures.release("kill9");
}, 60_000);

test("every mutation reports effect_state; a settled op replays its result, never acting twice", async () => {
  await w.ok(["navigate", w.fixtures.url("/ledger.html?key=replay"), "--session", s]);
  const first = await w.bsk([
    "evaluate",
    "localStorage.setItem('n', String(Number(localStorage.getItem('n') || 0) + 1)); localStorage.getItem('n')",
    "--session",
    s,
    "--op-id",
    "eval-1",
    "--json",
  ]);
  expect(first.json).toMatchObject({ ok: true, op_id: "eval-1", effect_state: "committed" });
  expect(first.json.replayed).toBeUndefined();
  const n = first.json.result.value;
  const second = await w.bsk([
    "evaluate",
    "localStorage.setItem('n', String(Number(localStorage.getItem('n') || 0) + 1)); localStorage.getItem('n')",
    "--session",
    s,
    "--op-id",
    "eval-1",
    "--json",
  ]);
  expect(second.json).toMatchObject({ ok: true, replayed: true, effect_state: "committed", result: { value: n } });
  expect((await w.ok(["evaluate", "localStorage.getItem('n')", "--session", s])).value).toBe(n);

  const refused = await w.bsk(["click", "#nothing-here", "--session", s, "--json"]);
  expect(refused.json).toMatchObject({ ok: false, effect_state: "none", error: { code: "not_found", data: { effect_state: "none" } } });
  // Human output names the effect only when it is unknown.
  const plain = await w.bsk(["evaluate", "1", "--session", s]);
  expect(plain.stderr).not.toContain("effect:");
  // Reads carry no effect_state.
  const read = await w.bsk(["snapshot", "--session", s, "--json"]);
  expect(read.json.effect_state).toBeUndefined();
}, 60_000);

test("a navigation that never reached a server (the name does not resolve) is effect none, its net error named", async () => {
  await w.ok(["navigate", w.fixtures.url("/ledger.html?key=dns"), "--session", s]);
  const r = await w.bsk(["navigate", "http://no-such-host.invalid/pay", "--session", s, "--op-id", "dns-1", "--json"]);
  expect(r.json).toMatchObject({ ok: false, effect_state: "none", error: { code: "cdp_failed", data: { reason: "navigation_failed" } } });
  expect(r.json.error.data.error_text).toContain("ERR_NAME_NOT_RESOLVED");
  const ops = await w.ok(["ops", "--session", s]);
  expect(ops.ops.find((o: { op_id: string }) => o.op_id === "dns-1")).toMatchObject({ state: "not_executed" });
}, 60_000);
