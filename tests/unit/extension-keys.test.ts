/** Key table and chords for CDP key events (extension/src/page/input/keys.ts). */
import { describe, expect, test } from "bun:test";
import { charEvents, chordEvents, keyByName, parseChord } from "../../extension/src/page/input/keys.ts";
import { BskError } from "../../protocol/errors.ts";

describe("chords", () => {
  test("names, aliases and modifiers", () => {
    expect(parseChord("Enter")).toEqual({
      modifiers: [],
      key: expect.objectContaining({ key: "Enter", code: "Enter", keyCode: 13, text: "\r" }),
    });
    expect(parseChord("ctrl+a").modifiers).toEqual(["Control"]);
    expect(parseChord("Ctrl+Shift+Tab")).toMatchObject({ modifiers: ["Control", "Shift"], key: { key: "Tab", keyCode: 9 } });
    expect(parseChord("Cmd+Enter").modifiers).toEqual(["Meta"]);
    expect(parseChord("esc").key.key).toBe("Escape");
    expect(parseChord("PgDn").key.key).toBe("PageDown");
    expect(parseChord("Space").key).toMatchObject({ key: " ", code: "Space", text: " " });
    expect(parseChord("F5").key).toMatchObject({ key: "F5", keyCode: 116 });
    expect(parseChord("Ctrl++").key).toMatchObject({ key: "+", code: "Equal" });
    expect(parseChord("+").key.key).toBe("+");
    expect(parseChord("Shift").key).toMatchObject({ key: "Shift", code: "ShiftLeft", location: 1 });
    expect(parseChord("A").key).toMatchObject({ key: "A", shift: true });
    expect(keyByName("é")).toMatchObject({ key: "é", text: "é", keyCode: 0 });
  });

  test("bad chords are invalid_params with a hint", () => {
    for (const bad of ["", "Hyper+A", "Ctrl+", "Ctrl+Nope", "Ctrl++A"]) {
      expect(() => parseChord(bad)).toThrow(BskError);
    }
    try {
      parseChord("Ctrl+Nope");
    } catch (e) {
      expect((e as BskError).code).toBe("invalid_params");
      expect((e as BskError).hint).toContain("Ctrl+A");
    }
  });

  test("Ctrl+A: modifier down, key without text, key up, modifier up", () => {
    const ev = chordEvents(parseChord("Ctrl+A"));
    expect(ev.map((e) => `${e.type}:${e.key}:${e.modifiers}`)).toEqual([
      "rawKeyDown:Control:2",
      "rawKeyDown:a:2",
      "keyUp:a:2",
      "keyUp:Control:0",
    ]);
    expect(ev[1]!.text).toBeUndefined();
    expect(ev[1]).toMatchObject({ code: "KeyA", windowsVirtualKeyCode: 65 });
  });

  test("Enter types \\r; Shift+a types A; Meta+A on macOS is the selectAll command", () => {
    expect(chordEvents(parseChord("Enter"))[0]).toMatchObject({ type: "keyDown", text: "\r" });
    const shifted = chordEvents(parseChord("Shift+a"));
    expect(shifted[1]).toMatchObject({ type: "keyDown", key: "A", text: "A", modifiers: 8 });
    expect(chordEvents(parseChord("Meta+A"), { mac: true })[1]!.commands).toEqual(["selectAll"]);
    expect(chordEvents(parseChord("Meta+A"))[1]!.commands).toBeUndefined();
  });
  test("no key event asks the browser to take what the page leaves (no nativeVirtualKeyCode, on any platform)", () => {
    const all = [
      ...["Ctrl+W", "Ctrl+Shift+N", "Enter", "Escape", "F12", "Alt+F4", "Meta+Q"].flatMap((c) => [
        ...chordEvents(parseChord(c)),
        ...chordEvents(parseChord(c), { mac: true }),
      ]),
      ...[..."aZ!é "].flatMap((ch) => charEvents(ch) ?? []),
    ];
    expect(all.length).toBeGreaterThan(20);
    for (const e of all) expect(Object.keys(e)).not.toContain("nativeVirtualKeyCode");
  });
});

describe("typing", () => {
  test("US layout characters are keys; others are inserted as text", () => {
    expect(charEvents("a")!.map((e) => e.type)).toEqual(["keyDown", "keyUp"]);
    expect(charEvents("!")![0]).toMatchObject({ key: "!", code: "Digit1", modifiers: 8, text: "!" });
    expect(charEvents("\n")![0]).toMatchObject({ key: "Enter", text: "\r" });
    expect(charEvents("中")).toBeNull();
    expect(charEvents("😀")).toBeNull();
  });
});

describe("the input's last events (a read sent along waits for them)", () => {
  test("typing counts one keyup per key-typed character, and none when the last goes in as text", async () => {
    const { chordKeyUps, typedKeyUps } = await import("../../extension/src/page/input/keyboard.ts");
    expect(typedKeyUps("abc")).toBe(3);
    expect(typedKeyUps("Ab!\n")).toBe(4);
    expect(typedKeyUps("中a")).toBe(1);
    expect(typedKeyUps("a中")).toBeNull();
    expect(typedKeyUps("")).toBeNull();
    expect(chordKeyUps(parseChord("Ctrl+Shift+B"), 2)).toBe(6);
  });
});
