/**
 * The faults the soak injects, one at a time at random moments, each undone by itself where the person or the
 * machine would undo it (the network comes back, the disk gets space, the person hands back).
 */
import type { FaultRecord } from "../../../scripts/soak/run.ts";
import { daemonPid } from "../../e2e/daemon-process.ts";
import { crashPage, stopServiceWorker } from "../../e2e/devtools.ts";
import { relinkedAfter } from "../../e2e/extensions-page.ts";
import type { World } from "../../e2e/harness.ts";
import { PersonPage } from "../../e2e/person-page.ts";
import type { LedgerDisk } from "./ledger-disk.ts";
import type { Slot } from "./slot.ts";

export interface FaultContext {
  w: World;
  slots: Slot[];
  disk?: LedgerDisk;
  now: () => number;
}

/** How long a fault that lasts holds (the network off, the disk full, the person in control, a detour). */
const HOLD_MS = 10_000;

/** A slot with a live session, chosen at random. */
function someSession(ctx: FaultContext): { slot: Slot; session: string } {
  const live = ctx.slots.filter((s) => s.session);
  const slot = live[Math.floor(Math.random() * live.length)];
  if (!slot?.session) throw new Error("no slot has a session right now");
  return { slot, session: slot.session };
}

/** The slot's own tab: its URL carries s=<session>. */
const marker = (session: string) => `soak.html?s=${session}`;

/**
 * A live session whose page is on the soak page right now (not on a detour, a person's borrowed tab or between
 * navigations), for the faults that act on that page; at random among those.
 */
async function sessionOnItsPage(ctx: FaultContext): Promise<string> {
  const list = (await (await fetch(`http://127.0.0.1:${ctx.w.browser.cdpPort!}/json/list`)).json()) as { type: string; url: string }[];
  const on = ctx.slots
    .map((s) => s.session)
    .filter((s): s is string => !!s && list.some((t) => t.type === "page" && t.url.includes(marker(s))));
  const session = on[Math.floor(Math.random() * on.length)];
  if (!session) throw new Error("no session is on its soak page right now");
  return session;
}

/** For a fault's note: the session's state as bsk lists it, and the URLs of its tabs. */
async function sessionNow(ctx: FaultContext, session: string): Promise<string> {
  const listed = (await ctx.w.bsk(["session", "list", "--session", session, "--json"])).json?.result?.sessions?.[0];
  const tabs = (await ctx.w.bsk(["tab", "list", "--session", session, "--json"])).json?.result?.tabs ?? [];
  const end = listed?.end_reason ? ` (${listed.end_reason})` : "";
  return `session ${session} ${listed?.state ?? "not listed"}${end}, tabs: ${tabs.map((t: { url?: string }) => t.url).join(" ") || "none"}`;
}

/** Each fault; what it resolves with, when a string, is the session it hit. */
export const FAULTS: Record<string, (ctx: FaultContext) => Promise<unknown>> = {
  async worker_stopped(ctx) {
    await stopServiceWorker(ctx.w.person);
  },
  async extension_reloaded(ctx) {
    await relinkedAfter(ctx.w, () => ctx.w.person.asExtension("(chrome.runtime.reload(), true)").catch(() => undefined));
  },
  async daemon_killed(ctx) {
    process.kill(daemonPid(ctx.w.home), "SIGKILL");
  },
  async renderer_crashed(ctx) {
    const session = await sessionOnItsPage(ctx);
    await crashPage(ctx.w.browser.cdpPort!, marker(session));
    return session;
  },
  async tab_closed_by_person(ctx) {
    const session = await sessionOnItsPage(ctx);
    if ((await ctx.w.person.closePagesMatching(marker(session))) === 0) throw new Error(`no tab of ${session} open`);
    return session;
  },
  async network_off(ctx) {
    const session = await sessionOnItsPage(ctx);
    const page = await PersonPage.find(ctx.w.browser.cdpPort!, marker(session), 10_000);
    const offline = (on: boolean) =>
      page.send("Network.emulateNetworkConditions", { offline: on, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    try {
      await offline(true);
      await Bun.sleep(HOLD_MS);
      await offline(false).catch(() => undefined);
    } finally {
      page.close();
    }
    return session;
  },
  async person_took_over(ctx) {
    const session = await sessionOnItsPage(ctx);
    // The person's hands reach the page afresh for each click: the agent may have navigated it meanwhile.
    const click = async (action: string) => {
      try {
        const page = await PersonPage.find(ctx.w.browser.cdpPort!, marker(session), 10_000);
        try {
          await page.clickOverlay(action);
        } finally {
          page.close();
        }
      } catch (e) {
        throw new Error(`${action}: ${(e as Error).message} (${await sessionNow(ctx, session)})`);
      }
    };
    await click("takeover");
    await Bun.sleep(HOLD_MS);
    await click("resume");
    return session;
  },
  async disk_full(ctx) {
    if (!ctx.disk) throw new Error("the ledger has no filesystem of its own");
    ctx.disk.fill();
    try {
      await Bun.sleep(HOLD_MS);
    } finally {
      ctx.disk.free();
    }
  },
  async flood_page(ctx) {
    const { slot, session } = someSession(ctx);
    slot.detour = { url: ctx.w.fixtures.url(`/soak-flood.html?s=${session}`), until: ctx.now() + 2 * (HOLD_MS / 1000) };
    return session;
  },
  async allocating_page(ctx) {
    const { slot, session } = someSession(ctx);
    // Capped (it drops everything and starts again at 512 MB): the machine is shared.
    slot.detour = { url: ctx.w.fixtures.url(`/soak-alloc.html?s=${session}&cap=512`), until: ctx.now() + 2 * (HOLD_MS / 1000) };
    return session;
  },
};

/**
 * Injects faults until `done()`: the kinds in a shuffled round, again and again, one every `everyS` seconds or so
 * (jittered), never two at once.
 */
export async function injectFaults(
  ctx: FaultContext,
  everyS: number,
  done: () => boolean,
  out: FaultRecord[],
  skip: Set<string>,
): Promise<void> {
  const kinds = Object.keys(FAULTS).filter((k) => !skip.has(k));
  let round: string[] = [];
  while (!done()) {
    await Bun.sleep(everyS * (0.6 + 0.8 * Math.random()) * 1000);
    if (done()) return;
    if (round.length === 0) round = [...kinds].sort(() => Math.random() - 0.5);
    const kind = round.shift()!;
    const t = ctx.now();
    try {
      const on = await FAULTS[kind]!(ctx);
      out.push({ t, kind, injected: true, ...(typeof on === "string" && { note: `session ${on}` }) });
    } catch (e) {
      out.push({ t, kind, injected: false, note: String((e as Error).message ?? e).slice(0, 300) });
    }
  }
}
