import { describe, expect, test } from "bun:test";
import { BrowserRegistry, pickBrowser, type BrowserRecord, type WsLike } from "../../daemon/browsers.ts";
import { BskError } from "../../protocol/errors.ts";

const b = (instance_id: string, label: string) => ({ instance_id, label, name: "Chromium" });

function record(instance_id: string, label = "x"): BrowserRecord {
  return {
    instance_id,
    label,
    name: "Chromium",
    version: "1",
    extension_version: "0.1.0",
    protocol_version: "1.0",
    skew: false,
    connected_at: new Date().toISOString(),
  };
}

class FakeWs implements WsLike {
  sent: any[] = [];
  closed?: [number | undefined, string | undefined];
  send(text: string) {
    this.sent.push(JSON.parse(text));
    return text.length;
  }
  close(code?: number, reason?: string) {
    this.closed = [code, reason];
  }
}

describe("pickBrowser", () => {
  const list = [b("i1", "work"), b("i2", "work"), b("i3", "home")];

  test("no browser: undefined (the caller waits)", () => {
    expect(pickBrowser([])).toBeUndefined();
    expect(pickBrowser([], "home")).toBeUndefined();
  });

  test("the only browser, without a choice", () => {
    expect(pickBrowser([b("i1", "a")])?.instance_id).toBe("i1");
  });

  test("several and no choice: multiple_browsers_online listing them", () => {
    try {
      pickBrowser(list);
      throw new Error("expected a throw");
    } catch (e) {
      expect(e).toBeInstanceOf(BskError);
      expect((e as BskError).code).toBe("multiple_browsers_online");
      expect((e as BskError).data?.browsers).toEqual(list);
    }
  });

  test("an exact instance id wins over labels", () => {
    expect(pickBrowser([...list, b("work", "other")], "work")?.instance_id).toBe("work");
    expect(pickBrowser(list, "i2")?.instance_id).toBe("i2");
  });

  test("a unique label picks; a shared one is label_ambiguous; an unknown one is not_found", () => {
    expect(pickBrowser(list, "home")?.instance_id).toBe("i3");
    expect(() => pickBrowser(list, "work")).toThrow(BskError);
    try {
      pickBrowser(list, "work");
    } catch (e) {
      expect((e as BskError).data).toEqual({ reason: "label_ambiguous", instance_ids: ["i1", "i2"] });
    }
    expect(() => pickBrowser(list, "nope")).toThrow('no connected browser has the id or label "nope"');
  });
});

describe("BrowserRegistry", () => {
  test("a reconnect replaces the old connection; the old one's late removal is ignored", () => {
    const reg = new BrowserRegistry();
    const a = reg.add(new FakeWs(), record("i1"));
    const b2 = reg.add(new FakeWs(), record("i1"));
    expect(b2.replaced).toBe(a.conn);
    expect(reg.remove(a.conn)).toBe(false);
    expect(reg.get("i1")).toBe(b2.conn);
    expect(reg.remove(b2.conn)).toBe(true);
    expect(reg.size).toBe(0);
  });

  test("waitFor resolves when a matching browser connects, undefined after the time, rejects on abort", async () => {
    const reg = new BrowserRegistry();
    const waiting = reg.waitFor(() => reg.get("i9"), 5000);
    reg.add(new FakeWs(), record("i8"));
    reg.add(new FakeWs(), record("i9"));
    expect((await waiting)?.instanceId).toBe("i9");
    expect(await reg.waitFor(() => reg.get("nobody"), 10)).toBeUndefined();
    const ac = new AbortController();
    const aborted = reg.waitFor(() => reg.get("nobody"), 5000, ac.signal);
    ac.abort(new BskError("cancelled", "stop"));
    await expect(aborted).rejects.toMatchObject({ code: "cancelled" });
  });
});

describe("BrowserConn", () => {
  test("requests carry daemon ids and meta; responses resolve them with timings", async () => {
    const reg = new BrowserRegistry();
    const ws = new FakeWs();
    const { conn } = reg.add(ws, record("i1"));
    const p = conn.forward("tab.list", { session_id: "abcd" }, { traceId: "t1", timeoutMs: 1234 });
    expect(ws.sent[0]).toEqual({
      id: "x1",
      method: "tab.list",
      params: { session_id: "abcd" },
      meta: { trace_id: "t1", timeout_ms: 1234 },
    });
    expect(conn.handleResponse({ id: "x1", result: { ok: 1 }, meta: { timings: { extension: 2 } } })).toBe(true);
    const r = await p;
    expect(r.result).toEqual({ ok: 1 });
    expect(r.timings).toEqual({ extension: 2 });
    expect(conn.handleResponse({ id: "x1", result: {} })).toBe(false);
  });

  test("an abort sends cancel for that id and rejects with the abort reason", async () => {
    const reg = new BrowserRegistry();
    const ws = new FakeWs();
    const { conn } = reg.add(ws, record("i1"));
    const ac = new AbortController();
    const p = conn.forward("evaluate", {}, { traceId: "t", timeoutMs: 100, signal: ac.signal });
    ac.abort(new BskError("timeout", "late"));
    await expect(p).rejects.toMatchObject({ code: "timeout" });
    expect(ws.sent[1]).toMatchObject({ method: "cancel", params: { id: "x1" } });
    expect(conn.inFlight).toBe(0);
  });

  test("a closed link fails its waiting requests with browser_gone", async () => {
    const reg = new BrowserRegistry();
    const { conn } = reg.add(new FakeWs(), record("i1"));
    const p = conn.forward("evaluate", {}, { traceId: "t", timeoutMs: 100 });
    conn.markClosed(new BskError("cdp_failed", "gone", { data: { reason: "browser_gone" } }));
    await expect(p).rejects.toMatchObject({ code: "cdp_failed", data: { reason: "browser_gone" } });
    await expect(conn.forward("evaluate", {}, { traceId: "t", timeoutMs: 100 })).rejects.toMatchObject({
      data: { reason: "browser_gone" },
    });
  });

  test("call() throws the extension's error as a BskError", async () => {
    const reg = new BrowserRegistry();
    const { conn } = reg.add(new FakeWs(), record("i1"));
    const p = conn.call("evaluate", { session_id: "s", expression: "1" }, { traceId: "t", timeoutMs: 100 });
    conn.handleResponse({ id: "x1", error: { code: "evaluation_failed", message: "boom", data: { js: "Error" } } });
    await expect(p).rejects.toMatchObject({ code: "evaluation_failed", message: "boom", data: { js: "Error" } });
  });
});

describe("BrowserConn.wasSent", () => {
  test("knows the newest 4,096 requests it sent, not older ones, not another connection's, not strays", async () => {
    const registry = new BrowserRegistry();
    const { conn } = registry.add(new FakeWs(), record("i1"));
    const { conn: other } = registry.add(new FakeWs(), record("i2"));
    const ids: string[] = [];
    const ac = new AbortController();
    const sendOne = (c: typeof conn) => {
      const p = c.forward("tabs.list", {}, { traceId: "t", signal: ac.signal, timeoutMs: 60_000 }).catch(() => undefined);
      return p;
    };
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < 4097; i++) {
      waits.push(sendOne(conn));
      ids.push(((conn.ws as FakeWs).sent.at(-1) as { id: string }).id);
    }
    waits.push(sendOne(other));
    const othersId = ((other.ws as FakeWs).sent.at(-1) as { id: string }).id;
    expect(conn.wasSent(ids.at(-1)!)).toBe(true);
    expect(conn.wasSent(ids[1]!)).toBe(true);
    expect(conn.wasSent(ids[0]!)).toBe(false); // pushed out of the ring
    expect(conn.wasSent(othersId)).toBe(false);
    for (const stray of ["x0", "x-1", "x1e3", "x01", "y1", "", "x"]) expect(conn.wasSent(stray)).toBe(false);
    expect(conn.wasSent(null)).toBe(false);
    ac.abort();
    await Promise.all(waits);
  });
});
