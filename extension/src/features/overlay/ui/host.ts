/**
 * The overlay's host: one <bsk-overlay> element appended to <html> (not <body>, which frameworks replace), with a
 * closed shadow root, so page scripts and bsk's own snapshot walker cannot see or click inside it. The host itself
 * covers the viewport with pointer-events:none. Its styles are set through the CSSOM and an adopted stylesheet,
 * which a page's CSP does not block. Only the shadow tree changes when the overlay updates: a change to the host
 * would be a DOM mutation of the page (bsk's effect detection watches those).
 *
 * The page can reach the host element, so the host keeps itself: removed, moved under another parent (a hidden
 * one), restyled (`display:none`), given attributes (`inert`, `tabindex`) or focused, it is put back as it was
 * before the page's script yields (a mutation observer's callback runs before the next frame is drawn). What it
 * cannot undo (a cover in the top layer, the page's own root made transparent) the pill's visibility watch reports.
 *
 * A page can make a <bsk-overlay> of its own, so the name proves nothing: the shadow root carries a random mark
 * (`mark`), which bsk's worker finds through CDP to tell its host apart (page/own-overlay.ts).
 */
import { OVERLAY_MARK_ATTR, OVERLAY_TAG } from "../../../shared/messages/overlay.ts";
import { OVERLAY_CSS } from "./styles.ts";

const HOST_STYLE: [string, string][] = [
  ["all", "initial"],
  ["position", "fixed"],
  ["inset", "0"],
  ["margin", "0"],
  ["padding", "0"],
  ["border", "0"],
  ["pointer-events", "none"],
  ["z-index", "2147483647"],
  ["display", "block"],
];

/** Attributes bsk itself sets on the host (actionability moves the pill out of an action's way). */
const OWN_ATTRIBUTES = new Set(["style", "data-bsk-dodge"]);

export class OverlayHost {
  readonly host: HTMLElement;
  readonly root: HTMLDivElement;
  /** Random per host; only bsk's worlds can read it (the shadow root is closed). Not randomUUID: http pages lack it. */
  readonly mark = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  private readonly shadow: ShadowRoot;
  private readonly keeper: MutationObserver;
  private captureHidden = false;
  /** The style attribute as bsk last wrote it. */
  private style = "";

  constructor() {
    this.host = document.createElement(OVERLAY_TAG);
    this.restyle();
    this.shadow = this.host.attachShadow({ mode: "closed" });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(OVERLAY_CSS);
    this.shadow.adoptedStyleSheets = [sheet];
    this.root = document.createElement("div");
    this.root.className = "root";
    this.root.setAttribute(OVERLAY_MARK_ATTR, this.mark);
    this.shadow.append(this.root);
    // Keys typed in the overlay's own field are not the page's business (nor its shortcuts').
    for (const type of ["keydown", "keyup", "keypress"]) this.shadow.addEventListener(type, (e) => e.stopPropagation());
    // Only the person's pointer puts focus into the panels (arming.ts): the host itself is never a focus target.
    // A focus event inside the shadow tree reaches the host too: only the host's own focus is turned away.
    this.host.addEventListener("focus", () => {
      if (this.shadow.activeElement === null) this.host.blur();
    });
    this.keeper = new MutationObserver(() => this.keep());
    this.keep();
  }

  private restyle(): void {
    this.host.removeAttribute("style");
    for (const [prop, value] of HOST_STYLE) this.host.style.setProperty(prop, value, "important");
    if (this.captureHidden) this.host.style.setProperty("visibility", "hidden", "important");
    this.style = this.host.getAttribute("style") ?? "";
  }

  /** Puts the host back where and as bsk made it, then watches again. */
  private keep(): void {
    const parent = document.documentElement;
    if (!parent) return;
    this.keeper.disconnect();
    if (this.host.parentNode !== parent) parent.append(this.host);
    for (const name of this.host.getAttributeNames()) if (!OWN_ATTRIBUTES.has(name)) this.host.removeAttribute(name);
    if (this.host.getAttribute("style") !== this.style) this.restyle();
    this.keeper.observe(document, { childList: true });
    this.keeper.observe(parent, { childList: true });
    this.keeper.observe(this.host, { attributes: true });
  }

  /** For a screenshot: hidden until shown again. Resolves once the page has restyled. */
  setCaptureHidden(hidden: boolean): void {
    this.captureHidden = hidden;
    this.restyle();
    // Reading a computed style applies the change before the worker is answered.
    void getComputedStyle(this.host).visibility;
  }

  dispose(): void {
    this.keeper.disconnect();
    this.host.remove();
  }
}
