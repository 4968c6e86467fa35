import { describe, expect, test } from "bun:test";
import { parseDuration } from "../../protocol/duration.ts";
import { BskError, exitCodeFor, toErrorBody } from "../../protocol/errors.ts";
import { MAX_FRAME_BYTES, parseFrame } from "../../protocol/frames.ts";
import { checkCompatibility, parseProtocolVersion } from "../../protocol/version.ts";

describe("parseFrame", () => {
  test("classifies requests, responses and events", () => {
    expect(parseFrame('{"id":1,"method":"system.status"}')).toMatchObject({ ok: true, value: { kind: "request" } });
    expect(parseFrame('{"id":"a","result":{}}')).toMatchObject({ ok: true, value: { kind: "response" } });
    expect(parseFrame('{"id":"a","error":{"code":"timeout","message":"x"}}')).toMatchObject({ ok: true });
    expect(parseFrame('{"event":"system.heartbeat","payload":{}}')).toMatchObject({ ok: true, value: { kind: "event" } });
  });

  test("rejects malformed frames with a message and the id when readable", () => {
    expect(parseFrame("not json")).toEqual({ ok: false, id: null, message: "frame is not valid JSON" });
    expect(parseFrame("[1]")).toMatchObject({ ok: false, id: null });
    expect(parseFrame('{"id":7,"method":""}')).toMatchObject({ ok: false, id: 7 });
    expect(parseFrame('{"id":7,"result":1,"error":{"code":"timeout","message":"x"}}')).toMatchObject({ ok: false, id: 7 });
    expect(parseFrame('{"id":7,"error":{"code":"made_up","message":"x"}}')).toMatchObject({ ok: false });
    expect(parseFrame('{"id":7,"method":"x","extra":1}')).toMatchObject({ ok: false, id: 7 });
    expect(parseFrame('{"hello":1}')).toMatchObject({ ok: false });
  });

  test("refuses frames over the cap", () => {
    const big = `{"id":1,"method":"x","params":{"s":"${"a".repeat(MAX_FRAME_BYTES)}"}}`;
    expect(parseFrame(big)).toMatchObject({ ok: false, message: "frame larger than 16 MiB" });
  });
});

describe("versions", () => {
  test("parse major.minor only", () => {
    expect(parseProtocolVersion("1.0")).toEqual({ major: 1, minor: 0 });
    expect(parseProtocolVersion("1")).toBeNull();
    expect(parseProtocolVersion("1.0.0")).toBeNull();
    expect(parseProtocolVersion(1)).toBeNull();
  });

  test("major differs → refused, minor differs → skew", () => {
    expect(checkCompatibility("1.0", "2.0")).toMatchObject({ ok: false });
    expect(checkCompatibility("1.0", "1.3")).toEqual({ ok: true, skew: true });
    expect(checkCompatibility("1.0", "1.0")).toEqual({ ok: true, skew: false });
    expect(checkCompatibility("1.0", "x")).toMatchObject({ ok: false });
  });
});

describe("durations", () => {
  test("accept ms, s, m, h and bare milliseconds", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("1.5s")).toBe(1500);
    expect(parseDuration("5m")).toBe(300_000);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(parseDuration("250")).toBe(250);
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("-1s")).toBeNull();
  });
});

describe("error values", () => {
  test("carry a hint, refined by the reason", () => {
    const e = new BskError("permission_denied", "not yours", { data: { reason: "restricted_url" } });
    expect(e.hint).toContain("cannot be automated");
    expect(e.toBody()).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url" } });
    expect(exitCodeFor("timeout")).toBe(4);
    expect(exitCodeFor("nonsense")).toBe(2);
  });

  test("anything thrown becomes an error body", () => {
    expect(toErrorBody(new Error("boom"))).toMatchObject({ code: "protocol_error", message: "boom" });
    expect(toErrorBody({ code: "timeout", message: "late" })).toMatchObject({ code: "timeout", hint: expect.any(String) });
  });
});
