import type { DaemonMethodName, MethodName, Params, ParsedParams, Result } from "../../protocol/catalog.ts";
import type { Call } from "../call.ts";
import type { ClientLink, DaemonContext } from "../context.ts";

export interface HandlerArgs<M extends DaemonMethodName> {
  call: Call;
  ctx: DaemonContext;
  client: ClientLink;
  /** The call's params, validated against the method's schema (defaults applied). */
  params: ParsedParams<M>;
  /** The in-flight call a `cancel {id}` refers to. */
  findCall: (id: string | number) => Call | undefined;
  /**
   * Runs another method as a step of this call, through every stage a client's call takes (ledger, gate, queue,
   * events), under this call's trace, deadline and abort. Throws its error (with its effect_state).
   */
  step: <M extends MethodName>(method: M, params: Params<M>) => Promise<{ result: Result<M>; timings: Record<string, number> }>;
}

/** A method the daemon answers itself; returns the method's result or throws a BskError. */
export type DaemonHandler<M extends DaemonMethodName> = (args: HandlerArgs<M>) => Promise<Result<M>>;

/** One handler per method the daemon answers: a missing one does not compile. */
export type DaemonHandlers = { [M in DaemonMethodName]: DaemonHandler<M> };

/** A handler as the dispatcher calls it, knowing the method only at run time (its params validated by then). */
export type AnyDaemonHandler = (
  args: Omit<HandlerArgs<DaemonMethodName>, "params"> & { params: Record<string, unknown> },
) => Promise<unknown>;
