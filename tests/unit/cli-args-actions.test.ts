/** argv → params for the action, wait and dialog commands: file flags, durations, comma lists, redaction. */
import { describe, expect, test } from "bun:test";
import { parseArgs, type ArgsIo } from "../../cli/args.ts";
import type { CommandSpec } from "../../cli/command-spec.ts";
import { plan } from "../../cli/router.ts";
import { GRACE_MS, type Ids, type Plan } from "../../cli/plan.ts";
import { BskError } from "../../protocol/errors.ts";

const ids: Ids = { traceId: "0badcafe", opId: () => "op-fixed" };
const S = { BSK_SESSION: "s1" };

/** Files the parser may read: a path → its bytes; "-" is stdin. */
function io(files: Record<string, string | Uint8Array>): ArgsIo {
  return {
    readText(path) {
      const f = files[path];
      if (f === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
      return typeof f === "string" ? f : new TextDecoder("utf-8", { fatal: true }).decode(f);
    },
  };
}

function call(argv: string[], files: Record<string, string | Uint8Array> = {}): Extract<Plan, { kind: "call" }> {
  const p = plan(argv, S, ids, 4242, "/work", io(files));
  if (p.kind !== "call") throw new Error(`expected a call, got ${p.kind}`);
  return p;
}

function fails(argv: string[], files: Record<string, string | Uint8Array> = {}): BskError {
  try {
    plan(argv, S, ids, 4242, "/work", io(files));
  } catch (e) {
    expect(e).toBeInstanceOf(BskError);
    return e as BskError;
  }
  throw new Error(`expected ${argv.join(" ")} to fail`);
}

describe("file flags: the value comes from a file or stdin, never argv", () => {
  test("--value-file - reads stdin; one trailing newline is dropped", () => {
    expect(call(["fill", "@e6", "--value-file", "-"], { "-": "s3cret\n" }).params).toEqual({
      session_id: "s1",
      target: "@e6",
      value: "s3cret",
    });
    expect(call(["fill", "@e6", "--value-file", "-"], { "-": "line\r\n" }).params.value).toBe("line");
    expect(call(["fill", "@e6", "--value-file", "-"], { "-": "two\n\n" }).params.value).toBe("two\n");
    expect(call(["fill", "@e6", "--value-file", "-"], { "-": "" }).params.value).toBe("");
    expect(call(["fill", "@e6", "--value-file=/tmp/pw"], { "/tmp/pw": "from file" }).params.value).toBe("from file");
  });

  test("type --text-file fills the required <text> positional", () => {
    expect(call(["type", "--text-file", "-", "--target", "#q"], { "-": "hello" }).params).toEqual({
      session_id: "s1",
      target: "#q",
      text: "hello",
    });
  });

  test("unreadable files are invalid_params with a hint", () => {
    const missing = fails(["fill", "@e6", "--value-file", "/nope"]);
    expect(missing.code).toBe("invalid_params");
    expect(missing.message).toContain("no such file");
    expect(missing.hint).toContain("- to read stdin");
    const binary = fails(["fill", "@e6", "--value-file", "-"], { "-": new Uint8Array([0xff, 0xfe, 0x00]) });
    expect(binary.message).toContain("not UTF-8");
  });

  test("two flags for one value are refused; the secret is never in the message", () => {
    const e = fails(["fill", "@e6", "--value", "hunter2", "--value-file", "-"], { "-": "other" });
    expect(e.message).toContain("both set <value>");
    expect(e.message).not.toContain("hunter2");
    expect(e.message).not.toContain("other");
  });
});

describe("durations, lists and points", () => {
  test("wait takes a duration positional; without --timeout the caller's timeout covers the wait", () => {
    expect(call(["wait", "200ms"])).toMatchObject({ method: "wait", params: { duration_ms: 200 }, meta: { timeout_ms: 30_000 } });
    const long = call(["wait", "2m"]);
    expect(long.meta.timeout_ms).toBe(120_000 + GRACE_MS);
    expect(long.giveUpMs).toBe(120_000 + 2 * GRACE_MS);
    // an explicit --timeout is the caller's word: the daemon cuts the wait there
    expect(call(["wait", "10s", "--timeout", "300ms"]).meta.timeout_ms).toBe(300);
    expect(call(["wait", "1500ms"]).params.duration_ms).toBe(1500);
    expect(fails(["wait", "soon"]).message).toContain("duration");
    expect(fails(["wait"]).message).toContain("missing <duration_ms>");
  });

  test("--modifiers: repeated or comma-separated, checked against its options", () => {
    expect(call(["click", "@e1", "--modifiers", "Control,Shift"]).params.modifiers).toEqual(["Control", "Shift"]);
    expect(call(["click", "@e1", "--modifiers", "Alt", "--modifiers", "Meta, Shift"]).params.modifiers).toEqual(["Alt", "Meta", "Shift"]);
    const e = fails(["click", "@e1", "--modifiers", "Control,Contrl"]);
    expect(e.message).toContain("Alt, Control, Meta, Shift");
    expect(e.hint).toContain("Control");
  });

  test("select: the positional and --value build one list; free text never splits on commas", () => {
    expect(call(["select", "@e9", "Germany"]).params.values).toEqual(["Germany"]);
    expect(call(["select", "@e9", "Germany", "--value", "France"]).params.values).toEqual(["Germany", "France"]);
    expect(call(["select", "#toppings", "--value", "cheese", "--value", "olives"]).params.values).toEqual(["cheese", "olives"]);
    expect(call(["select", "#city", "--value", "Washington, D.C."]).params.values).toEqual(["Washington, D.C."]);
  });

  test("click: target, button, count; a point; mouse down/move/up; press; wait-for", () => {
    expect(call(["click", "tr:nth-child(2) button", "--button", "right", "--count", "2"]).params).toEqual({
      session_id: "s1",
      target: "tr:nth-child(2) button",
      button: "right",
      count: 2,
    });
    expect(call(["click", "--x", "10.5", "--y", "20"]).params).toEqual({ session_id: "s1", x: 10.5, y: 20 });
    expect(call(["mouse", "down", "--x", "1", "--y", "2", "--button", "middle"]).method).toBe("mouse.down");
    expect(call(["mouse", "move", "--x", "1", "--y", "2", "--steps", "5"]).params.steps).toBe(5);
    expect(call(["press", "Ctrl+A", "--target", "#q", "--count", "2"]).params).toEqual({
      session_id: "s1",
      key: "Ctrl+A",
      target: "#q",
      count: 2,
    });
    expect(call(["wait-for", "--target", "#x", "--state", "detached"]).params).toMatchObject({ target: "#x", state: "detached" });
    expect(call(["wait-for", "--text-gone", "Loading"]).params).toMatchObject({ text_gone: "Loading" });
    expect(call(["drag", "#a", "#b"]).params).toMatchObject({ from: "#a", to: "#b" });
    expect(call(["dialog", "accept", "--text", "Ada"]).params).toMatchObject({ text: "Ada" });
    expect(call(["dialog", "accept"]).meta.op_id).toBe("op-fixed");
    expect(call(["dialog", "status"]).meta.op_id).toBeUndefined();
  });
});

describe("redacted params are never echoed", () => {
  test("an extra word after a secret is named by position, not shown", () => {
    const e = fails(["fill", "@e6", "correct", "horse"]);
    expect(e.message).toContain("word 3");
    expect(e.message).not.toContain("horse");
  });

  test("a malformed redacted value is not shown either (synthetic shape)", () => {
    const cmd: CommandSpec = {
      words: ["pin"],
      description: "Synthetic",
      scope: "none",
      method: "pin",
      examples: [],
      positionals: [],
      flags: {
        pin: { param: "pin", type: "number", description: "PIN" },
        kind: { param: "kind", type: "enum", options: ["a"], description: "K" },
      },
      redact: ["pin"],
    };
    let err: BskError | undefined;
    try {
      parseArgs(cmd, ["--pin", "12ab"], {});
    } catch (e) {
      err = e as BskError;
    }
    expect(err?.message).toContain("[redacted]");
    expect(err?.message).not.toContain("12ab");
    // other params still show what was wrong
    expect(() => parseArgs(cmd, ["--kind", "zz"], {})).toThrow('"zz"');
  });
});
