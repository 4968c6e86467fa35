import { describe, expect, test } from "bun:test";
import { allowance, Attribution, INPUT_COMMAND, makesHandEvents } from "../../extension/src/features/hands/attribution.ts";
import type { HandEvent } from "../../extension/src/shared/messages/hands.ts";

const ev = (seq: number, kind: HandEvent["kind"], doc = "d1"): HandEvent => ({ doc, seq, kind });
const press = { type: "mousePressed" };

describe("whose hands", () => {
  test("outside the agent's input, any hand event is the person's, once", () => {
    const a = new Attribution();
    expect(a.reported(ev(1, "keydown"), 0)).toBe(true);
    expect(a.reported(ev(1, "keydown"), 0)).toBe(false);
    expect(a.reported(ev(2, "beforeinput"), 0)).toBe(true);
  });

  test("the agent's own click is never the person's, whether its report comes before or after the drain", () => {
    const a = new Attribution();
    a.agentSends("Input.dispatchMouseEvent", { type: "mouseMoved" });
    a.agentSends("Input.dispatchMouseEvent", press);
    a.agentSends("Input.dispatchMouseEvent", { type: "mouseReleased" });
    // The page's report arrives while the commands are in flight: the drain decides.
    expect(a.reported(ev(1, "pointerdown"), 0)).toBe(false);
    expect([a.agentAnswered(), a.agentAnswered(), a.agentAnswered()]).toEqual([false, false, true]);
    expect(a.drained([{ doc: "d1", events: [ev(1, "pointerdown")] }], a.generation, 10)).toBe(false);
    expect(a.agentActing).toBe(false);
    // A late report of the same event after the window closed.
    expect(a.reported(ev(1, "pointerdown"), 20)).toBe(false);
  });

  test("the person's press or key beyond what the agent's commands can make is theirs, also during the agent's input", () => {
    const a = new Attribution();
    a.agentSends("Input.dispatchKeyEvent", { type: "keyDown", text: "a" });
    a.agentSends("Input.dispatchKeyEvent", { type: "keyUp" });
    a.agentAnswered();
    a.agentAnswered();
    const frames = [{ doc: "d1", events: [ev(1, "keydown"), ev(2, "beforeinput"), ev(3, "keydown"), ev(4, "beforeinput")] }];
    expect(a.drained(frames, a.generation, 10)).toBe(true);
  });

  test("edits during the agent's input are its own (inserted text); a press in another frame counts against the same allowance", () => {
    const a = new Attribution();
    a.agentSends("Input.insertText", { text: "hello" });
    a.agentSends("Input.dispatchMouseEvent", press);
    a.agentAnswered();
    a.agentAnswered();
    const frames = [
      { doc: "top", events: [ev(1, "beforeinput", "top")] },
      { doc: "frame", events: [ev(1, "pointerdown", "frame")] },
    ];
    expect(a.drained(frames, a.generation, 10)).toBe(false);
  });

  test("a drain that started before newer input classifies but leaves the window open", () => {
    const a = new Attribution();
    a.agentSends("Input.dispatchMouseEvent", press);
    a.agentAnswered();
    const gen = a.generation;
    a.agentSends("Input.dispatchMouseEvent", press);
    expect(a.drained([{ doc: "d1", events: [ev(1, "pointerdown")] }], gen, 10)).toBe(false);
    expect(a.agentActing).toBe(true);
    a.agentAnswered();
    expect(a.drained([{ doc: "d1", events: [ev(1, "pointerdown"), ev(2, "pointerdown")] }], a.generation, 20)).toBe(false);
    expect(a.agentActing).toBe(false);
  });

  test("a report from a document the last drain did not reach is not decided right after it (it may be the agent's)", () => {
    const a = new Attribution();
    a.agentSends("Input.dispatchMouseEvent", press);
    a.agentAnswered();
    expect(a.drained([{ doc: "new", events: [] }], a.generation, 100)).toBe(false);
    expect(a.reported(ev(1, "pointerdown", "gone"), 200)).toBe(false);
    expect(a.reported(ev(1, "pointerdown", "new"), 200)).toBe(true);
    expect(a.reported(ev(2, "pointerdown", "gone"), 5000)).toBe(true);
  });

  test("a restarted worker's first drain returns the old life's keys and presses: none is the person's, newer ones are", () => {
    const born = 1_000_000;
    const a = new Attribution(born);
    const old = (seq: number, kind: HandEvent["kind"]) => ({ ...ev(seq, kind), at: born - 500 + seq });
    a.agentSends("Input.dispatchMouseEvent", press);
    a.agentAnswered();
    const frames = [
      { doc: "d1", events: [old(1, "keydown"), old(2, "keydown"), old(3, "pointerdown"), { ...ev(4, "pointerdown"), at: born + 10 }] },
    ];
    // Without the time check: three presses and keys beyond the one the click allows.
    expect(a.drained(frames, a.generation, 10)).toBe(false);
    expect(a.reported({ ...ev(5, "keydown"), at: born - 1 }, 20)).toBe(false);
    expect(a.reported({ ...ev(6, "keydown"), at: born + 2000 }, 2000)).toBe(true);
    // The old life's report arriving late is not the person's either; a report without a time is judged as before.
    const b = new Attribution(born);
    expect(b.reported({ ...ev(1, "keydown", "d2"), at: born - 100 }, 0)).toBe(false);
    expect(b.reported(ev(2, "keydown", "d2"), 0)).toBe(true);
  });

  test("which commands are input and what each allows", () => {
    expect(
      [
        "Input.dispatchMouseEvent",
        "Input.dispatchKeyEvent",
        "Input.insertText",
        "Input.dispatchTouchEvent",
        "Input.dispatchDragEvent",
        "Input.imeSetComposition",
      ].every((m) => INPUT_COMMAND.test(m)),
    ).toBe(true);
    expect(INPUT_COMMAND.test("Input.setInterceptDrags")).toBe(false);
    expect(allowance("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{}, {}] })).toEqual({ pointerdown: 2 });
    expect(allowance("Input.dispatchKeyEvent", { type: "rawKeyDown" })).toEqual({ keydown: 1 });
    expect(allowance("Input.dispatchMouseEvent", { type: "mouseWheel" })).toEqual({});
  });

  test("moves and wheel turns open no agent window (nothing to drain after a hover); presses, keys, text and drops do", () => {
    expect(makesHandEvents("Input.dispatchMouseEvent", { type: "mouseMoved", buttons: 1 })).toBe(false);
    expect(makesHandEvents("Input.dispatchMouseEvent", { type: "mouseWheel" })).toBe(false);
    for (const [method, params] of [
      ["Input.dispatchMouseEvent", { type: "mousePressed" }],
      ["Input.dispatchMouseEvent", { type: "mouseReleased" }],
      ["Input.dispatchKeyEvent", { type: "keyDown" }],
      ["Input.insertText", { text: "a" }],
      ["Input.dispatchDragEvent", { type: "drop" }],
      ["Input.dispatchTouchEvent", { type: "touchStart" }],
    ] as const)
      expect(makesHandEvents(method, params)).toBe(true);
    expect(makesHandEvents("Runtime.evaluate", {})).toBe(false);
  });
});
