import { describe, expect, test } from "bun:test";
import { OwnerWatch } from "../../daemon/owner-watch.ts";

describe("OwnerWatch", () => {
  test("reports each session whose owner died once, and stops polling when nothing is watched", () => {
    const alive = new Set([1, 2]);
    const exits: [string, number][] = [];
    const w = new OwnerWatch(
      1_000_000,
      (s, pid) => exits.push([s, pid]),
      (pid) => alive.has(pid),
    );
    w.watch("s1", 1);
    w.watch("s2", 2);
    w.watch("s3", 1);
    w.poll();
    expect(exits).toEqual([]);
    alive.delete(1);
    w.poll();
    w.poll();
    expect(exits).toEqual([
      ["s1", 1],
      ["s3", 1],
    ]);
    w.unwatch("s2");
    w.stop();
  });
});
