/**
 * Acts as the person at the keyboard, through the browser's own remote-debugging port (not through bsk):
 * opens ordinary tabs, closes windows by hand, types into pages, clicks bsk's own consent window.
 * Minimal CDP client.
 */
export class Person {
  private nextId = 1;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  private constructor(private ws: WebSocket) {
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data));
      const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message}`));
      else p.resolve(msg.result);
    };
  }

  static async connect(port: number): Promise<Person> {
    const info = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
    const ws = new WebSocket(info.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("could not reach the browser's DevTools port"));
    });
    return new Person(ws);
  }

  /** `sessionId`: a page attached with attachToTarget({flatten: true}). A command unanswered for 20 s fails (not hangs). */
  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the browser did not answer ${method} within 20 s: ${JSON.stringify(params).slice(0, 300)}`));
      }, 20_000);
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          clearTimeout(timer);
          f(v);
        };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
    });
  }

  /** Evaluates `expression` (awaiting a promise) in a page target, as the person's own DevTools would. */
  async evaluateIn(targetId: string, expression: string, opts: { userGesture?: boolean } = {}): Promise<any> {
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    try {
      const r = await this.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true, ...opts }, sessionId);
      if (r.exceptionDetails) throw new Error(`in ${targetId}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result?.value;
    } finally {
      await this.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  }

  /** Types `text` into the element `selector` matches, with trusted input events, as the person would. */
  async typeInto(targetId: string, selector: string, text: string): Promise<void> {
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    try {
      await this.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)}).focus()` }, sessionId);
      await this.send("Input.insertText", { text }, sessionId);
    } finally {
      await this.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  }

  /** The first page whose URL contains `marker`, once there is one. */
  async waitForPage(marker: string, ms = 10_000, except?: string): Promise<{ targetId: string; url: string; title: string }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const page = (await this.pages()).find((p) => p.url.includes(marker) && !(except && p.url.includes(except)));
      if (page) return page;
      if (Date.now() > deadline) throw new Error(`no page ${marker} within ${ms} ms`);
      await Bun.sleep(25);
    }
  }

  /**
   * Answers bsk's consent window (consent.html) by clicking Allow or Deny once it shows its prompt and the button
   * takes clicks (it is armed once it has been seen for a moment), with a trusted click at its place.
   * Returns what the prompt named: the session line and the tab's title.
   */
  async answerConsent(allow: boolean, ms = 10_000): Promise<{ session: string; title: string; url: string; countdown: string }> {
    const page = await this.waitForPage("/consent.html", ms);
    const button = allow ? "allow" : "deny";
    // The prompt's text arrives from the worker after load; the page may still be committing when attached.
    const look = `new Promise((resolve) => {
      const look = () => {
        const card = document.getElementById("card");
        const b = document.getElementById(${JSON.stringify(button)});
        if (!card || card.hidden || !b || b.disabled) return void setTimeout(look, 20);
        const text = (id) => document.getElementById(id).textContent;
        const r = b.getBoundingClientRect();
        resolve({
          shown: { session: text("session"), title: text("tab-title"), url: text("tab-url"), countdown: text("countdown") },
          x: Math.round(r.left + r.width / 2),
          y: Math.round(r.top + r.height / 2),
        });
      };
      look();
    })`;
    for (let attempt = 0; ; attempt++) {
      try {
        const { shown, x, y } = await this.evaluateIn(page.targetId, look);
        await this.clickIn(page.targetId, x, y);
        return shown;
      } catch (err) {
        if (attempt >= 3 || !/context|destroyed|navigat/i.test(String(err))) throw err;
      }
    }
  }

  /**
   * A trusted left click at (x, y) of a page target. A release that closes the page (the consent window goes once
   * answered) is never answered: it is done once answered or once the page is gone.
   */
  async clickIn(targetId: string, x: number, y: number): Promise<void> {
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    const base = { x, y, button: "left", clickCount: 1 };
    let released = false;
    try {
      await this.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y }, sessionId);
      await this.send("Input.dispatchMouseEvent", { type: "mousePressed", ...base }, sessionId);
      const release = this.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...base }, sessionId)
        .catch(() => undefined)
        .finally(() => (released = true));
      for (;;) {
        if (released || !(await this.pages()).some((p) => p.targetId === targetId)) break;
        await Promise.race([release, Bun.sleep(25)]);
      }
    } finally {
      if (released) await this.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  }

  /**
   * Opens `url` in a background tab of the person's own window (the one bsk's connect page sits in; Target.createTarget
   * would pick the last window opened, which may be an Agent Window) and waits for it to load. Returns the tab id.
   */
  async openInOwnWindow(url: string): Promise<number> {
    return this.asExtension(`new Promise((resolve) => chrome.windows.getCurrent().then(async (win) => {
      const tab = await chrome.tabs.create({ windowId: win.id, url: ${JSON.stringify(url)}, active: false });
      const done = (id, info) => {
        if (id !== tab.id || info.status !== "complete") return;
        chrome.tabs.onUpdated.removeListener(done);
        resolve(tab.id);
      };
      chrome.tabs.onUpdated.addListener(done);
      const now = await chrome.tabs.get(tab.id);
      if (now.status === "complete" && (now.url || "") !== "") done(tab.id, { status: "complete" });
    }))`);
  }

  /** Runs chrome.* as the person's hands (dragging tabs, toggling settings) from an extension page of bsk's. */
  async asExtension(expression: string, pageMarker = "/connect.html"): Promise<any> {
    // A page passed on the command line is an error page until the extension has loaded and revived it.
    const deadline = Date.now() + 10_000;
    for (;;) {
      // Not a connect page that closes itself (close=1) once connected.
      const page = await this.waitForPage(pageMarker, 10_000, "close=1");
      const ready = await this.evaluateIn(page.targetId, "typeof chrome === 'object' && !!chrome.tabs").catch(() => false);
      if (ready) return this.evaluateIn(page.targetId, expression);
      if (Date.now() > deadline) throw new Error(`${pageMarker} never became an extension page`);
      await Bun.sleep(25);
    }
  }

  async pages(): Promise<{ targetId: string; url: string; title: string }[]> {
    const { targetInfos } = await this.send("Target.getTargets");
    return targetInfos.filter((t: any) => t.type === "page");
  }

  /** Open a tab in the person's own window, as if they pressed Ctrl-T and typed the URL. */
  async openTab(url: string): Promise<string> {
    const { targetId } = await this.send("Target.createTarget", { url });
    return targetId;
  }

  /** Close every page whose URL contains `marker` (closing the last tab of a window closes the window). */
  async closePagesMatching(marker: string): Promise<number> {
    const pages = (await this.pages()).filter((p) => p.url.includes(marker));
    for (const p of pages) await this.send("Target.closeTarget", { targetId: p.targetId });
    return pages.length;
  }

  close() {
    this.ws.close();
  }
}
