/** record.begin / record.await / record.finish: the daemon's side of a recording (see recording/recorder.ts). */
import type { recordingWireMethods } from "../../../protocol/methods/recording.ts";
import { awaitRecording, beginRecording, finishRecording } from "../features/recording/recorder.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

export const recordingHandlers: FamilyHandlers<typeof recordingWireMethods> = {
  "record.begin": (p, { signal }) => beginRecording(p, signal),
  "record.await": (p, { signal }) => awaitRecording(p.session_id, signal),
  "record.finish": async (p) => ({ steps: await finishRecording(p.session_id, p.stopped_by) }),
};
