import type { Call } from "../call.ts";
import type { ClientLink, DaemonContext } from "../context.ts";

export interface HandlerArgs {
  call: Call;
  ctx: DaemonContext;
  client: ClientLink;
  /** The in-flight call a `cancel {id}` refers to. */
  findCall: (id: string | number) => Call | undefined;
}

/** A method the daemon answers itself; returns the result or throws a BskError. */
export type DaemonHandler = (args: HandlerArgs) => Promise<unknown>;
