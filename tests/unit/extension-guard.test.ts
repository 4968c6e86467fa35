/** The guard's pure parts: the blocking rules a session's --allow-origin becomes, and the error of a call that met an incident. */
import { describe, expect, test } from "bun:test";
import { incidentError } from "../../extension/src/features/guard/incidents.ts";
import { rulesFor } from "../../extension/src/features/guard/origin-rules.ts";
import type { SessionState } from "../../extension/src/session/settings.ts";

const session = (id: string, tabs: Record<string, "created" | "opened" | "borrowed">, extra: Partial<SessionState> = {}): SessionState => ({
  session_id: id,
  window_id: 1,
  current_tab_id: null,
  tabs,
  recent: [],
  ...extra,
});

describe("origin rules", () => {
  test("every tab the session owns (created, opened, borrowed) is named; the person's tabs and sessions without a list are not", () => {
    const rules = rulesFor([
      session(
        "aaaa",
        { 11: "created", 12: "opened", 13: "borrowed" },
        { allow_origins: ["https://shop.example", "http://127.0.0.1:5000"] },
      ),
      session("bbbb", { 21: "created" }),
    ]);
    expect(rules).toHaveLength(3);
    const [block, ...allow] = rules;
    expect(block).toMatchObject({
      priority: 1,
      action: { type: "block" },
      condition: { tabIds: [11, 12, 13], resourceTypes: ["main_frame", "sub_frame"] },
    });
    expect(allow.map((r) => [r.priority, r.action.type, r.condition.urlFilter])).toEqual([
      [2, "allow", "|https://shop.example/"],
      [2, "allow", "|http://127.0.0.1:5000/"],
    ]);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
  });

  test("--block-requests covers every request type, and sockets of the allowed origins stay allowed", () => {
    const rules = rulesFor([session("aaaa", { 11: "created" }, { allow_origins: ["https://shop.example"], block_requests: true })]);
    expect(rules[0]!.condition.resourceTypes).toContain("xmlhttprequest");
    expect(rules[0]!.condition.resourceTypes).toContain("websocket");
    expect(rules.slice(1).map((r) => r.condition.urlFilter)).toEqual(["|https://shop.example/", "|wss://shop.example/"]);
  });

  test("a session whose tabs are all gone has no rules (an empty tabIds would match nothing, and is refused)", () => {
    expect(rulesFor([session("aaaa", {}, { allow_origins: ["https://shop.example"] })])).toEqual([]);
  });
});

describe("ask-first sites' rules", () => {
  test("what may change something on a listed site is blocked from every session tab, unless the site's own page sends it", () => {
    const rules = rulesFor(
      [session("aaaa", { 11: "created", 12: "borrowed" }), session("bbbb", { 13: "created" }, { allow_origins: ["https://bank.example"] })],
      ["https://bank.example", "http://[::1]:8080", "not an origin"],
    );
    const ask = rules.filter((r) => r.priority === 3);
    expect(ask.map((r) => r.condition.requestDomains)).toEqual([["bank.example"], ["::1"]]);
    for (const r of ask) {
      expect(r.action.type).toBe("block");
      expect(r.condition.tabIds).toEqual([11, 12, 13]);
      expect(r.condition.excludedInitiatorDomains).toEqual(r.condition.requestDomains);
      // A form's POST is a top-level navigation: main_frame must be named (an unnamed type list leaves it out).
      expect(r.condition.resourceTypes).toContain("main_frame");
      expect(r.condition.requestMethods).toContain("post");
      expect(r.condition.requestMethods).not.toContain("get");
      expect(r.condition.requestMethods).not.toContain("head");
    }
    // Above every allow rule of an --allow-origin list, so allowing the site cannot let another site's POST through.
    expect(Math.max(...rules.filter((r) => r.action.type === "allow").map((r) => r.priority ?? 1))).toBeLessThan(3);
  });

  test("no session tab, no rule", () => {
    expect(rulesFor([session("aaaa", {})], ["https://bank.example"])).toEqual([]);
  });
});

describe("a call's incident error", () => {
  test("a request blocked on an ask-first site is approval_required, naming it", () => {
    const e = incidentError([{ kind: "ask_first_request", tab_id: 7, url: "https://bank.example/pay", method: "POST" }], null);
    expect(e.code).toBe("approval_required");
    expect(e.data).toMatchObject({ reason: "request_to_ask_first_site", url: "https://bank.example/pay", method: "POST" });
    expect(e.hint).toContain("blocked");
  });

  test("a blocked navigation is permission_denied (origin_not_allowed), committed when the call itself ran", () => {
    const e = incidentError([{ kind: "origin_blocked", tab_id: 7, url: "https://other.example/" }], { result: { tab_id: 7 } });
    expect(e.code).toBe("permission_denied");
    expect(e.data).toMatchObject({
      reason: "origin_not_allowed",
      url: "https://other.example/",
      effect_state: "committed",
      result: { tab_id: 7 },
    });
    expect(e.hint).toContain("--allow-origin");
  });

  test("a prompt is unsupported (browser_prompt) with a hint to ask the person; an app link acted even if the call was cut", () => {
    const auth = incidentError(
      [
        {
          kind: "browser_prompt",
          tab_id: 7,
          prompt: "http_auth",
          url: "https://x.example/",
          detail: { realm: "r", scheme: "basic" },
          answer: "cancelled",
        },
      ],
      null,
    );
    expect(auth.code).toBe("unsupported");
    expect(auth.message).toContain('realm "r"');
    expect(auth.message).toContain("cancelled");
    expect(auth.hint).toContain("bsk request-help");
    expect(auth.data?.effect_state).toBe("unknown");
    const app = incidentError(
      [{ kind: "browser_prompt", tab_id: 7, prompt: "external_protocol", url: "mailto:a@b.c", detail: {}, answer: "left_to_person" }],
      null,
    );
    expect(app.data?.effect_state).toBe("committed");
    expect(app.message).toContain("open another application");
  });
});
