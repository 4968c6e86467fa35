/**
 * The page side of an action's effect watch (effects.ts). Installs the mutation observer in the page (bsk's isolated world) for the document of `node`, and the shadow roots
 * it sits in. It also notes the frame after the input: the first input event the page sees requests an animation
 * frame (and a later event of the input again, when a frame ran since), so a settle that waits for a frame waits for
 * the one that renders the input's consequences, not for one requested later (which, with a frame already under way,
 * costs a whole extra frame). Self-contained: it is sent as
 * source, inside actionability.ts's page call or on its own.
 */
/** The probe's read (settle-read.ts READ_DOM_PROBE): the DOM changed, the input reached the document, it asked for a download. */
export type SettledRead = [dom: boolean, delivered: boolean | null, downloading: boolean];

export function installDomProbe(node: Node, via?: Element | null, notice?: { binding: string; id: string } | null): void {
  const g = globalThis as any;
  g.__bskMut?.stop();
  // Input that lands in a child frame (the element it goes to hosts a document) fires its events there, not here:
  // whether it arrived is then not known from this document.
  const target = via ?? (node instanceof Element ? node : null);
  const hostsDocument = (el: Element | null | undefined) =>
    !!el && ["iframe", "frame", "object", "embed", "fencedframe", "portal"].includes(el.localName);
  const elsewhere = hostsDocument(target);
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
  const PRESS = ["pointerdown", "mousedown", "touchstart"];
  // Input that reaches the document also gives it user activation, which no page listener can stop.
  const activeBefore = !!(navigator as any).userActivation?.isActive;
  const doc = node.ownerDocument ?? (node as Document);
  // The page-world work registry (entrypoints/page-world/work.ts) counts what the page posts from here on; the
  // event names are messages/page-world.ts's WORK_MARK, WORK_ASK and WORK_DUE_ASK (this function is sent as source;
  // tests/unit/extension-page-world-events.test.ts holds them together).
  doc.dispatchEvent(new Event("bsk-work-mark"));
  let seen = false;
  let ended = false;
  // The frame after the input is asked for by an input event the page sees (the first, or a later one: onInput),
  // before the page's own handlers ask for theirs: its callback then runs ahead of them in that frame, and the task it
  // posts once the whole frame (their changes included) is done.
  let ticked = false;
  const tick = () => {
    if (ended) return;
    ticked = true;
    // The frame this tick was asked for (a later event may ask for another meanwhile).
    const framed = state.framed;
    const after = new MessageChannel();
    after.port1.onmessage = () => framed();
    after.port2.postMessage(null);
  };
  const askFrame = () => {
    ticked = false;
    state.frame = new Promise<void>((resolve) => (state.framed = resolve));
    requestAnimationFrame(tick);
  };
  // The input event the page saw last: a change made on a press (a ripple on mousedown) may be followed by a download
  // on the release, in a later command whose news of it would reach the worker only after that command's answer.
  let last = "";
  // Trusted input events seen, by type: a read sent along with the input waits for the input's last ones.
  const counts: Record<string, number> = {};
  const onInput = (e: Event) => {
    last = e.type;
    if (e.isTrusted) counts[e.type] = (counts[e.type] ?? 0) + 1;
    // A frame that ran between the input's events (a busy machine can run one between a press and its release) is not
    // the frame after the input: what the release's handlers ask for runs in a later one, so it is asked for again.
    const first = !seen;
    seen = true;
    if (!ended && (first || ticked)) askFrame();
  };
  // A download the input asks for with no navigation (an <a download> link, clicked by the input or by the page's own
  // script, even detached) tells the browser nothing until its response or blob is read: the settle waits for it.
  // The Navigation API announces it, synchronously, as a navigate event with a download request. One the page's own
  // listener cancels is no download; that is read once the event is done (at the probe's read).
  const nav = (globalThis as any).navigation as EventTarget | undefined;
  const downloads: Event[] = [];
  const onNavigate = (e: Event) => {
    if (!e.isTrusted || e.defaultPrevented || (e as any).downloadRequest == null) return;
    downloads.push(e);
    // Told after the change was: the worker hears it with the input's answer, as it heard the change.
    if (state.changed && told) tell(true);
  };
  let told = false;
  const tell = (download: boolean) => {
    const fn = notice ? g[notice.binding] : undefined;
    if (typeof fn !== "function") return false;
    const el = node instanceof Element ? node : null;
    fn(JSON.stringify([notice!.id, download || !!el?.closest("a[download][href]")]));
    return (told = true);
  };
  // An action that fails after arming never reads the probe: it winds itself down.
  setTimeout(() => state.stop(), 60_000);
  // Answered by cancelling (a listener's exception stays in its own world: dispatching never throws here).
  const ask = (name: string) => doc.dispatchEvent(new Event(name, { cancelable: true }));
  const unlisten = () => {
    for (const t of INPUT) removeEventListener(t, onInput, true);
  };
  // The input listeners stay: a read sent along with the input still counts its last events after a change.
  const quiet = () => {
    ended = true;
    state.mo.disconnect();
  };
  const state = {
    changed: false,
    /** Whether the document received any of the input (its events, or the user activation they give); null: not known here. */
    delivered: () => seen || (!activeBefore && !!(navigator as any).userActivation?.isActive) || (elsewhere ? null : false),
    mo: new MutationObserver(() => {
      if (state.changed) return;
      state.changed = true;
      // Told to the worker at once (effect-notice.ts), so the settle needs no page call to learn it; nothing after the
      // first change can alter the answer, so the probe winds down (all but its ear for downloads). Not on a press:
      // the release may still ask for a download, and the settle's read hears it.
      if (!PRESS.includes(last) && tell(state.downloading())) quiet();
    }),
    /** The probe's read, which ends it (settle-read.ts READ_DOM_PROBE, select's in-call read). */
    take: (): SettledRead => {
      const read: SettledRead = [state.changed || state.mo.takeRecords().length > 0, state.delivered(), state.downloading()];
      state.stop();
      if (g.__bskMut === state) g.__bskMut = undefined;
      return read;
    },
    /** Whether the input asked for a download that no navigation tells of (and no listener of the page cancelled). */
    downloading: () => downloads.some((e) => !e.defaultPrevented),
    /** Whether the document saw any of the input's events. */
    seen: () => seen,
    /** Whether the input goes to a child frame's document (its events are not seen here). */
    elsewhere: () => elsewhere,
    /** Whether the focus is in a child frame now (keys go there: Tab, or a key's handler, may have put it there). */
    focusElsewhere: () => hostsDocument(doc.activeElement),
    /** How many trusted events of this input type the document has seen since arming. */
    count: (type: string) => counts[type] ?? 0,
    /**
     * Whether the page has work queued that may change the DOM in the next frame or task (the work registry answers
     * by cancelling the ask); without a registry, or one that does not answer, it may.
     */
    wanted: () => ask("bsk-work-ask"),
    /** Whether a short timer the page set is still to fire, or a message it posted undelivered (WORK_DUE_ASK). */
    due: () => !ask("bsk-work-due"),
    /** Resolves once the frame after the input has run (after its first event, or after its last one a frame followed). */
    frame: null as unknown as Promise<void>,
    framed: () => {},
    stop: () => {
      quiet();
      unlisten();
      nav?.removeEventListener("navigate", onNavigate);
    },
  };
  state.frame = new Promise<void>((resolve) => (state.framed = resolve));
  for (const t of INPUT) addEventListener(t, onInput, true);
  nav?.addEventListener("navigate", onNavigate);
  const opts = { subtree: true, childList: true, attributes: true, characterData: true };
  state.mo.observe(doc, opts);
  for (let r = node.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode()) state.mo.observe(r, opts);
  g.__bskMut = state;
}
