import type { MethodName } from "../../protocol/catalog.ts";
import { fileHandlers } from "./files.ts";
import { historyHandlers } from "./history.ts";
import { recordingHandlers } from "./recording.ts";
import { sessionHandlers } from "./session.ts";
import { systemHandlers } from "./system.ts";
import type { DaemonHandler } from "./types.ts";
import { waitHandlers } from "./waits.ts";

/** Every daemon-owned method's handler (a unit test checks none is missing). */
export const DAEMON_HANDLERS: Partial<Record<MethodName, DaemonHandler>> = { ...systemHandlers, ...sessionHandlers, ...historyHandlers, ...recordingHandlers, ...waitHandlers, ...fileHandlers };
