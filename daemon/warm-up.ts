/**
 * What a daemon does before it listens so that its first calls wait for nothing. zod builds a method's schema on
 * first use and compiles each object schema's parser on its first parse; together, for every method and the frame
 * shapes, that is ~100–200 ms of one thread. Run after the daemon said ready (a `setTimeout`, as it once was), it held
 * up the calls that arrived meanwhile, and a call's own first parses came on top: a fresh daemon answered its first
 * calls ~100–150 ms late (docs/development.md, "A fresh daemon's first calls"). Before listening, it is part of the
 * start-up, which a CLI that starts the daemon waits for anyway.
 */
import { parseFrame } from "../protocol/frames.ts";
import { warmSchemas } from "./validate.ts";

/** One of each frame shape the daemon reads: a client's request, the extension's replies and events. */
const SAMPLE_FRAMES = [
  { id: "warm-up", method: "system.status", params: {}, meta: { trace_id: "warm-up", timeout_ms: 1_000, client_pid: 1 } },
  { id: "warm-up", result: {}, meta: { trace_id: "warm-up", timings: { extension: 0 } } },
  { id: "warm-up", error: { code: "protocol_error", message: "warm-up", data: {} }, meta: {} },
  { event: "warm-up", payload: {}, seq: 1 },
];

export function warmUp(): void {
  warmSchemas();
  for (const frame of SAMPLE_FRAMES) parseFrame(JSON.stringify(frame));
}
