/**
 * The page runtime, built as one self-contained script that the worker evaluates in bsk's isolated world of each
 * frame (never in the page's own world). It defines globalThis.__bsk; see src/snapshot/page/runtime.ts.
 */
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { installRuntime } from "../src/page/snapshot/page/runtime.ts";

export default defineUnlistedScript(() => {
  installRuntime();
});
