/**
 * The soak (issue #40): M agents, each with its own session in one real headless Chromium with the real extension,
 * doing a realistic mix of calls on the soak page for N minutes while faults are injected at random moments (the
 * service worker stopped, the extension reloaded, the daemon SIGKILLed, a renderer crashed, a tab closed by the
 * person, a tab's network off and on, the person taking over and handing back, the ledger's disk full, a page that
 * floods, a page that allocates). Meanwhile the person's probe times a DevTools round trip every second, and memory
 * and bsk's home are sampled every 10 s. Afterwards every token op's ledger outcome is set against what the page
 * logged, and every event stream against its seqs. Writes the raw run (scripts/soak/run.ts) to --out; scripts/soak.ts
 * (npm run soak) runs this as its own process and turns the run into bench/soak.json and bench/soak.svg.
 *
 *   bun tests/load/soak.ts --minutes N --sessions M [--faults kind,kind] --out FILE
 *
 * --faults injects only the kinds named (FAULTS' keys); the others are listed as skipped, with why. `--faults none`
 * injects no fault: a clean measurement of what the work alone costs (e.g. the worker's heap slope).
 */
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { SoakRun } from "../../scripts/soak/run.ts";
import { evaluateInPage } from "../e2e/devtools.ts";
import { DEVELOPER_MODE, onExtensionsPage } from "../e2e/extensions-page.ts";
import { startWorld, until } from "../e2e/harness.ts";
import { tempDir } from "../temp.ts";
import { FAULTS, injectFaults } from "./soak/faults.ts";
import { type LedgerDisk, ledgerOnTmpfs } from "./soak/ledger-disk.ts";
import { type Shared, Slot } from "./soak/slot.ts";
import { memorySampler, personProbe } from "./soak/watch.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "3" },
    sessions: { type: "string", default: "4" },
    faults: { type: "string" },
    out: { type: "string" },
  },
});
const minutes = Number(values.minutes);
const sessions = Number(values.sessions);
if (!(minutes > 0) || !(sessions >= 1) || !values.out)
  throw new Error("usage: bun tests/load/soak.ts --minutes N --sessions M [--faults kind,kind] --out FILE");
const chosen = values.faults === "none" ? [] : (values.faults?.split(",").map((k) => k.trim()) ?? Object.keys(FAULTS));
const unknownKinds = chosen.filter((k) => !(k in FAULTS));
if (unknownKinds.length) throw new Error(`no fault kind ${unknownKinds.join(", ")}; the kinds: ${Object.keys(FAULTS).join(", ")}`);

const log = (line: string) => console.error(`soak: ${line}`);
const w = await startWorld({});
const files = tempDir("bsk-soak-files-");
let disk: LedgerDisk | undefined;
try {
  // A reloaded unpacked extension stays off unless developer mode is on (as it is for whoever loaded bsk unpacked).
  await onExtensionsPage(w, DEVELOPER_MODE);
  await w.person.asExtension("chrome.storage.local.set({ confirm_borrow: false })");
  const skipped: Record<string, string> = Object.fromEntries(
    Object.keys(FAULTS)
      .filter((k) => !chosen.includes(k))
      .map((k) => [k, "not among --faults"]),
  );
  const moved = await ledgerOnTmpfs(w);
  if (typeof moved === "string") skipped.disk_full ??= moved;
  else disk = moved;

  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  const end = minutes * 60;
  const done = () => now() >= end;
  const sh: Shared = { w, now, done, files, calls: [], ops: [], downloads: new Map(), followers: [], clicks: new Map() };
  const run: SoakRun = {
    minutes,
    sessions,
    started: new Date().toISOString(),
    // A worker's heap climbs for ~5 minutes after it starts (V8 tiering its code up: 3.9 -> 4.4 MB in a 10-minute
    // life of the first 60-minute run, flat after), so each life is judged from its sixth minute on.
    warm_s: Math.min(300, end / 4),
    calls: sh.calls,
    ops: sh.ops,
    clicks: [],
    events: [],
    faults: [],
    skipped,
    probe: [],
    memory: [],
  };
  const slots = Array.from({ length: sessions }, (_, i) => new Slot(i, sh));
  // No fault in the run's last 20 s: the end reads a world that has settled.
  const faultsDone = () => now() >= end - 20;
  const kinds = Object.keys(FAULTS).filter((k) => !(k in skipped));
  // One fault every ~90 s at most: with ten kinds the worker restarts every ~7 minutes and the daemon every ~15,
  // lives long enough to outlast their warm-up (at 45 s most worker lives ended before theirs).
  const everyS = Math.max(10, Math.min(90, (end - 30) / Math.max(1, kinds.length)));
  log(
    `${minutes} min, ${sessions} sessions, ${kinds.length ? `a fault every ~${Math.round(everyS)} s (${kinds.join(", ")})` : "no faults"}; home ${w.home}`,
  );
  const progress = setInterval(() => log(`${Math.round(now())} s: ${sh.calls.length} calls, ${run.faults.length} faults`), 30_000);
  await Promise.all([
    ...slots.map((s) => s.run()),
    kinds.length ? injectFaults({ w, slots, disk, now }, everyS, faultsDone, run.faults, new Set(Object.keys(skipped))) : undefined,
    personProbe(w, now, done, run.probe),
    memorySampler(w, now, done, run.memory),
  ]);
  clearInterval(progress);
  log(`work done at ${Math.round(now())} s; reading the ledger, the pages' logs and the event streams`);

  for (const f of sh.followers) await f.stop();
  for (const f of sh.followers) run.events.push(await f.catchUp());

  const ledger = new Map<string, string>();
  for (const s of new Set([...sh.ops.map((o) => o.session), ...sh.clicks.keys()])) {
    const r = await w.bsk(["ops", "--session", s, "--limit", "10000", "--json"]);
    for (const op of r.json?.result?.ops ?? []) ledger.set(op.op_id, op.state);
  }
  await w.person.openTab(w.fixtures.url("/soak.html?reader"));
  // Read once the page has its document (before, the tab's initial empty document may not read the origin's storage).
  const stored = JSON.parse(
    await until("the reader page's storage", () =>
      evaluateInPage(
        w.browser.cdpPort!,
        "soak.html?reader",
        `document.readyState === "complete" && JSON.stringify({ ...localStorage })`,
      ).then(
        (v) => (typeof v === "string" ? v : undefined),
        () => undefined,
      ),
    ),
  );
  for (const op of sh.ops) {
    const state = ledger.get(op.op_id);
    if (state) op.ledger = state;
    const file = sh.downloads.get(op.op_id);
    op.received = file ? Slot.downloaded(file, op.reply_ok) : Number(stored[`r:${op.op_id}`] ?? 0);
  }
  for (const [session, ids] of sh.clicks) {
    let executed = 0;
    let unknown = 0;
    for (const id of ids) {
      const state = ledger.get(id);
      if (state === "executed") executed++;
      else if (state === "unknown" || state === "reserved") unknown++;
    }
    run.clicks.push({ session, executed, unknown, received: Number(stored[`c:${session}:click`] ?? 0) });
  }
  // Sessions still live that no agent knows of (a session start that timed out may have gone on to open one).
  const known = new Set(slots.map((s) => s.session));
  const listed = (await w.bsk(["session", "list", "--json"])).json?.result?.sessions ?? [];
  run.unknown_live_sessions = listed
    .filter(
      (s: { session_id: string; state?: string; ended_at?: string }) => !s.ended_at && s.state !== "ended" && !known.has(s.session_id),
    )
    .map((s: { session_id: string }) => s.session_id);
  writeFileSync(values.out, JSON.stringify(run));
  log(`wrote ${values.out}`);
} finally {
  // The daemon's log goes next to the raw run: what to read when a check broke.
  cpSync(join(w.home, "logs"), `${values.out}.logs`, { recursive: true });
  await w.bsk(["session", "stop", "--all"]);
  await w.bsk(["daemon", "stop"]);
  try {
    disk?.unmount();
  } catch (e) {
    log(String(e));
  }
  await w.stop();
  rmSync(files, { recursive: true, force: true });
}
