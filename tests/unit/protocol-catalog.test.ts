import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EFFECTS, EXTENSION_METHODS, METHOD_NAMES, METHODS, PUBLIC_METHODS, WIRE_METHODS } from "../../protocol/catalog.ts";
import { ERROR_CODES, ERRORS, REASON_HINTS } from "../../protocol/errors.ts";
import { EXTENSION_ID, EXTENSION_KEY } from "../../protocol/extension-identity.ts";
import { flagParam } from "../../protocol/define.ts";
import { renderSchemas } from "../../protocol/json-schema.ts";

/** Rendered once: every method's schema is built, which is most of this file's time. */
const SCHEMAS = renderSchemas();

describe("catalog", () => {
  test("every method has an effect class, description and schemas that build", () => {
    for (const name of METHOD_NAMES) {
      const def = METHODS[name];
      expect(EFFECTS[name]).toBeDefined();
      expect(def.description.length).toBeGreaterThan(10);
      expect(() => def.params()).not.toThrow();
      expect(() => def.result()).not.toThrow();
    }
    expect(Object.keys(EFFECTS).sort()).toEqual([...METHOD_NAMES].sort());
  });

  test("inputWhen names a boolean param of a TransientInput method, off by default", () => {
    const withIt = METHOD_NAMES.filter((m) => METHODS[m].inputWhen !== undefined);
    expect(withIt).toContain("observe");
    for (const name of withIt) {
      const def = METHODS[name];
      expect(def.effect).toBe("TransientInput");
      const shape = (def.params() as unknown as { shape: Record<string, { parse(v: unknown): unknown }> }).shape;
      const param = shape[def.inputWhen!];
      expect(param).toBeDefined();
      expect(param!.parse(undefined)).toBe(false);
      expect(param!.parse(true)).toBe(true);
    }
  });

  test("public methods are commands; wire methods are not, and say who sends them", () => {
    for (const def of Object.values(PUBLIC_METHODS)) {
      expect(def.cli).toBeDefined();
      expect(["agent", "person"]).toContain(def.callers);
    }
    for (const def of Object.values(WIRE_METHODS)) {
      expect(def.cli).toBeUndefined();
      expect(["link", "wire"]).toContain(def.callers);
    }
    expect(Object.keys(WIRE_METHODS)).toContain("session.open");
    expect(Object.keys(WIRE_METHODS)).toContain("system.hello");
  });

  test("CLI command words are unique", () => {
    const seen = new Map<string, string>();
    for (const name of METHOD_NAMES) {
      const cli = METHODS[name].cli;
      if (!cli) continue;
      const key = cli.words.join(" ");
      expect(seen.get(key)).toBeUndefined();
      seen.set(key, name);
    }
  });

  test("CLI flags and positionals name params the schema knows", () => {
    for (const name of METHOD_NAMES) {
      const def = METHODS[name];
      if (!def.cli) continue;
      const json = SCHEMAS[`methods/${name}.json`]!;
      const params = JSON.parse(json).properties.params.properties as Record<string, unknown>;
      for (const p of def.cli.positionals ?? []) expect(params).toHaveProperty(p.param);
      for (const [name, f] of Object.entries(def.cli.flags ?? {})) expect(params).toHaveProperty(flagParam(name, f));
    }
  });

  test("tab-scoped methods accept tab_id, session-scoped ones session_id", () => {
    for (const name of METHOD_NAMES) {
      const def = METHODS[name];
      const shape = JSON.parse(SCHEMAS[`methods/${name}.json`]!).properties.params.properties;
      if (def.scope !== "none") expect(shape).toHaveProperty("session_id");
      if (def.scope === "tab") expect(shape).toHaveProperty("tab_id");
    }
  });

  test("extension methods are the ones owned by the extension", () => {
    expect(EXTENSION_METHODS).toContain("navigate");
    expect(EXTENSION_METHODS).not.toContain("session.start");
  });

  test("reads and control calls are never classed as mutations by mistake", () => {
    expect(EFFECTS["tab.list"]).toBe("PassiveRead");
    expect(EFFECTS.wait_for).toBe("PassiveRead");
    expect(EFFECTS.evaluate).toBe("BrowserMutation");
    expect(EFFECTS["session.start"]).toBe("ControlPlane");
  });
});

describe("generated JSON Schemas", () => {
  test("protocol/schemas/ matches the catalog (run `npm run gen` when this fails)", () => {
    const dir = join(import.meta.dir, "../../protocol/schemas");
    const expected = SCHEMAS;
    const onDisk: Record<string, string> = {};
    const walk = (rel: string) => {
      for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) walk(path);
        else onDisk[path] = readFileSync(join(dir, path), "utf8");
      }
    };
    walk("");
    expect(Object.keys(onDisk).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, text] of Object.entries(expected)) expect(onDisk[path]).toBe(text);
  });

  test("every method's params schema is closed: a param it does not list is not allowed", () => {
    for (const name of METHOD_NAMES) {
      const params = JSON.parse(SCHEMAS[`methods/${name}.json`]!).properties.params;
      expect({ name, type: params.type, additionalProperties: params.additionalProperties }).toEqual({
        name,
        type: "object",
        additionalProperties: false,
      });
    }
  });
});

describe("errors", () => {
  test("every code has an exit code and a one-line hint", () => {
    for (const code of ERROR_CODES) {
      expect(ERRORS[code].exit).toBeGreaterThan(0);
      expect(ERRORS[code].hint).not.toContain("\n");
    }
    for (const hint of Object.values(REASON_HINTS)) expect(hint).not.toContain("\n");
  });

  test("exit codes follow the spec table", () => {
    expect(ERRORS.invalid_params.exit).toBe(1);
    expect(ERRORS.protocol_error.exit).toBe(2);
    expect(ERRORS.cancelled.exit).toBe(2);
    expect(ERRORS.cdp_failed.exit).toBe(3);
    expect(ERRORS.timeout.exit).toBe(4);
    expect(ERRORS.unknown_method.exit).toBe(5);
    expect(ERRORS.dialog_pending.exit).toBe(6);
  });
});

describe("extension identity", () => {
  test("the pinned id is derived from the manifest key", () => {
    const der = Buffer.from(EXTENSION_KEY, "base64");
    const hex = createHash("sha256").update(der).digest("hex").slice(0, 32);
    const id = [...hex].map((c) => String.fromCharCode("a".charCodeAt(0) + Number.parseInt(c, 16))).join("");
    expect(id).toBe(EXTENSION_ID);
  });
});
