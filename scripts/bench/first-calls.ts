/**
 * `bun scripts/bench/first-calls.ts [runs] [other-tree]`: a freshly started daemon's first calls against its warm ones.
 * For each run a daemon starts on a new $BSK_HOME (`bun daemon/main.ts`); the moment it prints ready, `bsk status`'s method
 * (system.status, answered by the daemon alone) is called 8 times in a row, each on a new connection as a CLI
 * process makes one, through the CLI's own client (link proof included). Prints per call index the median wall time
 * and the daemon's own `meta.timings.daemon`. A first call much slower than the rest is the daemon doing work the
 * first call waits for (docs/development.md, "A fresh daemon's first calls"). Given another checkout (e.g. a detached
 * worktree of an older commit), its daemon runs too, run by run in turn with this one's, so the machine's drift hits
 * both alike. Nothing is written to bench/results.json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, nextRequestId, tryConnect } from "../../cli/daemon-client.ts";
import { homePaths } from "../../shared/home.ts";
import { ROOT } from "../world.ts";

const CALLS = 8;

// The client's own lazy imports (tryConnect loads these on first use) are paid here, not by the first call timed.
await Promise.all([import("../../shared/socket-dir.ts"), import("../../shared/link-key.ts")]);

interface Run {
  wall: number[];
  daemon: number[];
}

async function oneRun(tree: string): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), "bsk-first-calls-"));
  const env = { ...process.env, BSK_HOME: home, BSK_PORT: "0", BSK_NATIVE_HOST: "off", BSK_AUTO_UPDATE: "off" };
  const daemon = Bun.spawn([process.execPath, join(tree, "daemon/main.ts")], { env, stdout: "pipe", stderr: "inherit" });
  try {
    const reader = daemon.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the daemon exited before it was ready: ${out}`);
      out += new TextDecoder().decode(value);
    }
    if (!out.includes('"ready":true')) throw new Error(`the daemon did not start: ${out}`);
    const paths = homePaths(home, env);
    const wall: number[] = [];
    const daemonMs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      const conn = await tryConnect(paths, env);
      if (!conn) throw new Error("could not reach the daemon");
      const reply = await call(conn, { id: nextRequestId(), method: "system.status", params: {}, meta: {} }, { giveUpMs: 10_000 });
      conn.close();
      if (!reply.ok) throw reply.error;
      wall.push(performance.now() - t0);
      daemonMs.push(reply.meta?.timings?.daemon ?? Number.NaN);
    }
    return { wall, daemon: daemonMs };
  } finally {
    daemon.kill();
    await daemon.exited;
    rmSync(home, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function print(label: string, runs: Run[]): void {
  console.log(`${label}: call, wall p50 ms, daemon p50 ms (${runs.length} fresh daemons)`);
  for (let i = 0; i < CALLS; i++) {
    const wall = median(runs.map((a) => a.wall[i]!)).toFixed(1);
    const daemon = median(runs.map((a) => a.daemon[i]!)).toFixed(1);
    console.log(`${String(i + 1).padEnd(5)} ${wall.padStart(11)} ${daemon.padStart(14)}`);
  }
}

const count = Number(process.argv[2] ?? 5);
const other = process.argv[3];
const mine: Run[] = [];
const theirs: Run[] = [];
for (let r = 0; r < count; r++) {
  mine.push(await oneRun(ROOT));
  if (other) theirs.push(await oneRun(other));
}
print(ROOT, mine);
if (other) print(other, theirs);
