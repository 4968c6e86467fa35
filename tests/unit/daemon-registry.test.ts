/** The session registry without sockets: persistence, ends, re-adoption decisions. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { BrowserRegistry } from "../../daemon/browsers.ts";
import { resolveConfig } from "../../daemon/config.ts";
import { MemoryEventLog } from "../../daemon/event-log.ts";
import type { Logger } from "../../daemon/log.ts";
import { SessionRegistry } from "../../daemon/sessions.ts";
import { tempDir } from "../temp.ts";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, flush() {}, close() {} };
const homes: string[] = [];
const registries: SessionRegistry[] = [];

afterEach(() => {
  for (const r of registries.splice(0)) r.dispose();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function setup(home = tempDir("bsk-reg-"), env: Record<string, string> = {}) {
  homes.push(home);
  mkdirSync(`${home}/state`, { recursive: true });
  const config = resolveConfig({ home, env: { BSK_READOPT_WAIT_MS: "60000", ...env } });
  const events = new MemoryEventLog();
  const reg = new SessionRegistry({ config, log: quiet, browsers: new BrowserRegistry(), events, onChange() {} });
  registries.push(reg);
  reg.load();
  return { reg, config, events, home };
}

const saved = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("SessionRegistry", () => {
  test("an id is persisted as issued before the browser opens the window; opening makes it live", () => {
    const { reg, config, events } = setup();
    const rt = reg.reserve({ browser_instance_id: "b1", name: "task", lease_ms: 60_000 });
    let file = saved(config.paths.sessions);
    expect(file.issued_ids).toEqual([rt.id]);
    expect(file.sessions[0]).toMatchObject({ session_id: rt.id, state: "starting", browser_instance_id: "b1", name: "task" });
    expect(statSync(config.paths.sessions).mode & 0o777).toBe(0o600);
    reg.markOpened(rt, 10, 100);
    file = saved(config.paths.sessions);
    expect(file.sessions[0]).toMatchObject({ state: "live", window_id: 10, current_tab_id: 100 });
    expect(events.eventsFor(rt.id).map((e) => e.event)).toEqual(["session.started"]);
  });

  test("an end records its reason, keeps the id issued, and is remembered among the last 50", async () => {
    const { reg, config, events } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) {
      const rt = reg.reserve({ browser_instance_id: "b1" });
      reg.markOpened(rt, i, i);
      ids.push(rt.id);
      await reg.endSession(rt.id, i === 51 ? "window_closed" : "stopped", { fromBrowser: true, lostTabIds: i === 51 ? [4] : undefined });
    }
    const file = saved(config.paths.sessions);
    expect(file.issued_ids).toHaveLength(52);
    expect(file.sessions).toEqual([]);
    expect(file.ended).toHaveLength(50);
    expect(file.ended.at(-1)).toMatchObject({ session_id: ids[51], state: "ended", end_reason: "window_closed", lost_tab_ids: [4] });
    expect(() => reg.lookup(ids[51]!)).toThrow("has ended (window_closed)");
    expect(() => reg.lookup(ids[0]!)).toThrow("ended long ago");
    expect(() => reg.lookup("zzzz")).toThrow("no session zzzz");
    expect(events.eventsFor(ids[51]!).at(-1)).toMatchObject({
      event: "session.ended",
      data: { reason: "window_closed", lost_tab_ids: [4] },
    });
    expect(await reg.endSession(ids[51]!, "stopped")).toBeUndefined();
  });

  test("after a restart, live sessions wait for their browser and are adopted or ended by its handshake", () => {
    const first = setup();
    const mine = first.reg.reserve({ browser_instance_id: "b1" });
    first.reg.markOpened(mine, 1, 10);
    const gone = first.reg.reserve({ browser_instance_id: "b1" });
    first.reg.markOpened(gone, 2, 20);
    const other = first.reg.reserve({ browser_instance_id: "b2" });
    first.reg.markOpened(other, 3, 30);
    first.reg.dispose();

    const { reg } = setup(first.home);
    expect(
      reg
        .liveRecords()
        .map((r) => r.session_id)
        .sort(),
    ).toEqual([mine.id, gone.id, other.id].sort());
    const r = reg.adopt("b1", [
      { session_id: mine.id, window_id: 5, tab_ids: [50, 51], current_tab_id: 51 },
      { session_id: other.id, window_id: 3, tab_ids: [30], current_tab_id: 30 },
      { session_id: "zzzz", window_id: 9, tab_ids: [], current_tab_id: null },
    ]);
    expect(r.adopted).toEqual([mine.id]);
    expect(r.ended).toEqual([
      { session_id: other.id, reason: "not_adoptable" },
      { session_id: "zzzz", reason: "not_adoptable" },
    ]);
    expect(reg.get(mine.id)?.record).toMatchObject({ state: "live", window_id: 5, current_tab_id: 51 });
    // b1 did not report `gone`: its window is gone with it.
    expect(reg.get(gone.id)).toBeUndefined();
    expect(reg.findEnded(gone.id)?.end_reason).toBe("not_adoptable");
    // b2's session still waits for b2.
    expect(reg.get(other.id)?.awaitingBrowser).toBe(true);
  });

  test("a session whose browser does not come back within the re-adoption window ends with browser_gone", async () => {
    const first = setup();
    const rt = first.reg.reserve({ browser_instance_id: "b1" });
    first.reg.markOpened(rt, 1, 10);
    first.reg.dispose();
    const { promise, resolve } = Promise.withResolvers<void>();
    const home = first.home;
    const config = resolveConfig({ home, env: { BSK_READOPT_WAIT_MS: "20" } });
    const events = new MemoryEventLog();
    const reg = new SessionRegistry({
      config,
      log: quiet,
      browsers: new BrowserRegistry(),
      events,
      onChange: () => reg.liveCount === 0 && resolve(),
    });
    registries.push(reg);
    reg.load();
    await promise;
    expect(reg.findEnded(rt.id)?.end_reason).toBe("browser_gone");
  });

  test("an unreadable sessions.json is moved aside, never overwritten", () => {
    const home = tempDir("bsk-reg-");
    mkdirSync(`${home}/state`);
    writeFileSync(`${home}/state/sessions.json`, "{torn");
    const { reg } = setup(home);
    expect(reg.liveCount).toBe(0);
    expect(readdirSync(`${home}/state`).some((f) => f.startsWith("sessions.json.corrupt-"))).toBe(true);
    expect(existsSync(`${home}/state/sessions.json`)).toBe(false);
  });
});
