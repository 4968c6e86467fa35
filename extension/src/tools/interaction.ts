/**
 * Acting on the page: pointer, keyboard, forms, scrolling and scripts. Every action resolves its target
 * (refs/resolve.ts), checks it is actionable (actionability.ts), sends real CDP input (input/), and reports what it
 * acted on and the effect the browser reported (effects.ts).
 */
import type { Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import type { interactionMethods } from "../../../protocol/methods/interaction.ts";
import { actedOn, actionable, resolveActionable, type ActOptions } from "../page/actionability.ts";
import { captureOf, pointOf } from "../page/captures.ts";
import { mainFrameId, sendTo } from "../cdp/debugger.ts";
import { drag, isDraggable } from "../page/input/drag.ts";
import { armElementProbe, withEffect, type ActionEffect, type DomProbe, type ElementProbe } from "../page/effects.ts";
import { besideChecks, frontTab, frontTabAhead } from "../page/shown.ts";
import { painted } from "../page/painted.ts";
import {
  CHECK_STATE_FN,
  checkState,
  type CheckState,
  fillRefused,
  FIRST_LABEL_FN,
  focusElement,
  focusInPage,
  LISTBOX_OPTION_FN,
  prepareFillInPage,
  READ_VALUE_FN,
  selectInPage,
  setValue,
  type FillPrep,
  type SelectReply,
} from "../page/forms.ts";
import { frameContext } from "../page/frame-eval.ts";
import { callOn } from "../cdp/page-call.ts";
import { worldOf } from "../cdp/frames.ts";
import { chordKeyUps, insertText, pressChord, typedKeyUps, typeText } from "../page/input/keyboard.ts";
import { keyByName, parseChord, type Modifier } from "../page/input/keys.ts";
import { click, mousePosition, moveTo, press, release, wheel, type Button } from "../page/input/mouse.ts";
import { atPoint } from "../page/input/point.ts";
import { bindKeys, type Aim } from "../page/input/aim.ts";
import { resolveTarget, resolveWith, tabOf } from "../cdp/refs/resolve.ts";
import type { ResolvedTarget, TabAhead } from "../cdp/refs/target.ts";
import { resolveTab } from "../session/sessions.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { sending, withEffectState } from "../session/input-mark.ts";

type ActionResult = Result<"click">;
type Acted = ActionResult["target"];

const probeOf = (rt: ResolvedTarget): DomProbe => ({ target: rt.cdp, objectId: rt.objectId });

function whatOf(rt: ResolvedTarget): string {
  return `${rt.ref ? `${rt.ref} ` : ""}${rt.role}${rt.name ? ` ${JSON.stringify(rt.name)}` : ""}`;
}

function targetOrPoint(p: { target?: string; x?: number; y?: number }): void {
  if (p.target !== undefined && (p.x !== undefined || p.y !== undefined)) {
    throw new BskError("invalid_params", "give a target or --x/--y, not both", {
      hint: "Use the target (@eN or selector), or a viewport point.",
    });
  }
}

/** An action at a viewport point: no element checks; the result names what was under the point. */
async function atPointAction(
  tabId: number,
  x: number,
  y: number,
  signal: AbortSignal,
  input: () => Promise<unknown>,
  opts: { verify?: boolean } = {},
): Promise<ActionResult> {
  const pt = await atPoint(tabId, x, y, signal);
  const effect = await withEffect(tabId, pt.world, signal, input, opts);
  return { tab_id: tabId, target: pt.hit, effect };
}

const CLICK_CHECKS: ActOptions = { hitTest: true, enabled: true, probe: true };

/** Check, click at the action point; `probe` may read the element back in the settle's page call. */
async function clickElement(
  rt: ResolvedTarget,
  opts: { button: Button; count: number; modifiers: Modifier[] },
  signal: AbortSignal,
  probe: DomProbe = probeOf(rt),
  extra: ActOptions = {},
): Promise<ActionEffect> {
  const at = await actionable(rt, { ...CLICK_CHECKS, ...extra }, signal);
  return clickAt(rt, at, opts, signal, probe);
}

function clickAt(
  rt: ResolvedTarget,
  at: { x: number; y: number },
  opts: { button: Button; count: number; modifiers: Modifier[] },
  signal: AbortSignal,
  probe: DomProbe = probeOf(rt),
): Promise<ActionEffect> {
  return withEffect(rt.tabId, probe, signal, () => click(rt.tabId, at.x, at.y, opts, signal), { verify: true });
}

/** Resolve, check (one page round trip for a ref) and click. */
async function resolveAndClick(
  p: { session_id: string; target: string },
  tab: TabAhead,
  opts: { button: Button; count: number; modifiers: Modifier[] },
  signal: AbortSignal,
  extra: ActOptions = {},
): Promise<ActionResult> {
  const { rt, at } = await resolveActionable(p.session_id, tab, p.target, { ...CLICK_CHECKS, ...extra }, signal);
  return { tab_id: rt.tabId, target: actedOn(rt), effect: await clickAt(rt, at, opts, signal) };
}

async function pointerClick(
  p: { session_id: string; tab_id?: number; target?: string; x?: number; y?: number },
  opts: { button: Button; count: number; modifiers: Modifier[] },
  signal: AbortSignal,
): Promise<ActionResult> {
  targetOrPoint(p);
  if (p.target !== undefined) return resolveAndClick({ session_id: p.session_id, target: p.target }, frontTabAhead(p), opts, signal);
  const { tabId } = await frontTab(p);
  return atPointAction(tabId, p.x!, p.y!, signal, () => click(tabId, p.x!, p.y!, opts, signal), { verify: true });
}

/** A click on a pixel of an element capture (screenshot --ref), only while the element keeps the box it had then. */
async function clickOnCapture(
  p: { session_id: string; tab_id?: number },
  id: string,
  imageX: number,
  imageY: number,
  opts: { button: Button; count: number; modifiers: Modifier[] },
  signal: AbortSignal,
): Promise<ActionResult> {
  const cap = captureOf(p.session_id, id);
  if (p.tab_id !== undefined && p.tab_id !== cap.tabId) {
    throw new BskError("invalid_params", `capture ${id} is of tab ${cap.tabId}, not tab ${p.tab_id}`, {
      hint: "Leave --tab out: a capture clicks in the tab it was taken in.",
      data: { reason: "capture_other_tab", tab_id: cap.tabId },
    });
  }
  const at = pointOf(cap, imageX, imageY);
  const { tabId } = await frontTab({ session_id: p.session_id, tab_id: cap.tabId });
  const rt = await resolveTarget(p.session_id, tabId, cap.target, signal);
  if (rt.frameId !== cap.frameId || rt.frameOffset.x !== cap.frameOffset.x || rt.frameOffset.y !== cap.frameOffset.y) {
    throw new BskError("stale_ref", `${whatOf(rt)} is not where capture ${id} saw it: nothing was clicked`, {
      hint: "Take a new capture (bsk screenshot --ref …) and pick the point on it.",
      data: { reason: "moved", tab_id: tabId },
    });
  }
  const effect = await clickElement(rt, opts, signal, probeOf(rt), { scroll: false, at, expectBox: cap.box });
  return { tab_id: tabId, target: actedOn(rt), effect };
}

/** Focus the target (when given) for keyboard input; else the keys go wherever focus is. */
async function keyboardTarget(
  p: { session_id: string; tab_id?: number; target?: string },
  signal: AbortSignal,
): Promise<{ tabId: number; target: Acted; probe: DomProbe; aim: Aim | null; what: string }> {
  if (p.target === undefined) {
    // Arming the probe where the focus is changes nothing the page sees: it runs beside the tab's checks.
    const { tabId, value: pt } = await besideChecks(frontTabAhead(p), (id) => atPoint(id, null, null, signal));
    // Keys bound for a child frame's focus are not watched from here (aim.ts): that document is not this one.
    return { tabId, target: null, probe: pt.world, aim: pt.keysInFrame ? null : pt.world, what: "the focused element" };
  }
  // Resolved, checked, armed and focused in one page round trip, beside the tab's checks.
  const { rt, at } = await resolveActionable(p.session_id, frontTabAhead(p), p.target, { enabled: true }, signal, {
    fn: focusInPage,
    args: [false],
  });
  const focus = at.then as { now: boolean };
  if (!focus.now) throw notFocusable(rt);
  return { tabId: rt.tabId, target: actedOn(rt), probe: probeOf(rt), aim: { target: rt.cdp, objectId: rt.objectId }, what: whatOf(rt) };
}

function fillDiverted(rt: ResolvedTarget, focus: [string, string], value: string): BskError {
  const to = `${focus[0]}${focus[1] ? ` ${JSON.stringify(focus[1])}` : ""}`;
  return new BskError(
    "input_diverted",
    `the focus left ${whatOf(rt)} for ${to} before the text went in: it went there, not into the field`,
    {
      data: {
        tab_id: rt.tabId,
        effect_state: "committed",
        delivered: 0,
        uncertain: [...value].length,
        not_sent: 0,
        total: [...value].length,
        focus: { role: focus[0], name: focus[1], frame: focus[0] === "frame" },
      },
    },
  );
}

function dropCovered(to: ResolvedTarget, covered: BskError): BskError {
  return new BskError("input_diverted", `${covered.message} at the drop: bsk dropped nothing there and took the drag back`, {
    hint: "The page covered the drop target while the drag was under way; re-observe before dragging again.",
    data: { ...covered.data, reason: "drop_target_covered", tab_id: to.tabId, effect_state: "committed" },
  });
}

function notFocusable(rt: ResolvedTarget): BskError {
  return new BskError("unsupported", `${whatOf(rt)} cannot take focus`, {
    hint: "Target the input or control itself (bsk snapshot shows it), or click it first.",
    data: { tab_id: rt.tabId, role: rt.role, name: rt.name, reason: "not_focusable" },
  });
}

/** A handle to another element computed from `rt` in the page (a label, a listbox option), or null. */
async function elementFrom(rt: ResolvedTarget, fn: string, args: unknown[], signal: AbortSignal): Promise<ResolvedTarget | null> {
  const r = await sendTo<{ result: { subtype?: string; objectId?: string } }>(
    rt.cdp,
    "Runtime.callFunctionOn",
    { objectId: rt.objectId, functionDeclaration: fn, arguments: args.map((value) => ({ value })) },
    signal,
  );
  if (!r.result.objectId || r.result.subtype === "null") return null;
  return { ...rt, objectId: r.result.objectId };
}

function masked(value: string): string {
  return `[masked: ${[...value].length} chars]`;
}

const SCROLL_SETTLED = `new Promise((resolve) => {
  const pos = () => scrollX + "," + scrollY;
  let last = pos(), still = 0, frames = 0;
  const finish = () => resolve(JSON.stringify({ x: scrollX, y: scrollY }));
  addEventListener("scroll", () => { still = 0; }, { capture: true });
  addEventListener("scrollend", finish, { once: true, capture: true });
  const tick = () => {
    const now = pos();
    if (now === last) still++; else { still = 0; last = now; }
    if (still >= 3 || ++frames > 120) return finish();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`;

/** rAF does not run in a hidden tab: past this the position is read as it is. */
const SCROLL_SETTLE_CAP_MS = 2000;

async function pageScroll(tabId: number, signal: AbortSignal): Promise<{ x: number; y: number }> {
  const world = await worldOf({ tabId }, await mainFrameId(tabId, signal), signal);
  const read = (expression: string, awaitPromise: boolean) =>
    sendTo({ tabId }, "Runtime.evaluate", { expression, contextId: world.contextId, awaitPromise, returnByValue: true }, signal).then(
      (r) => JSON.parse(String(r.result?.value ?? '{"x":0,"y":0}')) as { x: number; y: number },
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SCROLL_SETTLE_CAP_MS)));
  const settled = await Promise.race([read(SCROLL_SETTLED, true), late]).finally(() => clearTimeout(timer));
  return settled ?? read(`JSON.stringify({ x: scrollX, y: scrollY })`, false);
}

async function setChecked(p: { session_id: string; tab_id?: number; target: string }, want: boolean, signal: AbortSignal) {
  // Its state is read in the lookup's round trip.
  const found = await resolveWith<CheckState>(p.session_id, frontTabAhead(p), p.target, { fn: CHECK_STATE_FN, args: [] }, signal);
  const rt = found.rt;
  const tabId = rt.tabId;
  const state = found.along ?? (await checkState(rt, signal));
  if ("error" in state) {
    throw new BskError("invalid_params", `${whatOf(rt)} (${state.kind}) is not a checkbox, radio or switch`, {
      hint: "Use bsk click for other controls.",
      data: { reason: "not_checkable", role: rt.role, name: rt.name },
    });
  }
  if (!want && state.kind === "radio") {
    throw new BskError("invalid_params", `${whatOf(rt)} is a radio button; it is unchecked by checking another one`, {
      hint: "Check the option you want instead: bsk check <other radio>.",
      data: { reason: "radio_uncheck" },
    });
  }
  if (state.checked === want)
    return { tab_id: tabId, target: actedOn(rt), effect: { kind: "none" as const, dom_changed: false }, checked: want };
  let effect: ActionEffect;
  // The state after the click rides on the settle's page call (when the control itself was clicked).
  const probe: ElementProbe = { target: rt.cdp, objectId: rt.objectId, after: CHECK_STATE_FN };
  try {
    effect = await clickElement(rt, { button: "left", count: 1, modifiers: [] }, signal, probe);
  } catch (err) {
    // A styled checkbox often hides the input behind its label: a person clicks the label.
    const reason = err instanceof BskError ? err.data?.reason : undefined;
    const label = reason === "not_visible" || reason === "obscured" ? await elementFrom(rt, FIRST_LABEL_FN, [], signal) : null;
    if (!label) throw err;
    effect = await clickElement(label, { button: "left", count: 1, modifiers: [] }, signal);
  }
  if (effect.kind === "dialog") return { tab_id: tabId, target: actedOn(rt), effect, checked: state.checked === true };
  const after = (probe.read as CheckState | undefined) ?? (await checkState(rt, signal));
  const checked = "error" in after ? false : after.checked === true;
  if (checked !== want) {
    throw new BskError("unsupported", `clicking ${whatOf(rt)} did not ${want ? "check" : "uncheck"} it`, {
      hint: "The page handles it differently; take a snapshot and look for the control that changes it.",
      data: { reason: "state_unchanged", effect },
    });
  }
  return { tab_id: tabId, target: actedOn(rt), effect, checked };
}

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
}

interface EvaluateReply {
  result: RemoteObject;
  exceptionDetails?: { text: string; exception?: RemoteObject };
}

/** typeof the value, refined to "null" and "array"; undefined becomes null; NaN, Infinity, -0, 1n as text. */
function describe(o: RemoteObject): Omit<Result<"evaluate">, "tab_id"> {
  if (o.type === "undefined") return { type: "undefined", value: null };
  if (o.subtype === "null") return { type: "null", value: null };
  const type = o.subtype === "array" ? "array" : o.type;
  if (o.unserializableValue !== undefined) return { type, value: o.unserializableValue };
  return { type, value: o.value ?? null };
}

function thrownText(details: NonNullable<EvaluateReply["exceptionDetails"]>): string {
  const e = details.exception;
  if (e?.description) return e.description;
  if (e && e.value !== undefined) return typeof e.value === "string" ? e.value : JSON.stringify(e.value);
  return details.text;
}

export const interactionHandlers: FamilyHandlers<typeof interactionMethods> = {
  click: async (p, { signal }) => {
    const opts = { button: p.button, count: p.count, modifiers: p.modifiers };
    if (p.capture !== undefined) return clickOnCapture(p, p.capture, p.image_x!, p.image_y!, opts, signal);
    if (p.at === undefined) return pointerClick(p, opts, signal);
    const [x, y] = p.at.split(",").map(Number) as [number, number];
    return resolveAndClick({ session_id: p.session_id, target: p.target! }, frontTabAhead(p), opts, signal, { at: { x, y } });
  },

  dblclick: async (p, { signal }) => pointerClick(p, { button: "left", count: 2, modifiers: p.modifiers }, signal),

  hover: async (p, { signal }) => {
    targetOrPoint(p);
    // The move is aligned to the next frame; the settle waits for that frame anyway, so it is not awaited alone.
    let moved: Promise<unknown> = Promise.resolve();
    const move = (tabId: number, x: number, y: number) => async () => {
      moved = moveTo(tabId, x, y, p.modifiers, signal);
      moved.catch(() => undefined);
    };
    let result: ActionResult;
    if (p.target === undefined) {
      const { tabId } = await frontTab(p);
      result = await atPointAction(tabId, p.x!, p.y!, signal, move(tabId, p.x!, p.y!));
    } else {
      const { rt, at } = await resolveActionable(p.session_id, frontTabAhead(p), p.target, { hitTest: true, probe: true }, signal);
      result = {
        tab_id: rt.tabId,
        target: actedOn(rt),
        effect: await withEffect(rt.tabId, probeOf(rt), signal, move(rt.tabId, at.x, at.y)),
      };
    }
    if (result.effect.kind !== "dialog") await painted(result.tab_id, "the pointer move", moved, signal, true);
    return result;
  },

  fill: async (p, { signal }) => {
    const { rt, at } = await resolveActionable(p.session_id, frontTabAhead(p), p.target, {}, signal, { fn: prepareFillInPage, args: [] });
    const tabId = rt.tabId;
    const prep = at.then as FillPrep;
    if ("error" in prep) throw fillRefused(rt, prep);
    // The read-back rides on the settle's page call.
    const probe: ElementProbe = { target: rt.cdp, objectId: rt.objectId, after: READ_VALUE_FN };
    const typed = prep.mode === "type" && p.value !== "";
    const effect = await withEffect(
      tabId,
      probe,
      signal,
      async () => {
        if (prep.mode === "set") return setValue(rt, p.value, signal);
        if (p.value !== "") return insertText(tabId, p.value, signal);
        if (!prep.empty) return pressChord(tabId, { modifiers: [], key: keyByName("Delete")! }, 1, signal);
      },
      { readAlong: typed ? { type: "input", count: 1 } : undefined },
    );
    const base = { tab_id: tabId, target: actedOn(rt), effect };
    if (effect.kind === "dialog") return { ...base, value_ok: false };
    // Absent when the field went away with its document.
    const read = probe.read as { value: string; secret: boolean; focus: [string, string] | null } | undefined;
    if (!read) return { ...base, value_ok: false };
    const same = (a: string) => a.replace(/\u00a0/g, " ") === p.value.replace(/\u00a0/g, " ");
    if (same(read.value)) return { ...base, value_ok: true };
    // The text went in as one edit wherever the focus was: not in the field, and the focus elsewhere, it went there.
    if (typed && read.focus) throw fillDiverted(rt, read.focus, p.value);
    return { ...base, value_ok: false, actual: read.secret ? masked(read.value) : read.value.slice(0, 10_000) };
  },

  type: async (p, { signal }) => {
    const { tabId, target, probe, aim, what } = await keyboardTarget(p, signal);
    const ups = typedKeyUps(p.text);
    // Aimed at an element, keys stay on it; with none, anywhere in the focused document (a field may hand on to the next).
    const chars = [...p.text].length;
    const binding = aim && chars > 1 ? bindKeys(tabId, aim, what, "characters", chars, p.target === undefined) : undefined;
    const effect = await withEffect(tabId, probe, signal, () => typeText(tabId, p.text, p.delay_ms, signal, binding), {
      verify: true,
      readAlong: ups === null ? undefined : { type: "keyup", count: ups },
    });
    return { tab_id: tabId, target, effect };
  },

  press: async (p, { signal }) => {
    const chord = parseChord(p.key);
    const { tabId, target, probe, aim, what } = await keyboardTarget(p, signal);
    // A key such as Tab moves the focus by itself: repeated presses stay bound to the document, not the element.
    const binding = aim && p.count > 1 ? bindKeys(tabId, aim, what, "presses", p.count, true) : undefined;
    const effect = await withEffect(tabId, probe, signal, () => pressChord(tabId, chord, p.count, signal, binding), {
      verify: true,
      readAlong: { type: "keyup", count: chordKeyUps(chord, p.count) },
    });
    return { tab_id: tabId, target, effect };
  },

  select: async (p, { signal }) => {
    const ahead = frontTabAhead(p);
    const tabId = await tabOf(ahead);
    // The tab's checks refused: nothing was chosen, whatever else failed.
    const refusal = () =>
      ahead.checked.catch((err: unknown) => {
        throw withEffectState(err, false);
      });
    let rt: ResolvedTarget | undefined;
    let reply: SelectReply | undefined;
    // Looked up, checked and chosen in one page call (a ref's), after the watch is armed. The tab's checks run
    // meanwhile (beside a held call's wait for its op to be on disk); their refusal sent nothing.
    const choose = async () => {
      await refusal();
      const got = await resolveActionable(p.session_id, tabId, p.target, {}, signal, { fn: selectInPage, args: [p.values] }, (found) => {
        rt = found;
      }).catch((err: unknown) => {
        throw rt ? err : chosenNothing(err);
      });
      reply = got.at.then as SelectReply;
      if (!("ok" in reply) && !(reply.error === "not_select" && reply.listbox)) throw selectRefused(got.rt, reply);
    };
    // The page's read of the effect rides on the choice when the page had nothing queued after it.
    const settled = () => (reply && "ok" in reply && reply.settled ? { settled: reply.settled } : {});
    const effect = await withEffect(tabId, () => (rt ? { ...probeOf(rt), ...settled() } : null), signal, choose).catch(
      async (err: unknown) => {
        await refusal();
        throw err;
      },
    );
    // A dialog the page opened while choosing is the effect; the lookup had answered by then.
    if (!rt) throw new BskError("cdp_failed", "select: the page answered without the element", { data: { effect_state: "unknown" } });
    if (reply && "ok" in reply) return { tab_id: tabId, target: actedOn(rt), effect, selected: reply.selected };
    if (effect.kind === "dialog") return { tab_id: tabId, target: actedOn(rt), effect, selected: [] };
    // An ARIA listbox: a person clicks its options.
    return selectInListbox(rt, p.values, signal);
  },

  check: async (p, { signal }) => setChecked(p, true, signal),

  uncheck: async (p, { signal }) => setChecked(p, false, signal),

  scroll_to: async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
    await armElementProbe(rt, signal);
    let box = { x: 0, y: 0, width: 0, height: 0 };
    const effect = await withEffect(tabId, probeOf(rt), signal, async () => {
      box = (await actionable(rt, {}, signal)).box;
    });
    return { tab_id: tabId, target: actedOn(rt), effect, box };
  },

  wheel: async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    let at: { x: number; y: number };
    let target: Acted = null;
    let probe: DomProbe;
    if (p.target !== undefined) {
      const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
      at = await actionable(rt, { probe: true }, signal);
      target = actedOn(rt);
      probe = probeOf(rt);
    } else {
      const pt = await atPoint(tabId, null, null, signal);
      at = { x: pt.viewport.width / 2, y: pt.viewport.height / 2 };
      probe = pt.world;
    }
    let scroll = { x: 0, y: 0 };
    const effect = await withEffect(tabId, probe, signal, async () => {
      await painted(tabId, "the wheel turn", wheel(tabId, at.x, at.y, p.dx, p.dy, p.modifiers, signal), signal, true);
      scroll = await pageScroll(tabId, signal);
    });
    return { tab_id: tabId, target, effect, scroll };
  },

  focus: async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
    let now = true;
    const effect = await withEffect(tabId, probeOf(rt), signal, async () => {
      now = (await focusElement(rt, false, signal)).now;
    });
    if (!now && effect.kind !== "dialog") throw notFocusable(rt);
    return { tab_id: tabId, target: actedOn(rt), effect };
  },

  blur: async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
    let was = false;
    const effect = await withEffect(tabId, probeOf(rt), signal, async () => {
      was = (await focusElement(rt, true, signal)).was;
    });
    return { tab_id: tabId, target: actedOn(rt), effect, was_focused: was };
  },

  drag: async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    const from = await resolveTarget(p.session_id, tabId, p.from, signal);
    const to = await resolveTarget(p.session_id, tabId, p.to, signal);
    await actionable(from, {}, signal);
    const end = await actionable(to, {}, signal);
    // Bringing the drop target into view must not have hidden the dragged element.
    const start = await actionable(from, { scroll: false, hitTest: true, probe: true }, signal);
    const html5 = await isDraggable(from, signal);
    // At the drop, the target must still be what is under the point (aim.ts: input lands where it was aimed, or not at all).
    const stillThere = async () => {
      await actionable(to, { scroll: false, hitTest: true }, signal).catch((err: unknown) => {
        throw err instanceof BskError && err.code === "element_obscured" ? dropCovered(to, err) : err;
      });
    };
    const effect = await withEffect(tabId, probeOf(from), signal, () =>
      painted(tabId, "the drag", drag(tabId, start, end, html5, signal, stillThere), signal, true),
    );
    return { tab_id: tabId, target: actedOn(from), effect, dropped_on: actedOn(to) };
  },

  "mouse.down": async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    return atPointAction(
      tabId,
      p.x,
      p.y,
      signal,
      () => Promise.all([moveTo(tabId, p.x, p.y, p.modifiers, signal), press(tabId, p.button, 1, p.modifiers, signal)]),
      { verify: true },
    );
  },

  "mouse.move": async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    return atPointAction(tabId, p.x, p.y, signal, async () => {
      const from = mousePosition(tabId);
      // Each step in its own frame, so a drawing or dragging page sees every one.
      for (let i = 1; i <= p.steps; i++) {
        const step = moveTo(tabId, from.x + ((p.x - from.x) * i) / p.steps, from.y + ((p.y - from.y) * i) / p.steps, p.modifiers, signal);
        await painted(tabId, "the pointer move", step, signal, true);
      }
    });
  },

  "mouse.up": async (p, { signal }) => {
    const { tabId } = await frontTab(p);
    return atPointAction(tabId, p.x, p.y, signal, () =>
      Promise.all([moveTo(tabId, p.x, p.y, p.modifiers, signal), release(tabId, p.button, 1, p.modifiers, signal)]),
    );
  },

  evaluate: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const params = { expression: p.expression, returnByValue: true, awaitPromise: p.await_promise, userGesture: true, replMode: false };
    const where = p.frame === undefined ? { target: { tabId } } : await frameContext(p.session_id, tabId, p.frame, signal);
    let reply: EvaluateReply;
    try {
      reply = await sending({ tabId }, () =>
        sendTo<EvaluateReply>(
          where.target,
          "Runtime.evaluate",
          { ...params, ...("contextId" in where && where.contextId !== undefined && { contextId: where.contextId }) },
          signal,
        ),
      );
    } catch (err) {
      const cdpMessage = err instanceof BskError ? String(err.data?.cdp_message ?? "") : "";
      if (/by value|reference chain|serializ/i.test(cdpMessage)) {
        throw new BskError("evaluation_failed", `the value cannot be returned as JSON: ${cdpMessage}`, {
          hint: "Return plain data: pick the fields you need or wrap the value in JSON.stringify(...).",
          data: { reason: "not_serializable", exception: cdpMessage },
        });
      }
      throw err;
    }
    if (reply.exceptionDetails) {
      const text = thrownText(reply.exceptionDetails);
      throw new BskError("evaluation_failed", `the expression threw: ${text.split("\n")[0]}`, { data: { exception: text } });
    }
    return { tab_id: tabId, ...describe(reply.result) };
  },
};

/**
 * The lookup of select's element failed in the page (no such element, a stale ref, an ambiguous selector): the choice
 * rides behind the lookup and runs only on what it found, so nothing was chosen, though inside the input's mark. An
 * error of the connection itself says no such thing.
 */
function chosenNothing(err: unknown): unknown {
  const pageSaid = err instanceof BskError && ["stale_ref", "not_found", "invalid_params"].includes(err.code);
  return pageSaid ? withEffectState(err, false) : err;
}

/** The page refused before choosing anything (page/forms.ts selectInPage): nothing changed, whatever was sent. */
function selectRefused(rt: ResolvedTarget, r: Exclude<SelectReply, { ok: true }>): BskError {
  const data = { tab_id: rt.tabId, role: rt.role, name: rt.name, effect_state: "none" };
  switch (r.error) {
    case "not_select":
      return new BskError("invalid_params", `${whatOf(rt)} (${r.kind}) is not a <select> or listbox`, {
        hint: "Open custom dropdowns with bsk click, then click the option.",
        data: { ...data, reason: "not_select" },
      });
    case "disabled":
      return new BskError("unsupported", `${whatOf(rt)} is disabled`, { data: { ...data, reason: "element_disabled" } });
    case "not_multiple":
      return new BskError("invalid_params", `${whatOf(rt)} takes one option, ${r.count} were given`, {
        hint: "Give one value; only a <select multiple> (or a multi-select listbox) takes several.",
        data: { ...data, reason: "not_multiple" },
      });
    case "no_option":
      return new BskError("not_found", `${whatOf(rt)} has no option ${JSON.stringify(r.wanted)}`, {
        hint: r.options.length
          ? `Options (value or label): ${r.options.map((o) => JSON.stringify(o)).join(", ")}`
          : "Take a snapshot to see its options.",
        data: { ...data, reason: "no_option", wanted: r.wanted, options: r.options },
      });
    case "option_disabled":
      return new BskError("unsupported", `the option ${JSON.stringify(r.wanted)} of ${whatOf(rt)} is disabled`, {
        data: { ...data, reason: "option_disabled", wanted: r.wanted },
      });
  }
}

const MULTISELECTABLE_FN = `function () { return this.getAttribute("aria-multiselectable") === "true"; }`;
const OPTION_LABEL_FN = `function () {
  try { return JSON.parse(globalThis.__bsk.describe(this))[1]; } catch { return (this.textContent || "").trim(); }
}`;

/** An ARIA listbox: click each wanted option (Control held for the second and later of a multi-select). */
async function selectInListbox(rt: ResolvedTarget, values: string[], signal: AbortSignal): Promise<Result<"select">> {
  const multi = await callOn<boolean>(rt, MULTISELECTABLE_FN, [], signal);
  if (!multi && values.length > 1) throw selectRefused(rt, { error: "not_multiple", count: values.length });
  let effect: ActionEffect = { kind: "none", dom_changed: false };
  const selected: { value: string; label: string }[] = [];
  for (const [i, value] of values.entries()) {
    const option = await elementFrom(rt, LISTBOX_OPTION_FN, [value], signal);
    if (!option) throw selectRefused(rt, { error: "no_option", wanted: value, options: [] });
    const label = await callOn<string>(option, OPTION_LABEL_FN, [], signal);
    effect = await clickElement(option, { button: "left", count: 1, modifiers: multi && i > 0 ? ["Control"] : [] }, signal);
    selected.push({ value, label });
    if (effect.kind === "dialog") break;
  }
  return { tab_id: rt.tabId, target: actedOn(rt), effect, selected };
}
