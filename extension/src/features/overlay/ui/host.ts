/**
 * The overlay's host: one <bsk-overlay> element appended to <html> (not <body>, which frameworks replace), with a
 * closed shadow root, so page scripts and bsk's own snapshot walker cannot see or click inside it. The host itself
 * covers the viewport with pointer-events:none. Its styles are set through the CSSOM and an adopted stylesheet,
 * which a page's CSP does not block. Only the shadow tree changes when the overlay updates: a change to the host
 * would be a DOM mutation of the page (bsk's effect detection watches those).
 */
import { OVERLAY_TAG } from "../../../shared/messages/overlay.ts";
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

export class OverlayHost {
  readonly host: HTMLElement;
  readonly root: HTMLDivElement;
  private readonly shadow: ShadowRoot;
  private readonly keeper: MutationObserver;

  constructor() {
    this.host = document.createElement(OVERLAY_TAG);
    for (const [prop, value] of HOST_STYLE) this.host.style.setProperty(prop, value, "important");
    this.shadow = this.host.attachShadow({ mode: "closed" });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(OVERLAY_CSS);
    this.shadow.adoptedStyleSheets = [sheet];
    this.root = document.createElement("div");
    this.root.className = "root";
    this.shadow.append(this.root);
    // Keys typed in the overlay's own field are not the page's business (nor its shortcuts').
    for (const type of ["keydown", "keyup", "keypress"]) this.shadow.addEventListener(type, (e) => e.stopPropagation());
    this.keeper = new MutationObserver(() => {
      if (!this.host.isConnected) this.attach();
    });
    this.attach();
  }

  private attach(): void {
    const parent = document.documentElement;
    if (!parent) return;
    parent.append(this.host);
    this.keeper.disconnect();
    this.keeper.observe(parent, { childList: true });
  }

  /** For a screenshot: hidden until shown again. Resolves once the page has restyled. */
  setCaptureHidden(hidden: boolean): void {
    if (hidden) this.host.style.setProperty("visibility", "hidden", "important");
    else this.host.style.removeProperty("visibility");
    // Reading a computed style applies the change before the worker is answered.
    void getComputedStyle(this.host).visibility;
  }

  dispose(): void {
    this.keeper.disconnect();
    this.host.remove();
  }
}
