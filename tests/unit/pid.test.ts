/** Process start times for the daemon lock's pid-reuse check: /proc on Linux, ps on macOS (which has no /proc). */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { parseLstart, processStartMs } from "../../shared/pid.ts";

test("ps's lstart is read as local time, to the second; anything else is unknown", () => {
  expect(parseLstart("Sun Dec  6 17:05:35 2026\n")).toBe(new Date(2026, 11, 6, 17, 5, 35).getTime());
  expect(parseLstart("Mon Feb 28 09:00:01 2028")).toBe(new Date(2028, 1, 28, 9, 0, 1).getTime());
  for (const bad of ["", "Sun Foo  6 17:05:35 2026", "17:05", "Sun Dec  6 17:05:35"]) expect(parseLstart(bad)).toBeUndefined();
});

test("macOS's way (ps, no /proc) agrees with /proc's to the second, here on Linux where both work", () => {
  const fromProc = processStartMs(process.pid, "linux");
  const fromPs = processStartMs(process.pid, "darwin");
  expect(fromProc).toBeNumber();
  expect(fromPs).toBeNumber();
  // lstart drops the fraction of a second: never later than the start, at most a second earlier.
  expect(fromProc! - fromPs!).toBeGreaterThanOrEqual(-10); // /proc's clock ticks round to 10 ms
  expect(fromProc! - fromPs!).toBeLessThan(1010);
});

test("a process that is gone has no start time on macOS's way either", () => {
  const gone = spawnSync("true").pid;
  expect(processStartMs(gone, "darwin")).toBeUndefined();
  expect(processStartMs(0, "darwin")).toBeUndefined();
});
