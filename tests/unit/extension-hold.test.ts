/**
 * A held call in the extension (meta.hold): its input waits in sending() for the daemon's op.durable, and a call cut
 * off before it sends nothing (extension/src/session/input-mark.ts); op.durable releases only the request it names, on
 * the link it came on (extension/src/link/served.ts).
 */
import { describe, expect, test } from "bun:test";
import { BskError } from "../../protocol/errors.ts";
import { opDurable, type Served } from "../../extension/src/link/served.ts";
import { raceAbort } from "../../extension/src/shared/abort.ts";
import { beginMutation, sending } from "../../extension/src/session/input-mark.ts";

describe("held input", () => {
  test("input waits for op.durable; the call's mark says nothing was sent until then", async () => {
    const durable = Promise.withResolvers<void>();
    const mark = beginMutation("hold1", "click", durable.promise);
    const acted: string[] = [];
    const input = sending({ sessionId: "hold1" }, async () => void acted.push("input"));
    await Promise.resolve();
    await Promise.resolve();
    expect(acted).toEqual([]);
    expect(mark.sent()).toBe(false);
    durable.resolve();
    await input;
    expect(acted).toEqual(["input"]);
    expect(mark.sent()).toBe(true);
    // Once released, later input of the same call goes at once.
    await sending({ sessionId: "hold1" }, async () => void acted.push("more"));
    expect(acted).toEqual(["input", "more"]);
    mark.end();
  });

  test("a call cut off while held sends nothing and fails with its abort", async () => {
    const durable = Promise.withResolvers<void>();
    const ac = new AbortController();
    const mark = beginMutation("hold2", "click", raceAbort(durable.promise, ac.signal));
    let acted = false;
    const input = sending({ sessionId: "hold2" }, async () => void (acted = true));
    ac.abort(new BskError("cancelled", "the connection to the daemon closed"));
    await expect(input).rejects.toMatchObject({ code: "cancelled" });
    // A durable that comes after the cut changes nothing.
    durable.resolve();
    await Promise.resolve();
    expect(acted).toBe(false);
    expect(mark.sent()).toBe(false);
    mark.end();
  });

  test("op.durable releases the request it names on its own link; other ids, shapes and links release nothing", () => {
    const released: string[] = [];
    const served = (name: string): Served => ({ ac: new AbortController(), durable: () => released.push(name) });
    const local = new Map<string | number, Served>([
      ["x1", served("local x1")],
      ["x2", served("local x2")],
    ]);
    const remote = new Map<string | number, Served>([["x1", served("remote x1")]]);
    for (const payload of [null, "x1", { request_id: "x9" }, { request_id: { id: "x1" } }, { id: "x1" }, [], 42]) opDurable(local, payload);
    expect(released).toEqual([]);
    opDurable(local, { request_id: "x1" });
    expect(released).toEqual(["local x1"]);
    // A request that is not held has nothing to release.
    opDurable(new Map([["x3", { ac: new AbortController() }]]), { request_id: "x3" });
    expect(released).toEqual(["local x1"]);
    opDurable(remote, { request_id: "x1" });
    expect(released).toEqual(["local x1", "remote x1"]);
  });
});
