/**
 * The scope rule as a table: every tool of the catalog that acts on a tab × every kind of tab a session may meet.
 * Only the session's own tabs (created, or borrowed with consent) are usable; everything else is refused with
 * permission_denied, reads included: agent_window_scope for tabs that are not the session's (another session's, the
 * person's, a person's tab dragged into the Agent Window), restricted_url for a browser page.
 *
 * A method added to the catalog fails this test until it gets a row (or a reason it takes no tab).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { METHODS } from "../../protocol/catalog.ts";
import { startWorld, until, type World } from "./harness.ts";

let w: World;
/** The calling session, and another one. */
let a: string;
let b: string;
let aWindow: number;

type Column = "own" | "borrowed" | "other_session" | "person" | "dragged_in" | "own_restricted" | "person_restricted";

/** How each kind of tab comes about; returns its browser tab id. */
const MAKE: Record<Column, () => Promise<number>> = {
  own: async () => (await w.ok(["tab", "create", page("own"), "--session", a])).tab_id,
  borrowed: async () => {
    const id = await personTab(page("borrowed"));
    await w.ok(["tab", "borrow", String(id), "--session", a]);
    return id;
  },
  other_session: async () => (await w.ok(["tab", "create", page("other"), "--session", b])).tab_id,
  person: () => personTab(page("person")),
  dragged_in: async () => {
    const id = await personTab(page("dragged"));
    await chrome(`chrome.tabs.move(${id}, { windowId: ${aWindow}, index: -1 })`);
    return id;
  },
  // The person typed a browser page into the address bar of one of the session's tabs.
  own_restricted: async () => {
    const id = (await w.ok(["tab", "create", page("own-restricted"), "--session", a])).tab_id;
    await chrome(`chrome.tabs.update(${id}, { url: "chrome://version" })`);
    // Committed, not only pending: the page the tab was created with may still commit first (then chrome://version).
    await until("the tab to show chrome://version", async () =>
      chrome(`chrome.tabs.get(${id}).then((t) => t.status === "complete" && (t.url || "").startsWith("chrome://version"))`),
    );
    return id;
  },
  person_restricted: () => personTab("chrome://version"),
};

/** argv for each method, acting on `tab` (without --session). The last rows give the tab up (see lastRows). */
const ROWS: Record<string, (tab: number) => string[]> = {
  navigate: (t) => ["navigate", page("again"), ...on(t)],
  "navigate.back": (t) => ["navigate", "back", ...on(t)],
  "navigate.forward": (t) => ["navigate", "forward", ...on(t)],
  reload: (t) => ["reload", ...on(t)],
  wait_for: (t) => ["wait-for", "--text", "Scope page", ...on(t)],
  snapshot: (t) => ["snapshot", ...on(t)],
  observe: (t) => ["observe", ...on(t)],
  find: (t) => ["find", "Go", ...on(t)],
  screenshot: (t) => ["screenshot", "--out", join(w.home, `shot-${t}.png`), ...on(t)],
  "screenshot.full_page": (t) => ["screenshot", "full-page", "--out", join(w.home, `full-${t}.png`), ...on(t)],
  get_html: (t) => ["get-html", ...on(t)],
  click: (t) => ["click", "#b", ...on(t)],
  dblclick: (t) => ["dblclick", "#b", ...on(t)],
  hover: (t) => ["hover", "#b", ...on(t)],
  fill: (t) => ["fill", "#t", "hello", ...on(t)],
  type: (t) => ["type", "abc", "--target", "#t", ...on(t)],
  press: (t) => ["press", "Tab", ...on(t)],
  select: (t) => ["select", "#s", "b", ...on(t)],
  check: (t) => ["check", "#c", ...on(t)],
  uncheck: (t) => ["uncheck", "#c", ...on(t)],
  scroll_to: (t) => ["scroll-to", "#far", ...on(t)],
  wheel: (t) => ["wheel", "--dy", "100", ...on(t)],
  focus: (t) => ["focus", "#t", ...on(t)],
  blur: (t) => ["blur", "#t", ...on(t)],
  drag: (t) => ["drag", "#d", "#t", ...on(t)],
  "mouse.down": (t) => ["mouse", "down", "--x", "5", "--y", "5", ...on(t)],
  "mouse.move": (t) => ["mouse", "move", "--x", "8", "--y", "8", ...on(t)],
  "mouse.up": (t) => ["mouse", "up", "--x", "8", "--y", "8", ...on(t)],
  evaluate: (t) => ["evaluate", "document.title", ...on(t)],
  "dialog.status": (t) => ["dialog", "status", ...on(t)],
  "dialog.accept": (t) => ["dialog", "accept", ...on(t)],
  "dialog.dismiss": (t) => ["dialog", "dismiss", ...on(t)],
  console: (t) => ["console", ...on(t)],
  network: (t) => ["network", ...on(t)],
  emulate: (t) => ["emulate", "--width", "800", "--height", "600", ...on(t)],
  upload: (t) => ["upload", "#f", "--file", uploadFile(), ...on(t)],
  download: (t) => ["download", "#dl", "--out", join(w.home, `dl-${t}.txt`), "--overwrite", ...on(t)],
  // Nobody answers here: on the session's own tabs it times out (an outcome, not an error).
  request_help: (t) => ["request-help", "--prompt", "Please check this page", "--timeout", "300ms", ...on(t)],
  "tab.select": (t) => ["tab", "select", String(t)],
  "tab.borrow": (t) => ["tab", "borrow", String(t)],
  "tab.return": (t) => ["tab", "return", String(t)],
  "tab.close": (t) => ["tab", "close", String(t)],
};

/** Session-scoped methods that target no tab of the caller's choosing. */
const NO_TAB: Record<string, string> = {
  "tab.list": "lists tabs (their owner is what the listing says)",
  "tab.create": "opens a new tab in the Agent Window",
  "window.resize": "sizes the session's own Agent Window",
};

type Outcome = { ok: true } | { code: string; reason?: string } | "skip";
const ALLOWED: Outcome = { ok: true };
const notOurs: Outcome = { code: "permission_denied", reason: "agent_window_scope" };

function expected(method: string, column: Column): Outcome {
  if (method === "tab.borrow") {
    if (column === "own" || column === "borrowed" || column === "own_restricted")
      return { code: "invalid_params", reason: "already_owned" };
    if (column === "other_session") return { code: "permission_denied", reason: "borrow_conflict" };
    if (column === "person_restricted") return { code: "permission_denied", reason: "restricted_url" };
    return "skip"; // a person's tab is exactly what borrow is for (borrow.test.ts)
  }
  if (method === "tab.return") {
    if (column === "borrowed") return ALLOWED;
    if (column === "own" || column === "own_restricted") return { code: "invalid_params", reason: "not_borrowed" };
    return notOurs;
  }
  if (method === "tab.close") {
    if (column === "borrowed") return { code: "permission_denied", reason: "borrowed_tab" };
    // Closing its own tab gives nothing of the person's away, whatever page the person put in it.
    if (column === "own" || column === "own_restricted") return ALLOWED;
    return notOurs;
  }
  if (column === "own_restricted") return { code: "permission_denied", reason: "restricted_url" };
  if (column === "own" || column === "borrowed") {
    // Allowed, but there is no dialog to answer on this page.
    if (method === "dialog.accept" || method === "dialog.dismiss") return { code: "not_found" };
    return ALLOWED;
  }
  return notOurs;
}

const page = (marker: string) => w.fixtures.url(`/scope.html?${marker}`);
const on = (t: number) => ["--tab", String(t)];
const chrome = (expression: string) => w.person.asExtension(expression);

function uploadFile(): string {
  const path = join(w.home, "upload.txt");
  writeFileSync(path, "scope\n");
  return path;
}

/** The person opens `url` in a tab of their own window (the one bsk's connect page sits in). */
function personTab(url: string): Promise<number> {
  return w.person.openInOwnWindow(url);
}

beforeAll(async () => {
  w = await startWorld();
  // Borrowing here is the person saying yes without a prompt; the prompt itself is borrow.test.ts's.
  await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
  a = await w.startSession();
  b = await w.startSession();
  aWindow = (await w.ok(["tab", "list", "--session", a])).tabs[0].window_id;
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

test("every tab-targeting tool of the catalog has a row", () => {
  // Daemon-owned session methods (events, transfers) read the daemon's own records, never a page.
  const tools = Object.entries(METHODS)
    .filter(([, def]) => def.cli && def.scope !== "none" && def.owner === "extension")
    .map(([name]) => name);
  const missing = tools.filter((m) => !(m in ROWS) && !(m in NO_TAB));
  expect(missing).toEqual([]);
  expect(Object.keys(ROWS).filter((m) => !tools.includes(m))).toEqual([]);
});

describe("tool × tab", () => {
  const columns: Column[] = ["own", "borrowed", "other_session", "person", "dragged_in", "own_restricted", "person_restricted"];
  for (const column of columns) {
    test(`on a tab that is ${column.replace("_", " ")}`, async () => {
      const tab = await MAKE[column]();
      const wrong: string[] = [];
      // A borrowed tab is closed (refused) before it is returned; the session's own are returned (refused) before they close.
      const last = column === "borrowed" ? ["tab.close", "tab.return"] : ["tab.return", "tab.close"];
      const rows = [...Object.entries(ROWS).filter(([m]) => !last.includes(m)), ...last.map((m) => [m, ROWS[m]!] as const)];
      for (const [method, argv] of rows) {
        const want = expected(method, column);
        if (want === "skip") continue;
        const r = await w.bsk([...argv(tab), "--session", a, "--json"]);
        const error = r.json?.ok === false ? r.json.error : undefined;
        const got = r.json?.ok ? "ok" : `${error?.code ?? `exit ${r.code}`}${error?.data?.reason ? `/${error.data.reason}` : ""}`;
        const fine =
          "ok" in want
            ? r.json?.ok === true
            : error?.code === want.code && (want.reason === undefined || error?.data?.reason === want.reason);
        if (!fine)
          wrong.push(
            `${method}: got ${got}${error ? ` (${error.message})` : ""}, want ${"ok" in want ? "ok" : `${want.code}/${want.reason ?? "*"}`}`,
          );
      }
      expect(wrong).toEqual([]);
      if (column !== "own" && column !== "borrowed" && column !== "own_restricted") {
        // Refused calls leave no trace: the tab is still where it was, not the caller's.
        const listed = (await w.ok(["tab", "list", "--scope", "all", "--session", a])).tabs.find((t: any) => t.tab_id === tab);
        expect(listed?.owner).not.toBe("session");
      }
    }, 90_000);
  }
});
