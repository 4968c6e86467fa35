/**
 * The person's hands and eyes inside one page, through the browser's DevTools port (its own connection to the
 * page target, not through bsk). It reads bsk's overlay through CDP's DOM domain, which pierces the closed shadow
 * root, and clicks its buttons with real mouse events at their on-screen position, as a person would.
 */
import { evaluateInFrame } from "./devtools.ts";
import { until } from "./harness.ts";

interface DomNode {
  nodeId: number;
  backendNodeId: number;
  nodeType: number;
  nodeName: string;
  nodeValue?: string;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
  shadowRootType?: string;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the person sees of bsk's overlay. */
export interface OverlayLook {
  pill: boolean;
  pillText: string;
  glow: boolean;
  /** data-action of every visible button (takeover, resume, stop, done, cancel, allow, deny). */
  buttons: string[];
  /** data-action of the visible buttons that are disabled (the approval panel's Allow until it is armed). */
  disabled: string[];
  panel: boolean;
  panelText: string;
  /** Highlight boxes drawn around help targets. */
  marks: number;
  /** The host's data-bsk-dodge (the pill moved to that edge). */
  dodge: string | null;
}

const attrs = (n: DomNode) => {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < (n.attributes?.length ?? 0); i += 2) out[n.attributes![i]!] = n.attributes![i + 1]!;
  return out;
};

function kids(n: DomNode): DomNode[] {
  return [...(n.shadowRoots ?? []), ...(n.children ?? [])];
}

function findAll(n: DomNode, pred: (n: DomNode) => boolean, out: DomNode[] = []): DomNode[] {
  if (pred(n)) out.push(n);
  for (const c of kids(n)) findAll(c, pred, out);
  return out;
}

/** What a node shows: its text, and what the panels' stylesheet draws from `data-said` (overlay/ui/said.ts). */
function text(n: DomNode): string {
  if (n.nodeType === 3) return n.nodeValue ?? "";
  const drawn = attrs(n)["data-said"];
  return [...(drawn === undefined ? [] : [drawn]), ...(n.children ?? []).map(text)].join(" ").replace(/\s+/g, " ").trim();
}

export class PersonPage {
  private nextId = 1;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly ws: WebSocket,
    readonly targetId: string,
    private readonly cdpPort: number,
  ) {
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data));
      const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    };
    // The page went away (closed, crashed): nothing it was asked will be answered.
    ws.onclose = () => {
      for (const p of this.pending.values()) p.reject(new Error("the page's DevTools connection closed"));
      this.pending.clear();
      this.closed = true;
    };
  }

  private closed = false;

  /** Attaches to the first page whose URL contains `marker`, once there is one. */
  static async find(cdpPort: number, marker: string, ms = 10_000): Promise<PersonPage> {
    const target = await until(
      `a page at ${marker}`,
      async () => {
        const list = (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()) as any[];
        return list.find((t) => t.type === "page" && String(t.url).includes(marker));
      },
      ms,
    );
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`could not attach to ${target.url}`));
    });
    return new PersonPage(ws, target.id, cdpPort);
  }

  send(method: string, params: object = {}): Promise<any> {
    if (this.closed) return Promise.reject(new Error("the page's DevTools connection closed"));
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    // A call the browser never answers fails on its own, naming itself, instead of running the test out.
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the page's DevTools did not answer ${method} ${JSON.stringify(params).slice(0, 200)} in 20 s`));
      }, 20_000);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  /** The page's own JS (main world), awaited. */
  async evaluate(expression: string): Promise<any> {
    const r = await this.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result?.value;
  }

  /**
   * Runs `script` (one that navigates: `location.href = …`, `history.back()`) in a later task of the page, so the
   * evaluate's reply is sent before the page starts going away; awaited directly, the reply can lose the race and
   * the call fails with "Inspected target navigated or closed".
   */
  async navigateBy(script: string): Promise<void> {
    await this.evaluate(`setTimeout(() => { ${script}; }, 0); true`);
  }

  /** Until `expression` (evaluated in the page, awaited) is truthy. */
  waitFor(expression: string, ms = 10_000): Promise<unknown> {
    return until(expression, () => this.evaluate(expression).catch(() => false), ms);
  }

  private async overlayRoot(): Promise<{ host: DomNode; shadow: DomNode } | null> {
    const { root } = await this.send("DOM.getDocument", { depth: -1, pierce: true });
    // bsk's host holds a closed shadow root; a page's own element of that name (fake-overlay.html) is not it.
    const host = findAll(root, (n) => n.nodeName === "BSK-OVERLAY" && n.shadowRoots?.[0]?.shadowRootType === "closed")[0];
    const shadow = host?.shadowRoots?.[0];
    return host && shadow ? { host, shadow } : null;
  }

  /** Whether `n` renders: neither it nor an ancestor inside the shadow root is `hidden`. */
  private static shown(shadow: DomNode, n: DomNode): boolean {
    const path = (at: DomNode, trail: DomNode[]): DomNode[] | null => {
      if (at === n) return [...trail, at];
      for (const c of kids(at)) {
        const p = path(c, [...trail, at]);
        if (p) return p;
      }
      return null;
    };
    return (path(shadow, []) ?? []).every((x) => !("hidden" in attrs(x)));
  }

  async overlay(): Promise<OverlayLook | null> {
    const o = await this.overlayRoot();
    if (!o) return null;
    const { shadow, host } = o;
    const byClass = (cls: string) => findAll(shadow, (n) => (attrs(n).class ?? "").split(/\s+/).includes(cls));
    const pill = byClass("pill")[0];
    const panel = byClass("panel")[0];
    const glow = byClass("glow")[0];
    const shownButtons = findAll(shadow, (n) => n.nodeName === "BUTTON" && PersonPage.shown(shadow, n));
    const buttons = shownButtons.map((b) => attrs(b)["data-action"]!);
    const disabled = shownButtons.filter((b) => "disabled" in attrs(b)).map((b) => attrs(b)["data-action"]!);
    return {
      pill: !!pill && PersonPage.shown(shadow, pill),
      pillText: pill ? text(pill) : "",
      glow: !!glow && PersonPage.shown(shadow, glow) && (attrs(glow).class ?? "").includes("on"),
      buttons,
      disabled,
      panel: !!panel,
      panelText: panel ? [text(panel), ...(await this.framedTexts(panel))].join(" ") : "",
      marks: byClass("mark").length,
      dodge: attrs(host)["data-bsk-dodge"] ?? null,
    };
  }

  /**
   * What bsk's own pages framed in a panel say (the approval panel's text, the help panel's words), as the person sees it: each is another
   * process, read through its own DevTools target. A frame not loaded yet says nothing.
   */
  private async framedTexts(panel: DomNode): Promise<string[]> {
    const frames = findAll(panel, (n) => n.nodeName === "IFRAME" && ["text", "note"].includes(attrs(n).class ?? ""));
    // The browser lists the frame by the extension's own id, not by the dynamic URL the panel loaded it from.
    const read = (src: string) => {
      const u = new URL(src);
      return evaluateInFrame(this.cdpPort, `${u.pathname}${u.search}`, "document.body.innerText").catch(() => "");
    };
    return (await Promise.all(frames.map((f) => read(attrs(f).src ?? "")))).map((t) => String(t).replace(/\s+/g, " ").trim());
  }

  /**
   * Where the focus is inside the overlay: the focused element's data-action, else its class (the note field's frame
   * is "note"); null when it is not in the overlay.
   */
  async overlayFocus(): Promise<string | null> {
    const o = await this.overlayRoot();
    if (!o) return null;
    const { object } = await this.send("DOM.resolveNode", { nodeId: o.shadow.nodeId });
    const r = await this.send("Runtime.callFunctionOn", {
      objectId: object.objectId,
      functionDeclaration: "function () { const a = this.activeElement; return a ? (a.dataset.action ?? a.className) : null; }",
      returnByValue: true,
    });
    return r.result?.value ?? null;
  }

  /** Waits until the overlay looks as `pred` wants (polling the page through CDP, like the harness's `until`). */
  waitOverlay(what: string, pred: (o: OverlayLook | null) => boolean, ms = 10_000): Promise<OverlayLook | null> {
    return until(
      what,
      async () => {
        const o = await this.overlay().catch(() => null);
        return pred(o) ? { o } : undefined;
      },
      ms,
    ).then((r) => r.o);
  }

  private async overlayNode(which: { action?: string; cls?: string; tag?: string }): Promise<DomNode> {
    const o = await this.overlayRoot();
    if (!o) throw new Error("no bsk overlay in the page");
    const node = findAll(o.shadow, (n) =>
      which.tag
        ? n.nodeName === which.tag
        : which.action
          ? attrs(n)["data-action"] === which.action
          : (attrs(n).class ?? "").split(/\s+/).includes(which.cls!),
    )[0];
    if (!node) throw new Error(`no overlay element ${JSON.stringify(which)}`);
    return node;
  }

  private async boxOf(nodeId: number): Promise<Box> {
    const { model } = await this.send("DOM.getBoxModel", { nodeId });
    const [x1, y1, x2, , , y3] = model.border as number[];
    return { x: x1!, y: y1!, width: x2! - x1!, height: y3! - y1! };
  }

  /** The on-screen box of an overlay element: a button by its data-action, or the first element with a class. */
  async overlayBox(which: { action?: string; cls?: string }): Promise<Box> {
    return this.boxOf((await this.overlayNode(which)).nodeId);
  }

  /**
   * An overlay element's box with the viewport it was laid out in: a new window's viewport shrinks while the
   * browser's debugging bar slides in, so the viewport is read before and after the box, and all is read again
   * until both reads agree.
   */
  async overlayBoxIn(which: { action?: string; cls?: string }): Promise<{ box: Box; viewport: { width: number; height: number } }> {
    const size = async () => JSON.parse(await this.evaluate("JSON.stringify({ width: innerWidth, height: innerHeight })"));
    return until(`a steady viewport around ${JSON.stringify(which)}'s box`, async () => {
      const before = await size();
      const box = await this.overlayBox(which);
      const after = await size();
      return before.width === after.width && before.height === after.height && { box, viewport: after };
    });
  }

  /**
   * Clicks the middle of the node `find` returns, once a look at that point shows that node (a person looks before
   * clicking; a page still laying out, or re-rendering, is looked at again). The look is taken again with the
   * pointer there, right before the press: a new window's viewport shrinks in steps for its first ~200 ms while the
   * browser's "is being debugged" bar slides in, and moves what is at the bottom (the pill) under a still pointer.
   */
  private async clickNode(what: string, find: () => Promise<DomNode | number>): Promise<void> {
    await this.send("Page.bringToFront");
    const at = await until(`${what} under the pointer`, async () => {
      try {
        const found = await find();
        const nodeId = typeof found === "number" ? found : found.nodeId;
        const { node } = await this.send("DOM.describeNode", { nodeId });
        const b = await this.boxOf(nodeId);
        const x = Math.round(b.x + b.width / 2);
        const y = Math.round(b.y + b.height / 2);
        const look = () => this.send("DOM.getNodeForLocation", { x, y, includeUserAgentShadowDOM: false, ignorePointerEventsNone: false });
        if ((await look()).backendNodeId !== node.backendNodeId) return undefined;
        await this.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
        return (await look()).backendNodeId === node.backendNodeId && { x, y };
      } catch {
        return undefined;
      }
    });
    await this.pressAt(at.x, at.y);
  }

  /** A person clicks what they see: the tab comes to the front first (input to a hidden tab is throttled). */
  async clickAt(x: number, y: number): Promise<void> {
    await this.send("Page.bringToFront");
    await this.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
    await this.pressAt(x, y);
  }

  /** Left button down and up where the pointer is. */
  private async pressAt(x: number, y: number): Promise<void> {
    const base = { x, y, button: "left", clickCount: 1 };
    await this.send("Input.dispatchMouseEvent", { type: "mousePressed", ...base });
    // A click that closes the page (Stop closes the agent's tab) is not answered.
    await this.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...base }).catch((err: Error) => {
      if (!this.closed) throw err;
    });
  }

  /**
   * Clicks an overlay button (takeover, resume, stop, done, cancel, allow, deny, finish) with trusted mouse events,
   * once it takes clicks: a panel's buttons are disabled until they have been seen for a moment, as a person waits.
   */
  clickOverlay(action: string): Promise<void> {
    return this.clickNode(`the overlay's ${action} button, enabled`, async () => {
      const node = await this.overlayNode({ action });
      if ("disabled" in attrs(node)) throw new Error(`the overlay's ${action} button is disabled`);
      return node;
    });
  }

  /**
   * A hostile page's cover: from now on an element of the top layer (above any z-index, bsk's overlay included) hides
   * the whole viewport, until the person's pointer moves over it; then it goes, and the page notes when
   * (`window.__revealedAt`, its own clock). `lureClicks` is the rest of the lure.
   */
  async cover(): Promise<void> {
    await this.evaluate(`(() => {
      const cover = document.createElement("div");
      cover.popover = "manual";
      cover.style.cssText = "inset: 0; width: 100vw; height: 100vh; margin: 0; border: 0; background: #fff";
      cover.textContent = "Click here to win";
      cover.addEventListener("pointermove", () => {
        cover.hidePopover();
        window.__revealedAt = performance.now();
      }, { once: true });
      document.body.append(cover);
      cover.showPopover();
      return true;
    })()`);
  }

  /**
   * The lure's end: the person's pointer moves to where the overlay's `action` button is (the page's cover goes and
   * shows it), and the person clicks there at once and again, as long as the page's clock says less than `withinMs`
   * passed since it showed (each click is sent only then). Returns how many clicks were sent.
   */
  async lureClicks(action: string, withinMs: number): Promise<number> {
    const box = await this.overlayBox({ action });
    const x = Math.round(box.x + box.width / 2);
    const y = Math.round(box.y + box.height / 2);
    await this.send("Page.bringToFront");
    await this.moveMouse(x, y);
    let clicks = 0;
    while ((await this.evaluate("performance.now() - window.__revealedAt")) < withinMs) {
      await this.pressAt(x, y);
      clicks++;
    }
    return clicks;
  }

  /**
   * For a failure message: from now on the page notes (in its own world, passively) every press, release, click and
   * resize it sees, with where and when; `pointerLog` reads them. Tells "pressed elsewhere" from "pressed, not clicked".
   */
  async watchPointer(): Promise<void> {
    await this.evaluate(`(() => {
      const log = (window.__personLog = []);
      const at = () => performance.now().toFixed(0);
      for (const type of ["pointerdown", "mousedown", "mouseup", "click"])
        addEventListener(type, (e) => log.push(type + " " + e.clientX + "," + e.clientY + " on " + e.target.localName + " @" + at()), true);
      addEventListener("resize", () => log.push("resize " + innerWidth + "x" + innerHeight + " @" + at()), true);
      return true;
    })()`);
  }

  pointerLog(): Promise<string> {
    return this.evaluate(
      `JSON.stringify({ now: performance.now().toFixed(0), viewport: innerWidth + "x" + innerHeight, log: window.__personLog ?? null })`,
    );
  }

  /** Clicks the page's own element matching `selector` (e.g. in bsk's popup opened as a tab). */
  clickSelector(selector: string): Promise<void> {
    return this.clickNode(selector, async () => {
      const { root } = await this.send("DOM.getDocument", { depth: 0 });
      const { nodeId } = await this.send("DOM.querySelector", { nodeId: root.nodeId, selector });
      if (!nodeId) throw new Error(`nothing matches ${selector}`);
      await this.send("DOM.scrollIntoViewIfNeeded", { nodeId });
      return nodeId as number;
    });
  }

  /** Types into whatever has focus, as the keyboard would (trusted input events). */
  async type(text: string): Promise<void> {
    await this.send("Input.insertText", { text });
  }

  /** Presses and releases one key (Enter, Tab, ArrowDown, …) with trusted key events; `shift` held for Shift+Tab. */
  async press(key: "Enter" | "Tab" | "Escape" | "ArrowDown", shift = false): Promise<void> {
    const codes = { Enter: 13, Tab: 9, Escape: 27, ArrowDown: 40 } as const;
    const base = { key, code: key, windowsVirtualKeyCode: codes[key], nativeVirtualKeyCode: codes[key], ...(shift && { modifiers: 8 }) };
    await this.send("Input.dispatchKeyEvent", { type: "keyDown", ...base, ...(key === "Enter" && { text: "\r" }) });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
  }

  /** Types `text` key by key into whatever has focus (trusted keyDown/keyUp pairs, as a keyboard sends). */
  async typeKeys(text: string): Promise<void> {
    for (const ch of text) {
      const code = ch.toUpperCase().charCodeAt(0);
      const base = { key: ch, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code };
      await this.send("Input.dispatchKeyEvent", { type: "keyDown", ...base, text: ch, unmodifiedText: ch });
      await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
    }
  }

  /** Moves the pointer over the page (no button held), as a person's hand resting on the mouse does. */
  async moveMouse(x: number, y: number): Promise<void> {
    await this.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
  }

  /** Turns the mouse wheel at a point. */
  async wheel(x: number, y: number, deltaY: number): Promise<void> {
    await this.send("Input.dispatchMouseEvent", { type: "mouseWheel", x, y, deltaX: 0, deltaY });
  }

  /**
   * Clicks the help panel's note field (an extension page in a frame of the panel) and types into it: at once, or key
   * by key (`keys`), once the field is ready (`data-ready`: its page has loaded and the worker has heard it). The tab's
   * input goes to the focused frame, as a keyboard's does.
   */
  async typeNote(note: string, keys = false): Promise<void> {
    await this.clickNode("the note field, ready", async () => {
      const node = await this.overlayNode({ cls: "note" });
      if (!("data-ready" in attrs(node))) throw new Error("the note field is not ready");
      return node;
    });
    // The frame is another process: the person sees the field focused before typing, or the keys go to the page.
    await until("the note field focused", async () => (await this.overlayFocus()) === "note");
    if (keys) await this.typeKeys(note);
    else await this.send("Input.insertText", { text: note });
  }

  /** What the screen shows, as the person's own DevTools captures it (overlay included). */
  async screenshot(): Promise<Uint8Array> {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  }

  close(): void {
    this.ws.close();
  }

  /** Closes the tab itself (as the person would), then the connection. */
  async closeTab(): Promise<void> {
    await this.send("Page.close").catch(() => undefined);
    this.ws.close();
  }
}
