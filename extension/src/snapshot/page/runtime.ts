/**
 * globalThis.__bsk in bsk's isolated world of one document. The worker calls these through
 * Runtime.callFunctionOn; values cross as one string or one element, never as object graphs.
 */
import { nameOf, roleOf } from "./aria.ts";
import { RefRegistry } from "./identity.ts";
import { queryDeep } from "./query.ts";

export interface PageRuntime {
  /** Random per world, so per document: a ref recorded with another token belongs to another document. */
  doc: string;
  registry(session: string): RefRegistry;
  /** The element numbered `n` for `session`, or why not ("unknown" | "gone" | "detached"). */
  resolve(session: string, n: number): Element | string;
  /** The one element matching `selector`, else JSON `{count}` or `{error}`. */
  query(selector: string): Element | string;
  /** JSON [role, name] of an element. */
  describe(el: Element): string;
}

function token(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function createRuntime(doc: Document): PageRuntime {
  const registries = new Map<string, RefRegistry>();
  const registry = (session: string) => {
    let r = registries.get(session);
    if (!r) registries.set(session, (r = new RefRegistry()));
    return r;
  };
  return {
    doc: token(),
    registry,
    resolve: (session, n) => registry(session).lookup(n),
    query(selector) {
      let found: Element[];
      try {
        found = queryDeep(doc, selector);
      } catch (err) {
        return JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      }
      return found.length === 1 ? found[0]! : JSON.stringify({ count: found.length });
    },
    describe: (el) => JSON.stringify([roleOf(el), nameOf(el)]),
  };
}

export function installRuntime(): void {
  const g = globalThis as { __bsk?: PageRuntime };
  g.__bsk ??= createRuntime(document);
}
