/** The catalog → MCP tool derivation (cli/mcp/tools.ts) and the shapes of tool results (cli/mcp/results.ts). */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import { z } from "zod";
import { EFFECTS, METHOD_NAMES, METHODS } from "../../protocol/catalog.ts";
import { type CliShape, flagParam, type MethodDef } from "../../protocol/define.ts";
import { BskError } from "../../protocol/errors.ts";
import { homePaths } from "../../shared/home.ts";
import { instructions } from "../../cli/mcp/instructions.ts";
import { toolError, toolResult } from "../../cli/mcp/results.ts";
import { McpBridge, timeoutFor } from "../../cli/mcp/server.ts";
import { mcpTools, toolName } from "../../cli/mcp/tools.ts";

const tools = mcpTools();
const byName = new Map(tools.map((t) => [t.name, t]));
const tool = (name: string) => byName.get(name)!;

describe("catalog → tools", () => {
  test("every agent-facing catalog method is a tool; wire-only and admin methods are not", () => {
    const expected = METHOD_NAMES.filter((m) => METHODS[m].cli && METHODS[m].cli.words[0] !== "daemon");
    expect(tools.map((t) => t.method)).toEqual(expected);
    for (const m of ["system.handshake", "session.open", "session.close", "cancel", "system.allow_extension", "system.pairing_code"]) {
      expect(byName.has(toolName(m))).toBe(false);
    }
    for (const m of [
      "session.start",
      "session.stop",
      "session.list",
      "system.status",
      "browser.list",
      "tab.list",
      "navigate",
      "snapshot",
      "click",
      "screenshot",
    ]) {
      expect(byName.get(toolName(m))?.method).toBe(m as never);
    }
  });

  test("names are unique and valid MCP tool names (dots become underscores)", () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    for (const t of tools) expect(t.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(toolName("tab.list")).toBe("tab_list");
    expect(toolName("mouse.down")).toBe("mouse_down");
  });

  test("input schemas are valid JSON Schema objects that require session_id where the catalog's scope does", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(typeof t.inputSchema.properties).toBe("object");
      expect(() => ajv.compile(t.inputSchema)).not.toThrow();
      if (t.def.scope !== "none") expect(t.inputSchema.required).toContain("session_id");
      expect(JSON.stringify(t.inputSchema)).not.toContain("9007199254740991");
    }
    const click = ajv.compile(tool("click").inputSchema);
    expect(click({ session_id: "ab12", target: "@e3" })).toBe(true);
    expect(click({ target: "@e3" })).toBe(false);
  });

  test("page-changing tools take an op_id for safe retries; reads do not", () => {
    for (const t of tools) expect(Object.hasOwn(t.inputSchema.properties, "op_id")).toBe(EFFECTS[t.method] === "BrowserMutation");
  });

  test("session_start does not offer owner_pid: the server sets it so its sessions end with it", () => {
    expect(tool("session_start").inputSchema.properties).not.toHaveProperty("owner_pid");
    expect(tool("session_start").inputSchema.properties).toHaveProperty("name");
  });

  test("a tool offers the params the server passes on: the wire's, less the hidden ones, plus op_id on mutations", () => {
    for (const t of tools) {
      const def = METHODS[t.method] as MethodDef;
      const wire = Object.keys((z.toJSONSchema(def.params(), { io: "input" }) as { properties?: object }).properties ?? {});
      const expected = wire.filter((p) => !def.mcp?.hidden?.includes(p));
      if (EFFECTS[t.method] === "BrowserMutation") expected.push("op_id");
      expect({ tool: t.name, params: Object.keys(t.inputSchema.properties).sort() }).toEqual({ tool: t.name, params: expected.sort() });
      // The tool reads the catalog's definition itself: nothing copied that could drift.
      expect(t.def).toBe(def);
    }
    expect(tool("events").def.mcp?.hidden).toEqual(["follow_ms"]);
  });

  test("no description speaks of a param the tool does not offer, by its name or its CLI flag", () => {
    for (const t of tools) {
      const flags = Object.entries((METHODS[t.method].cli as CliShape).flags ?? {});
      for (const hidden of t.def.mcp?.hidden ?? []) {
        const text = `${t.description} ${JSON.stringify(t.inputSchema)}`;
        expect({ tool: t.name, mentions: text.includes(hidden) }).toEqual({ tool: t.name, mentions: false });
        for (const [flag] of flags.filter(([name, spec]) => flagParam(name, spec) === hidden)) expect(text).not.toContain(`--${flag}`);
      }
    }
    expect(tool("events").description).toBe("The session's ordered event stream after a cursor (also of an ended session).");
  });

  test("file params are paths this server reads and writes, not the wire's staged transfers", () => {
    const files = tool("upload").inputSchema.properties.files as Record<string, unknown>;
    expect(files).toMatchObject({ type: "array", items: { type: "string", minLength: 1 }, minItems: 1, maxItems: 20 });
    expect(JSON.stringify(tool("upload").inputSchema)).not.toContain("transfer_id");
    const ajv = new Ajv2020({ strict: false });
    expect(ajv.compile(tool("upload").inputSchema)({ session_id: "s1", target: "#f", files: ["cv.pdf", "~/a.png"] })).toBe(true);
    for (const name of ["download", "screenshot", "screenshot_full_page", "record_start"]) {
      expect((tool(name).inputSchema.properties.out as { description: string }).description).toContain("a path on this server's machine");
    }
    expect((tool("screenshot").inputSchema.properties.out as { description: string }).description).toContain(
      "without it nothing is written",
    );
    expect((tool("download").inputSchema.properties.out as { description: string }).description).toContain("only with overwrite");
    expect(tool("upload").description).toContain("This server stages the files");
    for (const t of tools)
      expect({ tool: t.name, cli: JSON.stringify(t.inputSchema).includes("the CLI") }).toEqual({ tool: t.name, cli: false });
  });

  test("a hidden param given anyway is refused before anything is sent to the daemon", async () => {
    const bridge = new McpBridge(homePaths("/nonexistent/bsk-mcp-unit"), {});
    for (const [name, args] of [
      ["session_start", { owner_pid: 1 }],
      ["events", { session_id: "s1", follow_ms: 1000 }],
    ] as const) {
      const r = await bridge.callTool(name, { ...args });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({
        error: { code: "invalid_params", message: `${name} does not take ${Object.keys(args).at(-1)}` },
      });
    }
  });

  test("annotations follow the effect class", () => {
    for (const t of tools) {
      const effect = EFFECTS[t.method];
      if (effect === "PassiveRead") expect(t.annotations.readOnlyHint).toBe(true);
      if (effect === "BrowserMutation")
        expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
      expect(t.annotations.openWorldHint).toBe(METHODS[t.method].owner === "extension");
      expect(t.annotations.title).toStartWith("bsk ");
    }
    expect(tool("session_list").annotations.readOnlyHint).toBe(true);
    expect(tool("session_start").annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tool("hover").annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  });

  test("descriptions speak in tool and parameter names, not CLI commands and flags", () => {
    for (const t of tools) {
      const text = `${t.description} ${JSON.stringify(t.inputSchema)}`;
      expect(text).not.toMatch(/\bbsk (session|tab|snapshot|navigate) /);
    }
    expect((tool("click").inputSchema.properties.session_id as { description: string }).description).toBe("Session id from session_start");
    expect(tool("snapshot").inputSchema.properties.cursor).toMatchObject({
      description: "Continue a snapshot cut by max_tokens (the parts keep the first call's budget)",
    });
    expect(tool("dialog_accept").description).toContain("; text answers a prompt()");
  });

  test("the instructions name only tools that exist", () => {
    const text = instructions(new Set(byName.keys()));
    expect(text).toContain("session_stop");
    expect(instructions(new Set())).not.toContain("tab_borrow");
    const named = text.match(/\b[a-z]+_[a-z_]+\b/g) ?? [];
    const notTools = new Set(["effect_state", "stale_ref", "element_obscured", "dialog_pending", "session_id", "new_tab", "dom_changed"]);
    expect(named.filter((n) => !notTools.has(n) && !byName.has(n))).toEqual([]);
  });

  test("a call's deadline covers the method's own wait", () => {
    expect(timeoutFor(tool("snapshot"), {})).toBe(30_000);
    expect(timeoutFor(tool("wait"), { duration_ms: 120_000 })).toBe(125_000);
    if (byName.has("tab_borrow")) expect(timeoutFor(tool("tab_borrow"), {})).toBe(65_000);
  });
});

describe("results", () => {
  test("a screenshot is image content plus a summary without the bytes", () => {
    const r = toolResult(tool("screenshot"), { tab_id: 1, format: "jpeg", width: 2, height: 2, bytes: 3, data: "AAEC" });
    expect(r.content[0]).toEqual({ type: "image", data: "AAEC", mimeType: "image/jpeg" });
    expect(JSON.parse((r.content[1] as { text: string }).text)).toEqual({ tab_id: 1, format: "jpeg", width: 2, height: 2, bytes: 3 });
  });

  test("a snapshot is its text, with how to get the next part when it was cut", () => {
    const r = toolResult(tool("snapshot"), { text: 'button "Go" @e1', truncated: true, cursor: "c2" });
    expect(r.content).toEqual([{ type: "text", text: 'button "Go" @e1\n-- more: call snapshot with cursor "c2"' }]);
  });

  test("other results are their JSON; a mutation's carries its op_id and effect_state", () => {
    expect(toolResult(tool("tab_list"), { tabs: [] }).content).toEqual([{ type: "text", text: '{"tabs":[]}' }]);
    const click = toolResult(tool("click"), { tab_id: 1 }, undefined, { op_id: "o1", effect_state: "unknown", replayed: false });
    expect(click.content).toEqual([{ type: "text", text: '{"tab_id":1,"op_id":"o1","effect_state":"unknown"}' }]);
  });

  test("errors say error and hint, carry the code structured, and never echo redacted params", () => {
    const e = new BskError("invalid_params", "the field did not take the value", { data: { value: "hunter2", reason: "x" } });
    const r = toolError(e, tool("fill"));
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toStartWith("error: the field did not take the value\nhint: ");
    expect(text).not.toContain("hunter2");
    expect(r.structuredContent).toMatchObject({
      error: { code: "invalid_params", message: "the field did not take the value", data: { value: "[redacted]" } },
    });
  });

  test("commands the person runs stay commands in hints", () => {
    const e = new BskError("permission_denied", "refused", { data: { reason: "extension_not_allowed" } });
    expect((toolError(e, tool("session_start")).content[0] as { text: string }).text).toContain(
      "hint: Add the extension id with: bsk daemon allow-extension <id>.",
    );
  });

  test("error wording from the daemon is put in the tool's terms", () => {
    const e = new BskError("invalid_params", "wait_for: give one of --navigation, --url, --target, --text or --text-gone");
    const text = (toolError(e, tool("wait_for")).content[0] as { text: string }).text;
    expect(text).toStartWith(
      "error: wait_for: give one of navigation, url, target, text or text_gone\nhint: Check the arguments against the tool's input schema",
    );
  });
});
