/**
 * The page side of an action's effect watch (effects.ts). Installs the mutation observer in the page (bsk's isolated world) for the document of `node`, and the shadow roots
 * it sits in. It also notes the frame after the input: the first input event the page sees requests an animation
 * frame, so a settle that waits for a frame waits for the one that renders the input's consequences, not for one
 * requested later (which, with a frame already under way, costs a whole extra frame). Self-contained: it is sent as
 * source, inside actionability.ts's page call or on its own.
 */
export function installDomProbe(node: Node, via?: Element | null, notice?: { binding: string; id: string } | null): void {
  const g = globalThis as any;
  g.__bskMut?.stop();
  // Input that lands in a child frame (the element it goes to hosts a document) fires its events there, not here:
  // whether it arrived is then not known from this document.
  const target = via ?? (node instanceof Element ? node : null);
  const elsewhere = !!target && ["iframe", "frame", "object", "embed", "fencedframe", "portal"].includes(target.localName);
  const INPUT = [
    "pointerdown",
    "pointerup",
    "mousedown",
    "mouseup",
    "click",
    "auxclick",
    "contextmenu",
    "keydown",
    "keypress",
    "keyup",
    "beforeinput",
    "input",
    "wheel",
    "drop",
    "touchstart",
  ];
  // Input that reaches the document also gives it user activation, which no page listener can stop.
  const activeBefore = !!(navigator as any).userActivation?.isActive;
  const doc = node.ownerDocument ?? (node as Document);
  // The page-world work registry (entrypoints/page-world/work.ts) counts what the page posts from here on; the
  // event names are messages/page-world.ts's WORK_MARK, WORK_ASK and WORK_DUE_ASK (this function is sent as source;
  // tests/unit/extension-page-world-events.test.ts holds them together).
  doc.dispatchEvent(new Event("bsk-work-mark"));
  let seen = false;
  let ended = false;
  // The frame after the input is asked for by the first input event the page sees, before the page's own handlers
  // ask for theirs: its callback then runs ahead of them in that frame, and the task it posts once the whole frame
  // (their changes included) is done.
  const tick = () => {
    if (ended) return;
    ended = true;
    const after = new MessageChannel();
    after.port1.onmessage = () => state.framed();
    after.port2.postMessage(null);
  };
  const onInput = () => {
    unlisten();
    seen = true;
    requestAnimationFrame(tick);
  };
  // An action that fails after arming never reads the probe: it winds itself down.
  setTimeout(() => state.stop(), 60_000);
  // Answered by cancelling (a listener's exception stays in its own world: dispatching never throws here).
  const ask = (name: string) => doc.dispatchEvent(new Event(name, { cancelable: true }));
  const unlisten = () => {
    for (const t of INPUT) removeEventListener(t, onInput, true);
  };
  const state = {
    changed: false,
    /** Whether the document received any of the input (its events, or the user activation they give); null: not known here. */
    delivered: () => seen || (!activeBefore && !!(navigator as any).userActivation?.isActive) || (elsewhere ? null : false),
    mo: new MutationObserver(() => {
      if (state.changed) return;
      state.changed = true;
      // Told to the worker at once (effect-notice.ts), so the settle needs no page call to learn it; nothing after the
      // first change can alter the answer, so the probe winds down.
      const tell = notice ? g[notice.binding] : undefined;
      if (typeof tell === "function") {
        const el = node instanceof Element ? node : null;
        tell(JSON.stringify([notice!.id, !!el?.closest("a[download][href]")]));
        state.stop();
      }
    }),
    /** Whether the document saw any of the input's events. */
    seen: () => seen,
    /**
     * Whether the page has work queued that may change the DOM in the next frame or task (the work registry answers
     * by cancelling the ask); without a registry, or one that does not answer, it may.
     */
    wanted: () => ask("bsk-work-ask"),
    /** Whether a short timer the page set is still to fire, or a message it posted undelivered (WORK_DUE_ASK). */
    due: () => !ask("bsk-work-due"),
    /** Resolves once the frame after the first input event has run. */
    frame: null as unknown as Promise<void>,
    framed: () => {},
    stop: () => {
      ended = true;
      unlisten();
      state.mo.disconnect();
    },
  };
  state.frame = new Promise<void>((resolve) => (state.framed = resolve));
  for (const t of INPUT) addEventListener(t, onInput, true);
  const opts = { subtree: true, childList: true, attributes: true, characterData: true };
  state.mo.observe(doc, opts);
  for (let r = node.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode()) state.mo.observe(r, opts);
  g.__bskMut = state;
}
