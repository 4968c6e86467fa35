/**
 * Before a pointer action: scroll the element into view (nested scrollers included), check it is visible, enabled
 * and has a stable box, pick the action point, and hit-test that point: whatever the page would deliver the event
 * to must be the element (or inside it), else element_obscured naming what covers it. All of it is one call into
 * the page; the box-stability wait costs no frame unless an animation is running on the element or an ancestor.
 * The same call arms the DOM-change observer of effects.ts, so arming costs no extra round trip.
 */
import { BskError } from "../../../protocol/errors.ts";
import { mainFrameId, sendTo } from "../cdp/debugger.ts";
import { installDomProbe } from "./dom-probe.ts";
import { armNotice } from "./effects.ts";
import { frameOffset, listFrames, worldOf } from "../cdp/frames.ts";
import { learnOwnOverlay } from "./own-overlay.ts";
import { OWN_OVERLAY_GLOBAL, type Whose } from "./own-overlay-in-page.ts";
import { callOn } from "../cdp/page-call.ts";
import { resolveWith, tabOf, type Alongside } from "../cdp/refs/resolve.ts";
import type { ResolvedTarget, TabAhead } from "../cdp/refs/target.ts";

export interface ActOptions {
  /** Scroll into view when not fully visible. */
  scroll?: boolean;
  /** Fail unless visible (default true). */
  visible?: boolean;
  enabled?: boolean;
  /** Wait for a stable box and hit-test the action point. */
  hitTest?: boolean;
  /** Arm effects.ts's DOM observer in this document. */
  probe?: boolean;
  /** Act on this point relative to the element's border box top-left (CSS px) instead of its centre. */
  at?: { x: number; y: number } | null;
  /** Refuse unless the element's box (its frame's viewport, CSS px) is still this one. */
  expectBox?: Box | null;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Actionable {
  /** Action point in the tab's top-level viewport, CSS px. */
  x: number;
  y: number;
  /** Visible box in the top-level viewport. */
  box: Box;
}

interface Covering {
  role: string;
  name: string;
  selector: string;
}

type PageReply =
  | { ok: true; x: number; y: number; box: Box; scrolled: boolean; then?: unknown }
  | { error: "detached" | "not_visible" | "disabled" | "not_stable" }
  /** The hit is an element of the overlay's name this world does not know yet: learnOwnOverlay, then again. */
  | { error: "ask_overlay" }
  | { error: "obscured" | "missed"; by: Covering }
  | { error: "moved"; was: Box; now: Box }
  | { error: "outside" | "point_clipped"; size: { width: number; height: number } };

const STABLE_CAP_MS = 1000;

/**
 * Runs in the page (bsk's isolated world), `this` = the element. Self-contained: it is sent as source. `whose` tells
 * bsk's own overlay host from the page's elements (own-overlay-in-page.ts).
 */
async function checkInPage(
  this: Element,
  opts: Required<ActOptions>,
  stableCapMs: number,
  installProbe: (n: Node) => void,
  whose: (el: Element | null) => Whose,
): Promise<string> {
  const reply = (v: unknown) => JSON.stringify(v);
  if (!this.isConnected) return reply({ error: "detached" });
  const doc = this.ownerDocument;
  const win = doc.defaultView!;
  const parentOf = (n: Element): Element | null => n.parentElement ?? ((n.getRootNode() as ShadowRoot).host || null);
  /** The parent in the composed (flat) tree: a slotted node's slot, a shadow root's host. */
  const flatParent = (n: Element): Element | null => n.assignedSlot ?? parentOf(n);

  type R = { left: number; top: number; right: number; bottom: number };
  const area = (r: R) => Math.max(0, r.right - r.left) * Math.max(0, r.bottom - r.top);
  const clip = (r: R, c: R): R => ({
    left: Math.max(r.left, c.left),
    top: Math.max(r.top, c.top),
    right: Math.min(r.right, c.right),
    bottom: Math.min(r.bottom, c.bottom),
  });
  /** The part of `r` not clipped away by scrolling ancestors or the viewport. */
  const visiblePart = (r: R): R => {
    let v = clip(r, {
      left: 0,
      top: 0,
      right: doc.documentElement.clientWidth || win.innerWidth,
      bottom: doc.documentElement.clientHeight || win.innerHeight,
    });
    for (let a = parentOf(this); a && a !== doc.documentElement && a !== doc.body; a = parentOf(a)) {
      const s = win.getComputedStyle(a);
      if (s.position === "fixed") break;
      if (s.overflowX !== "visible" || s.overflowY !== "visible") v = clip(v, a.getBoundingClientRect());
    }
    return v;
  };
  const firstRect = (): DOMRect | undefined => [...this.getClientRects()].find((r) => r.width > 0 && r.height > 0);

  const visible = () => firstRect() !== undefined && this.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true } as any);
  if (opts.visible && !visible()) return reply({ error: "not_visible" });

  let scrolled = false;
  if (opts.scroll) {
    const r = firstRect() ?? this.getBoundingClientRect();
    if (area(visiblePart(r)) < area(r) - 1 || area(r) === 0) {
      this.scrollIntoView({ block: "center", inline: "center", behavior: "instant" as ScrollBehavior });
      scrolled = true;
    }
  }

  if (opts.hitTest) {
    // A box moves only while an animation runs on the element or an ancestor; otherwise no frame is waited for.
    const animating = () =>
      doc.getAnimations().some((a) => {
        const t = (a.effect as KeyframeEffect | null)?.target;
        return (
          a.playState === "running" && t instanceof Element && (t === this || t.contains(this) || (t.shadowRoot?.contains(this) ?? false))
        );
      });
    // A hidden document runs no frames to compare boxes across.
    if (doc.visibilityState === "visible" && animating()) {
      const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
      const same = (a: DOMRect, b: DOMRect) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
      const until = performance.now() + stableCapMs;
      let last = this.getBoundingClientRect();
      for (;;) {
        await frame();
        const now = this.getBoundingClientRect();
        if (same(last, now)) break;
        if (performance.now() > until) return reply({ error: "not_stable" });
        last = now;
      }
    }
  }

  if (opts.enabled && (this.matches(":disabled") || this.closest("[aria-disabled=true]"))) return reply({ error: "disabled" });

  const whole = this.getBoundingClientRect();
  const now = { x: whole.x, y: whole.y, width: whole.width, height: whole.height };
  const was = opts.expectBox;
  if (was && (["x", "y", "width", "height"] as const).some((k) => Math.abs(was[k] - now[k]) > 0.5)) {
    return reply({ error: "moved", was, now });
  }
  const rect = firstRect() ?? whole;
  const part = visiblePart(rect);
  if (opts.visible && area(part) <= 0) return reply({ error: "not_visible" });
  let x = (part.left + part.right) / 2;
  let y = (part.top + part.bottom) / 2;
  if (opts.at) {
    const size = { width: now.width, height: now.height };
    if (opts.at.x > now.width || opts.at.y > now.height) return reply({ error: "outside", size });
    x = whole.left + opts.at.x;
    y = whole.top + opts.at.y;
    const seen = visiblePart(whole);
    if (x < seen.left || x > seen.right || y < seen.top || y > seen.bottom) return reply({ error: "point_clipped", size });
  }

  if (opts.hitTest) {
    const within = (n: Element | null, of: Element) => {
      for (let a = n; a; a = flatParent(a)) if (a === of) return true;
      return false;
    };
    /** Text of a host's light DOM, slotted into its shadow tree: a point on it hits as the host. */
    const slottedTextAt = (host: Element): Element | null => {
      for (const c of host.childNodes) {
        const slot = (c as Text).assignedSlot;
        if (c.nodeType !== Node.TEXT_NODE || !slot) continue;
        const range = doc.createRange();
        range.selectNodeContents(c);
        for (const r of range.getClientRects()) if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return slot;
      }
      return null;
    };
    // Through open shadow roots, and from a host to its slotted text's slot, so the hit is what the event's path starts at.
    const hitAt = () => {
      let h: Element | null = doc.elementFromPoint(x, y);
      while (h?.shadowRoot) {
        const inner = h.shadowRoot.elementFromPoint(x, y);
        if (!inner) break;
        if (inner === h) {
          const slot = slottedTextAt(h);
          if (slot && within(slot, h)) h = slot;
          break;
        }
        h = inner;
      }
      return h;
    };
    let hit = hitAt();
    // bsk's own control pill (overlay/ui/host.ts; its closed shadow root hits as the host) steps aside to the other
    // edge. Known as itself, never by its name: a page's own <bsk-overlay> is a page element like any other.
    const own = whose(hit);
    if (own === "ask") return reply({ error: "ask_overlay" });
    if (own === "own") {
      hit!.setAttribute("data-bsk-dodge", y < win.innerHeight / 2 ? "bottom" : "top");
      hit = hitAt();
    }
    // A label forwards its clicks to its control.
    const labels = [...((this as HTMLInputElement).labels ?? [])];
    const lands =
      hit !== null &&
      (within(hit, this) ||
        labels.some((l) => within(hit, l)) ||
        // An element that lets pointer events through is reached through its ancestor.
        (within(this, hit) && win.getComputedStyle(this).pointerEvents === "none"));
    if (!lands) {
      const describe = (n: Element): Covering => {
        let role = "";
        let name = "";
        try {
          const d = (globalThis as any).__bsk?.describe(n);
          if (d) [role, name] = JSON.parse(d);
        } catch {
          /* no page runtime: the selector names it */
        }
        let selector = n.localName;
        if (n.id) selector += `#${n.id}`;
        for (const c of [...n.classList].slice(0, 3)) selector += `.${c}`;
        return { role, name, selector };
      };
      // The point reaches a container of the element and not the element: nothing covers it to dismiss.
      if (hit && within(this, hit)) return reply({ error: "missed", by: describe(hit) });
      // Name the covering thing, not an anonymous child of it, and never a container of the element.
      let cover = hit;
      for (let i = 0; cover && i < 5; i++) {
        const d = describe(cover);
        if (cover.id || d.name || (d.role && d.role !== "generic" && d.role !== "paragraph")) break;
        const up = flatParent(cover);
        if (!up || up === doc.body || up === doc.documentElement || within(this, up)) break;
        cover = up;
      }
      return reply({ error: "obscured", by: cover ? describe(cover) : { role: "", name: "", selector: "nothing" } });
    }
  }

  if (opts.probe) installProbe(this);
  return reply({
    ok: true,
    x,
    y,
    box: { x: part.left, y: part.top, width: part.right - part.left, height: part.bottom - part.top },
    scrolled,
  });
}

/**
 * The page function's installer of effects.ts's probe, told which notice id to use (armNotice), and its `whose`
 * (with `decide`, once the world was told: an element still unknown is the page's).
 */
const INSTALL = `const probe = ${installDomProbe.toString()}; const install = (n, via) => probe(n, via, notice);
  const whose = (el) => globalThis[${JSON.stringify(OWN_OVERLAY_GLOBAL)}].whose(el, decide);`;

const PAGE_FN = `function(opts, capMs, notice, decide) { ${INSTALL} return (${checkInPage.toString()}).call(this, opts, capMs, install, whose); }`;

/**
 * Page work to do in the same call once the element passed the checks (saves a round trip): `fn` runs with
 * `this` = the element, the DOM-probe installer and `args`, and returns a JSON string (or a promise of one).
 */
export interface Then {
  fn: (...args: any[]) => unknown;
  args: unknown[];
}

const withThen = (then: Then) => `function (opts, capMs, args, notice, decide) {
  ${INSTALL}
  return (${checkInPage.toString()}).call(this, opts, capMs, install, whose).then((r) => {
    const v = JSON.parse(r);
    if (!v.ok) return r;
    return Promise.resolve((${then.fn.toString()}).call(this, install, ...args)).then((t) => {
      v.then = JSON.parse(t);
      return JSON.stringify(v);
    });
  });
}`;

export function describeCovering(c: Covering): string {
  return c.name ? `${c.role || c.selector} ${JSON.stringify(c.name)}` : c.selector;
}

export function actedOn(rt: ResolvedTarget): { ref?: string; role: string; name: string } {
  return { ...(rt.ref && { ref: rt.ref }), role: rt.role, name: rt.name };
}

function what(rt: ResolvedTarget): string {
  return `${rt.ref ? `${rt.ref} ` : ""}${rt.role}${rt.name ? ` ${JSON.stringify(rt.name)}` : ""}`;
}

function refused(rt: ResolvedTarget, r: Exclude<PageReply, { ok: true } | { error: "ask_overlay" }>): BskError {
  const data = { tab_id: rt.tabId, ...(rt.ref && { ref: rt.ref }), role: rt.role, name: rt.name };
  switch (r.error) {
    case "detached":
      return rt.ref
        ? new BskError("stale_ref", `${what(rt)} is no longer in the page`, { data: { ...data, reason: "detached" } })
        : new BskError("not_found", `${what(rt)} left the page before it could be acted on`, { data: { ...data, reason: "detached" } });
    case "not_visible":
      return new BskError("not_found", `${what(rt)} is in the page but not visible`, {
        hint: "It is hidden, collapsed or has no size: open what reveals it (a menu, a tab, a scroll container), or take a fresh snapshot.",
        data: { ...data, reason: "not_visible" },
      });
    case "disabled":
      return new BskError("unsupported", `${what(rt)} is disabled`, {
        hint: "Do what enables it first (fill the required fields), or wait for it: bsk wait-for --target … --state visible, then retry.",
        data: { ...data, reason: "element_disabled" },
      });
    case "not_stable":
      return new BskError("timeout", `${what(rt)} kept moving for ${STABLE_CAP_MS} ms`, {
        hint: "It is animating; retry once it settles, or act on a point with --x --y.",
        data: { ...data, reason: "not_stable" },
      });
    case "moved":
      return new BskError("stale_ref", `${what(rt)} moved or changed size since the capture: nothing was clicked`, {
        hint: "Take a new capture (bsk screenshot --ref …) and pick the point on it.",
        data: { ...data, reason: "moved", was: r.was, now: r.now },
      });
    case "outside":
      return new BskError("invalid_params", `the point is outside ${what(rt)} (${r.size.width}×${r.size.height} CSS px)`, {
        hint: "Give --at X,Y within the element's size, measured from its top-left corner.",
        data: { ...data, reason: "outside_element", size: r.size },
      });
    case "point_clipped":
      return new BskError("not_found", `the point of ${what(rt)} is scrolled out of sight`, {
        hint: "Scroll it into view (bsk scroll-to …) or pick a point in the part that shows.",
        data: { ...data, reason: "point_clipped", size: r.size },
      });
    case "missed":
      return new BskError(
        "element_obscured",
        `${what(rt)} does not get a click at its centre: it reaches ${describeCovering(r.by)}, which holds it`,
        {
          hint: "Act on a point inside it with --x --y (bsk screenshot shows where), or on its container.",
          data: { ...data, reason: "missed", reached: r.by },
        },
      );
    case "obscured":
      return new BskError("element_obscured", `${what(rt)} is covered by ${describeCovering(r.by)}`, {
        hint: `Close or dismiss ${describeCovering(r.by)} first (a dialog, banner or overlay), then retry.`,
        data: { ...data, reason: "obscured", covered_by: r.by },
      });
  }
}

interface DescribedNode {
  node: { localName?: string; frameId?: string; attributes?: string[] };
}

/**
 * For an element inside an iframe, the page's own hit test sees only its frame; what covers the iframe itself lives
 * in a parent. The tab's hit test at the top-level point must land in the element's frame (same-process frames are
 * hit-tested through) or on the owner of a frame on the way to it (an out-of-process iframe), else that covers it.
 */
async function coveredInParents(
  rt: ResolvedTarget,
  x: number,
  y: number,
  signal: AbortSignal,
  again = { ignoreNone: true, dodged: false },
): Promise<Covering | null> {
  const hit = await sendTo<{ backendNodeId: number; frameId: string }>(
    { tabId: rt.tabId },
    "DOM.getNodeForLocation",
    { x: Math.round(x), y: Math.round(y), includeUserAgentShadowDOM: false, ignorePointerEventsNone: again.ignoreNone },
    signal,
  );
  if (hit.frameId === rt.frameId) return null;
  const frames = new Map((await listFrames(rt.tabId, signal)).map((f) => [f.frameId, f]));
  const path = new Set<string>();
  for (let id: string | undefined = rt.frameId; id && !path.has(id); id = frames.get(id)?.parentId) path.add(id);
  const { node } = await sendTo<DescribedNode>({ tabId: rt.tabId }, "DOM.describeNode", { backendNodeId: hit.backendNodeId }, signal);
  if (node.frameId && path.has(node.frameId)) return null;
  const own = await overlayPart(rt.tabId, hit, y, signal);
  // bsk's own overlay: its glow and pill body let clicks through (test what a click reaches); a button of the pill
  // steps aside (see checkInPage), then the point is tested again.
  if (own === "pass" && again.ignoreNone) return coveredInParents(rt, x, y, signal, { ...again, ignoreNone: false });
  if (own === "dodged" && !again.dodged) return coveredInParents(rt, x, y, signal, { ...again, dodged: true });
  const attrs = new Map<string, string>();
  for (let i = 0; i + 1 < (node.attributes?.length ?? 0); i += 2) attrs.set(node.attributes![i]!, node.attributes![i + 1]!);
  let selector = node.localName ?? "element";
  if (attrs.get("id")) selector += `#${attrs.get("id")}`;
  for (const c of (attrs.get("class") ?? "").split(/\s+/).filter(Boolean).slice(0, 3)) selector += `.${c}`;
  return { role: "", name: attrs.get("aria-label") ?? "", selector };
}

/**
 * A node of bsk's overlay (overlay/ui/host.ts) at a hit point: one that lets clicks through, or a pill button that
 * now stepped aside. Looked at in bsk's world of the top document (the only one the overlay draws in), where the
 * host is known as itself (own-overlay.ts), never by its name.
 */
async function overlayPart(
  tabId: number,
  hit: { backendNodeId: number; frameId: string },
  y: number,
  signal: AbortSignal,
  decide = false,
): Promise<"no" | "pass" | "dodged"> {
  const main = await mainFrameId(tabId, signal);
  if (hit.frameId !== main) return "no";
  const world = await worldOf({ tabId }, main, signal);
  const on = { executionContextId: world.contextId };
  const { object } = await sendTo({ tabId }, "DOM.resolveNode", { backendNodeId: hit.backendNodeId, ...on }, signal);
  const r = await sendTo(
    { tabId },
    "Runtime.callFunctionOn",
    {
      objectId: object.objectId,
      returnByValue: true,
      arguments: [{ value: y }, { value: OWN_OVERLAY_GLOBAL }, { value: decide }],
      functionDeclaration: `function (y, name, decide) {
        const el = this.nodeType === 1 ? this : this.parentElement;
        const root = el && el.getRootNode();
        const host = root && root.host ? root.host : el;
        const whose = globalThis[name].whose(host, decide);
        if (whose !== "own") return whose === "ask" ? "ask" : "no";
        if (el !== host && getComputedStyle(el).pointerEvents === "none") return "pass";
        host.setAttribute("data-bsk-dodge", y < innerHeight / 2 ? "bottom" : "top");
        return "dodged";
      }`,
    },
    signal,
  );
  await sendTo({ tabId }, "Runtime.releaseObject", { objectId: object.objectId }, signal).catch(() => undefined);
  const part = r.result?.value ?? "no";
  if (part !== "ask") return part;
  await learnOwnOverlay(tabId, { tabId }, on, signal);
  return overlayPart(tabId, hit, y, signal, true);
}

function fullOptions(opts: ActOptions): Required<ActOptions> {
  return { scroll: true, visible: true, enabled: false, hitTest: false, probe: false, at: null, expectBox: null, ...opts };
}

/** The page call of the checks (and of `then`), as a function's source and its arguments. */
function checkCall(full: Required<ActOptions>, notice: Notice, then?: Then, decide = false): Alongside {
  return then
    ? { fn: withThen(then), args: [full, STABLE_CAP_MS, then.args, notice, decide] }
    : { fn: PAGE_FN, args: [full, STABLE_CAP_MS, notice, decide] };
}

type Notice = ReturnType<typeof armNotice> | null;

/**
 * A notice id when the call arms the probe. One armed in an out-of-process iframe tells its notice on that frame's
 * session, which the watch does not hear: that settle reads the probe as before.
 */
function noticeFor(tabId: number, full: Required<ActOptions>, then?: Then): Notice {
  return full.probe || then ? armNotice(tabId) : null;
}

/** Checks and prepares the element for an action; returns the point to act on in top-level coordinates. */
export async function actionable(
  rt: ResolvedTarget,
  opts: ActOptions,
  signal: AbortSignal,
  then?: Then,
): Promise<Actionable & { then?: unknown }> {
  const full = fullOptions(opts);
  const notice = noticeFor(rt.tabId, full, then);
  const call = checkCall(full, notice, then);
  const r = await callOn<PageReply>(rt, call.fn, call.args, signal);
  return checked(rt, full, await knowingOwnOverlay(rt, r, full, notice, signal, then), signal, then !== undefined);
}

/**
 * The checks' answer once the world knows bsk's overlay host: when the hit was an element of its name the world did
 * not know, the world is told (own-overlay.ts) and the checks run again, deciding this time.
 */
async function knowingOwnOverlay(
  rt: ResolvedTarget,
  r: PageReply,
  full: Required<ActOptions>,
  notice: Notice,
  signal: AbortSignal,
  then?: Then,
): Promise<Exclude<PageReply, { error: "ask_overlay" }>> {
  if (!("error" in r) || r.error !== "ask_overlay") return r;
  await learnOwnOverlay(rt.tabId, rt.cdp, { objectId: rt.objectId }, signal);
  const again = checkCall(full, notice, then, true);
  return callOn<Exclude<PageReply, { error: "ask_overlay" }>>(rt, again.fn, again.args, signal);
}

/**
 * resolveTarget and actionable in one page round trip for a ref (the checks ride right behind the lookup,
 * refs/resolve.ts resolveWith); a selector takes two. `found` hears the element as soon as the lookup answers, also
 * when the checks' call then fails (a dialog the page opened from `then`).
 */
export async function resolveActionable(
  sessionId: string,
  tab: number | TabAhead,
  target: string,
  opts: ActOptions,
  signal: AbortSignal,
  then?: Then,
  found?: (rt: ResolvedTarget) => void,
): Promise<{ rt: ResolvedTarget; at: Actionable & { then?: unknown } }> {
  const full = fullOptions(opts);
  const notice = noticeFor(await tabOf(tab), full, then);
  const call = checkCall(full, notice, then);
  const { rt, along } = await resolveWith<PageReply>(sessionId, tab, target, call, signal, found);
  const r = await knowingOwnOverlay(rt, along ?? (await callOn<PageReply>(rt, call.fn, call.args, signal)), full, notice, signal, then);
  return { rt, at: await checked(rt, full, r, signal, then !== undefined) };
}

/** The checks' answer: the refusal it is, or the action point in the tab's top-level viewport. */
async function checked(
  rt: ResolvedTarget,
  full: Required<ActOptions>,
  r: Exclude<PageReply, { error: "ask_overlay" }>,
  signal: AbortSignal,
  hasThen: boolean,
): Promise<Actionable & { then?: unknown }> {
  if (!("ok" in r)) throw refused(rt, r);
  let offset = rt.frameOffset;
  const inChildFrame = rt.frameId !== (await mainFrameId(rt.tabId, signal));
  // Scrolling may have moved the frame itself inside its parent.
  if (r.scrolled && inChildFrame) offset = await frameOffset(rt.tabId, rt.frameId, signal);
  const at = {
    x: r.x + offset.x,
    y: r.y + offset.y,
    box: { x: r.box.x + offset.x, y: r.box.y + offset.y, width: r.box.width, height: r.box.height },
  };
  if (full.hitTest && inChildFrame) {
    const cover = await coveredInParents(rt, at.x, at.y, signal);
    if (cover) throw refused(rt, { error: "obscured", by: cover });
  }
  return hasThen ? { ...at, then: r.then } : at;
}
