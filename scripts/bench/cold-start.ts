/**
 * Cold start → the first navigated page, bsk against agent-browser in the same run, under two conditions said in
 * the result:
 *   (a) browser running: the browser runs (bsk's with its extension; for the peer a Chromium it attaches to over CDP)
 *       and neither tool's daemon does. bsk: `session start URL` (starts the daemon, opens the Agent Window, loads the
 *       page); the peer: `--cdp URL open` in a session whose daemon has never run (it loads the page in that browser's
 *       open tab). bsk's extension is trusted through native messaging (`bsk native install` for the profile), so
 *       while the daemon is down its doorbell port to the native host is open and keeps the service worker awake, as
 *       it does in a person's browser with the host registered: (a) covers an awake worker connecting on the
 *       doorbell, not a worker the browser had stopped (paired by code only, no host: its start and the link's
 *       back-off or alarm come on top). Timed twice for bsk: with its Agent Window (the default), and with
 *       `--where group` (a tab in a group of the person's window), each against its own peer runs.
 *   (b) nothing running: no daemon, no browser. bsk: `session start URL --launch` (the daemon starts the browser with
 *       BSK_BROWSER_COMMAND: the same Chromium, profile and extension as (a)); the peer: `open` in a new session (it
 *       starts its own Chromium, the same binary, headless).
 * Runs alternate bsk, peer, bsk, peer. Before each bsk run its daemon has been down for DOWN_MS, as when no agent has
 * called for a while. A whole run is one process's wall time, from its start to its exit with the page loaded.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromiumFlags, isBranded, removeSingletonDir } from "../chromium.ts";
import { BSK, ROOT, type PrivateWorld } from "../world.ts";
import type { Peer } from "./agent-browser.ts";
import { type PeerRow, peerRow } from "./peer.ts";
import { TARGETS } from "./targets.ts";
import { RUNS, timeProcess } from "./timing.ts";

const DOWN_MS = 3000;

async function must(r: Promise<{ code: number; stdout: string; stderr: string }>, what: string): Promise<string> {
  const x = await r;
  if (x.code !== 0) throw new Error(`${what} failed: ${x.stderr || x.stdout}`);
  return x.stdout;
}

/** Waits until a process that is not our child has exited (the browser the daemon started, in its own group). */
async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 200 && existsSync(`/proc/${pid}`); i++) await Bun.sleep(50);
  if (existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
}

/**
 * Both conditions. `world` has its daemon running and its browser (with bsk's extension, trusted) up; `cdp` is the
 * DevTools URL of a Chromium the peer may attach to. The world's browser is closed by (b), and left closed.
 */
export async function coldStart(world: PrivateWorld, chromium: string, peer: Peer, cdp: string): Promise<PeerRow[]> {
  const url = world.fixtures.url("/bench-peer-small.html");
  const runs = Math.max(3, Math.min(5, RUNS));
  const rows: PeerRow[] = [];
  const bskOnce = async (extra: string[] = []) => {
    await world.run(["daemon", "stop"]);
    await Bun.sleep(DOWN_MS);
    const t0 = performance.now();
    const s = (await must(world.run(["session", "start", url, "--no-focus", ...extra]), "cold bsk session start URL")).trim();
    const ms = performance.now() - t0;
    await must(world.run(["session", "stop", s]), "bsk session stop");
    return ms;
  };
  const peerOnce = async (session: string, args: string[]) => {
    const env = { ...peer.env, AGENT_BROWSER_SESSION: session };
    const ms = await timeProcess(peer.argv([...args, "open", url]), env);
    await timeProcess(peer.argv(["close"]), env);
    return ms;
  };

  // (a)
  const as: number[] = [];
  const bs: number[] = [];
  const groupAs: number[] = [];
  const groupBs: number[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(await bskOnce());
    bs.push(await peerOnce(`cold-a-${i}`, ["--cdp", cdp]));
    groupAs.push(await bskOnce(["--where", "group"]));
    groupBs.push(await peerOnce(`cold-ag-${i}`, ["--cdp", cdp]));
  }
  rows.push(
    peerRow(
      "cold start (a): browser running, no daemon",
      "session start URL",
      "--cdp URL open (new session)",
      as,
      bs,
      { cli: TARGETS.cold.browser_running },
      `bsk's daemon down ${DOWN_MS} ms before each run; bsk opens its Agent Window, the peer loads the page in the tab it finds`,
    ),
    peerRow(
      "cold start (a), bsk in a tab group of the person's window",
      "session start URL --where group",
      "--cdp URL open (new session)",
      groupAs,
      groupBs,
      { cli: TARGETS.cold.browser_running },
      `as (a), interleaved with it; bsk opens a tab in the person's window (no Agent Window), the peer loads the page in the tab it finds`,
    ),
  );

  // (b): the world's browser goes; bsk's daemon starts the same Chromium on the same profile through a wrapper.
  if (isBranded(chromium)) throw new Error("cold start (b) needs a Chromium that honours --load-extension (not branded Chrome)");
  await world.run(["daemon", "stop"]);
  await world.browser?.close();
  const profileDir = join(world.home, "profile");
  const pidFile = join(world.home, "browser.pid");
  const wrapper = join(world.home, "browser.sh");
  const flags = chromiumFlags({ extensionDir: join(ROOT, "dist/extension"), profileDir }, false);
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    wrapper,
    `#!/bin/sh\necho $$ > ${quote(pidFile)}\nexec ${[chromium, ...flags].map(quote).join(" ")} "$@" >/dev/null 2>&1\n`,
    {
      mode: 0o755,
    },
  );
  const launchEnv = { ...world.env, BSK_BROWSER_COMMAND: wrapper };
  const stopBrowser = async () => {
    await world.run(["daemon", "stop"]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    process.kill(pid, "SIGTERM");
    await gone(pid);
    removeSingletonDir(profileDir);
  };
  const cs: number[] = [];
  const ds: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const p = Bun.spawn([BSK, "session", "start", url, "--launch", "--no-focus"], { env: launchEnv, stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      if (code !== 0) throw new Error(`cold bsk session start URL --launch failed: ${err || out}`);
      cs.push(performance.now() - t0);
      await must(world.run(["session", "stop", out.trim()]), "bsk session stop");
      await stopBrowser();
      ds.push(await peerOnce(`cold-b-${i}`, []));
    }
  } finally {
    if (existsSync(pidFile) && existsSync(`/proc/${readFileSync(pidFile, "utf8").trim()}`)) await stopBrowser();
  }
  rows.push(
    peerRow(
      "cold start (b): nothing running",
      "session start URL --launch",
      "open (new session)",
      cs,
      ds,
      { cli: TARGETS.cold.nothing_running },
      "each tool starts the same Chromium binary, headless; bsk's with its profile and extension",
    ),
  );
  return rows;
}
