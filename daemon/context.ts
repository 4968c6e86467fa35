/** What the daemon's parts share: settings, registries and the ways to stop. */
import type { AllowList } from "../shared/allow-list.ts";
import type { BrowserRegistry } from "./browsers.ts";
import type { Call } from "./call.ts";
import type { DaemonConfig } from "./config.ts";
import type { EventSink } from "./event-log.ts";
import type { DaemonInfo } from "../shared/home.ts";
import type { Ledger } from "./ledger.ts";
import type { Logger } from "./log.ts";
import type { SessionRegistry } from "./sessions.ts";
import type { DeviceStore } from "./remote/devices.ts";
import type { PairingCodes } from "./trust/pairing-codes.ts";
import type { InstallSecret } from "./trust/secret.ts";
import type { TransferStore } from "./transfers.ts";

export interface DaemonContext {
  config: DaemonConfig;
  log: Logger;
  info: DaemonInfo;
  browsers: BrowserRegistry;
  sessions: SessionRegistry;
  events: EventSink;
  ledger: Ledger;
  allowList: AllowList;
  /** This install's secret (the extension link's proofs) and the pending `bsk daemon pair` code; in server mode the paired devices. */
  trust: { secret: InstallSecret; pairing: PairingCodes; remote?: { authority: string; devices: DeviceStore } };
  /** Staged upload and download bytes (transfers.ts). */
  transfers?: TransferStore;
  /** Begin a graceful stop (idempotent). */
  shutdown(reason: string): Promise<void>;
}

/** One CLI connection: its calls in flight, by request id. */
export interface ClientLink {
  readonly calls: Map<string, Call>;
  /** Send a frame (an event of a streaming call) ahead of the call's reply; dropped once the connection closed. */
  push(frame: object): void;
}
