/**
 * What a daemon does before it says ready so that its first calls wait for nothing. zod builds a method's schema on
 * first use and compiles each object schema's parser on its first parse; together, for every method and the frame
 * shapes, that is ~100–200 ms of one thread. Run after the daemon said ready (a `setTimeout`, as it once was), it held
 * up the calls that arrived meanwhile, and a call's own first parses came on top: a fresh daemon answered its first
 * calls ~100–150 ms late (docs/development.md, "A fresh daemon's first calls"). Run before listening, it was the
 * longest wait of a cold start: the browser's link (rung in by daemon.json) and the Agent Window's opening waited
 * for it. So it runs once both links listen, in slices that let a frame in between (the extension's handshake, a
 * first call that already came), and ready is said when it is done.
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

/** Methods built between two turns of the event loop: a frame that arrives waits for one method's build at most. */
const SLICE = 1;

/** Warms every frame shape, then every method in slices; stops early when `stopping` says so. */
export async function warmUp(stopping: () => boolean = () => false): Promise<void> {
  for (const frame of SAMPLE_FRAMES) parseFrame(JSON.stringify(frame));
  while (!stopping() && warmSchemas(SLICE)) await new Promise<void>((resolve) => setImmediate(resolve));
}
