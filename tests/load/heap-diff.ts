/**
 * What the extension's service worker keeps per call (issue #40's heap bar): M soak agents (tests/load/soak/slot.ts,
 * no faults) work for a warm-up, then the worker's heap is snapshotted three times, each after a GC, with work in
 * between. Objects born between the first and second snapshot and still alive at the third are what the worker
 * keeps; they are grouped by their retainer path (edge names up from the object), largest first, and printed.
 *
 * `--faults S` also injects, every ~S seconds, the soak's faults that leave the worker running (tests/load/soak/
 * faults.ts: a renderer crashed, a tab closed by the person, the network off, the daemon killed, a takeover, a flood).
 *
 *   bun tests/load/heap-diff.ts [--sessions M] [--warm S] [--between S] [--top N] [--faults S]
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { serviceWorker } from "../e2e/devtools.ts";
import { startWorld, type World } from "../e2e/harness.ts";
import type { FaultRecord } from "../../scripts/soak/run.ts";
import { tempDir } from "../temp.ts";
import { injectFaults } from "./soak/faults.ts";
import { type Shared, Slot } from "./soak/slot.ts";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "2" },
    warm: { type: "string", default: "60" },
    between: { type: "string", default: "90" },
    top: { type: "string", default: "40" },
    faults: { type: "string" },
  },
});

interface Snapshot {
  ids: Int32Array;
  names: string[];
  types: string[];
  selfSize: Float64Array;
  /** Per node: its retainers as [from node, edge name] pairs. */
  retainers: [number, string][][];
}

/** Takes a heap snapshot of the worker (after a GC) over the browser's DevTools socket and indexes it. */
async function snapshot(w: World): Promise<Snapshot> {
  const sw = await serviceWorker(w.person);
  if (!sw) throw new Error("no service worker");
  const info = await (await fetch(`http://127.0.0.1:${w.browser.cdpPort}/json/version`)).json();
  const ws = new WebSocket(info.webSocketDebuggerUrl);
  await new Promise((r) => (ws.onopen = r));
  let id = 0;
  const waiting = new Map<number, (v: any) => void>();
  const chunks: string[] = [];
  ws.onmessage = (ev) => {
    const m = JSON.parse(String(ev.data));
    if (m.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(m.params.chunk);
    else if (m.id !== undefined) waiting.get(m.id)?.(m.result ?? m.error);
  };
  const send = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<any>((resolve) => {
      waiting.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });
  try {
    const { sessionId } = await send("Target.attachToTarget", { targetId: sw.targetId, flatten: true });
    await send("HeapProfiler.enable", {}, sessionId);
    await send("HeapProfiler.collectGarbage", {}, sessionId);
    await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false }, sessionId);
    await send("Target.detachFromTarget", { sessionId });
  } finally {
    ws.close();
  }
  const s = JSON.parse(chunks.join(""));
  const meta = s.snapshot.meta;
  const nf: string[] = meta.node_fields;
  const ef: string[] = meta.edge_fields;
  const nodeTypes: string[] = meta.node_types[0];
  const edgeTypes: string[] = meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const count = s.nodes.length / N;
  const ids = new Int32Array(count);
  const names: string[] = new Array(count);
  const types: string[] = new Array(count);
  const selfSize = new Float64Array(count);
  const retainers: [number, string][][] = Array.from({ length: count }, () => []);
  let e = 0;
  for (let i = 0; i < count; i++) {
    const b = i * N;
    types[i] = nodeTypes[s.nodes[b + nf.indexOf("type")]]!;
    names[i] = s.strings[s.nodes[b + nf.indexOf("name")]];
    ids[i] = s.nodes[b + nf.indexOf("id")];
    selfSize[i] = s.nodes[b + nf.indexOf("self_size")];
    const edges = s.nodes[b + nf.indexOf("edge_count")];
    for (let k = 0; k < edges; k++, e += E) {
      const et = edgeTypes[s.edges[e + ef.indexOf("type")]]!;
      const nameOrIndex = s.edges[e + ef.indexOf("name_or_index")];
      const to = s.edges[e + ef.indexOf("to_node")] / N;
      if (et === "weak" || et === "shortcut") continue;
      const label = et === "element" || et === "hidden" ? `[${et === "hidden" ? "h" : ""}${nameOrIndex}]` : String(s.strings[nameOrIndex]);
      retainers[to]!.push([i, label]);
    }
  }
  return { ids, names, types, selfSize, retainers };
}

/** The retainer path of node `i`: up to `depth` steps, preferring a retainer that is not itself new. */
function path(s: Snapshot, i: number, isNew: (j: number) => boolean, depth = 12): string {
  const parts: string[] = [`${s.types[i]}:${s.names[i]!.slice(0, 40)}`];
  const seen = new Set([i]);
  let at = i;
  for (let d = 0; d < depth; d++) {
    const rs = s.retainers[at]!.filter(([j]) => !seen.has(j));
    if (rs.length === 0) break;
    const pick = rs.find(([j]) => !isNew(j) && s.types[j] !== "hidden") ?? rs[0]!;
    const [j, label] = pick;
    parts.push(`${label.replace(/\d{3,}/g, "#")}<${s.types[j]}:${s.names[j]!.slice(0, 40).replace(/\d{3,}/g, "#")}`);
    seen.add(j);
    at = j;
    // Up to the first old object reached by a property name (a module's state, a class's field).
    if (
      !isNew(j) &&
      s.types[j] === "object" &&
      /^[A-Za-z_$][\w$]*$/.test(label) &&
      !["table", "elements", "context", "properties"].includes(label)
    )
      break;
  }
  return parts.join(" ← ");
}

const log = (line: string) => console.error(`heap-diff: ${line}`);

/** KiB of compiled code and of everything else in the snapshot. */
function sizes(s: Snapshot): string {
  let code = 0;
  let rest = 0;
  for (let i = 0; i < s.ids.length; i++) {
    if (s.types[i] === "code") code += s.selfSize[i]!;
    else rest += s.selfSize[i]!;
  }
  return `${(code / 1024).toFixed(0)} KiB code, ${(rest / 1024).toFixed(0)} KiB other`;
}
const w = await startWorld({});
const files = tempDir("bsk-heap-files-");
try {
  await w.person.asExtension("chrome.storage.local.set({ confirm_borrow: false })");
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  let stop = false;
  const sh: Shared = { w, now, done: () => stop, files, calls: [], ops: [], downloads: new Map(), followers: [], clicks: new Map() };
  const slots = Array.from({ length: Number(values.sessions) }, (_, i) => new Slot(i, sh));
  // Faults that stop the worker would start its heap again; the disk's needs a tmpfs; a 512 MB page is too much here.
  const skip = new Set(["worker_stopped", "extension_reloaded", "disk_full", "allocating_page"]);
  const faults: FaultRecord[] = [];
  const work = Promise.all([
    ...slots.map((s) => s.run()),
    values.faults ? injectFaults({ w, slots, now }, Number(values.faults), () => stop, faults, skip) : undefined,
  ]);
  const at = async (s: number) => {
    while (now() < s) await Bun.sleep(1000);
  };
  const warm = Number(values.warm);
  const between = Number(values.between);
  await at(warm);
  const a = await snapshot(w);
  const callsA = sh.calls.length;
  log(`A at ${Math.round(now())} s: ${a.ids.length} nodes (${sizes(a)}), ${callsA} calls`);
  await at(warm + between);
  const b = await snapshot(w);
  const callsB = sh.calls.length;
  log(`B at ${Math.round(now())} s: ${b.ids.length} nodes (${sizes(b)}), ${callsB - callsA} calls since A`);
  await at(warm + 2 * between);
  const c = await snapshot(w);
  log(`C at ${Math.round(now())} s: ${c.ids.length} nodes (${sizes(c)}), ${sh.calls.length - callsB} calls since B`);
  stop = true;
  await work;
  if (faults.length) log(`faults: ${faults.map((f) => `${f.kind}${f.injected ? "" : " (not injected)"}`).join(", ")}`);
  for (const f of sh.followers) await f.stop();

  const inA = new Set(a.ids);
  const inB = new Set(b.ids);
  // Born between A and B, alive at C.
  const bornAB = (j: number) => inB.has(c.ids[j]!) && !inA.has(c.ids[j]!);
  const isNewInC = (j: number) => !inA.has(c.ids[j]!);
  const groups = new Map<string, { n: number; bytes: number }>();
  let total = 0;
  let code = 0;
  for (let i = 0; i < c.ids.length; i++) {
    if (!bornAB(i)) continue;
    // Compiled code grows as the JIT warms up to the worker's functions (bounded by them): counted, not listed.
    if (c.types[i] === "code") {
      code += c.selfSize[i]!;
      continue;
    }
    total += c.selfSize[i]!;
    const key = path(c, i, isNewInC);
    const g = groups.get(key) ?? { n: 0, bytes: 0 };
    g.n++;
    g.bytes += c.selfSize[i]!;
    groups.set(key, g);
  }
  const byType = new Map<string, number>();
  for (let i = 0; i < c.ids.length; i++) {
    if (!bornAB(i)) continue;
    const k = `${c.types[i]}:${c.names[i]!.slice(0, 30)}`;
    byType.set(k, (byType.get(k) ?? 0) + 1);
  }
  console.log(
    `kept from A..B at C: ${(total / 1024).toFixed(1)} KiB of objects (and ${(code / 1024).toFixed(1)} KiB of code) over ${callsB - callsA} calls`,
  );
  for (const [k, g] of [...groups].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, Number(values.top))) {
    console.log(`${String(g.n).padStart(6)} ${(g.bytes / 1024).toFixed(1).padStart(8)} KiB  ${k}`);
  }
  console.log("--- by type:name (count)");
  for (const [k, n] of [...byType].sort((x, y) => y[1] - x[1]).slice(0, 30)) console.log(`${String(n).padStart(6)} ${k}`);
} finally {
  await w.stop();
  rmSync(files, { recursive: true, force: true });
}
