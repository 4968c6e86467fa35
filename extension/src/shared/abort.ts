/** Every call carries an AbortSignal whose reason is the BskError to answer with (cancelled, timeout). */
import { BskError } from "../../../protocol/errors.ts";

export function abortError(signal: AbortSignal): BskError {
  const reason: unknown = signal.reason;
  return reason instanceof BskError ? reason : new BskError("cancelled", "the call was cancelled");
}

/** Settles with `work`, or rejects as soon as the signal aborts (the work itself may still finish later). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
