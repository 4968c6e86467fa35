/**
 * Acts as the person at the keyboard, through the browser's own remote-debugging port (not through bsk):
 * opens ordinary tabs, closes windows by hand. Minimal CDP client.
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

  send(method: string, params: object = {}): Promise<any> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
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
