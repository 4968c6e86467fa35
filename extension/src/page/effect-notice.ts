/**
 * The page's notice of a DOM change (pure: effects.ts arms and hears it). installDomProbe tells the worker of the first
 * change under a probe through this binding, which exists only in bsk's isolated world, so a click whose handler
 * changes the DOM settles with no page call after the input. The id names the arming, so a late notice of an earlier
 * action never counts for this one; it is random, and only bsk's world ever holds it.
 */
export const EFFECT_BINDING = "__bskEffect";

/**
 * A Runtime.bindingCalled that is the notice `expected` names: `[id, link]`, link being whether a download the input asked
 * for is still to be waited for (the element is in an `<a download>`, or the page's script clicked one). Anything else, an earlier arming's id included, is null.
 */
export function readNotice(p: Record<string, unknown>, expected: string | undefined): { link: boolean } | null {
  if (p.name !== EFFECT_BINDING || !expected || typeof p.payload !== "string" || p.payload.length > 200) return null;
  let told: unknown;
  try {
    told = JSON.parse(p.payload);
  } catch {
    return null;
  }
  return Array.isArray(told) && told.length === 2 && told[0] === expected ? { link: told[1] === true } : null;
}
