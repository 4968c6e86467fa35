import { deviceHandlers } from "./devices.ts";
import { fileHandlers } from "./files.ts";
import { historyHandlers } from "./history.ts";
import { recordingHandlers } from "./recording.ts";
import { sessionHandlers } from "./session.ts";
import { systemHandlers } from "./system.ts";
import type { DaemonHandlers } from "./types.ts";
import { waitHandlers } from "./waits.ts";

/** Every method the daemon answers, one handler each (the type makes a missing one a compile error). */
export const DAEMON_HANDLERS: DaemonHandlers = {
  ...systemHandlers,
  ...deviceHandlers,
  ...sessionHandlers,
  ...historyHandlers,
  ...recordingHandlers,
  ...waitHandlers,
  ...fileHandlers,
};
