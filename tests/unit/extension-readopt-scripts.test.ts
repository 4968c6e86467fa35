/**
 * A re-adopted attachment (the worker restarted) keeps the scripts it registered: the observer's and the recorder's
 * are not added again, only their bindings (tests/unit/worker/readopt-scripts.ts, a process of its own with a fake
 * browser). Before, each restart added them once more: they ran once more in every later document, and the
 * recorder's earlier registration was no longer the one its recording removes when it ends.
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

test("--observe dom: a re-adopted attachment adds the observer's binding again, never its script", async () => {
  const r = await workerAnswer(import.meta.dir, "worker/readopt-scripts.ts");
  expect(r.fresh).toEqual(["Runtime.addBinding", "Page.addScriptToEvaluateOnNewDocument"]);
  expect(r.readopted).toEqual(["Runtime.addBinding"]);
});

test("a recording: a re-adopted attachment binds the recorder again and keeps the registration its id names", async () => {
  const r = await workerAnswer(import.meta.dir, "worker/readopt-scripts.ts");
  expect(r.recorder).toEqual({
    fresh: ["Runtime.addBinding", "Page.addScriptToEvaluateOnNewDocument"],
    readopted: ["Runtime.addBinding"],
    kept_id: true,
  });
});
