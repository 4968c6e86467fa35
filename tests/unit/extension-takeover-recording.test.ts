/**
 * A recording's session is never taken over, up to the moment its trace is collected (extension/src/features/
 * control.ts takeOver): the person's keys just before they closed the recording's tab are decided after the
 * recording ended, and once turned the daemon's wait for the trace into `user_aborted` (record.test, 1 run in 40
 * under load). Run in a process of its own with a fake browser (tests/unit/worker/takeover-recording.ts).
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

test("no takeover while recording, nor after it ended until its trace is collected; the wait is not cut off", async () => {
  const answer = await workerAnswer(import.meta.dir, "worker/takeover-recording.ts");
  expect(answer).toEqual({
    while_recording: false,
    ended_not_collected: false,
    wait_cut_off: false,
    // Collected: an ordinary session again (the daemon ends it right after).
    after_collected: true,
  });
});
