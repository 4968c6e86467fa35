/**
 * The recorder, built as one self-contained script that the worker has Chromium run in bsk's "bsk-record" world
 * of every document of a recording tab, from the document's start (src/recording/recorder.ts). It reports through
 * the world's CDP binding; see src/recording/page/capture.ts.
 */
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { installCapture } from "../src/features/recording/page/capture.ts";
import { RECORD_BINDING } from "../src/features/recording/wire.ts";

export default defineUnlistedScript(() => {
  const g = globalThis as { __bskRecorder?: boolean } & Record<string, unknown>;
  if (g.__bskRecorder) return;
  g.__bskRecorder = true;
  const binding = g[RECORD_BINDING] as ((payload: string) => void) | undefined;
  if (typeof binding !== "function") return;
  installCapture((report) => binding(JSON.stringify(report)));
});
