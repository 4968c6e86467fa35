import { z } from "zod";
import { ActionResult, Coordinate, method, Modifiers, RaisedPrompt, Target, tabParams, WheelDelta } from "../define.ts";

const targetPositional = { param: "target", description: "@eN ref or CSS selector", required: true } as const;
const optionalTargetPositional = { param: "target", description: "@eN ref or CSS selector" } as const;
const modifiersFlag = {
  modifiers: { description: "Held keys: Alt, Control, Meta, Shift (repeat or comma-separate)" },
} as const;
const pointFlags = {
  x: { description: "Viewport x in CSS px, 0 to the viewport's width (instead of a target)" },
  y: { description: "Viewport y in CSS px, 0 to the viewport's height (instead of a target)" },
} as const;
const point = () => ({
  x: Coordinate().optional().describe("Viewport x in CSS px"),
  y: Coordinate().optional().describe("Viewport y in CSS px"),
});
const hasTargetOrPoint = (p: { target?: unknown; x?: unknown; y?: unknown }) =>
  p.target !== undefined || (p.x !== undefined && p.y !== undefined);
const targetOrPoint = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object({ ...tabParams(), target: Target().optional(), ...point(), ...shape })
    .refine((p) => hasTargetOrPoint(p as { target?: unknown; x?: unknown; y?: unknown }), {
      message: "give a target (@eN or selector) or both --x and --y",
    });
const targeted = <T extends z.ZodRawShape>(shape: T) => z.object({ ...tabParams(), target: Target(), ...shape });
const button = () => z.enum(["left", "middle", "right"]).default("left").describe("Mouse button");
const modifiers = () => Modifiers().describe("Keys held during the action: Alt, Control, Meta, Shift");
/** A required point (the mouse tools). */
const at = () => ({
  x: Coordinate().describe("Viewport x in CSS px, 0 to the viewport's width"),
  y: Coordinate().describe("Viewport y in CSS px, 0 to the viewport's height"),
});

/** Acting on the page: pointer, keyboard, forms, scrolling, and scripts. */
export const interactionMethods = {
  click: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Click an element (after scroll-into-view, visible, enabled, stable and hit-test checks) or a point; reports the effect.",
    params: () =>
      z
        .object({
          ...tabParams(),
          target: Target().optional(),
          ...point(),
          button: button(),
          count: z.number().int().min(1).max(3).default(1).describe("Click count (2 = double click)"),
          modifiers: modifiers(),
          at: z
            .string()
            .regex(/^\d+(\.\d+)?,\d+(\.\d+)?$/, "X,Y in CSS px, e.g. 20,15")
            .optional()
            .describe("Point relative to the target's top-left, CSS px (X,Y); refused outside the target"),
          capture: z.string().max(64).optional().describe("Capture id from bsk screenshot --ref: click a point of that picture"),
          image_x: Coordinate().optional().describe("x in the capture's image px (with --capture)"),
          image_y: Coordinate().optional().describe("y in the capture's image px (with --capture)"),
        })
        .refine(
          (p) =>
            p.capture !== undefined
              ? p.image_x !== undefined && p.image_y !== undefined && p.target === undefined && p.x === undefined && p.at === undefined
              : hasTargetOrPoint(p) && (p.at === undefined || p.target !== undefined),
          { message: "give a target (@eN or selector, optionally --at X,Y), both --x and --y, or --capture with --image-x and --image-y" },
        ),
    result: ActionResult,
    cli: {
      words: ["click"],
      positionals: [optionalTargetPositional],
      flags: {
        button: { description: "Mouse button" },
        count: { description: "Click count (2 = double click)" },
        ...modifiersFlag,
        ...pointFlags,
        at: { description: "X,Y relative to the target's top-left, CSS px" },
        capture: { description: "Capture id from bsk screenshot --ref" },
        "image-x": { description: "x in the capture's image px" },
        "image-y": { description: "y in the capture's image px" },
      },
      examples: [
        "bsk click @e12 --session $S",
        "bsk click 'button[type=submit]' --session $S",
        "bsk click --x 200 --y 340 --session $S",
        "bsk click @e7 --at 20,15 --session $S",
        "bsk click --capture c1a2b3c4 --image-x 310 --image-y 92 --session $S",
      ],
    },
  }),

  dblclick: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Double-click an element or a point.",
    params: () => targetOrPoint({ modifiers: modifiers() }),
    result: ActionResult,
    cli: { words: ["dblclick"], positionals: [optionalTargetPositional], flags: { ...modifiersFlag, ...pointFlags } },
  }),

  hover: method({
    owner: "extension",
    effect: "TransientInput",
    scope: "tab",
    description: "Move the mouse over an element or a point and keep it there (the next observe sees hover state).",
    params: () => targetOrPoint({ modifiers: modifiers() }),
    result: ActionResult,
    cli: { words: ["hover"], positionals: [optionalTargetPositional], flags: { ...modifiersFlag, ...pointFlags } },
  }),

  fill: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Replace the value of an input, textarea or editable element as typed input, then read it back.",
    params: () => targeted({ value: z.string().max(1_000_000).describe("Text to put in the field") }),
    result: () =>
      ActionResult().extend({
        value_ok: z.boolean().describe("The field reads back exactly the value given"),
        actual: z.string().optional().describe("What the field holds when it differs (masked for secrets)"),
      }),
    redact: ["value"],
    cli: {
      words: ["fill"],
      positionals: [targetPositional, { param: "value", description: "Text (or use --value / --value-file)" }],
      flags: {
        value: {},
        "value-file": { param: "value", type: "file", description: "Read the text from a file (- = stdin): keeps secrets out of argv" },
      },
      examples: ["bsk fill @e5 'Ada Lovelace' --session $S", 'printf %s "$PW" | bsk fill @e6 --value-file - --session $S'],
    },
  }),

  type: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Type text key by key into the focused element, or into a target after focusing it.",
    params: () =>
      z.object({
        ...tabParams(),
        target: Target().optional(),
        text: z.string().max(100_000).describe("Text to type"),
        delay_ms: z.number().int().min(0).max(1000).default(0).describe("Pause between keys"),
      }),
    result: ActionResult,
    redact: ["text"],
    cli: {
      words: ["type"],
      positionals: [{ param: "text", description: "Text to type", required: true }],
      flags: {
        target: { description: "Focus this element first" },
        "text-file": { param: "text", type: "file", description: "Read the text from a file (- = stdin)" },
        delay: { param: "delay_ms", type: "duration" },
      },
    },
  }),

  press: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Press a key or chord (Enter, Escape, ArrowDown, Ctrl+A, Shift+Tab, a), optionally on a target.",
    params: () =>
      z.object({
        ...tabParams(),
        key: z.string().min(1).max(64).describe("Key or chord, e.g. Enter or Ctrl+A"),
        target: Target().optional(),
        count: z.number().int().min(1).max(100).default(1).describe("Press this many times"),
      }),
    result: ActionResult,
    cli: {
      words: ["press"],
      positionals: [{ param: "key", description: "Key or chord, e.g. Enter or Ctrl+A", required: true }],
      flags: {
        target: { description: "Focus this element first" },
        count: { description: "Press this many times" },
      },
    },
  }),

  select: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Choose options of a <select> (or listbox) by value or visible label; several only for multiple selects.",
    params: () => targeted({ values: z.array(z.string()).min(1).describe("Option values or labels") }),
    result: () => ActionResult().extend({ selected: z.array(z.object({ value: z.string(), label: z.string() })) }),
    cli: {
      words: ["select"],
      positionals: [targetPositional, { param: "values", description: "Option value or label (repeat --value for several)" }],
      flags: { value: { param: "values", description: "Option value or label (repeatable)" } },
      examples: ["bsk select @e9 'Germany' --session $S", "bsk select '#toppings' --value cheese --value olives --session $S"],
    },
  }),

  check: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Make a checkbox, radio or switch checked (clicks only when it is not).",
    params: () => targeted({}),
    result: () => ActionResult().extend({ checked: z.boolean() }),
    cli: { words: ["check"], positionals: [targetPositional] },
  }),

  uncheck: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Make a checkbox or switch unchecked (clicks only when it is checked).",
    params: () => targeted({}),
    result: () => ActionResult().extend({ checked: z.boolean() }),
    cli: { words: ["uncheck"], positionals: [targetPositional] },
  }),

  scroll_to: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Scroll an element into view (nearest scrollable ancestors included).",
    params: () => targeted({}),
    result: () =>
      ActionResult().extend({
        box: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).describe("Visible box in the viewport"),
      }),
    cli: { words: ["scroll-to"], positionals: [targetPositional] },
  }),

  wheel: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Turn the mouse wheel over a target (default: the viewport centre) by signed CSS px.",
    params: () =>
      z
        .object({
          ...tabParams(),
          target: Target().optional(),
          dx: WheelDelta().default(0).describe("Horizontal delta in CSS px (positive scrolls right)"),
          dy: WheelDelta().default(0).describe("Vertical delta in CSS px (positive scrolls down)"),
          modifiers: modifiers(),
        })
        .refine((p) => p.dx !== 0 || p.dy !== 0, { message: "give --dx or --dy (non-zero)" }),
    result: () => ActionResult().extend({ scroll: z.object({ x: z.number(), y: z.number() }).describe("Page scroll offset after") }),
    cli: {
      words: ["wheel"],
      positionals: [optionalTargetPositional],
      flags: {
        dx: { description: "Horizontal delta in px" },
        dy: { description: "Vertical delta in px (positive scrolls down)" },
        ...modifiersFlag,
      },
    },
  }),

  focus: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Focus an element.",
    params: () => targeted({}),
    result: ActionResult,
    cli: { words: ["focus"], positionals: [targetPositional] },
  }),

  blur: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Take focus away from an element; says whether it had focus.",
    params: () => targeted({}),
    result: () => ActionResult().extend({ was_focused: z.boolean() }),
    cli: { words: ["blur"], positionals: [targetPositional] },
  }),

  drag: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Drag one element onto another (real mouse input; HTML5 drag and drop through intercepted drag events).",
    params: () => z.object({ ...tabParams(), from: Target(), to: Target() }),
    result: () => ActionResult().extend({ dropped_on: z.object({ ref: z.string().optional(), role: z.string(), name: z.string() }) }),
    cli: {
      words: ["drag"],
      positionals: [
        { param: "from", description: "Element to drag", required: true },
        { param: "to", description: "Element to drop on", required: true },
      ],
    },
  }),

  "mouse.down": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Press a mouse button at a point (canvas, maps); pair with mouse move and mouse up.",
    params: () => z.object({ ...tabParams(), ...at(), button: button(), modifiers: modifiers() }),
    result: ActionResult,
    cli: {
      words: ["mouse", "down"],
      flags: {
        ...pointFlags,
        button: { description: "Mouse button" },
        ...modifiersFlag,
      },
    },
  }),

  "mouse.move": method({
    owner: "extension",
    effect: "TransientInput",
    scope: "tab",
    description: "Move the mouse to a point (with --steps intermediate moves), buttons as they are.",
    params: () =>
      z.object({
        ...tabParams(),
        ...at(),
        steps: z.number().int().min(1).max(100).default(1).describe("Intermediate moves on the way"),
        modifiers: modifiers(),
      }),
    result: ActionResult,
    cli: {
      words: ["mouse", "move"],
      flags: { ...pointFlags, steps: { description: "Intermediate moves" }, ...modifiersFlag },
    },
  }),

  "mouse.up": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Release a mouse button at a point.",
    params: () => z.object({ ...tabParams(), ...at(), button: button(), modifiers: modifiers() }),
    result: ActionResult,
    cli: {
      words: ["mouse", "up"],
      flags: {
        ...pointFlags,
        button: { description: "Mouse button" },
        ...modifiersFlag,
      },
    },
  }),

  evaluate: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description:
      "Run a JavaScript expression in the page (or in an iframe with --frame) and return its JSON value; a throw is evaluation_failed.",
    params: () =>
      z.object({
        ...tabParams(),
        expression: z.string().min(1).describe("JavaScript expression"),
        await_promise: z.boolean().default(true).describe("Await a returned promise"),
        frame: Target().optional().describe("An iframe's ref: evaluate inside that frame (cross-origin included)"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        type: z.string().describe("typeof the value (or 'null', 'array')"),
        value: z.unknown().describe("The value as JSON; undefined becomes null"),
        prompt: RaisedPrompt().optional().describe("A browser prompt the script raised (printing, a permission); it waits for the person"),
      }),
    cli: {
      words: ["evaluate"],
      positionals: [{ param: "expression", description: "JavaScript expression", required: true, rest: true }],
      flags: {
        "no-await": { param: "await_promise", value: false, description: "Do not await a returned promise" },
        frame: { description: "Evaluate inside this iframe (its @eN ref)" },
      },
      examples: [
        "bsk evaluate document.title --session $S",
        "bsk evaluate 'fetch(\"/api/me\").then(r => r.status)'",
        "bsk evaluate location.href --frame @e4",
      ],
    },
  }),
};
