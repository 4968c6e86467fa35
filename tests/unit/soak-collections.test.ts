/** The soak reads the daemon's collections from its log as it grows, across the log's rotation (tests/load/soak/watch.ts). */
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { CollectionTail } from "../load/soak/watch.ts";
import { tempDir } from "../temp.ts";

const dir = tempDir("bsk-soak-tail-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (o: object) => `${JSON.stringify({ ts: "t", level: "debug", ...o })}\n`;
const collected = (pid: number, rss_mb: number) => line({ msg: "collected", pid, ms: 3, rss_mb, heap_mb: 8 });

test("new collections only, a half-written line when it is whole, and what was written before a rotation", () => {
  const path = `${dir}/daemon.log`;
  const tail = new CollectionTail(path);
  expect(tail.read()).toEqual([]); // no log yet
  writeFileSync(path, line({ msg: "call" }) + collected(1, 70));
  expect(tail.read()).toEqual([{ pid: 1, rss_mb: 70, heap_mb: 8 }]);
  expect(tail.read()).toEqual([]);
  const next = collected(1, 71);
  appendFileSync(path, next.slice(0, 20));
  expect(tail.read()).toEqual([]);
  appendFileSync(path, next.slice(20));
  expect(tail.read()).toEqual([{ pid: 1, rss_mb: 71, heap_mb: 8 }]);
  // The daemon writes once more, then rotates (daemon/log.ts) and goes on in a new file.
  appendFileSync(path, collected(1, 72));
  renameSync(path, `${path}.1`);
  writeFileSync(path, `${collected(2, 60)}not json "collected"\n${line({ msg: "collected", pid: 2 })}`);
  expect(tail.read()).toEqual([
    { pid: 1, rss_mb: 72, heap_mb: 8 },
    { pid: 2, rss_mb: 60, heap_mb: 8 },
  ]);
});
