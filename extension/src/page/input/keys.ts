/**
 * Keys as CDP's Input.dispatchKeyEvent wants them (US layout): `key`, `code`, `windowsVirtualKeyCode`, the text a key
 * types, and chords such as `Ctrl+A` or `Shift+Tab`. Pure, so the table and the chord parser are unit-tested.
 */
import { BskError } from "../../../../protocol/errors.ts";

export type Modifier = "Alt" | "Control" | "Meta" | "Shift";

/** CDP's modifiers bit field. */
export const MODIFIER_BIT: Record<Modifier, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

export interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  /** What the key types (absent for keys that type nothing, like Tab or ArrowDown). */
  text?: string;
  /** Typing this character needs Shift held (e.g. "A", "!"). */
  shift?: boolean;
  /** 1 = left (modifiers), 3 = numpad. */
  location?: number;
}

const NAMED: KeyDef[] = [
  { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  { key: "Tab", code: "Tab", keyCode: 9 },
  { key: "Backspace", code: "Backspace", keyCode: 8 },
  { key: "Delete", code: "Delete", keyCode: 46 },
  { key: "Escape", code: "Escape", keyCode: 27 },
  { key: "Insert", code: "Insert", keyCode: 45 },
  { key: "Home", code: "Home", keyCode: 36 },
  { key: "End", code: "End", keyCode: 35 },
  { key: "PageUp", code: "PageUp", keyCode: 33 },
  { key: "PageDown", code: "PageDown", keyCode: 34 },
  { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  { key: "CapsLock", code: "CapsLock", keyCode: 20 },
  { key: "ContextMenu", code: "ContextMenu", keyCode: 93 },
  { key: "Shift", code: "ShiftLeft", keyCode: 16, location: 1 },
  { key: "Control", code: "ControlLeft", keyCode: 17, location: 1 },
  { key: "Alt", code: "AltLeft", keyCode: 18, location: 1 },
  { key: "Meta", code: "MetaLeft", keyCode: 91, location: 1 },
  ...Array.from({ length: 12 }, (_, i) => ({ key: `F${i + 1}`, code: `F${i + 1}`, keyCode: 112 + i })),
];

/** [code, keyCode, unshifted, shifted] for the printable keys other than letters. */
const PRINTABLE: [string, number, string, string][] = [
  ["Digit1", 49, "1", "!"],
  ["Digit2", 50, "2", "@"],
  ["Digit3", 51, "3", "#"],
  ["Digit4", 52, "4", "$"],
  ["Digit5", 53, "5", "%"],
  ["Digit6", 54, "6", "^"],
  ["Digit7", 55, "7", "&"],
  ["Digit8", 56, "8", "*"],
  ["Digit9", 57, "9", "("],
  ["Digit0", 48, "0", ")"],
  ["Minus", 189, "-", "_"],
  ["Equal", 187, "=", "+"],
  ["BracketLeft", 219, "[", "{"],
  ["BracketRight", 221, "]", "}"],
  ["Backslash", 220, "\\", "|"],
  ["Semicolon", 186, ";", ":"],
  ["Quote", 222, "'", '"'],
  ["Comma", 188, ",", "<"],
  ["Period", 190, ".", ">"],
  ["Slash", 191, "/", "?"],
  ["Backquote", 192, "`", "~"],
];

/** Character → key that types it. */
const BY_CHAR = new Map<string, KeyDef>();
/** Lower-case name → key. */
const BY_NAME = new Map<string, KeyDef>();

for (let i = 0; i < 26; i++) {
  const lower = String.fromCharCode(97 + i);
  const upper = lower.toUpperCase();
  const code = `Key${upper}`;
  BY_CHAR.set(lower, { key: lower, code, keyCode: 65 + i, text: lower });
  BY_CHAR.set(upper, { key: upper, code, keyCode: 65 + i, text: upper, shift: true });
}
for (const [code, keyCode, plain, shifted] of PRINTABLE) {
  BY_CHAR.set(plain, { key: plain, code, keyCode, text: plain });
  BY_CHAR.set(shifted, { key: shifted, code, keyCode, text: shifted, shift: true });
}
const SPACE: KeyDef = { key: " ", code: "Space", keyCode: 32, text: " " };
BY_CHAR.set(" ", SPACE);
for (const k of NAMED) BY_NAME.set(k.key.toLowerCase(), k);
BY_CHAR.set("\n", BY_NAME.get("enter")!);
BY_CHAR.set("\r", BY_NAME.get("enter")!);
BY_CHAR.set("\t", BY_NAME.get("tab")!);

const KEY_ALIASES: Record<string, string> = {
  esc: "escape",
  return: "enter",
  del: "delete",
  ins: "insert",
  up: "arrowup",
  down: "arrowdown",
  left: "arrowleft",
  right: "arrowright",
  pgup: "pageup",
  pgdn: "pagedown",
  pagedn: "pagedown",
  bksp: "backspace",
  menu: "contextmenu",
};

const MODIFIER_ALIASES: Record<string, Modifier> = {
  alt: "Alt",
  option: "Alt",
  opt: "Alt",
  ctrl: "Control",
  control: "Control",
  ctl: "Control",
  meta: "Meta",
  cmd: "Meta",
  command: "Meta",
  win: "Meta",
  super: "Meta",
  os: "Meta",
  shift: "Shift",
};

/** The key that types `ch` (one code point), or undefined when the US layout has none (é, 中, emoji). */
export function keyForChar(ch: string): KeyDef | undefined {
  return BY_CHAR.get(ch);
}

/** A key by name (Enter, esc, ArrowDown, F5, Space) or as the single character it types. */
export function keyByName(name: string): KeyDef | undefined {
  const lower = name.toLowerCase();
  if (lower === "space" || lower === "spacebar") return SPACE;
  if (lower === "plus") return BY_CHAR.get("+");
  const named = BY_NAME.get(KEY_ALIASES[lower] ?? lower);
  if (named) return named;
  if ([...name].length === 1) return BY_CHAR.get(name) ?? { key: name, code: "", keyCode: 0, text: name };
  return undefined;
}

export interface Chord {
  modifiers: Modifier[];
  key: KeyDef;
}

function badKey(spec: string, why: string): BskError {
  return new BskError("invalid_params", `cannot press ${JSON.stringify(spec)}: ${why}`, {
    hint: "Use a key name (Enter, Tab, Escape, ArrowDown, PageDown, F5, Space) or one character, with modifiers joined by +, e.g. Ctrl+A, Shift+Tab, Meta+Enter.",
  });
}

/** "Ctrl+Shift+Tab" → modifiers [Control, Shift] + Tab. A trailing "+" is the plus key ("Ctrl++"). */
export function parseChord(spec: string): Chord {
  const text = spec.trim();
  if (!text) throw badKey(spec, "no key given");
  let parts: string[];
  if (text === "+") parts = ["+"];
  else if (text.endsWith("++")) parts = [...text.slice(0, -2).split("+"), "+"];
  else parts = text.split("+");
  const keyName = parts.pop()!.trim();
  const modifiers: Modifier[] = [];
  for (const raw of parts) {
    const m = MODIFIER_ALIASES[raw.trim().toLowerCase()];
    if (!m) throw badKey(spec, raw.trim() ? `${JSON.stringify(raw.trim())} is not a modifier (Ctrl, Alt, Shift, Meta)` : "empty part");
    if (!modifiers.includes(m)) modifiers.push(m);
  }
  if (!keyName) throw badKey(spec, "no key after the modifiers");
  const modifierKey = MODIFIER_ALIASES[keyName.toLowerCase()];
  // "Ctrl+A" means the A key, not a shifted "A"; Shift is given explicitly (Ctrl+Shift+A).
  const name = modifiers.length > 0 && /^[A-Z]$/.test(keyName) ? keyName.toLowerCase() : keyName;
  const key = modifierKey ? BY_NAME.get(modifierKey.toLowerCase())! : keyByName(name);
  if (!key) throw badKey(spec, `unknown key ${JSON.stringify(keyName)}`);
  return { modifiers, key };
}

export function modifierBits(modifiers: readonly Modifier[]): number {
  let bits = 0;
  for (const m of modifiers) bits |= MODIFIER_BIT[m];
  return bits;
}

/**
 * One Input.dispatchKeyEvent's params. Never a `nativeVirtualKeyCode`: it is what asks Chromium to hand a key the
 * page did not take on to the browser itself, whose shortcuts would then run (Ctrl+W closes the tab, Ctrl+N opens a
 * window outside the Agent Window; a raw CDP client gets exactly that), and macOS reads it as a Mac key code (Enter's
 * 13 is W there). Chromium does not pass an extension's keys on today; bsk does not ask, so a key the page leaves
 * alone goes nowhere whatever the browser's policy (actions.test.ts, "the browser's own shortcuts").
 */
export interface KeyEvent {
  type: "keyDown" | "rawKeyDown" | "keyUp";
  key: string;
  code: string;
  windowsVirtualKeyCode: number;
  modifiers: number;
  text?: string;
  unmodifiedText?: string;
  location?: number;
  commands?: string[];
}

/** macOS editing shortcuts are not bound to keys in the renderer; CDP takes them as commands instead. */
const MAC_COMMANDS: Record<string, string> = { a: "selectAll", c: "copy", x: "cut", v: "paste", z: "undo" };

function down(k: KeyDef, modifiers: number, text: string | undefined): KeyEvent {
  const e: KeyEvent = {
    type: text ? "keyDown" : "rawKeyDown",
    key: k.key,
    code: k.code,
    windowsVirtualKeyCode: k.keyCode,
    modifiers,
  };
  if (text) {
    e.text = text;
    e.unmodifiedText = text;
  }
  if (k.location) e.location = k.location;
  return e;
}

function up(k: KeyDef, modifiers: number): KeyEvent {
  const e: KeyEvent = {
    type: "keyUp",
    key: k.key,
    code: k.code,
    windowsVirtualKeyCode: k.keyCode,
    modifiers,
  };
  if (k.location) e.location = k.location;
  return e;
}

/**
 * The events of one chord: each modifier down (in order), the key down and up, the modifiers up (in reverse).
 * A key held with Control, Alt or Meta types no text (Ctrl+A selects, it does not type "a").
 */
export function chordEvents(chord: Chord, opts: { mac?: boolean } = {}): KeyEvent[] {
  const events: KeyEvent[] = [];
  let bits = 0;
  for (const m of chord.modifiers) {
    bits |= MODIFIER_BIT[m];
    events.push(down(BY_NAME.get(m.toLowerCase())!, bits, undefined));
  }
  let key = chord.key;
  const shifted = chord.modifiers.includes("Shift");
  // Shift+a is "A"; Shift+1 is "!".
  if (shifted && key.text && key.text.length === 1 && !key.shift) {
    const upper = [...BY_CHAR.values()].find((k) => k.code === key.code && k.shift && k.code !== "");
    if (upper) key = upper;
  }
  const typesText = key.text !== undefined && (bits & (MODIFIER_BIT.Control | MODIFIER_BIT.Alt | MODIFIER_BIT.Meta)) === 0;
  const main = down(key, bits | (key.shift ? MODIFIER_BIT.Shift : 0), typesText ? key.text : undefined);
  if (opts.mac && bits === MODIFIER_BIT.Meta && MAC_COMMANDS[key.key.toLowerCase()]) main.commands = [MAC_COMMANDS[key.key.toLowerCase()]!];
  events.push(main);
  events.push(up(key, bits | (key.shift ? MODIFIER_BIT.Shift : 0)));
  for (const m of [...chord.modifiers].reverse()) {
    bits &= ~MODIFIER_BIT[m];
    events.push(up(BY_NAME.get(m.toLowerCase())!, bits));
  }
  return events;
}

/** Key down + up for one typed character, or null when no key types it (then it is inserted as text). */
export function charEvents(ch: string): KeyEvent[] | null {
  const k = keyForChar(ch);
  if (!k) return null;
  const bits = k.shift ? MODIFIER_BIT.Shift : 0;
  return [down(k, bits, k.text), up(k, bits)];
}
