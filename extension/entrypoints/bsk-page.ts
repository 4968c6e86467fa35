/**
 * The page runtime, built as one self-contained script that the worker evaluates in bsk's isolated world of each
 * frame (never in the page's own world). It defines globalThis.__bsk; see src/snapshot/page/runtime.ts, and
 * globalThis.__bskOwnOverlay (src/page/own-overlay-in-page.ts).
 */
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { installOwnOverlay } from "../src/page/own-overlay-in-page.ts";
import { installRuntime } from "../src/page/snapshot/page/runtime.ts";

export default defineUnlistedScript(() => {
  installRuntime();
  // Which element is bsk's overlay host, for the hit tests and get-html (src/page/own-overlay.ts).
  installOwnOverlay();
});
