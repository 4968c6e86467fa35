/**
 * The A/B lane (`npm run bench -- --against REF`): this checkout's dist against a git ref built in a temporary
 * worktree, each in its own private world (daemon, Chromium with its own extension, fixture site), calls interleaved
 * pair by pair so the machine's drift hits both alike. It answers "did this change make local calls slower?" with
 * ratios, which survive a noisy machine; comparing absolute times with an older results file does not. Written whole
 * to bench/against.json by scripts/bench.ts.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync, cpSync } from "node:fs";
import { join } from "node:path";
import { $ } from "bun";
import { ROOT, type PrivateWorld } from "../world.ts";
import { McpLane } from "./mcp.ts";
import { interleaved, refIn, type Argv } from "./peer.ts";
import { pct, RUNS, spread } from "./timing.ts";

export interface AgainstRow {
  name: string;
  pairs: number;
  this_p50_ms: number;
  ref_p50_ms: number;
  /** The median of this/ref pair by pair (1.00 is unchanged), and their middle half (p25, p75). */
  pair_ratio_p50: number;
  pair_ratio_spread: [number, number];
}

interface Side {
  world: PrivateWorld;
  bsk: string;
  session: string;
  button: string;
  field: string;
}

/** Builds `ref` in a temporary worktree sharing this checkout's node_modules; returns its root. */
export async function buildRef(ref: string): Promise<{ root: string; commit: string; remove(): Promise<void> }> {
  const commit = (await $`git rev-parse --verify ${`${ref}^{commit}`}`.cwd(ROOT).text()).trim();
  const root = mkdtempSync("/tmp/bsk-bench-ref-");
  await $`git worktree add --detach --force ${root} ${commit}`.cwd(ROOT).quiet();
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  if (existsSync(join(ROOT, "extension/.wxt"))) cpSync(join(ROOT, "extension/.wxt"), join(root, "extension/.wxt"), { recursive: true });
  await $`bun scripts/build.ts`.cwd(root).quiet();
  return {
    root,
    commit,
    async remove() {
      await $`git worktree remove --force ${root}`.cwd(ROOT).quiet().nothrow();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function side(world: PrivateWorld, root: string): Promise<Side> {
  const must = async (args: string[]) => {
    const r = await world.run(args);
    if (r.code !== 0) throw new Error(`${root}: bsk ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  };
  // A REF from before startDaemon() probed its port when its world was made.
  if ("startDaemon" in world) await world.startDaemon();
  else await must(["daemon", "start", "--port", String((world as PrivateWorld).port)]);
  await world.launchBrowser();
  const session = (await must(["session", "start", "--no-focus"])).trim();
  await must(["navigate", world.fixtures.url("/bench-typical.html"), "--session", session]);
  const text: string = JSON.parse(await must(["snapshot", "--max-tokens", "200000", "--json", "--session", session])).result.text;
  return {
    world,
    bsk: join(root, "dist/bsk"),
    session,
    button: refIn(text, /button "Add note"/),
    field: refIn(text, /textbox "Full name"/),
  };
}

export async function againstLane(a: PrivateWorld, b: PrivateWorld, refRoot: string): Promise<AgainstRow[]> {
  const A = await side(a, ROOT);
  const B = await side(b, refRoot);
  const rows: AgainstRow[] = [];
  const add = (name: string, as: number[], bs: number[]) => {
    const ratios = as.map((x, i) => x / bs[i]!);
    const r: AgainstRow = {
      name,
      pairs: as.length,
      this_p50_ms: pct(as, 50),
      ref_p50_ms: pct(bs, 50),
      pair_ratio_p50: pct(ratios, 50),
      pair_ratio_spread: spread(ratios),
    };
    rows.push(r);
    console.log(`  ${name}: this ${r.this_p50_ms} ms, ref ${r.ref_p50_ms} ms, ratio ${r.pair_ratio_p50}`);
  };
  const pair = async (name: string, args: (s: Side) => string[], runs = RUNS, whole = false) => {
    const argv =
      (s: Side): Argv =>
      () =>
        whole ? args(s) : [s.bsk, ...args(s)];
    const { as, bs } = await interleaved({ argv: argv(A), env: a.env }, { argv: argv(B), env: b.env }, runs);
    add(name, as, bs);
  };
  const inSession = (more: string[]) => (s: Side) => [...more, "--session", s.session];
  await pair("status (warm)", () => ["status"]);
  await pair("tab list (warm)", inSession(["tab", "list"]));
  await pair("evaluate 1+1", inSession(["evaluate", "1+1"]));
  await pair("snapshot (typical page)", inSession(["snapshot"]));
  await pair("click (dom changed)", (s) => ["click", s.button, "--session", s.session]);
  await pair("fill", (s) => ["fill", s.field, "Ada Lovelace", "--session", s.session]);
  const flood =
    "window.flood = setInterval(() => { console.log('tick', Date.now()); fetch('/echo-title/x').then((r) => r.text()); }, 20); 1";
  for (const s of [A, B]) await s.world.run(["evaluate", flood, "--session", s.session]);
  await pair("evaluate 1+1 (page logs + fetches 50×/s)", inSession(["evaluate", "1+1"]));
  for (const s of [A, B]) await s.world.run(["evaluate", "clearInterval(window.flood); 1", "--session", s.session]);
  // A start and its stop form one sample: each side's window count stays at one.
  const startStop = 'id=$("$0" session start --no-focus) && exec "$0" session stop "$id"';
  await pair("session start + stop", (s) => ["sh", "-c", startStop, s.bsk], 12, true);
  // The same calls through each side's long-lived `bsk mcp`: no process start per call, so a change of a few ms in
  // the daemon or the extension shows here when the CLI's start-up drowns it above.
  const lanes = [await McpLane.start(a.env, A.bsk), await McpLane.start(b.env, B.bsk)] as const;
  try {
    const viaMcp = async (name: string, tool: string, args: (s: Side) => Record<string, unknown>, runs = RUNS) => {
      const call = (s: Side) => ({ tool, args: () => ({ session_id: s.session, ...args(s) }) });
      const as: number[] = [];
      const bs: number[] = [];
      for (let i = 0; i < 3 + runs; i++) {
        const ta = await lanes[0].time(call(A), i);
        const tb = await lanes[1].time(call(B), i);
        if (i < 3) continue;
        as.push(ta);
        bs.push(tb);
      }
      add(`${name} (bsk mcp)`, as, bs);
    };
    await viaMcp("tab list", "tab_list", () => ({}));
    await viaMcp("evaluate 1+1", "evaluate", () => ({ expression: "1+1" }));
    await viaMcp("snapshot (typical page)", "snapshot", () => ({}));
    await viaMcp("click (dom changed)", "click", (s) => ({ target: s.button }));
    await viaMcp("fill", "fill", (s) => ({ target: s.field, value: "Ada Lovelace" }));
    // On the field fill left focused.
    await viaMcp("press End", "press", () => ({ key: "End" }));
    await viaMcp("type 3 keys", "type", () => ({ text: "abc" }));
    await viaMcp("hover", "hover", (s) => ({ target: s.button }));
  } finally {
    await Promise.all(lanes.map((l) => l.close()));
  }
  return rows;
}
