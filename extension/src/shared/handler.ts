/** The shape of a tool handler; each family file exports FamilyHandlers of its protocol family. */
import type { ExtensionMethodName, ParsedParams, Result } from "../../../protocol/catalog.ts";

export interface CallContext {
  /** Aborts on cancel or when the call's deadline passes; its reason is the error to answer with. */
  signal: AbortSignal;
  /** Epoch ms when the call's deadline passes (the daemon's timeout_ms), when it has one. */
  deadline?: number;
  /** Tells the caller how far a long call has come (call.progress); cheap to call often, it is throttled. */
  progress?: Progress;
  /** Set when the call came over the remote link: the server's host (where the agent is). Unset: the local daemon. */
  remoteHost?: string;
  /**
   * Held (meta.hold): settles when the daemon's `op.durable` comes. Until then the call may look and prepare, and
   * sends nothing to the page (session/input-mark.ts sending()).
   */
  held?: Promise<void>;
}

export type Progress = (p: { done: number; total?: number; unit: "px" | "bytes"; label?: string }) => void;

export type Handler<M extends ExtensionMethodName> = (params: ParsedParams<M>, ctx: CallContext) => Promise<Result<M>>;

/** The handlers of one protocol family file: exactly its extension-owned methods. */
export type FamilyHandlers<Family> = { [M in keyof Family & ExtensionMethodName]: Handler<M> };
