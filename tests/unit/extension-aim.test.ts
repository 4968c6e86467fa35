/**
 * Keys are bound to their aim (extension/src/page/input/aim.ts) and the focus check fails closed: when the check
 * itself fails in the page (it throws, or answers nothing readable), the keys are taken as no longer aimed, delivery
 * stops, and the reply says how much went in (effect_state committed), never that the input went on. Before, an
 * exception in the check read as "still aimed" and the rest of the keys went in. The page's answer is injected in a
 * process of its own with a fake browser (tests/unit/worker/aim-check.ts).
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

test("a focus check that throws or answers nothing readable stops the keys: input_diverted, reason focus_unknown", async () => {
  const r = await workerAnswer(import.meta.dir, "worker/aim-check.ts");
  expect(r.checks).toBe(4);
  for (const name of ["threw", "no_value", "unreadable"]) {
    expect(r[name].code).toBe("input_diverted");
    expect(r[name].data).toEqual({
      tab_id: 7,
      effect_state: "committed",
      delivered: 1,
      uncertain: 1,
      not_sent: 3,
      total: 5,
      reason: "focus_unknown",
    });
    expect(r[name].message).toContain("bsk sent no more");
    expect(r[name].message).toContain("could not see where the focus is");
    expect(r[name].hint).toContain("could not confirm");
  }
  // The check's answer "still aimed" lets the keys go on.
  expect(r.aimed).toEqual({ aimed: true });
});
