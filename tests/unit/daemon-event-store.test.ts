import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { FileEventLog } from "../../daemon/event-store.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir("bsk-events-");
  homes.push(d);
  return `${d}/events`;
}

describe("FileEventLog", () => {
  test("numbers each session's events from 1, on disk (0600), and a new log continues the numbering", () => {
    const d = dir();
    const a = new FileEventLog(d);
    a.append("sa", "session.started", { window_id: 1 });
    a.append("sb", "session.started");
    a.append("sa", "navigation", { url: "https://x.example" }, { source: { key: "i1:s1", seq: 7 } });
    expect(statSync(`${d}/sa.jsonl`).mode & 0o777).toBe(0o600);
    expect(statSync(d).mode & 0o777).toBe(0o700);

    const b = new FileEventLog(d);
    expect(b.append("sa", "tab.opened", { tab_id: 3 }).seq).toBe(3);
    expect(b.eventsFor("sa").map((e) => [e.seq, e.event])).toEqual([
      [1, "session.started"],
      [2, "navigation"],
      [3, "tab.opened"],
    ]);
    // The source (for de-duplication) is kept on disk but is not part of the public event.
    expect(b.eventsFor("sa")[1]).toEqual({ seq: 2, ts: expect.any(String), event: "navigation", data: { url: "https://x.example" } });
    expect(b.lastSourceSeq("i1:s1", ["sa", "sb"])).toBe(7);
    expect(b.lastSourceSeq("i1:other", ["sa"])).toBe(0);
  });

  test("a torn last line (a daemon killed mid-write) is skipped and the next event starts a line of its own", () => {
    const d = dir();
    new FileEventLog(d).append("sa", "session.started");
    appendFileSync(`${d}/sa.jsonl`, '{"seq":2,"ts":"x","ev');
    const b = new FileEventLog(d);
    expect(b.append("sa", "navigation").seq).toBe(2);
    expect(new FileEventLog(d).eventsFor("sa").map((e) => e.seq)).toEqual([1, 2]);
  });

  test("pages by since, limit and kind (exact or family); next_since continues exactly", () => {
    const log = new FileEventLog(dir());
    for (const e of ["session.started", "navigation", "tab.opened", "console.error", "tab.closed"]) log.append("sa", e);
    const page = log.read("sa", { since: 1, limit: 2 });
    expect(page.events.map((e) => e.seq)).toEqual([2, 3]);
    expect(page.next_since).toBe(3);
    expect(log.read("sa", { since: page.next_since }).events.map((e) => e.seq)).toEqual([4, 5]);
    expect(log.read("sa", { types: ["tab"] }).events.map((e) => e.event)).toEqual(["tab.opened", "tab.closed"]);
    expect(log.read("sa", { types: ["tab"] }).next_since).toBe(5);
    expect(log.read("none")).toEqual({ events: [], next_since: 0, dropped: 0 });
  });

  test("a stream over its bound keeps its newest half, seqs unchanged; readers are told what was dropped", () => {
    const log = new FileEventLog(dir(), { perSessionBytes: 4000 });
    for (let i = 1; i <= 60; i++) log.append("sa", "console.error", { text: `error number ${i}` }, { count: i % 2 ? undefined : 2 });
    const page = log.read("sa");
    expect(page.events.length).toBeLessThan(60);
    expect(page.events.at(-1)?.seq).toBe(60);
    expect(page.dropped).toBe(page.events[0]!.seq - 1);
    expect(page.events.map((e) => e.seq)).toEqual(page.events.map((_, i) => page.events[0]!.seq + i));
    expect(page.events.find((e) => e.seq === 60)?.count).toBe(2);
    expect(log.append("sa", "x").seq).toBe(61);
  });

  test("followers see each new event of their session", () => {
    const log = new FileEventLog(dir());
    const seen: number[] = [];
    const off = log.subscribe("sa", (e) => seen.push(e.seq));
    log.append("sa", "a");
    log.append("sb", "b");
    log.append("sa", "c");
    off();
    log.append("sa", "d");
    expect(seen).toEqual([1, 2]);
  });

  test("old streams go: past the age always, past the total bound once a day old, the newest never", () => {
    const d = dir();
    const now = Date.parse("2030-01-01T00:00:00Z");
    const opts = { maxTotalBytes: 300, minKeepMs: 24 * 3600_000, maxAgeMs: 7 * 24 * 3600_000, now: () => now };
    const log = new FileEventLog(d, opts);
    for (const s of ["s1", "s2", "s3"]) for (let i = 0; i < 3; i++) log.append(s, "navigation", { url: `https://${s}.example/${i}` });
    const age = (s: string, hours: number) =>
      utimesSync(`${d}/${s}.jsonl`, new Date(now - hours * 3600_000), new Date(now - hours * 3600_000));
    age("s1", 30);
    age("s2", 200);
    age("s3", 1);
    new FileEventLog(d, opts);
    expect(existsSync(`${d}/s2.jsonl`)).toBe(false); // older than a week
    expect(existsSync(`${d}/s1.jsonl`)).toBe(false); // over the total, and more than a day old
    expect(existsSync(`${d}/s3.jsonl`)).toBe(true); // over the total, but written within the day
  });

  test("a session id that could escape the directory is refused, and reads of one find nothing", () => {
    const d = dir();
    const log = new FileEventLog(d);
    writeFileSync(`${d}/../x.jsonl`, '{"seq":1,"ts":"t","event":"secret","data":{}}\n');
    expect(() => log.append("../x", "a")).toThrow();
    expect(log.read("../x").events).toEqual([]);
    expect(readFileSync(`${d}/../x.jsonl`, "utf8")).not.toContain('"a"');
  });
});
