/** `bsk mcp` end to end: the MCP SDK's own client spawns dist/bsk mcp and drives the real browser through it. */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fixtureBytes } from "../../scripts/fixture-server.ts";
import { CORE_TOOLS } from "../../cli/mcp/profiles.ts";
import { minimalArgs } from "../mcp-args.ts";
import { BSK, until, useWorld, type World } from "./harness.ts";
import { tempDir } from "../temp.ts";

let w: World;

useWorld({}, (world) => (w = world));

/** `tools`: the --tools profile (null: none given, so the default, core). */
async function connect(cwd?: string, tools: string | null = "all"): Promise<{ client: Client; transport: StdioClientTransport }> {
  const args = tools === null ? ["mcp"] : ["mcp", "--tools", tools];
  const transport = new StdioClientTransport({ command: BSK, args, env: w.env, stderr: "pipe", cwd });
  const client = new Client({ name: "bsk-e2e", version: "0" });
  await client.connect(transport);
  return { client, transport };
}

type Content = { type: string; text?: string; data?: string; mimeType?: string };

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<Content[]> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as Content[];
  if (r.isError) throw new Error(`${name} failed: ${content.map((c) => c.text).join("\n")}`);
  return content;
}

const json = (content: Content[]) => JSON.parse(content.find((c) => c.type === "text")!.text!);

async function endReason(sessionId: string): Promise<string | undefined> {
  const { sessions } = await w.ok(["session", "list"]);
  const s = sessions.find((x: any) => x.session_id === sessionId);
  return s?.state === "ended" ? s.end_reason : undefined;
}

describe("bsk mcp", () => {
  test("offers the core profile by default, says so, and refuses a tool it does not offer", async () => {
    const { client } = await connect(undefined, null);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...CORE_TOOLS].sort());
      expect(client.getInstructions()).toContain("Tools offered: the core profile");
      const r = await client.callTool({ name: "evaluate", arguments: { session_id: "s1", expression: "1" } });
      expect(r.isError).toBe(true);
      expect((r.structuredContent as any).error).toMatchObject({ code: "unknown_method", message: 'no tool "evaluate"' });
    } finally {
      await client.close();
    }
    const picked = await connect(undefined, "core,evaluate");
    try {
      const names = (await picked.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("evaluate");
      expect(names.length).toBe(CORE_TOOLS.length + 1);
    } finally {
      await picked.client.close();
    }
  });

  test("lists the catalog's agent methods as tools with their schemas and annotations", async () => {
    const { client } = await connect();
    try {
      expect(client.getInstructions()).toContain("session_stop");
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of [
        "session_start",
        "session_stop",
        "session_list",
        "system_status",
        "browser_list",
        "tab_list",
        "navigate",
        "snapshot",
        "click",
        "fill",
        "screenshot",
        "dialog_accept",
      ]) {
        expect(byName.has(name)).toBe(true);
      }
      expect(byName.has("system_allow_extension")).toBe(false);
      expect(byName.get("tab_list")!.inputSchema.required).toContain("session_id");
      expect(byName.get("click")!.inputSchema.required).toContain("session_id");
      expect(byName.get("session_start")!.inputSchema.properties).not.toHaveProperty("owner_pid");
      expect(byName.get("snapshot")!.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get("click")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    } finally {
      await client.close();
    }
  });

  test("session_start → navigate → snapshot → click by ref → screenshot; closing the client stops the session", async () => {
    const { client } = await connect();
    let session = "";
    try {
      session = json(await callOk(client, "session_start", { name: "mcp e2e", focus: false })).session_id;
      expect(session).toMatch(/^[a-z0-9]+$/);

      const nav = json(await callOk(client, "navigate", { session_id: session, url: w.fixtures.url("/shop.html") }));
      expect(nav).toMatchObject({ title: "Tiny Shop", status: 200 });

      const snap = (await callOk(client, "snapshot", { session_id: session }))[0]!.text!;
      expect(snap).toContain("Cart: 0 items");
      const ref = snap
        .split("\n")
        .find((l) => l.includes('button "Add to cart"'))
        ?.match(/@e\d+/)?.[0];
      expect(ref).toBeDefined();

      const click = json(await callOk(client, "click", { session_id: session, target: ref, op_id: "mcp-e2e-add" }));
      expect(click).toMatchObject({ target: { role: "button", name: "Add to cart" }, op_id: "mcp-e2e-add", effect_state: "committed" });
      // The same op_id again is answered from the ledger: the click does not happen twice.
      const again = json(await callOk(client, "click", { session_id: session, target: ref, op_id: "mcp-e2e-add" }));
      expect(again).toMatchObject({ op_id: "mcp-e2e-add", replayed: true });
      const after = (await callOk(client, "snapshot", { session_id: session }))[0]!.text!;
      expect(after).toContain("Cart: 1 item");

      const shot = await callOk(client, "screenshot", { session_id: session });
      const image = shot.find((c) => c.type === "image")!;
      expect(image.mimeType).toBe("image/png");
      expect([...Buffer.from(image.data!, "base64").subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(json(shot.filter((c) => c.type === "text"))).toMatchObject({ format: "png" });

      const bad = await client.callTool({ name: "click", arguments: { session_id: session, target: "#no-such-element" } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Content[])[0]!.text).toMatch(/^error: .+\nhint: .+/);
      expect((bad.structuredContent as any).error.code).toBe("not_found");
    } finally {
      await client.close();
    }
    expect(await until("the session to end", () => endReason(session))).toBe("stopped");
  });

  test("a call the client cancels is cancelled in the daemon and the browser too", async () => {
    const { client } = await connect();
    try {
      const session = json(await callOk(client, "session_start", { focus: false })).session_id;
      await callOk(client, "navigate", { session_id: session, url: w.fixtures.url("/shop.html") });
      // The fixture server holds this page, so the navigation is certainly in flight when the client cancels.
      const abort = new AbortController();
      const args = { session_id: session, url: w.fixtures.url("/hold/mcp-cancel"), op_id: "mcp-e2e-cancel" };
      const navigating = client.callTool({ name: "navigate", arguments: args }, undefined, { signal: abort.signal });
      await w.fixtures.seen("/hold/mcp-cancel");
      abort.abort();
      await expect(navigating).rejects.toThrow();
      const op = await until("the daemon to settle the cancelled op", async () => {
        const { ops } = await w.ok(["ops", "--session", session]);
        const o = ops.find((x: any) => x.op_id === "mcp-e2e-cancel");
        return o && o.state !== "reserved" ? o : undefined;
      });
      expect(op.state).not.toBe("executed");
      // Had the navigation not been cancelled, this call would wait behind it in the session's queue.
      const r = await client.callTool({ name: "tab_list", arguments: { session_id: session } }, undefined, { timeout: 10_000 });
      expect(r.isError).toBeFalsy();
    } finally {
      w.fixtures.release("mcp-cancel");
      await client.close();
    }
  });

  test("session_start with a url opens on the page; cut off while the page loads, that session ends", async () => {
    const { client } = await connect();
    try {
      const started = json(await callOk(client, "session_start", { focus: false, url: w.fixtures.url("/shop.html") }));
      expect(started.navigation).toMatchObject({ tab_id: started.tab_id, title: "Tiny Shop", status: 200, navigated: true });
      const abort = new AbortController();
      const args = { focus: false, name: "cut off", url: w.fixtures.url("/hold/mcp-start") };
      const starting = client.callTool({ name: "session_start", arguments: args }, undefined, { signal: abort.signal });
      await w.fixtures.seen("/hold/mcp-start");
      abort.abort();
      await expect(starting).rejects.toThrow();
      const cut = await until("the cut-off session to end", async () => {
        const { sessions } = await w.ok(["session", "list"]);
        return sessions.find((x: any) => x.name === "cut off" && x.state === "ended");
      });
      expect(cut.end_reason).toBe("start_failed");
      const { ops } = await w.ok(["ops", "--session", cut.session_id]);
      expect(ops).toHaveLength(1);
      expect(ops[0].method).toBe("navigate");
      expect(ops[0].state).not.toBe("reserved");
      // The first session is untouched and still answers.
      expect(json(await callOk(client, "evaluate", { session_id: started.session_id, expression: "document.title" })).value).toBe(
        "Tiny Shop",
      );
    } finally {
      w.fixtures.release("mcp-start");
      await client.close();
    }
  });

  test("upload and download move files through the server, with paths relative to its working directory", async () => {
    const dir = tempDir("bsk-mcp-files-");
    writeFileSync(`${dir}/cv.txt`, "hello cv\n");
    const { client } = await connect(dir);
    try {
      const session = json(await callOk(client, "session_start", { focus: false })).session_id;
      await callOk(client, "navigate", { session_id: session, url: w.fixtures.url("/files-upload.html") });
      const up = json(await callOk(client, "upload", { session_id: session, target: "#single", files: ["cv.txt"] }));
      expect(up.files).toEqual([{ name: "cv.txt", size: 9, sha256: expect.any(String) }]);

      await callOk(client, "navigate", { session_id: session, url: w.fixtures.url("/files-download.html") });
      const down = json(await callOk(client, "download", { session_id: session, target: "#small", out: "notes.txt" }));
      expect(down.path).toBe(`${dir}/notes.txt`);
      expect([...readFileSync(`${dir}/notes.txt`)]).toEqual([...fixtureBytes(0, 13)]);

      await callOk(client, "navigate", { session_id: session, url: w.fixtures.url("/shop.html") });
      const page = await callOk(client, "screenshot_full_page", { session_id: session, out: "page.png" });
      expect(page.map((c) => c.type)).toEqual(["image", "text"]);
      expect(json(page.filter((c) => c.type === "text")).path).toBe(`${dir}/page.png`);
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("record_start returns the trace and writes it to out; an existing out is refused before anything starts", async () => {
    const dir = tempDir("bsk-mcp-rec-");
    const { client } = await connect(dir);
    try {
      const recording = callOk(client, "record_start", { url: w.fixtures.url("/record-start.html"), purpose: "mcp", out: "trace.json" });
      await until("the recording to stop", async () => (await w.bsk(["record", "stop", "--json"])).json?.ok === true);
      const r = json(await recording);
      expect(r).toMatchObject({ path: `${dir}/trace.json`, trace: { version: 1, stopped_by: "stop", purpose: "mcp" } });
      expect(JSON.parse(readFileSync(`${dir}/trace.json`, "utf8"))).toEqual(r.trace);

      const sessionsBefore = (await w.ok(["session", "list"])).sessions.length;
      const refused = await client.callTool({
        name: "record_start",
        arguments: { url: w.fixtures.url("/record-start.html"), out: "trace.json" },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as Content[])[0]!.text).toContain("already exists");
      expect((await w.ok(["session", "list"])).sessions.length).toBe(sessionsBefore);
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("every tool takes arguments that match its advertised input schema, and refuses the params it hides", async () => {
    const dir = tempDir("bsk-mcp-schemas-");
    writeFileSync(`${dir}/cv.txt`, "hello cv\n");
    const { client } = await connect(dir);
    const { tools } = await client.listTools();
    const advertised = new Map(tools.map((t) => [t.name, t]));
    const validator = new AjvJsonSchemaValidator();
    const outcomes = new Map<string, string>();
    /** Validates the arguments against the tool's advertised schema (as a validating client would), then calls it. */
    const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
      const tool = advertised.get(name);
      if (!tool) throw new Error(`no tool ${name}`);
      const check = validator.getValidator(tool.inputSchema as never)(args);
      if (!check.valid)
        throw new Error(`${name}: arguments ${JSON.stringify(args)} do not match the advertised schema: ${check.errorMessage}`);
      const r = await client.callTool({ name, arguments: args });
      const content = r.content as Content[];
      const code = r.isError ? ((r.structuredContent as any)?.error?.code ?? "unknown") : "ok";
      if (!outcomes.has(name) || code === "ok") outcomes.set(name, code === "ok" ? "ok" : `${code}: ${content[0]?.text}`);
      return r.isError ? undefined : content.find((c) => c.type === "text")?.text;
    };
    const obj = async (name: string, args: Record<string, unknown>) => JSON.parse((await call(name, args)) ?? "null");
    try {
      await call("system_status", {});
      await call("browser_list", {});
      // The test's Chromium runs as this user: nothing is started, the reply says the browser runs.
      expect(await obj("browser_launch", {})).toMatchObject({ launched: false });
      const S = (await obj("session_start", { name: "schemas", focus: false, width: 1000, height: 800, lease_ms: 600_000 }))
        .session_id as string;
      await call("session_list", {});
      const s = { session_id: S };

      const first = (await obj("tab_list", { ...s, scope: "owned" })).tabs[0].tab_id as number;
      const made = (await obj("tab_create", { ...s, url: w.fixtures.url("/shop.html"), background: true })).tab_id as number;
      await call("tab_select", { ...s, tab_id: made });
      await call("tab_select", { ...s, tab_id: first });
      await call("tab_close", { ...s, tab_id: made });
      const personTab = await w.person.openInOwnWindow(w.fixtures.url("/borrow-form.html?mcp-schemas"));
      const borrowing = call("tab_borrow", { ...s, tab_id: personTab, timeout_ms: 10_000 });
      await w.person.answerConsent(true);
      await borrowing;
      await call("tab_return", { ...s, tab_id: personTab });
      await call("tab_select", { ...s, tab_id: first });

      await call("navigate", { ...s, url: w.fixtures.url("/shop.html"), wait_until: "load" });
      await call("navigate", { ...s, url: w.fixtures.url("/act-form.html") });
      await call("navigate_back", { ...s, wait_until: "domcontentloaded" });
      await call("navigate_forward", { ...s });
      await call("reload", { ...s, hard: true });
      await call("wait_for", { ...s, text: "Every control" });
      await call("wait", { duration_ms: 10 });
      await call("snapshot", { ...s, max_tokens: 4000, viewport: false });
      await call("observe", { ...s, max_tokens: 4000, probe_hover: false });
      await call("find", { ...s, query: "Country", limit: 5 });
      await call("screenshot", { ...s, format: "jpeg", quality: 60, out: "shot.jpg" });
      await call("screenshot_full_page", { ...s, out: "full.png" });
      await call("get_html", { ...s, target: "#order", max_bytes: 4096 });

      await call("click", { ...s, target: "#terms", op_id: "schemas-click" });
      await call("dblclick", { ...s, target: "#notes" });
      await call("hover", { ...s, target: "#submit" });
      await call("fill", { ...s, target: "#name", value: "Ada" });
      await call("type", { ...s, target: "#email", text: "ada@example.com", delay_ms: 0 });
      await call("press", { ...s, key: "Tab", count: 1 });
      await call("select", { ...s, target: "#country", values: ["fr"] });
      await call("check", { ...s, target: "#size-l" });
      await call("uncheck", { ...s, target: "#terms" });
      await call("scroll_to", { ...s, target: "#submit" });
      await call("wheel", { ...s, dx: 0, dy: 120 });
      await call("focus", { ...s, target: "#count" });
      await call("blur", { ...s, target: "#count" });
      await call("mouse_down", { ...s, x: 5, y: 5 });
      await call("mouse_move", { ...s, x: 25, y: 5, steps: 3 });
      await call("mouse_up", { ...s, x: 25, y: 5 });
      await call("evaluate", { ...s, expression: "document.title" });
      await call("emulate", { ...s, device: "pixel-7" });
      await call("window_resize", { ...s, width: 1100, height: 800 });

      await call("navigate", { ...s, url: w.fixtures.url("/act-dnd.html") });
      await call("drag", { ...s, from: "#apple", to: "#bin" });

      await call("navigate", { ...s, url: w.fixtures.url("/act-dialogs.html") });
      await call("click", { ...s, target: "#prompt" });
      await call("dialog_status", { ...s });
      await call("dialog_accept", { ...s, text: "Ada" });
      await call("click", { ...s, target: "#confirm" });
      await call("dialog_dismiss", { ...s });
      await call("console", { ...s, level: "error", limit: 10, max_text_chars: 200 });
      await call("network", { ...s, limit: 10, failed: false });
      await call("request_help", { ...s, prompt: "Check the dialogs page", title: "Check", timeout_ms: 100 });

      await call("navigate", { ...s, url: w.fixtures.url("/files-upload.html") });
      await call("upload", { ...s, target: "#single", files: ["cv.txt"], mode: "input" });
      await call("navigate", { ...s, url: w.fixtures.url("/files-download.html") });
      await call("download", { ...s, target: "#small", out: "notes.txt", overwrite: false });
      // A plain click on a download link: the session keeps the file, listed and saved by id.
      await call("click", { ...s, target: "#small" });
      const kept = await until("the kept download", async () => {
        const list = await obj("downloads", { ...s });
        return list?.downloads?.find((d: { state: string }) => d.state === "complete");
      });
      await call("downloads_save", { ...s, download_id: kept.download_id, out: "kept.txt", overwrite: false });

      await call("ops", { ...s, limit: 10 });
      await call("events", { ...s, since: 0, limit: 10, types: ["navigation"] });
      const hidden = await client.callTool({ name: "events", arguments: { ...s, follow_ms: 1000 } });
      expect(hidden.isError).toBe(true);
      expect((hidden.structuredContent as any).error).toMatchObject({ code: "invalid_params", message: "events does not take follow_ms" });

      const recording = call("record_start", {
        url: w.fixtures.url("/record-start.html"),
        purpose: "schemas",
        out: "trace.json",
        overwrite: false,
        timeout_ms: 60_000,
      });
      await until("the recording to stop", async () => (await call("record_stop", {})) !== undefined);
      await recording;
      await call("session_stop", { ...s });

      expect([...outcomes.keys()].sort()).toEqual([...advertised.keys()].sort());
      // Every call succeeds, but request_help: nobody answers it within timeout_ms, which need not be a success.
      const failed = [...outcomes].filter(
        ([name, outcome]) => outcome !== "ok" && (name !== "request_help" || outcome.startsWith("invalid_params")),
      );
      expect(failed).toEqual([]);
      expect(readFileSync(`${dir}/notes.txt`).length).toBe(13);
      expect(readFileSync(`${dir}/kept.txt`).length).toBe(13);
      expect(JSON.parse(readFileSync(`${dir}/trace.json`, "utf8")).purpose).toBe("schemas");
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test("attack: every tool refuses an argument it does not take, by name, and runs nothing", async () => {
    const s = await w.startSession();
    const { client } = await connect();
    try {
      const seen = async () => ({
        sessions: (await w.ok(["session", "list"])).sessions.map((x: any) => `${x.session_id} ${x.state}`).sort(),
        tabs: (await w.ok(["tab", "list", "--session", s])).tabs.map((t: any) => `${t.tab_id} ${t.url}`),
        ops: (await w.ok(["ops", "--limit", "1"])).total,
      });
      const before = await seen();
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(50);
      for (const tool of tools) {
        const args = { ...minimalArgs(tool.inputSchema, { session_id: s }), bogus_arg: 1 };
        const r = await client.callTool({ name: tool.name, arguments: args });
        expect({ tool: tool.name, isError: r.isError, error: (r.structuredContent as any)?.error }).toMatchObject({
          tool: tool.name,
          isError: true,
          error: { code: "invalid_params", message: `${tool.name} does not take bogus_arg` },
        });
      }
      expect(await seen()).toEqual(before);
    } finally {
      await client.close();
      await w.bsk(["session", "stop", s]);
    }
  });

  test("a killed server's sessions end too (the daemon watches its pid)", async () => {
    const { client, transport } = await connect();
    const session = json(await callOk(client, "session_start", { focus: false })).session_id;
    process.kill(transport.pid!, "SIGKILL");
    expect(await until("the session to end", () => endReason(session))).toBe("owner_exited");
    await client.close();
  });
});
