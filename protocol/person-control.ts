/**
 * What the agent may still do while the person holds a session (Take over, or their own input in its tab): nothing
 * that acts on a page and nothing that reads one (a person typing a password or a one-time code is theirs alone).
 * Control-plane calls pass, and so do the session's own lists (tab list, events: how the agent learns of Resume)
 * and request-help (asking the person is always allowed). Both the daemon's gate and the extension's apply this.
 */
import { EFFECTS, METHODS, type MethodName } from "./catalog.ts";

const STILL_ALLOWED = new Set<string>(["request_help"]);

export function refusedWhileTakenOver(method: MethodName): boolean {
  const effect = EFFECTS[method];
  if (effect === "BrowserMutation" || effect === "TransientInput") return true;
  return effect === "PassiveRead" && METHODS[method].scope === "tab" && !STILL_ALLOWED.has(method);
}
