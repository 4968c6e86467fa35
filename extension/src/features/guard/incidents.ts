/**
 * What the browser did to a session that the agent could not see: a navigation blocked by the session's origin
 * allow-list, a prompt only the person can answer. Each is an event (reported by its module); while a page-changing
 * call of the session runs, the dispatcher also collects them here and fails the call with them (`incidentError`).
 */
import { BskError } from "../../../../protocol/errors.ts";
import { promptOf, type PromptKind } from "../../page/prompt-state.ts";

export type Incident =
  | { kind: "origin_blocked"; tab_id: number; url: string }
  | { kind: "ask_first_request"; tab_id: number; url: string; method: string }
  | {
      kind: "browser_prompt";
      tab_id: number;
      prompt: string;
      url: string;
      detail: Record<string, string>;
      answer: "cancelled" | "left_to_person";
    };

interface Watch {
  incidents: Incident[];
  counts: (tabId: number) => boolean;
  onIncident?: (i: Incident) => void;
}

const watchers = new Map<string, Set<Watch>>();

export function reportIncident(sessionId: string, incident: Incident): void {
  const same = JSON.stringify(incident);
  for (const w of watchers.get(sessionId) ?? []) {
    if (!w.counts(incident.tab_id)) continue;
    // A page asking again and again during one call (watchPosition) is one incident of it.
    if (w.incidents.some((i) => JSON.stringify(i) === same)) continue;
    w.incidents.push(incident);
    w.onIncident?.(incident);
  }
}

/** Collects the session's incidents in the tabs `counts` accepts until `dispose`; `onIncident` hears each as it comes. */
export function watchIncidents(
  sessionId: string,
  counts: (tabId: number) => boolean,
  onIncident?: (i: Incident) => void,
): { incidents: Incident[]; dispose: () => void } {
  const w: Watch = { incidents: [], counts, onIncident };
  let set = watchers.get(sessionId);
  if (!set) watchers.set(sessionId, (set = new Set()));
  set.add(w);
  return {
    incidents: w.incidents,
    dispose() {
      set.delete(w);
      if (set.size === 0 && watchers.get(sessionId) === set) watchers.delete(sessionId);
    },
  };
}

/** A navigation handed to another application never commits: nothing is left to wait for once it is asked. */
export function endsTheCall(i: Incident): boolean {
  return i.kind === "browser_prompt" && i.prompt === "external_protocol";
}

const PROMPT_TEXT: Record<string, string> = {
  http_auth: "asked for an HTTP sign-in",
  proxy_auth: "asked for a proxy sign-in",
  permission: "asked for a permission",
  external_protocol: "asked to open another application",
  print: "opened the print dialog",
  device_chooser: "asked to choose a device",
};

/**
 * The call's error for what happened during it. `ran`: the call itself finished (its page change happened), so the
 * error says effect_state committed and carries the call's result; otherwise the outcome is unknown.
 */
export function incidentError(incidents: Incident[], ran: { result: unknown } | null): BskError {
  const blocked = incidents.find((i) => i.kind === "origin_blocked");
  // A page that asked to open another app has acted on the input even if the call was cut short for it.
  const acted = ran !== null || incidents.some(endsTheCall);
  const effect = ran ? { effect_state: "committed", result: ran.result } : { effect_state: acted ? "committed" : "unknown" };
  const asked = incidents.find((i) => i.kind === "ask_first_request");
  if (asked) {
    return new BskError(
      "approval_required",
      `a page in tab ${asked.tab_id} sent a ${asked.method} to ${asked.url}: that site asks first, and only its own pages may send it what could change something; the browser blocked it`,
      { data: { reason: "request_to_ask_first_site", tab_id: asked.tab_id, url: asked.url, method: asked.method, ...effect } },
    );
  }
  if (blocked) {
    return new BskError(
      "permission_denied",
      `tab ${blocked.tab_id} was sent to ${blocked.url}, which this session's --allow-origin does not include; the browser blocked it`,
      {
        data: { reason: "origin_not_allowed", tab_id: blocked.tab_id, url: blocked.url, ...effect },
      },
    );
  }
  const p = incidents[0] as Extract<Incident, { kind: "browser_prompt" }>;
  const what = p.kind === "browser_prompt" ? (PROMPT_TEXT[p.prompt] ?? "asked the person something") : "asked the person something";
  const permission = p.detail.permission ? ` (${p.detail.permission})` : p.detail.realm ? ` (realm "${p.detail.realm}")` : "";
  const answered = p.answer === "cancelled" ? "; bsk cancelled it, as it never answers for the person" : "; it waits for the person";
  return new BskError("unsupported", `tab ${p.tab_id} ${what}${permission} at ${p.url}${answered}`, {
    data: { reason: "browser_prompt", prompt: p.prompt, tab_id: p.tab_id, url: p.url, detail: p.detail, answer: p.answer, ...effect },
  });
}

/**
 * An action that made the browser ask the person (a permission, printing, a device chooser) did act: its result,
 * with the effect `browser_prompt` (a script's result: `prompt`) and whether the prompt still waits. Null when the
 * call's result has no place to tell it in, or another incident (a blocked navigation, a cancelled sign-in) makes it an error.
 */
export function promptEffect(incidents: Incident[], result: unknown): unknown {
  if (!result || typeof result !== "object") return null;
  if (!incidents.every((i) => i.kind === "browser_prompt" && i.answer === "left_to_person")) return null;
  const p = incidents[0] as Extract<Incident, { kind: "browser_prompt" }>;
  const prompt = { kind: p.prompt as PromptKind, url: p.url, detail: p.detail, pending: promptOf(p.tab_id) !== undefined };
  const effect = (result as { effect?: { kind?: string } }).effect;
  if (effect && typeof effect === "object") return { ...result, effect: { ...effect, kind: "browser_prompt", prompt } };
  // A script that raised it (evaluate) says so beside its value.
  if ("value" in result) return { ...result, prompt };
  return null;
}
