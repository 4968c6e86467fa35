/**
 * How a recording's steps come together in the worker, pure: what the page and the browser report arrives as
 * raw steps; consecutive keystrokes in one field fold into one fill, a double click into the click before it,
 * and a navigation the page made itself (a redirect, a route change) right after another into that one, keeping
 * its cause. Pages are numbered as documents and routes come.
 */
import type { NavCause, TracePageT, TraceStepT, TraceTargetT } from "../../../../protocol/trace.ts";
import { redactUrl } from "./secrets.ts";

type Distribute<T> = T extends unknown ? Omit<T, "id" | "page" | "at"> : never;
/** A step as the page or the browser reports it; the worker numbers it and places it on a page. */
export type RawStep = Distribute<TraceStepT>;

export interface Trail {
  pages: TracePageT[];
  steps: TraceStepT[];
}

/** The same element, as far as two descriptions can tell. */
export function sameTarget(a: TraceTargetT, b: TraceTargetT): boolean {
  return (
    a.role === b.role &&
    a.name === b.name &&
    a.tag === b.tag &&
    a.selector === b.selector &&
    a.id === b.id &&
    a.name_attr === b.name_attr &&
    a.frame === b.frame
  );
}

function currentPage(trail: Trail): number {
  return trail.pages.at(-1)?.id ?? 1;
}

/** Adds `raw` to the trail (in place), folding it into the last step where it continues it. */
export function addStep(trail: Trail, reported: RawStep, at: string): void {
  const last = trail.steps.at(-1);
  if (reported.op === "navigate") return addNavigation(trail, reported, at);
  const raw = withSafeHref(reported, trail);
  const page = currentPage(trail);
  if (last && last.page === page) {
    if (raw.op === "fill" && last.op === "fill" && sameTarget(raw.target, last.target)) {
      last.value = raw.value;
      if (raw.redacted) last.redacted = true;
      else delete last.redacted;
      last.at = at;
      return;
    }
    if (raw.op === "click" && raw.count && raw.count > 1 && last.op === "click" && sameTarget(raw.target, last.target)) {
      last.count = raw.count;
      return;
    }
  }
  trail.steps.push({ ...raw, id: trail.steps.length + 1, page, at } as TraceStepT);
}

/** A target's link and frame addresses go through the same URL redaction as navigations. */
function withSafeHref<T extends RawStep>(raw: T, trail: Trail): T {
  const target = "target" in raw ? raw.target : undefined;
  if (!target?.href && !target?.frame) return raw;
  const names = secretFieldNames(trail);
  const safe = { ...target };
  if (safe.href) safe.href = redactUrl(safe.href, names);
  if (safe.frame) safe.frame = redactUrl(safe.frame, names);
  return { ...raw, target: safe };
}

/** Navigations the person did not start themselves: right after another navigation they are its continuation. */
const FOLDED_CAUSES = new Set<NavCause>(["script", "redirect", "spa", "other"]);

/** The name attributes of the recording's secret fields: a GET form puts their values in the next URL. */
function secretFieldNames(trail: Trail): Set<string> {
  const names = new Set<string>();
  for (const s of trail.steps) if (s.op === "fill" && s.redacted && s.target.name_attr) names.add(s.target.name_attr);
  return names;
}

function addNavigation(trail: Trail, reported: Extract<RawStep, { op: "navigate" }>, at: string): void {
  const raw = { ...reported, to: redactUrl(reported.to, secretFieldNames(trail)) };
  const last = trail.steps.at(-1);
  const page = trail.pages.at(-1);
  // A route change to where the page already is (replaceState with the same URL) is no step.
  if ((raw.cause === "spa" || raw.cause === "history") && page?.url === raw.to) return;
  if (last?.op === "navigate" && FOLDED_CAUSES.has(raw.cause)) {
    last.to = raw.to;
    last.at = at;
    if (page) {
      page.url = raw.to;
      page.title = "";
    }
    return;
  }
  const id = (page?.id ?? 0) + 1;
  trail.pages.push({ id, url: raw.to, title: "" });
  trail.steps.push({ ...raw, id: trail.steps.length + 1, page: id, at });
}

/** The page told its title once loaded: the current page gets it when the URL is its. */
export function notePage(trail: Trail, url: string, title: string): void {
  const page = trail.pages.at(-1);
  if (page && page.url === redactUrl(url, secretFieldNames(trail))) page.title = title;
}

/**
 * webNavigation's account of a committed main-frame navigation → the trace's cause. A redirect by the page
 * itself (client_redirect) is the page's script; back/forward is history.
 */
export function navCause(transitionType: string, qualifiers: readonly string[]): NavCause {
  if (qualifiers.includes("forward_back")) return "history";
  if (qualifiers.includes("client_redirect")) return "script";
  if (qualifiers.includes("server_redirect") && transitionType === "link") return "link";
  switch (transitionType) {
    case "typed":
    case "generated":
    case "auto_bookmark":
    case "keyword":
    case "keyword_generated":
    case "start_page":
      return "typed";
    case "link":
      return "link";
    case "script":
      return "script";
    case "form_submit":
      return "form_submit";
    case "reload":
      return "reload";
    case "auto_subframe":
    case "manual_subframe":
      return "other";
    default:
      return "other";
  }
}
