/**
 * file:// URLs and sessions (extension/src/session/file-urls.ts): refused by default wherever a session could reach one
 * (navigate, tab create, the page's own navigation, a borrowed tab); with the person's popup switch on, allowed, but
 * never for a session with --allow-origin and never below $BSK_HOME, whose trust.key is the install's secret.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { linkSync, lchownSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until, useWorld, type World } from "./harness.ts";
import { tempDir as freshDir } from "../temp.ts";

let w: World;
useWorld({}, (world) => (w = world));

const files = freshDir("bsk-files-");
afterAll(() => rmSync(files, { recursive: true, force: true }));
writeFileSync(join(files, "note.html"), "<title>Note</title><p>LOCAL-NOTE-7731</p>");
const note = `file://${files}/note.html`;
writeFileSync(
  join(files, "form.html"),
  `<title>Form</title><label>Name <input id=n></label><label>Plan <select id=p><option value=a>A</option><option value=b>B</option></select></label>
<label><input type=checkbox id=a> Agree</label><button id=go>Go</button>
<script>window.log = []; for (const t of ["focusin", "input", "change", "click", "keydown", "pointerover", "pointerdown"]) addEventListener(t, (e) => log.push(t + ":" + (e.target.id || e.target.localName)), true);</script>`,
);
const form = `file://${files}/form.html`;

const chrome = (expression: string) => w.person.asExtension(expression);
const setFileSwitch = (on: boolean) => chrome(`chrome.storage.local.set({ allow_file_urls: ${on} })`);

afterEach(async () => {
  await setFileSwitch(false);
  await w.bsk(["session", "stop", "--all"]);
});

async function refused(args: string[], rule: string): Promise<any> {
  const r = await w.bsk([...args, "--json"]);
  if (r.json?.ok !== false) throw new Error(`expected ${args.join(" ")} to be refused, got:\n${r.stdout}${r.stderr}`);
  expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url" } });
  expect(r.json.error.data.rule).toBe(rule || undefined);
  return r.json.error;
}

/** Folders a test made, removed after it whatever its end. */
const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = freshDir(prefix);
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every URL the session's own tabs are on. */
async function sessionUrls(s: string): Promise<string[]> {
  return (await w.ok(["tab", "list", "--session", s])).tabs.map((t: any) => t.url);
}

describe("file: URLs are off by default", () => {
  test("navigate, tab create and the page's own navigations never load a file", async () => {
    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/index.html"), "--session", s]);
    const e = await refused(["navigate", "file:///etc/passwd", "--session", s], "file_urls_off");
    expect(e.hint).toContain("popup");
    await refused(["tab", "create", note, "--session", s], "file_urls_off");
    await refused(["navigate", "filesystem:http://127.0.0.1/temporary/x", "--session", s], "");
    await refused(["navigate", `view-source:${w.fixtures.url("/index.html")}`, "--session", s], "");
    await refused(["tab", "create", "blob:null/0a0a", "--session", s], "");
    // A blob: of another origin than the tab's page.
    await refused(["navigate", "blob:https://elsewhere.example/0a0a", "--session", s], "");

    // The page itself tries: a link, location and window.open (the browser refuses file: from a web page; bsk too).
    await w.ok([
      "evaluate",
      `(() => { const a = document.createElement("a"); a.href = ${JSON.stringify(note)}; document.body.append(a); a.click(); window.open(${JSON.stringify(note)}); location.href = "file:///etc/passwd"; return 1; })()`,
      "--session",
      s,
    ]);
    expect((await sessionUrls(s)).filter((u) => u.startsWith("file:"))).toEqual([]);
    const html = (await w.ok(["get-html", "--session", s])).html as string;
    expect(html).not.toContain("LOCAL-NOTE-7731");
    expect(html).not.toContain("root:");
  });

  test("a file: tab of the person's cannot be borrowed", async () => {
    const s = await w.startSession();
    const tabId = await w.person.openInOwnWindow(note);
    await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
    try {
      const r = await w.bsk(["tab", "borrow", String(tabId), "--session", s, "--json"]);
      expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url" } });
      expect((await sessionUrls(s)).some((u) => u.startsWith("file:"))).toBe(false);
    } finally {
      await chrome(`chrome.storage.local.set({ confirm_borrow: true })`);
      await chrome(`chrome.tabs.remove(${tabId})`);
    }
  });
});

describe("with the person's switch on", () => {
  test("a session opens local files, but never below $BSK_HOME", async () => {
    await setFileSwitch(true);
    const s = await w.startSession();
    const first = (await w.ok(["navigate", note, "--session", s])).tab_id;
    expect((await w.ok(["get-html", "--session", s])).html).toContain("LOCAL-NOTE-7731");
    const tab = await w.ok(["tab", "create", note, "--session", s]);
    expect(tab.url).toBe(note);

    await refused(["navigate", `file://${w.home}/trust.key`, "--session", s], "bsk_home");
    await refused(["navigate", `file://${files}/../${w.home.split("/").pop()}/trust.key`, "--session", s], "bsk_home");
    await refused(["navigate", `file://${w.home.replace(/\//g, "//")}/%74rust.key`, "--session", s], "bsk_home");
    await refused(["tab", "create", `file://${w.home}/`, "--session", s], "bsk_home");

    // The file page itself heads for the secret: sent back to about:blank, nothing of it read.
    await w.ok(["evaluate", `location.href = ${JSON.stringify(`file://${w.home}/trust.key`)}; 1`, "--session", s]);
    await until("the tab to be sent back", async () => (await sessionUrls(s)).includes("about:blank"));
    expect((await sessionUrls(s)).some((u) => u.includes("trust.key"))).toBe(false);

    // Turned off again: the file tab the session holds is out of reach at once.
    await setFileSwitch(false);
    await refused(["get-html", "--tab", String(first), "--session", s], "file_urls_off");
  });

  test("attack: no other name of $BSK_HOME reaches it (the path is judged as the OS resolves it)", async () => {
    // Issue #36 item 11: /proc/self/root$BSK_HOME/... passed the text check, and trust.key was kept as a download.
    await setFileSwitch(true);
    const s = await w.startSession();
    await w.ok(["navigate", note, "--session", s]);
    const viaProc = `file:///proc/self/root${w.home}`;
    for (const name of ["ledger/key", "trust.key", "daemon.json", "logs/", ""])
      await refused(["navigate", `${viaProc}/${name}`, "--session", s], "system_files");
    await refused(["tab", "create", `${viaProc}/trust.key`, "--session", s], "system_files");
    await refused(["navigate", "file:///proc/self/environ", "--session", s], "system_files");
    await refused(["navigate", "file:///dev/stdin", "--session", s], "system_files");

    // A link someone (the agent) made: refused whatever it points at, a folder of the home's by inode in any case.
    const links = tempDir("bsk-links-");
    symlinkSync(w.home, join(links, "home"));
    symlinkSync(join(files, "note.html"), join(links, "note.html"));
    for (const l of ["home", "note.html"]) lchownSync(join(links, l), 65534, 65534);
    await refused(["navigate", `file://${links}/home/trust.key`, "--session", s], "linked_path");
    await refused(["navigate", `file://${links}/note.html`, "--session", s], "linked_path");
    // Root's own links are followed (the machine's /var → /private/var), and the home is still known by its inode.
    symlinkSync(w.home, join(links, "roots-home"));
    await refused(["navigate", `file://${links}/roots-home/ledger/key`, "--session", s], "bsk_home");
    // Another name of the secret file itself (a hard link).
    linkSync(join(w.home, "trust.key"), join(links, "key.txt"));
    await refused(["navigate", `file://${links}/key.txt`, "--session", s], "bsk_home");
    // What cannot be judged is refused.
    await refused(["navigate", `file://${files}/no-such-file.html`, "--session", s], "unresolved");

    // The file page itself heads there (a link, a frame): the tab goes back, nothing of the home is read.
    await w.ok(["navigate", note, "--session", s]);
    await w.ok([
      "evaluate",
      `(() => { const f = document.createElement("iframe"); f.src = ${JSON.stringify(`${viaProc}/daemon.json`)}; document.body.append(f); return 1; })()`,
      "--session",
      s,
    ]);
    await until("the tab to be sent back", async () => (await sessionUrls(s)).includes("about:blank"));
    await w.ok(["navigate", note, "--session", s]);
    const snap = await w.ok(["snapshot", "--session", s]);
    const click = `(() => { const a = document.createElement("a"); a.id = "k"; a.textContent = "key"; a.href = ${JSON.stringify(`${viaProc}/trust.key`)}; document.body.append(a); return 1; })()`;
    expect(snap.text).toContain("LOCAL-NOTE-7731");
    await w.ok(["evaluate", click, "--session", s]);
    await w.ok(["click", "#k", "--session", s]);
    await until("the tab to be sent back", async () => (await sessionUrls(s)).includes("about:blank"));
    expect((await sessionUrls(s)).some((u) => u.includes("trust.key"))).toBe(false);

    // Nothing of the home was kept as a download either.
    const kept = (await w.ok(["downloads", "--session", s])).downloads as { url: string }[];
    expect(kept.filter((d) => d.url.includes(w.home))).toEqual([]);
    expect(readdirSync(links).sort()).toEqual(["home", "key.txt", "note.html", "roots-home"]);
  });

  test("attack: a download of a file: URL obeys the same rule", async () => {
    await setFileSwitch(true);
    const s = await w.startSession();
    await w.ok(["navigate", note, "--session", s]);
    const make = (id: string, href: string) =>
      `(() => { const a = document.createElement("a"); a.id = ${JSON.stringify(id)}; a.textContent = ${JSON.stringify(id)}; a.download = "x.bin"; a.href = ${JSON.stringify(href)}; document.body.append(a); return 1; })()`;
    await w.ok(["evaluate", make("secret", `file:///proc/self/root${w.home}/trust.key`), "--session", s]);
    const out = join(tempDir("bsk-file-dl-"), "key.bin");
    const r = await w.bsk(["download", "#secret", "--out", out, "--session", s, "--json"]);
    expect(r.json?.ok).toBe(false);
    expect(r.json.error.data).toMatchObject({ reason: "restricted_url", rule: "system_files" });
    expect(readdirSync(join(out, ".."))).toEqual([]);
    // The page's own click on it: the browser's download is refused too, nothing kept, nothing in its folder.
    await w.ok(["evaluate", `document.getElementById("secret").click(); 1`, "--session", s]);
    await until("the request to fail", async () =>
      ((await w.ok(["events", "--session", s])).events as { event: string; data: any }[]).some(
        (e) => e.event === "request.failed" && String(e.data.url).endsWith("/trust.key"),
      ),
    );
    const kept = (await w.ok(["downloads", "--session", s])).downloads as { url: string }[];
    expect(kept.filter((d) => d.url.includes("trust.key"))).toEqual([]);
  });

  test("refs taken while it was on act on nothing once it is off, the page sees no event", async () => {
    // The tab's checks run beside a ref's lookup (page/shown.ts frontTabAhead): the lookup here finds its element,
    // the checks refuse, and nothing that changes the page (focus, a choice, input) may have gone out.
    await setFileSwitch(true);
    const s = await w.startSession();
    await w.ok(["navigate", form, "--session", s]);
    const text = (await w.ok(["snapshot", "--session", s])).text as string;
    const ref = (re: RegExp) =>
      text
        .split("\n")
        .find((l) => re.test(l))
        ?.match(/@e\d+/)?.[0] ?? "";
    const [field, plan, agree, go] = [ref(/textbox "Name"/), ref(/combobox "Plan"/), ref(/checkbox "Agree"/), ref(/button "Go"/)];
    expect([field, plan, agree, go].every(Boolean)).toBe(true);
    await setFileSwitch(false);
    for (const args of [
      ["fill", field, "x"],
      ["type", "abc", "--target", field],
      ["press", "a"],
      ["select", plan, "b"],
      ["check", agree],
      ["click", go],
      ["hover", go],
      ["focus", field],
    ])
      await refused([...args, "--session", s], "file_urls_off");
    await setFileSwitch(true);
    const seen = (await w.ok(["evaluate", "JSON.stringify([log, document.activeElement.id, n.value, p.value, a.checked])", "--session", s]))
      .value as string;
    expect(JSON.parse(seen)).toEqual([[], "", "", "a", false]);
  });

  test("never for a session limited by --allow-origin", async () => {
    await setFileSwitch(true);
    const s = await w.startSession(["--allow-origin", w.fixtures.url("/").replace(/\/$/, "")]);
    await refused(["navigate", note, "--session", s], "allow_origins");
    await refused(["tab", "create", "file:///etc/passwd", "--session", s], "allow_origins");
    expect((await sessionUrls(s)).some((u) => u.startsWith("file:"))).toBe(false);
  });
});
