import { describe, expect, test } from "bun:test";
import { findCommand } from "../../cli/router.ts";
import { inCliWords } from "../../cli/param-words.ts";
import { parseParams } from "../../daemon/validate.ts";
import { BskError } from "../../protocol/errors.ts";
import type { MethodName } from "../../protocol/catalog.ts";

/** What the CLI prints for params the daemon refused: the daemon's own refusal, put in the command line's words. */
function refusal(words: string[], method: MethodName, params: Record<string, unknown>): BskError {
  try {
    parseParams(method, params);
  } catch (e) {
    return inCliWords(findCommand(words)!, e as BskError);
  }
  throw new Error("the params were accepted");
}

describe("invalid params in the CLI's words", () => {
  test("a missing argument names the argument and shows the usage line, never zod's text", () => {
    const e = refusal(["fill"], "fill", { session_id: "a", target: "@e1" });
    expect(e.message).toBe("missing <value>: Text (or use --value / --value-file)");
    expect(e.hint).toContain("Usage: bsk fill");
    expect(e.message).not.toContain("params.");
    expect(e.message).not.toContain("Invalid input");
  });

  test("an empty value and a wrong kind are said in words", () => {
    expect(refusal(["navigate"], "navigate", { session_id: "a", url: "" }).message).toBe("<url> is empty");
    expect(refusal(["select"], "select", { session_id: "a", target: "@e1" }).message).toMatch(/^missing <values>/);
  });

  test("a value out of range keeps the range, named as the flag", () => {
    const e = refusal(["session", "start"], "session.start", { width: 5 });
    expect(e.message).toMatch(/^--width must be/);
    expect(e.hint).toMatch(/^Give --width a value/);
  });

  test("an error that names no argument or flag is left as it is", () => {
    const original = new BskError("invalid_params", "x: params: bad", { data: { path: "nothing_here" } });
    expect(inCliWords(findCommand(["fill"])!, original)).toBe(original);
    const other = new BskError("not_found", "gone");
    expect(inCliWords(findCommand(["fill"])!, other)).toBe(other);
  });
});
