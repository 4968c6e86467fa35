import { expect, test } from "bun:test";
import { progressLine, PROGRESS_EVENT } from "../../cli/call-progress.ts";
import { CALL_PROGRESS } from "../../protocol/frames.ts";

test("the CLI's name for progress notes is the protocol's", () => {
  expect(PROGRESS_EVENT).toBe(CALL_PROGRESS);
});

test("a progress line: amount of total with a percentage, or just the amount when the total is unknown", () => {
  expect(progressLine({ done: 8000, total: 30000, unit: "px", label: "capturing" })).toBe("capturing 8000 px of 30000 px 26%");
  expect(progressLine({ done: 3 * 1048576, unit: "bytes", label: "downloading" })).toBe("downloading 3.0 MiB");
  expect(progressLine({ done: 60, total: 50, unit: "px" })).toBe("working 60 px of 50 px 100%");
});
