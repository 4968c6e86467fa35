import { describe, expect, test } from "bun:test";
import { MemoryEventLog } from "../../daemon/event-log.ts";

describe("MemoryEventLog", () => {
  test("numbers each session's events from 1 and reads them since a seq", () => {
    const log = new MemoryEventLog();
    log.append("a", "session.started", { window_id: 1 });
    log.append("b", "session.started");
    log.append("a", "navigation", { url: "https://x.example" });
    log.append("a", "tab.opened", { tab_id: 3 });
    expect(log.eventsFor("a").map((e) => [e.seq, e.event])).toEqual([
      [1, "session.started"],
      [2, "navigation"],
      [3, "tab.opened"],
    ]);
    expect(log.eventsFor("a", 2).map((e) => e.seq)).toEqual([3]);
    expect(log.eventsFor("b").map((e) => e.seq)).toEqual([1]);
    expect(log.eventsFor("none")).toEqual([]);
  });

  test("is bounded per session (oldest dropped, seqs kept) and in sessions", () => {
    const log = new MemoryEventLog(3, 2);
    for (let i = 0; i < 5; i++) log.append("a", "navigation", { i });
    expect(log.eventsFor("a").map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(log.eventsFor("a", 1).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(log.eventsFor("a", 4).map((e) => e.seq)).toEqual([5]);
    log.append("b", "x");
    log.append("c", "x");
    expect(log.eventsFor("a")).toEqual([]);
    expect(log.eventsFor("c")).toHaveLength(1);
  });
});
