/**
 * A session's origin allow-list and the browser prompts an agent cannot see, in real Chromium: navigations and
 * frames to other origins are blocked (and reported), requests too with --block-requests, the person's tabs are
 * untouched, the rules go with the session; HTTP sign-in and external apps fail the action that caused them (a
 * permission prompt is the action's effect) with a hint pointing to request-help, and are events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startWorld, until, type World } from "./harness.ts";
import { evalInPage } from "./page-eval.ts";

let w: World;
let origin: string;
beforeAll(async () => {
  w = await startWorld();
  origin = new URL(w.fixtures.url("/")).origin;
});
afterAll(async () => {
  await w.stop();
});

async function fails(s: string, args: string[], code: string, reason: string): Promise<any> {
  const r = await w.bsk([...args, "--session", s, "--json"]);
  if (r.json?.ok !== false) throw new Error(`expected ${args.join(" ")} to fail, got:\n${r.stdout}${r.stderr}`);
  expect(r.code).toBe(1);
  expect(r.json.error).toMatchObject({ code, data: { reason } });
  return r.json.error;
}

async function events(s: string, type: string): Promise<any[]> {
  return (await w.ok(["events", "--session", s, "--type", type])).events;
}

const currentUrl = async (s: string) => (await w.ok(["evaluate", "location.href", "--session", s])).value as string;
const title = async (s: string) => (await w.ok(["evaluate", "document.title", "--session", s])).value as string;
const sessionRules = () => evalInPage(w.browser.cdpPort!, "/connect.html", "chrome.declarativeNetRequest.getSessionRules()");

describe("origin allow-list", () => {
  let s: string;
  beforeAll(async () => {
    s = await w.startSession(["--allow-origin", origin]);
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });

  test("session list shows the allow-list; a bad origin or --block-requests alone is refused before anything opens", async () => {
    const { sessions } = await w.ok(["session", "list"]);
    expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({ allow_origins: [origin] });
    const bad = await w.bsk(["session", "start", "--no-focus", "--allow-origin", "https://x.example/path", "--json"]);
    expect(bad.json.error.code).toBe("invalid_params");
    const alone = await w.bsk(["session", "start", "--no-focus", "--block-requests", "--json"]);
    expect(alone.json.error.message).toContain("--allow-origin");
  });

  test("navigate and tab create to another origin are refused up front; the allowed origin loads", async () => {
    const cross = w.fixtures.crossUrl("/echo-title/elsewhere");
    const e = await fails(s, ["navigate", cross], "permission_denied", "origin_not_allowed");
    expect(e.hint).toContain("--allow-origin");
    expect(e.data.effect_state).toBe("none");
    await fails(s, ["tab", "create", cross], "permission_denied", "origin_not_allowed");
    expect(await currentUrl(s)).toBe(w.fixtures.url("/guard.html"));
    await w.ok(["navigate", w.fixtures.url("/echo-title/inside"), "--session", s]);
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });

  test("a link to another origin is blocked by the browser; the click fails with origin_not_allowed and it is an event", async () => {
    const e = await fails(s, ["click", "#cross"], "permission_denied", "origin_not_allowed");
    expect(e.data).toMatchObject({ effect_state: "committed", url: w.fixtures.crossUrl("/echo-title/other-origin") });
    expect(await currentUrl(s)).not.toContain("localhost");
    const blocked = await events(s, "origin.blocked");
    expect(blocked.at(-1)?.data).toMatchObject({ kind: "navigation", url: w.fixtures.crossUrl("/echo-title/other-origin") });
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    await w.ok(["click", "#same", "--session", s]);
    expect(await title(s)).toBe("same-origin");
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });

  test("a frame from another origin is blocked and reported; a fetch is not (no --block-requests)", async () => {
    await w.ok(["click", "#frame", "--session", s]);
    await until("the frame block to be reported", async () => (await events(s, "origin.blocked")).some((e) => e.data.kind === "frame"));
    await w.ok(["click", "#fetch-cross", "--session", s]);
    await w.ok(["wait-for", "--title", "fetch", "--session", s]).catch(() => undefined);
    await until("the fetch to settle", async () => (await title(s)).startsWith("fetch"));
    expect(await title(s)).toBe("fetch ok");
  });

  test("the person's own tab goes to any origin; the rules name only the session's tabs", async () => {
    await w.person.openTab(w.fixtures.crossUrl("/echo-title/person-browsing"));
    await until("the person's page", async () => (await w.person.pages()).some((p) => p.title === "person-browsing"));
    const tabIds = (await w.ok(["tab", "list", "--session", s])).tabs.map((t: any) => t.tab_id).sort();
    const rules = await sessionRules();
    const named = [...new Set(rules.flatMap((r: any) => r.condition.tabIds ?? []))].sort();
    expect(named).toEqual(tabIds);
  });

  test("a popup the page opens toward another origin does not stay there", async () => {
    const before = (await w.ok(["tab", "list", "--session", s])).tabs.length;
    await w.ok([
      "evaluate",
      `window.open(${JSON.stringify(w.fixtures.crossUrl("/echo-title/popup-elsewhere"))}, "_blank"); 1`,
      "--session",
      s,
    ]);
    const popup = await until("the popup to join the session", async () => {
      const { tabs } = await w.ok(["tab", "list", "--session", s]);
      return tabs.length > before && tabs.find((t: any) => t.ownership === "opened");
    });
    await until("the popup to be stopped", async () => {
      const blocked = await events(s, "origin.blocked");
      return blocked.some((e) => e.data.tab_id === popup.tab_id);
    });
    // Blocked in time it shows the browser's error page for that URL; otherwise it was sent back to about:blank.
    const { tabs } = await w.ok(["tab", "list", "--session", s]);
    expect(tabs.find((t: any) => t.tab_id === popup.tab_id)?.title).not.toBe("popup-elsewhere");
    const rules = await sessionRules();
    expect(rules.some((r: any) => r.condition.tabIds.includes(popup.tab_id))).toBe(true);
    await w.ok(["tab", "close", "--tab", String(popup.tab_id), "--session", s]);
  });

  test("--block-requests blocks a fetch to another origin too; ending the sessions removes every rule", async () => {
    const strict = await w.startSession(["--allow-origin", origin, "--block-requests"]);
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", strict]);
    await w.ok(["click", "#fetch-cross", "--session", strict]);
    await until("the fetch to settle", async () => (await title(strict)).startsWith("fetch"));
    expect(await title(strict)).toBe("fetch failed");
    const blocked = await until("the request block to be reported", async () =>
      (await events(strict, "origin.blocked")).find((e) => e.data.kind === "request"),
    );
    expect(blocked.data.url).toBe(w.fixtures.crossUrl("/echo-title/fetched"));
    await w.ok(["session", "stop", strict]);
    await w.ok(["session", "stop", s]);
    await until("no rules left", async () => (await sessionRules()).length === 0);
  });
});

describe("browser prompts", () => {
  let s: string;
  beforeAll(async () => {
    s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });
  afterAll(async () => {
    await w.ok(["session", "stop", s]);
  });

  test("a permission prompt from another site's iframe is caught too", async () => {
    await w.ok(["navigate", w.fixtures.url("/guard-frame.html"), "--session", s]);
    const paste = await until(
      "the frame's button in a snapshot",
      async () =>
        ((await w.ok(["snapshot", "--session", s])).text as string)
          .split("\n")
          .find((l) => l.includes("Paste from the clipboard"))
          ?.match(/@e\d+/)?.[0],
    );
    const r = await w.ok(["click", paste, "--session", s]);
    expect(r.effect).toMatchObject({ kind: "browser_prompt", prompt: { kind: "permission", detail: { permission: "clipboard-read" } } });
    const ev = await events(s, "browser.prompt");
    expect(ev.at(-1)?.data).toMatchObject({ kind: "permission", url: w.fixtures.crossUrl("/guard-frame-inner.html") });
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });

  test("HTTP sign-in: cancelled, never answered; navigate fails with browser_prompt and a hint to ask the person", async () => {
    const e = await fails(s, ["navigate", w.fixtures.url("/basic-auth")], "unsupported", "browser_prompt");
    expect(e.hint).toContain("bsk request-help");
    expect(e.data).toMatchObject({ prompt: "http_auth", answer: "cancelled", detail: { realm: "bsk fixtures", scheme: "basic" } });
    expect(e.data.effect_state).toBe("committed");
    const ev = await events(s, "browser.prompt");
    expect(ev.at(-1)?.data).toMatchObject({ kind: "http_auth", url: w.fixtures.url("/basic-auth"), answer: "cancelled" });
    expect(await title(s)).toBe("Sign-in needed");
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
  });

  test("a permission prompt (geolocation) is the click's effect (it acted); the prompt is left to the person", async () => {
    const r = await w.ok(["click", "#geo", "--session", s]);
    expect(r.effect).toMatchObject({ kind: "browser_prompt", prompt: { kind: "permission", detail: { permission: "geolocation" } } });
    const ev = await events(s, "browser.prompt");
    expect(ev.at(-1)?.data).toMatchObject({ kind: "permission", detail: { permission: "geolocation" } });
  });

  test("a link to another application (external protocol) is a browser prompt too", async () => {
    const e = await fails(s, ["click", "#app"], "unsupported", "browser_prompt");
    expect(e.data).toMatchObject({ prompt: "external_protocol", url: "bsk-test://open-the-app" });
    await w.ok(["snapshot", "--session", s]);
  });
});
