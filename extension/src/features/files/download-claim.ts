/**
 * The browser's side of a download call: chrome.downloads items the click caused. The tab's CDP sessions report
 * each download's URL (Page.downloadWillBegin), which picks the new items that are the click's; the router then
 * decides each one while the browser waits for its file name (onDeterminingFilename), before any "Ask where to
 * save" prompt: cancel it (its bytes are taken elsewhere), or steer it into `bsk-<session>/` of the download folder.
 * Items that are not the click's are held briefly in case their URL arrives late, then go their usual way.
 */
import { browser } from "wxt/browser";
import { onTabEvent } from "./cdp-events.ts";
import { safeName } from "./download-tap.ts";
import { type DownloadItem, routeFilenames, type Suggest } from "./filename-router.ts";

export type { DownloadItem };

/** How long a new download is held waiting for the click's download URL before it goes its usual way. */
const HOLD_MS = 3000;

/** What becomes of one of the click's items; the first call wins. */
export interface Routing {
  /** Its bytes are taken elsewhere: cancelled and erased while its name is decided (nothing saved, nothing asked). */
  cancel(): void;
  /** Saved into the browser's download folder under `bsk-<session>/`. */
  steer(): void;
  /** Not bsk's (a second download of the same click): it goes its usual way. */
  pass(): void;
}

/** Called for each of the click's items, with the name the site suggested; it must end with a Routing call. */
export type Route = (item: DownloadItem, name: string, to: Routing) => void;

interface Held {
  item: DownloadItem;
  suggest: Suggest;
  timer: ReturnType<typeof setTimeout>;
}

export class Claim {
  private readonly urls: { url: string; name?: string }[] = [];
  /** What the tab's sessions announced as downloads (Page.downloadWillBegin). */
  private readonly announced: string[] = [];
  private readonly held: Held[] = [];
  private readonly routed = new Set<number>();
  /** URLs whose bytes were taken from the response, and the browser's own items for them. */
  private readonly taken = new Set<string>();
  private readonly shadows = new Set<number>();
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly sessionId: string,
    tabId: number,
    private readonly route: Route,
  ) {
    this.offs.push(
      onTabEvent(tabId, "Page.downloadWillBegin", (_s, p) => {
        this.urls.push({ url: String(p.url ?? ""), name: p.suggestedFilename });
        this.announced.push(String(p.url ?? ""));
        for (const h of [...this.held]) this.match(h);
      }),
    );
    const onCreated = (item: DownloadItem) => {
      if (this.taken.has(item.url)) this.shadows.add(item.id);
    };
    browser.downloads.onCreated.addListener(onCreated);
    this.offs.push(() => browser.downloads.onCreated.removeListener(onCreated));
    this.offs.push(
      routeFilenames((item, suggest) => {
        const h: Held = { item, suggest, timer: setTimeout(() => this.letGo(h), HOLD_MS) };
        this.held.push(h);
        this.match(h);
        return true;
      }),
    );
  }

  /**
   * A URL known to be the click's download by other means: its response was taken (its item is a shadow), or it
   * is the clicked link's own address (a download it opens in another tab). Its item is matched too.
   */
  expect(url: string, name?: string, opts: { taken: boolean } = { taken: true }): void {
    if (opts.taken) this.taken.add(url);
    this.urls.push({ url, name });
    for (const h of [...this.held]) this.match(h);
  }

  /** What the click asked to download, for an error message. */
  get seenUrls(): string[] {
    return [...this.announced];
  }

  private match(h: Held): void {
    const u = this.urls.find((x) => x.url === h.item.url || x.url === h.item.finalUrl);
    if (!u) return;
    this.release(h);
    if (this.routed.has(h.item.id)) return h.suggest();
    this.routed.add(h.item.id);
    let done = false;
    const once = (f: () => void) => () => {
      if (done) return;
      done = true;
      f();
    };
    const name = safeName(h.item.filename || u.name || "download");
    this.route(h.item, name, {
      // Cancelled while its name is still being decided: the browser never saves it nor asks where to.
      cancel: once(() => void eraseItem(h.item.id).finally(() => h.suggest())),
      steer: once(() => {
        h.suggest({ filename: `bsk-${this.sessionId}/${crypto.randomUUID()}-${name}`, conflictAction: "uniquify" });
      }),
      pass: once(() => h.suggest()),
    });
  }

  private release(h: Held): void {
    clearTimeout(h.timer);
    const i = this.held.indexOf(h);
    if (i !== -1) this.held.splice(i, 1);
  }

  private letGo(h: Held): void {
    this.release(h);
    h.suggest();
  }

  /**
   * An <a download> link whose response was taken still gets a browser item once the aborted navigation ends:
   * interrupted before it was ever named (nothing asked, nothing saved), and usually after the call. It is erased
   * from the person's list whenever it shows up in the next SHADOW_MS.
   */
  eraseShadows(): void {
    for (const id of this.shadows) void eraseItem(id);
    for (const url of this.taken) eraseWhenCreated(url);
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    for (const h of [...this.held]) this.letGo(h);
  }
}

/** How long after a call the browser's item for a taken <a download> response is still looked out for. */
const SHADOW_MS = 10_000;

/** Cancels an item (if it still runs) and takes it off the person's list; never fails. */
export function eraseItem(id: number): Promise<unknown> {
  return browser.downloads
    .cancel(id)
    .catch(() => undefined)
    .then(() => browser.downloads.erase({ id }))
    .catch(() => undefined);
}

export function eraseWhenCreated(url: string): void {
  const onCreated = (item: DownloadItem) => {
    if (item.url !== url) return;
    stop();
    void eraseItem(item.id);
  };
  const timer = setTimeout(() => stop(), SHADOW_MS);
  const stop = () => {
    clearTimeout(timer);
    browser.downloads.onCreated.removeListener(onCreated);
  };
  browser.downloads.onCreated.addListener(onCreated);
}
