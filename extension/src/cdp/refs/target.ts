/**
 * What acting on "a target" resolves to. A target is a ref from a snapshot (`@e12`/`e12`) or a CSS selector
 * that matches exactly one element in the main frame and its open shadow roots.
 * resolveTarget (refs/resolve.ts) produces it; actions, screenshots and evaluate --frame consume it.
 */
export interface CdpTarget {
  tabId: number;
  /** Flat child session of an out-of-process iframe; undefined for the tab's own target. */
  sessionId?: string;
}

export interface ResolvedTarget {
  tabId: number;
  /** Where to send DOM/Runtime commands about the node (its frame's target). */
  cdp: CdpTarget;
  frameId: string;
  /** The node as a remote object in bsk's isolated world of its frame. */
  objectId: string;
  /** The node's backend id when already known; refs/resolve.ts backendNodeIdOf() asks for it (few calls need it). */
  backendNodeId?: number;
  /** Present when the target was a ref. */
  ref?: string;
  role: string;
  name: string;
  /** Top-left of the node's frame viewport in the tab's top-level viewport, CSS px (0,0 for the main frame). */
  frameOffset: { x: number; y: number };
}

/**
 * A tab whose checks (ownership as the browser sees it, what it shows) are still running: `tabId` is known when the
 * session's own records say it owns the tab, else null (the checks are waited for first). See resolve.ts resolveWith.
 */
export interface TabAhead {
  tabId: number | null;
  checked: Promise<{ tabId: number }>;
}
