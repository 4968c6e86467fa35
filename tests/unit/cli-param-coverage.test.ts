import { describe, expect, test } from "bun:test";
import { findCommand } from "../../cli/router.ts";
import { flagsFor } from "../../cli/args.ts";
import { METHOD_NAMES, METHODS } from "../../protocol/catalog.ts";
import type { MethodDef } from "../../protocol/define.ts";

/** The keys of a method's params object (through a refine). */
function paramKeys(def: MethodDef): string[] {
  const schema = def.params() as unknown as { shape?: object; def?: { in?: { shape?: object } } };
  return Object.keys(schema.shape ?? schema.def?.in?.shape ?? {});
}

describe("every param a command's method takes can be given on the command line", () => {
  test("by a positional or a flag (a flag dropped from the catalog would silently remove an option)", () => {
    const missing: string[] = [];
    for (const name of METHOD_NAMES) {
      const def = METHODS[name] as MethodDef;
      if (!def.cli) continue;
      const cmd = findCommand([...def.cli.words])!;
      const covered = new Set([...cmd.positionals.map((p) => p.param), ...Object.values(flagsFor(cmd)).map((f) => f.param)]);
      for (const key of paramKeys(def)) if (!covered.has(key)) missing.push(`${cmd.words.join(" ")}: ${key}`);
    }
    expect(missing).toEqual([]);
  });
});
