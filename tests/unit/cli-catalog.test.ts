/** Drift: the CLI's inlined command table is the catalog, every CLI method is reachable, and --help lists every flag. */
import { describe, expect, test } from "bun:test";
import { flagsFor } from "../../cli/args.ts";
import { CATALOG_PARTS, catalogCommands, catalogPart } from "../../cli/catalog-table.ts";
import { catalogCommand, startsCommand } from "../../cli/command-index.ts";
import { COMMANDS } from "../../cli/commands-table.ts";
import { helpFor } from "../../cli/help.ts";
import { LOCAL_RUNS } from "../../cli/local-commands.ts";
import { quickPlan } from "../../cli/quick-plan.ts";
import { plan } from "../../cli/router.ts";
import { cliMethods, EFFECTS, METHODS } from "../../protocol/catalog.ts";

const catalogSpecs = COMMANDS.filter((c) => c.method);

describe("the CLI table is the catalog", () => {
  test("the macro-inlined table equals the live catalog (rebuild when this fails)", () => {
    expect(catalogSpecs.map((c) => ({ ...c }))).toEqual(catalogCommands() as never);
    expect(catalogSpecs.map((c) => c.method).sort()).toEqual(
      cliMethods()
        .map((m) => m.name)
        .sort(),
    );
  });

  test("effects and scopes come from the catalog", () => {
    for (const c of catalogSpecs) {
      const m = c.method as keyof typeof METHODS;
      expect(c.effect).toBe(EFFECTS[m]);
      expect(c.scope).toBe(METHODS[m].scope);
    }
  });

  test("the catalog parts are the catalog, each command in the part the index names", async () => {
    const parts = await Promise.all(Array.from({ length: CATALOG_PARTS }, (_, n) => catalogCommand(catalogPart(n)[0]!.words)));
    expect(parts.every(Boolean)).toBe(true);
    expect(Array.from({ length: CATALOG_PARTS }, (_, n) => catalogPart(n)).flat()).toEqual(catalogSpecs as never);
    for (const c of COMMANDS) expect(startsCommand(c.words)).toBe(true);
    for (const c of COMMANDS.filter((c) => c.local)) expect(await catalogCommand(c.words)).toBeUndefined();
  });

  test("every CLI-only command has what it runs, and nothing else is run", () => {
    const locals = COMMANDS.flatMap((c) => (c.local ? [c.local] : []));
    expect(Object.keys(LOCAL_RUNS).sort()).toEqual(locals.sort());
  });

  test("command words are unique, including the CLI-only commands", () => {
    const keys = COMMANDS.map((c) => c.words.join(" "));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("catalog flags do not take the CLI's own names, and aliases are unique per command", () => {
    for (const c of COMMANDS) {
      for (const reserved of ["json", "help"]) expect(Object.keys(c.flags)).not.toContain(reserved);
      const aliases = Object.values(flagsFor(c)).flatMap((f) => (f.alias ? [f.alias] : []));
      expect(new Set(aliases).size).toBe(aliases.length);
    }
  });
});

describe("every catalog command is reachable", () => {
  for (const c of catalogSpecs) {
    test(`bsk ${c.words.join(" ")} → ${c.method}, the same through the command index`, async () => {
      const argv = [...c.words];
      const params: Record<string, unknown> = {};
      for (const p of c.positionals) {
        if (!p.required) continue;
        const v = p.type === "number" ? "17" : p.type === "duration" ? "250ms" : `${p.param}-value`;
        argv.push(v);
        params[p.param] = p.type === "number" ? 17 : p.type === "duration" ? 250 : v;
      }
      if (c.scope !== "none") {
        argv.push("--session", "sess");
        params.session_id = "sess";
      }
      const p = plan([...argv, "--json"], {});
      expect(p).toMatchObject({ kind: "call", method: c.method, json: true, params });
      if (p.kind === "call") expect(p.meta.op_id !== undefined).toBe(c.effect === "BrowserMutation");
      // The call path finds the same command, with the same shape, in its catalog part.
      const quick = await quickPlan([...argv, "--json"], {});
      expect(quick).toMatchObject({ kind: "call", cmd: c, method: c.method, json: true, params });
    });
  }
});

describe("--help is generated from the catalog", () => {
  for (const c of COMMANDS) {
    test(`bsk ${c.words.join(" ")} --help lists its description, arguments, every flag and examples`, () => {
      const text = helpFor(c.words);
      expect(text).toContain(c.description);
      for (const p of c.positionals) expect(text).toContain(p.param);
      for (const [name, f] of Object.entries(flagsFor(c))) {
        expect(text).toContain(`--${name}`);
        expect(text).toContain(f.description);
        if (f.options) for (const o of f.options) expect(text).toContain(o);
      }
      for (const e of c.examples) expect(text).toContain(e);
      if (c.scope !== "none") expect(text).toContain("BSK_SESSION");
      if (c.scope === "tab") expect(text).toContain("--tab");
      if (c.effect === "BrowserMutation") expect(text).toContain("--op-id");
    });
  }

  test("the top level lists every command; groups list theirs", () => {
    const root = helpFor([]);
    for (const c of COMMANDS) expect(root).toContain(c.words.join(" "));
    const tab = helpFor(["tab"]);
    for (const c of COMMANDS.filter((x) => x.words[0] === "tab")) expect(tab).toContain(`bsk ${c.words.join(" ")}`);
    expect(helpFor(["navigate"])).toContain("bsk navigate back");
    expect(() => helpFor(["tab", "lst"])).toThrow("unknown command: bsk tab lst");
  });
});
