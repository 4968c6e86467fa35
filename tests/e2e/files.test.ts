/**
 * Uploads and downloads end to end: real Chromium (the extension has no file access, as an unpacked extension by
 * default), dist/bsk, the files-* fixture pages. The page computes the SHA-256 of what it received; generated
 * downloads come from the fixture server (fixtureBytes), never from disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureBytes } from "../../scripts/fixture-server.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { evaluateInWorker } from "./devtools.ts";
import { startWorld, until, type Run, type World } from "./harness.ts";

let w: World;
let s: string;
let dir: string;

const downloadsOf = (home: string) => join(home, "browser-downloads");

/**
 * As the person would on chrome://extensions: turn off "Allow access to file URLs" (the browser then reloads the
 * extension, which reconnects). Unpacked extensions start with it on; a store install starts with it off.
 */
async function turnOffFileAccess(world: World): Promise<void> {
  const before = new Date().toISOString();
  const targetId = await world.person.openTab(`chrome://extensions/?id=${EXTENSION_ID}`);
  const list = (await (await fetch(`http://127.0.0.1:${world.browser.cdpPort}/json/list`)).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(list.find((t) => t.id === targetId)!.webSocketDebuggerUrl);
  await new Promise((resolve) => (ws.onopen = resolve));
  const answer = new Promise<any>((resolve) => (ws.onmessage = (ev) => resolve(JSON.parse(String(ev.data)))));
  const expression = `new Promise((resolve) => {
    const go = () => {
      if (!globalThis.chrome?.developerPrivate) return setTimeout(go, 20);
      // Developer mode on first: otherwise the reload this causes leaves a command-line extension disabled.
      chrome.developerPrivate.updateProfileConfiguration({ inDeveloperMode: true }, () =>
        chrome.developerPrivate.updateExtensionConfiguration({ extensionId: ${JSON.stringify(EXTENSION_ID)}, fileAccess: false }, () =>
          resolve(chrome.runtime.lastError?.message ?? "ok")));
    };
    go();
  })`;
  ws.send(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression, awaitPromise: true, returnByValue: true } }));
  expect((await answer).result?.result?.value).toBe("ok");
  ws.close();
  await world.person.send("Target.closeTarget", { targetId });
  await world.person.openTab(`chrome-extension://${EXTENSION_ID}/connect.html?port=${world.port}&label=e2e&close=1`);
  await until("the reloaded extension to reconnect", async () => {
    const browsers = (await world.ok(["browsers"])).browsers as { connected_at: string }[];
    return browsers.length === 1 && browsers[0]!.connected_at > before;
  });
}

beforeAll(async () => {
  w = await startWorld({ prefs: (home) => ({ download: { default_directory: downloadsOf(home), prompt_for_download: false } }) });
  await turnOffFileAccess(w);
  s = await w.startSession();
  dir = join(w.home, "work");
  mkdirSync(dir);
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);
const js = async (expression: string, frame?: string) => (await ok(["evaluate", expression, ...(frame ? ["--frame", frame] : [])])).value;

async function fails(args: string[], code: string): Promise<any> {
  const r: Run = await run(args);
  if (r.json?.ok !== false) throw new Error(`expected ${args.join(" ")} to fail with ${code}, got:\n${r.stdout}${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  return r.json.error;
}

function sha256(bytes: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

function localFile(name: string, content: string | Uint8Array): { path: string; size: number; sha256: string } {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, size: typeof content === "string" ? Buffer.byteLength(content) : content.length, sha256: sha256(content) };
}

/** The generated file /download/N/NAME serves, hashed as it is made (never held whole). */
function generatedSha(size: number): string {
  const h = new Bun.CryptoHasher("sha256");
  for (let off = 0; off < size; off += 1 << 20) h.update(fixtureBytes(off, Math.min(1 << 20, size - off)));
  return h.digest("hex");
}

const received = (frame?: string) => js(`window.settled()`, frame);

describe("upload", () => {
  beforeAll(async () => {
    await ok(["navigate", w.fixtures.url("/files-upload.html")]);
  });

  test("one file into a file input, built in the page (no file access)", async () => {
    const f = localFile("cv.txt", "Ada Lovelace, analyst\n");
    const r = await ok(["upload", "#single", "--file", f.path]);
    expect(r).toMatchObject({ mode: "input", via: "page", effect_state: "committed", input: { role: expect.any(String) } });
    expect(r.files).toEqual([{ name: "cv.txt", size: f.size, sha256: f.sha256 }]);
    expect((await received()).single).toEqual([{ name: "cv.txt", size: f.size, type: "text/plain", sha256: f.sha256 }]);
  });

  test("several files into a multiple input; several into a single one is refused, nothing attached", async () => {
    const a = localFile("a.txt", "first");
    const b = localFile("b.json", '{"second":true}');
    const r = await ok(["upload", "#multi", "--file", a.path, "--file", b.path]);
    expect(r.files.map((x: any) => x.name)).toEqual(["a.txt", "b.json"]);
    const got = (await received()).multi;
    expect(got.map((x: any) => [x.name, x.sha256])).toEqual([
      ["a.txt", a.sha256],
      ["b.json", b.sha256],
    ]);

    await ok(["evaluate", `delete window.received.single`]);
    const err = await fails(["upload", "#single", "--file", a.path, "--file", b.path], "invalid_params");
    expect(err.data).toMatchObject({ reason: "not_multiple", effect_state: "none" });
    expect((await received()).single).toBeUndefined();
  });

  test("a 50 MB file arrives intact (the page's own SHA-256 matches)", async () => {
    const big = new Uint8Array(50 * 1024 * 1024);
    for (let off = 0; off < big.length; off += 1 << 20) big.set(fixtureBytes(off, 1 << 20), off);
    const f = localFile("big.bin", big);
    const r = await ok(["upload", "#single", "--file", f.path]);
    expect(r.files[0]).toMatchObject({ size: f.size, sha256: f.sha256 });
    const got = (await received()).single;
    expect(got).toEqual([{ name: "big.bin", size: f.size, type: expect.any(String), sha256: f.sha256 }]);
  }, 60_000);

  test("through a hidden input behind a styled button, and behind a label", async () => {
    const a = localFile("photo.png", "not really a png");
    const r = await ok(["upload", "#pick", "--file", a.path]);
    expect(r).toMatchObject({ target: { role: "button", name: "Choose files" }, effect_state: "committed" });
    expect((await received()).hidden?.[0]).toMatchObject({ name: "photo.png", sha256: a.sha256 });

    const l = await ok(["upload", "label[for=labelled]", "--file", a.path]);
    expect(l.effect_state).toBe("committed");
    expect((await received()).labelled?.[0]).toMatchObject({ name: "photo.png", sha256: a.sha256 });
  });

  test("a click that opens no chooser: file_input_not_activated, nothing attached", async () => {
    const a = localFile("x.txt", "x");
    const before = await received();
    const err = await fails(["upload", "#nothing", "--file", a.path], "unsupported");
    // The click reached the page (it could have been a link, a download): never "nothing happened".
    expect(err.data).toMatchObject({ reason: "file_input_not_activated", effect_state: "unknown" });
    expect(await received()).toEqual(before);
  });

  test("drop mode drops the files on a drop zone", async () => {
    const a = localFile("dropped.csv", "a,b\n1,2\n");
    const b = localFile("second.txt", "two");
    const r = await ok(["upload", "#zone", "--mode", "drop", "--file", a.path, "--file", b.path]);
    expect(r).toMatchObject({ mode: "drop", input: null, effect_state: "committed" });
    expect((await received()).zone.map((x: any) => [x.name, x.sha256])).toEqual([
      ["dropped.csv", a.sha256],
      ["second.txt", b.sha256],
    ]);
  });

  test("the same bytes staged again are not sent twice; a retry with the same --op-id does not upload twice", async () => {
    const a = localFile("retry.txt", "once");
    const first = await w.bsk(["upload", "#single", "--file", a.path, "--op-id", "up-retry-1", "--session", s, "--json"]);
    expect(first.json?.ok).toBe(true);
    await ok(["evaluate", `window.changes = 0; document.getElementById("single").addEventListener("change", () => window.changes++)`]);
    const again = await w.bsk(["upload", "#single", "--file", a.path, "--op-id", "up-retry-1", "--session", s, "--json"]);
    expect(again.json?.ok).toBe(true);
    expect(await js(`window.changes`)).toBe(0);
  });

  test("in a cross-site (out-of-process) iframe", async () => {
    await ok(["navigate", w.fixtures.url("/files-frame.html")]);
    const snap = await ok(["snapshot"]);
    const frameRef = (snap.text as string)
      .split("\n")
      .find((l) => l.includes("Uploader"))
      ?.match(/@e\d+/)?.[0];
    const resume = (snap.text as string)
      .split("\n")
      .find((l) => l.includes("Resume") && /@e\d+/.test(l))
      ?.match(/@e\d+/)?.[0];
    expect(frameRef).toBeDefined();
    expect(resume).toBeDefined();
    const a = localFile("framed.txt", "inside the frame");
    const r = await ok(["upload", resume!, "--file", a.path]);
    expect(r.effect_state).toBe("committed");
    expect((await received(frameRef)).single).toEqual([{ name: "framed.txt", size: a.size, type: "text/plain", sha256: a.sha256 }]);

    const pick = (snap.text as string)
      .split("\n")
      .find((l) => l.includes("Choose files"))
      ?.match(/@e\d+/)?.[0];
    const h = await ok(["upload", pick!, "--file", a.path]);
    expect(h.effect_state).toBe("committed");
    expect((await received(frameRef)).hidden?.[0]).toMatchObject({ name: "framed.txt", sha256: a.sha256 });
  });
});

describe("download", () => {
  beforeAll(async () => {
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
  });

  const inBrowserFolder = () => (existsSync(downloadsOf(w.home)) ? readdirSync(downloadsOf(w.home), { recursive: true }) : []);

  test("a small file: path, size, sha256, MIME type; the browser keeps no copy", async () => {
    const out = join(dir, "notes.txt");
    const r = await ok(["download", "#small", "--out", out]);
    expect(r).toMatchObject({ path: out, size: 13, name: "notes.txt", effect_state: "committed", sha256: generatedSha(13) });
    expect(r.mime).toEqual(expect.any(String));
    expect(r.transfer_id).toBeUndefined();
    expect(sha256(readFileSync(out))).toBe(r.sha256);
    expect(inBrowserFolder().filter((f) => !String(f).startsWith("bsk-"))).toEqual([]);
    const files = inBrowserFolder().filter((f) => String(f).includes("/"));
    expect(files).toEqual([]);
  });

  test("a generated 50 MB file, checksum checked", async () => {
    const out = join(dir, "big-download.bin");
    const r = await ok(["download", "#big", "--out", out]);
    expect(r.size).toBe(52428800);
    expect(r.sha256).toBe(generatedSha(52428800));
    expect(sha256(readFileSync(out))).toBe(r.sha256);
  }, 60_000);

  test("a blob download (URL.createObjectURL + a[download])", async () => {
    const out = join(dir, "blob.txt");
    const r = await ok(["download", "#blob", "--out", out]);
    expect(r).toMatchObject({ name: "from-blob.txt", size: 17 });
    expect(r.url.startsWith("blob:")).toBe(true);
    expect(readFileSync(out, "utf8")).toBe("made in the page\n");
  });

  test("an existing --out is refused before anything is clicked; --overwrite replaces it", async () => {
    const out = join(dir, "exists.txt");
    writeFileSync(out, "keep me");
    await ok(["evaluate", `window.clicks = 0; document.getElementById("small").addEventListener("click", () => window.clicks++)`]);
    const err = await fails(["download", "#small", "--out", out], "invalid_params");
    expect(err.data).toMatchObject({ reason: "out_exists" });
    expect(readFileSync(out, "utf8")).toBe("keep me");
    expect(await js(`window.clicks`)).toBe(0);

    const r = await ok(["download", "#small", "--out", out, "--overwrite"]);
    expect(r.size).toBe(13);
    expect(sha256(readFileSync(out))).toBe(generatedSha(13));
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  test("a link that downloads in a new tab (target=_blank): the new tab's download is the click's", async () => {
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    const out = join(dir, "popup.txt");
    const r = await ok(["download", "#popup", "--out", out]);
    expect(r).toMatchObject({ path: out, size: 13, name: "popup.txt", sha256: generatedSha(13), effect_state: "committed" });
    expect(inBrowserFolder().filter((f) => !String(f).startsWith("bsk-"))).toEqual([]);
  });

  test("a click that downloads nothing: no_download, no file", async () => {
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    const out = join(dir, "never.txt");
    const err = await fails(["download", "#page", "--out", out], "unsupported");
    // The click ran and the page navigated: the reply must not say nothing happened.
    expect(err.data).toMatchObject({ reason: "no_download", effect_state: "unknown" });
    expect(existsSync(out)).toBe(false);
  });
});

describe('a browser with "Ask where to save" on and file access (unpacked extensions get it by default)', () => {
  let w2: World;
  let s2: string;
  beforeAll(async () => {
    w2 = await startWorld({ prefs: (home) => ({ download: { default_directory: downloadsOf(home), prompt_for_download: true } }) });
    s2 = await w2.startSession();
  }, 60_000);
  afterAll(async () => {
    await w2?.stop();
  });

  // No extension API skips that prompt (neither an onDeterminingFilename suggestion nor downloads.download with
  // saveAs: false does), so bsk takes the bytes before the download manager sees them: from the response, or from
  // the page's Blob. Headless Chromium cancels any prompt it would show, so a prompt would fail these downloads.
  const asked = (name: string) => join(w2.home, name);
  const browserFolder = () => (existsSync(downloadsOf(w2.home)) ? readdirSync(downloadsOf(w2.home), { recursive: true }) : []);

  test("an attachment link, a 50 MB file, <a download>, a blob (also one revoked at once) and a data: URL all save without a prompt", async () => {
    await w2.ok(["navigate", w2.fixtures.url("/files-download.html"), "--session", s2]);
    const cases: [string, string, (r: any) => void][] = [
      ["#small", "asked.txt", (r) => expect(r).toMatchObject({ name: "notes.txt", size: 13, sha256: generatedSha(13) })],
      ["#big", "asked-big.bin", (r) => expect(r).toMatchObject({ name: "big.bin", size: 52428800, sha256: generatedSha(52428800) })],
      [
        "#attr",
        "asked-page.html",
        (r) =>
          expect(r).toMatchObject({
            name: "page-copy.html",
            mime: "text/html",
            sha256: sha256(readFileSync(join(import.meta.dir, "../fixtures/pages/files-download.html"))),
          }),
      ],
      ["#blob", "asked-blob.txt", (r) => expect(r).toMatchObject({ name: "from-blob.txt", size: 17, mime: "text/plain" })],
      ["#blob-revoked", "asked-revoked.bin", (r) => expect(r).toMatchObject({ name: "revoked.bin", size: 4 })],
      ["#data", "asked-data.txt", (r) => expect(r).toMatchObject({ name: "hello.txt", size: 15 })],
      ["#post", "asked-export.bin", (r) => expect(r).toMatchObject({ name: "export.bin", size: 21, sha256: generatedSha(21) })],
    ];
    for (const [target, file, check] of cases) {
      const r = await w2.bsk(["download", target, "--out", asked(file), "--session", s2, "--json"]);
      expect({ target, ok: r.json?.ok, error: r.json?.error }).toEqual({ target, ok: true, error: undefined });
      check(r.json.result);
      expect(r.json.result).toMatchObject({ effect_state: "committed", effect: { kind: "download" } });
      expect(sha256(readFileSync(asked(file)))).toBe(r.json.result.sha256);
    }
    expect(readFileSync(asked("asked-blob.txt"), "utf8")).toBe("made in the page\n");
    expect([...readFileSync(asked("asked-revoked.bin"))]).toEqual([0, 1, 2, 255]);
    expect(readFileSync(asked("asked-data.txt"), "utf8")).toBe("hello from data");
    // Nothing reached the person's download folder or the browser's download list.
    expect(browserFolder().filter((f) => !String(f).startsWith("bsk-"))).toEqual([]);
    const list = () =>
      evaluateInWorker(w2.browser.cdpPort!, "chrome.downloads.search({}).then((l) => l.map((d) => [d.url, d.state, d.error].join(' ')))");
    await until("the browser's download list is empty", async () => ((await list()) as string[]).length === 0 || undefined);
    // Each file was fetched once: bsk read the response the click caused, it did not ask again.
    expect(w2.fixtures.hits("/download/13/notes.txt")).toBe(1);
    expect(w2.fixtures.hits("/download/52428800/big.bin")).toBe(1);
    expect(w2.fixtures.hits("/download/21/export.bin")).toBe(1);
  }, 120_000);

  test("downloads a page starts on a plain click are kept for the agent: effect, event, list, save; none in Downloads", async () => {
    const run2 = (args: string[]) => w2.bsk([...args, "--session", s2, "--json"]);
    await w2.ok(["navigate", w2.fixtures.url("/files-page-downloads.html"), "--session", s2]);
    const cases: [string, { name: string; size?: number; sha256?: string }][] = [
      ["#attachment", { name: "report.bin", size: 4321, sha256: generatedSha(4321) }],
      ["#asked", { name: "asked-copy" }],
      ["#script-blob", { name: "export.txt", size: 21, sha256: sha256("exported by the page\n") }],
    ];
    const events = async () => ((await w2.ok(["events", "--type", "download", "--session", s2])).events as any[]).map((e) => e.data);
    for (const [target, want] of cases) {
      const click = await run2(["click", target]);
      expect({ target, ok: click.json?.ok, error: click.json?.error }).toEqual({ target, ok: true, error: undefined });
      const effect = click.json.result.effect;
      expect({ target, kind: effect.kind }).toEqual({ target, kind: "download" });
      const id = effect.download.id as string;
      expect(id).toMatch(/^d[0-9a-f]{8}$/);
      const done = await until(`${target}'s download event to say complete`, async () =>
        (await events()).find((e) => e.download_id === id && e.state !== "in_progress"),
      );
      expect({ target, state: done.state, error: done.error }).toEqual({ target, state: "complete", error: undefined });
      expect(done).toMatchObject({ name: want.name, ...(want.size !== undefined && { size: want.size, sha256: want.sha256 }) });
      expect((await events()).find((e) => e.download_id === id && e.state === "in_progress")).toMatchObject({ name: want.name });

      const listed = ((await w2.ok(["downloads", "--session", s2])).downloads as any[]).find((d) => d.download_id === id);
      expect(listed).toMatchObject({ state: "complete", size: done.size, sha256: done.sha256, name: want.name });

      const out = asked(`saved-${id}`);
      const saved = await w2.ok(["downloads", "save", id, "--out", out, "--session", s2]);
      expect(saved).toMatchObject({ path: out, size: done.size, sha256: done.sha256 });
      expect(sha256(readFileSync(out))).toBe(done.sha256);
      if (target === "#asked") expect(readFileSync(out, "utf8")).toContain("asked-copy");
      // Never overwritten: the file stays as it was, and no temp file is left beside it.
      writeFileSync(out, "the agent's own file");
      const again = await run2(["downloads", "save", id, "--out", out]);
      expect(again.json?.error?.data?.reason).toBe("out_exists");
      expect(readFileSync(out, "utf8")).toBe("the agent's own file");
      expect(readdirSync(w2.home).filter((f) => f.includes(".tmp"))).toEqual([]);
    }
    // Each file was requested once: bsk read the response the click caused.
    expect(w2.fixtures.hits("/download/4321/report.bin")).toBe(1);
    expect(w2.fixtures.hits("/echo-title/asked-copy")).toBe(1);
    // A page once downloaded is a page again when the agent goes there.
    const nav = await w2.ok(["navigate", w2.fixtures.url("/echo-title/asked-copy"), "--session", s2]);
    expect(nav).toMatchObject({ status: 200 });
    expect((await w2.ok(["evaluate", "document.title", "--session", s2])).value).toBe("asked-copy");
    // Nothing reached the person's download folder or the browser's download list.
    expect(browserFolder().filter((f) => !/^bsk-[a-z0-9]+$/.test(String(f)))).toEqual([]);
    const list = () =>
      evaluateInWorker(w2.browser.cdpPort!, "chrome.downloads.search({}).then((l) => l.map((d) => [d.url, d.state, d.error].join(' ')))");
    await until("the browser's download list is empty", async () => ((await list()) as string[]).length === 0 || undefined);
  }, 120_000);

  test("a blob the page revokes at once cannot be read: a failed download event, nothing kept, nothing in Downloads", async () => {
    await w2.ok(["navigate", w2.fixtures.url("/files-page-downloads.html"), "--session", s2]);
    const click = await w2.ok(["click", "#revoked-blob", "--session", s2]);
    const id = click.effect.download?.id as string;
    expect(id).toMatch(/^d[0-9a-f]{8}$/);
    const ended = await until("the revoked blob's download to end", async () =>
      ((await w2.ok(["events", "--type", "download", "--session", s2])).events as any[])
        .map((e) => e.data)
        .find((e) => e.download_id === id && e.state !== "in_progress"),
    );
    expect(ended).toMatchObject({ state: "failed", name: "gone.txt", error: expect.any(String) });
    expect(((await w2.ok(["downloads", "--session", s2])).downloads as any[]).map((d) => d.download_id)).not.toContain(id);
    const save = await w2.bsk(["downloads", "save", id, "--out", asked("never.txt"), "--session", s2, "--json"]);
    expect(save.json?.error).toMatchObject({ code: "not_found", data: { reason: "no_download" } });
    expect(existsSync(asked("never.txt"))).toBe(false);
    expect(browserFolder().filter((f) => !/^bsk-[a-z0-9]+$/.test(String(f)))).toEqual([]);
  }, 60_000);

  test("a download the page's script starts is named by the click, every time: alone, after a change, in a later event; one the page stops is none", async () => {
    // A tab of its own: a frame asking for more than 10 downloads within a second has the rest dropped by the
    // renderer (its burst limit), and the tab's earlier tests asked for some.
    const tab = await w2.ok(["tab", "create", w2.fixtures.url("/files-page-downloads.html"), "--session", s2]);
    const events = async () => ((await w2.ok(["events", "--type", "download", "--session", s2])).events as any[]).map((e) => e.data);
    const ids: string[] = [];
    // A click changing no DOM reads at once when the page has nothing queued: the download it asked for is still
    // waited for (before, this raced the browser's news of it).
    for (let i = 1; i <= 2; i++)
      for (const [target, name, domChanged] of [
        ["#script-blob", "export.txt", false],
        ["#revoked-blob", "gone.txt", false],
        ["#blob-and-say", "said.txt", true],
        ["#say-then-blob", "pressed.txt", true],
      ] as const) {
        const effect = (await w2.ok(["click", target, "--session", s2])).effect;
        expect({ target, i, kind: effect.kind, dom: effect.dom_changed, name: effect.download?.suggested_filename }).toEqual({
          target,
          i,
          kind: "download",
          dom: domChanged,
          name,
        });
        expect(effect.download.id).toMatch(/^d[0-9a-f]{8}$/);
        ids.push(effect.download.id);
      }
    expect(new Set(ids).size).toBe(ids.length);
    const ended = await until("every download to end", async () => {
      const done = (await events()).filter((e) => ids.includes(e.download_id) && e.state !== "in_progress");
      return done.length === ids.length ? done : undefined;
    });
    expect(ended.filter((e: any) => e.state === "failed").map((e: any) => e.name)).toEqual(["gone.txt", "gone.txt"]);
    // A download the page's own navigate listener stops never starts: the click's effect is none, and nothing is kept.
    const before = (await events()).length;
    const vetoed = (await w2.ok(["click", "#vetoed-blob", "--session", s2])).effect;
    expect(vetoed).toMatchObject({ kind: "none", dom_changed: false });
    expect(vetoed.download).toBeUndefined();
    expect((await events()).slice(before).filter((e) => e.name === "vetoed.txt")).toEqual([]);
    await w2.ok(["tab", "close", String(tab.tab_id), "--session", s2]);
    expect(browserFolder().filter((f) => !/^bsk-[a-z0-9]+$/.test(String(f)))).toEqual([]);
  }, 120_000);

  test("a download not begun when the click replies (a slow server) is said, in JSON and in words; its event follows", async () => {
    const tab = await w2.ok(["tab", "create", w2.fixtures.url("/files-page-downloads.html"), "--session", s2]);
    const events = async () => ((await w2.ok(["events", "--type", "download", "--session", s2])).events as any[]).map((e) => e.data);
    const startsOnRelease = async (key: string) => {
      w2.fixtures.release(key);
      return await until(`the held download ${key} to start once the server answers`, async () =>
        (await events()).find((e) => e.url === w2.fixtures.url(`/hold/${key}`) && e.state !== "in_progress"),
      );
    };
    // A link's own download, in JSON.
    const effect = (await w2.ok(["click", "#slow", "--session", s2])).effect;
    expect(effect).toEqual({ kind: "none", dom_changed: false, download_not_started: true });
    expect((await startsOnRelease("slow-download")).state).toBe("complete");
    // The page's script's, in words (for a person, or an agent reading the CLI).
    const said = await w2.bsk(["click", "#slow-script", "--session", s2]);
    expect(said.code).toBe(0);
    expect(said.stdout).toContain("→ none; a download was asked for but had not started after 1.5 s");
    expect(said.stdout).toContain("bsk events --type download");
    expect((await startsOnRelease("slow-script-download")).state).toBe("complete");
    // A download that begins in time never carries the flag.
    const begun = (await w2.ok(["click", "#attachment", "--session", s2])).effect;
    expect(begun.kind).toBe("download");
    expect(begun.download_not_started).toBeUndefined();
    await w2.ok(["tab", "close", String(tab.tab_id), "--session", s2]);
    expect(browserFolder().filter((f) => !/^bsk-[a-z0-9]+$/.test(String(f)))).toEqual([]);
  }, 60_000);

  test("a download link that opens a new tab: cancelled before it saves, reported failed with a way to get it", async () => {
    await w2.ok(["navigate", w2.fixtures.url("/files-download.html"), "--session", s2]);
    const url = w2.fixtures.url("/download/13/popup.txt");
    await w2.ok(["click", "#popup", "--session", s2]);
    const ended = await until("the new tab's download to be reported", async () =>
      ((await w2.ok(["events", "--type", "download", "--session", s2])).events as any[]).map((e) => e.data).find((e) => e.url === url),
    );
    expect(ended).toMatchObject({ state: "failed", error: expect.stringContaining("bsk download") });
    expect(browserFolder().filter((f) => !/^bsk-[a-z0-9]+$/.test(String(f)))).toEqual([]);
    const list = () => evaluateInWorker(w2.browser.cdpPort!, "chrome.downloads.search({}).then((l) => l.map((d) => d.url))");
    await until("the browser's download list is empty", async () => ((await list()) as string[]).length === 0 || undefined);
  }, 60_000);

  test("uploads use the staged paths when the extension may read local files", async () => {
    await w2.ok(["navigate", w2.fixtures.url("/files-upload.html"), "--session", s2]);
    const path = join(w2.home, "via-path.txt");
    writeFileSync(path, "read by the browser");
    const r = await w2.ok(["upload", "#single", "--file", path, "--session", s2]);
    expect(r).toMatchObject({ via: "path", effect_state: "committed" });
    const got = (await w2.ok(["evaluate", "window.settled()", "--session", s2])).value.single;
    expect(got[0]).toMatchObject({ name: "via-path.txt", sha256: sha256("read by the browser") });
  }, 60_000);
});
