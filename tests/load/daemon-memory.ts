/**
 * The daemon's memory under a long run of calls, with no browser (docs/development.md, "Where the daemon's memory
 * went"): a daemon of the source tree run as a subprocess, the integration tests' fake extension answering, and
 * loops of a navigate with an op id, a snapshot read (20 KB of text) and a status. After each checkpoint it waits for
 * the daemon's own idle collection (daemon/idle-gc.ts logs `collected`) and prints what it left: RSS, anonymous
 * memory, anonymous memory in executable mappings (compiled code), and the JS heap's size, capacity and external.
 *
 *   bun tests/load/daemon-memory.ts [--jit off|on|baseline|no-tiers] [--at 1000,4000,16000]
 *
 * `--jit` is how the daemon runs: off (BUN_JSC_useJIT=0, what the CLI starts), on, baseline (no DFG/FTL), or
 * no-tiers (the JIT on, so bun:ffi loads, but no tier compiling JavaScript: what peer credentials would cost). Linux.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { removeHome, startDaemon, startSession } from "../integration/harness.ts";
import { compiledCodeBytes } from "../proc-memory.ts";

const { values } = parseArgs({ options: { jit: { type: "string", default: "off" }, at: { type: "string", default: "1000,4000,16000" } } });
const JIT_ENV: Record<string, Record<string, string>> = {
  off: { BUN_JSC_useJIT: "0" },
  on: { BUN_JSC_useJIT: "1" },
  baseline: { BUN_JSC_useDFGJIT: "0" },
  "no-tiers": { BUN_JSC_useBaselineJIT: "0", BUN_JSC_useDFGJIT: "0" },
};
const env = JIT_ENV[values.jit!];
if (!env) throw new Error(`--jit is off, on or baseline, not ${values.jit}`);
const checkpoints = values.at!.split(",").map(Number);

function kb(pid: number, field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}

const d = await startDaemon({ subprocess: true, env });
const pid = d.proc!.pid;
const log = `${d.home}/logs/daemon.log`;
const collections = () =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.includes('"collected"'));

/** Waits for the daemon's next idle collection (at most ~30 s after the last call) and reads what it left. */
async function afterCollection(loops: number): Promise<void> {
  const seen = collections().length;
  while (collections().length === seen) await Bun.sleep(1_000);
  const c = JSON.parse(collections().at(-1)!);
  const row = {
    loops,
    rss_mb: c.rss_mb,
    anon_mb: +(kb(pid, "RssAnon") / 1024).toFixed(1),
    file_mb: +(kb(pid, "RssFile") / 1024).toFixed(1),
    code_mb: +(compiledCodeBytes(pid) / 1048576).toFixed(1),
    heap_mb: c.heap_mb,
    heap_total_mb: c.heap_total_mb,
    external_mb: c.external_mb,
  };
  console.log(JSON.stringify(row));
}

try {
  const peer = await d.peer({ features: ["hold_input"] });
  // The fake extension speaks now and then, as the real one does: a silent one is dropped as gone.
  const heartbeat = setInterval(() => peer.event("system.heartbeat", {}), 2_000);
  const client = await d.client();
  const session = await startSession(client);
  const text = '- link "x" [ref=e1]\n'.repeat(1_000);
  void (async () => {
    for (;;) {
      const r = await peer.next(undefined, 3_600_000);
      r.reply(r.method === "snapshot" ? { text, tab_id: 10 } : { tab_id: 10, url: "http://x/", title: "x" });
    }
  })().catch(() => undefined);
  console.log(`daemon pid ${pid}, jit ${values.jit}`);
  await client.call("system.status");
  await afterCollection(0);
  let done = 0;
  for (const upto of checkpoints) {
    for (; done < upto; done++) {
      await client.call("navigate", { session_id: session, url: "http://x/" }, { op_id: `m-${done}` });
      await client.call("snapshot", { session_id: session });
      await client.call("system.status");
    }
    await afterCollection(done);
  }
  clearInterval(heartbeat);
} finally {
  await d.stop();
  removeHome(d.home);
}
