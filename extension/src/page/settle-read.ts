/**
 * The settle's read in the page (effects.ts): it waits as long as the input's consequences may still be coming (the
 * input's last events, the frame after the input, the page's short timers and messages), then takes the DOM probe's
 * answer (dom-probe.ts). Sent as source; tests/e2e/effect-probe.test.ts runs it beside the probe in real Chromium.
 */
/** How long after the frame the settle waits for short timers and messages the page set off (the registry says). */
const DUE_GRACE_MS = 20;

/** The input's last events, by type and how many (fill's text: one input event; a key press: its keyups). */
export interface InputEnd {
  type: "input" | "keyup";
  count: number;
}

export const READ_DOM_PROBE = `(globalThis.__bskMut ? globalThis.__bskMut.take() : null)`;

/**
 * The frame after the input (or, when the page saw no input event, the next frame), then the observer's answer. A
 * DOM that already changed needs no frame: the answer cannot change, and what the input started (a navigation, a
 * new tab) was reported by the browser before this call's reply; a download it asked for is in the answer, and the
 * settle waits for it (downloadAsked). Nor does a page that handled the input
 * and has nothing queued (the browser answers an input command once the page's handlers, and the promise callbacks
 * they started, have run). Waiting for a task instead would not be quicker: after input the renderer runs its next
 * frame ahead of other tasks.
 */
export const afterFrame = (end: InputEnd | null, readBack: boolean, shown: boolean) => `new Promise((resolve) => {
  const s = globalThis.__bskMut;
  // A hidden page runs no frames, nor the page's own frame callbacks, until it is shown: one hidden for good (its
  // window minimized or covered; not one this call just brought to the front) is read without waiting for a frame
  // or its throttled timers. What it will do once shown happens after the reply.
  const hidden = ${!shown} && document.visibilityState === "hidden";
  const frame = (fn) => (hidden ? fn() : requestAnimationFrame(fn));
  // Read once, and only this probe: a late read must not stop the probe of the next action, armed by then.
  let read = false;
  const done = () => read || ((read = true), resolve(globalThis.__bskMut === s ? ${READ_DOM_PROBE} : null));
  // A change is the answer, unless an element's state is read back too (fill's value): that may change after.
  const changed = () => ${readBack ? "false" : "!!s && (s.changed ||= s.mo.takeRecords().length > 0)"};
  const end = ${JSON.stringify(end)};
  // Input bound for a child frame is not seen here (keys go where the focus is, which the input may move: Tab, or a
  // key's handler): the worker reads again after the input's answer.
  if (end && s && (s.elsewhere() || (end.type === "keyup" && s.focusElsewhere()))) return resolve("again");
  // Sent right behind the input (end), this read can arrive before the input's last events. It then waits for them,
  // even after a change (what they do may still be news: a download they ask for): a window listener, added now, runs
  // after the page's own on the event's path (and their promise callbacks); one the page keeps to itself is heard at
  // capture, and looked at a task later. With nothing queued then, the read is done without a frame; otherwise it
  // waits for the frame after the input, never for one that might come before it.
  const ahead = !!end && !!s && s.count(end.type) < end.count;
  if (!ahead && changed()) return done();
  if (!ahead && s && s.seen() && !s.wanted()) return done();
  // After the frame (and a task), short timers and messages the page set off get a little longer: after input the
  // renderer runs its next frame first, so even a timer of 0 ms may still be due.
  let settling = false;
  const settle = () => {
    if (settling) return;
    settling = true;
    const until = performance.now() + ${DUE_GRACE_MS};
    const spin = () => (!s || hidden || changed() || !s.due() || performance.now() > until ? done() : setTimeout(spin, 1));
    spin();
  };
  // A task posted after the frame runs after the messages the page posted while handling the input.
  const later = () => {
    const after = new MessageChannel();
    after.port1.onmessage = settle;
    after.port2.postMessage(null);
  };
  if (ahead) {
    let over = false;
    const off = () => {
      over = true;
      removeEventListener(end.type, bubbled);
      removeEventListener(end.type, heard, true);
      removeEventListener("focusout", left, true);
    };
    const handled = () => {
      if (over) return;
      off();
      if (changed() || !s.wanted()) done();
      else frame(later);
    };
    // The focus moving into a child frame takes the last keys there; the frame has it a task after the focusout.
    const left = (e) => {
      if (over || !e.isTrusted || end.type !== "keyup") return;
      const task = new MessageChannel();
      task.port1.onmessage = () => {
        if (over || !s.focusElsewhere()) return;
        off();
        resolve("again");
      };
      task.port2.postMessage(null);
    };
    // A read whose input never came (it failed) ends with the next action's probe, on that action's events.
    const gone = () => globalThis.__bskMut !== s && (off(), resolve(null), true);
    const bubbled = (e) => !gone() && e.isTrusted && s.count(end.type) >= end.count && queueMicrotask(handled);
    const heard = (e) => {
      if (gone() || !e.isTrusted || s.count(end.type) < end.count) return;
      const task = new MessageChannel();
      task.port1.onmessage = handled;
      task.port2.postMessage(null);
    };
    addEventListener(end.type, bubbled);
    addEventListener(end.type, heard, true);
    addEventListener("focusout", left, true);
    return;
  }
  if (!hidden) s?.frame.then(settle);
  frame(later);
})`;
