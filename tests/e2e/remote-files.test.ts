/**
 * Files over a remote link in real Chromium: the agent's CLI runs on the server (a server-mode daemon with TLS,
 * remote-world.ts) and the browser on the person's side. Uploads are built in the page from bytes the server sends
 * (never from a path, which would name this machine's files); downloads and full-page captures stream to the server,
 * whose CLI writes them, with sizes and SHA-256 as the page served them, progress on a terminal, and the same caps
 * and errors as locally. A download the browser's own download manager saved (started in a cross-site frame) is
 * fetched again by that frame when provably the same (a GET of the same size), else refused, and either way removed
 * from the person's Downloads. Nothing goes through the person's local daemon, and no file lands on their side.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureBytes } from "../../scripts/fixture-server.ts";
import { evaluateInWorker } from "./devtools.ts";
import { BSK, until, type World } from "./harness.ts";
import { decodePng } from "./png.ts";
import { certutil, startRemoteWorld, type RemoteWorld, type Server } from "./remote-world.ts";
import { tempDir } from "../temp.ts";

if (!certutil) console.log("remote-files.test.ts skipped: certutil is missing (apt-get install libnss3-tools)");
const maybe = certutil ? describe : describe.skip;

/** The transfer cap of both daemons: the 50 MB download is over it, the 12 MiB one under. */
const CAP = String(16 * 1024 * 1024);

let rw: RemoteWorld;
let server: Server;
let w: World;
let sid: string;
/** The agent's working directory, on the server's side. */
let agentDir: string;

const browserDownloads = (home: string) => join(home, "browser-downloads");
/** Files (not the empty bsk-<session> folders the browser made) in the person's Downloads folder. */
const personFiles = () => {
  const dir = browserDownloads(w.home);
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile());
};
const browserList = async () =>
  (await evaluateInWorker(w.browser.cdpPort!, "chrome.downloads.search({}).then((l) => l.map((d) => d.url + ' ' + d.state))")) as string[];

const ok = (args: string[]) => server.ok([...args, "--session", sid]);
const run = (args: string[]) => server.bsk([...args, "--session", sid, "--json"]);
const js = async (expression: string) => (await ok(["evaluate", expression])).value;

function sha256(bytes: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

function generatedSha(size: number): string {
  const h = new Bun.CryptoHasher("sha256");
  for (let off = 0; off < size; off += 1 << 20) h.update(fixtureBytes(off, Math.min(1 << 20, size - off)));
  return h.digest("hex");
}

/** Staged transfers in a daemon's home (its transfers/ folder holds one folder per session with any). */
const stagedIn = (home: string) =>
  existsSync(join(home, "transfers")) ? (readdirSync(join(home, "transfers"), { recursive: true }) as string[]) : [];

maybe("files over a remote link", () => {
  beforeAll(async () => {
    rw = await startRemoteWorld({
      serverEnv: { BSK_TRANSFER_MAX_FILE_BYTES: CAP },
      world: {
        env: { BSK_TRANSFER_MAX_FILE_BYTES: CAP },
        prefs: (home) => ({ download: { default_directory: browserDownloads(home), prompt_for_download: false } }),
      },
    });
    ({ server, w } = rw);
    await rw.pairWith(server);
    sid = (await server.ok(["session", "start", "--no-focus"])).session_id;
    agentDir = tempDir("bsk-e2e-agent-");
  }, 120_000);

  afterAll(async () => {
    await rw?.stop();
    if (agentDir) rmSync(agentDir, { recursive: true, force: true });
  });

  test("upload: the bytes are built in the page (never a path), a small file and one of several chunks", async () => {
    await ok(["navigate", w.fixtures.url("/files-upload.html")]);
    const small = join(agentDir, "cv.txt");
    writeFileSync(small, "Ada Lovelace, analyst\n");
    // The extension may read local files (unpacked): a local agent's upload would go by path; a remote one's never.
    const r = await ok(["upload", "#single", "--file", small]);
    expect(r).toMatchObject({ mode: "input", via: "page", effect_state: "committed" });
    expect((await js("window.settled()")).single).toEqual([
      { name: "cv.txt", size: 22, type: "text/plain", sha256: sha256("Ada Lovelace, analyst\n") },
    ]);

    const big = new Uint8Array(7 * 1024 * 1024 + 5);
    for (let off = 0; off < big.length; off += 1 << 20) big.set(fixtureBytes(off, Math.min(1 << 20, big.length - off)), off);
    const path = join(agentDir, "big.bin");
    writeFileSync(path, big);
    const b = await ok(["upload", "#multi", "--file", path, "--file", small]);
    expect(b.via).toBe("page");
    const got = (await js("window.settled()")).multi;
    expect(got.map((f: any) => [f.name, f.size, f.sha256])).toEqual([
      ["big.bin", big.length, sha256(big)],
      ["cv.txt", 22, sha256("Ada Lovelace, analyst\n")],
    ]);
  }, 60_000);

  test("download by a click, and a blob the page made: written by the server's CLI, size and SHA-256 as served", async () => {
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    const out = join(agentDir, "notes.txt");
    const r = await ok(["download", "#small", "--out", out]);
    expect(r).toMatchObject({ path: out, size: 13, name: "notes.txt", sha256: generatedSha(13), effect_state: "committed" });
    expect(sha256(readFileSync(out))).toBe(r.sha256);
    const blob = await ok(["download", "#blob", "--out", join(agentDir, "blob.txt")]);
    expect(blob).toMatchObject({ name: "from-blob.txt", size: 17 });
    expect(readFileSync(join(agentDir, "blob.txt"), "utf8")).toBe("made in the page\n");
    expect(personFiles()).toEqual([]);
  }, 60_000);

  test("a larger download shows its progress on the server's terminal", async () => {
    await ok(["navigate", w.fixtures.url("/files-frame-download.html")]);
    const out = join(agentDir, "mid.bin");
    // `script` gives the CLI a pseudo-terminal, as the agent's shell on the server would.
    const cmd = [BSK, "download", "#mid", "--out", out, "--session", sid].map((a) => `'${a}'`).join(" ");
    const proc = Bun.spawn(["script", "-qefc", cmd, "/dev/null"], { env: server.env, stdout: "pipe", stderr: "pipe" });
    const text = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    // The fixture streams its body (no length known in advance): the bytes so far, then the CLI's write of them.
    expect(text).toMatch(/\rdownloading \d+\.\d MiB\x1b\[K/);
    expect(text).toContain("downloading 12.0 MiB");
    expect(text).toContain("writing mid.bin 12.0 MiB of 12.0 MiB 100%");
    expect(statSync(out).size).toBe(12582912);
    expect(sha256(readFileSync(out))).toBe(generatedSha(12582912));
  }, 60_000);

  test("screenshot --full-page: one valid PNG of the page's full height", async () => {
    await ok(["navigate", w.fixtures.url("/files-tall.html")]);
    const out = join(agentDir, "tall.png");
    const r = await ok(["screenshot", "--full-page", "--out", out]);
    expect(r).toMatchObject({ path: out, format: "png", height: 30000, stopped: "end" });
    const png = decodePng(new Uint8Array(readFileSync(out)));
    expect({ width: png.width, height: png.height }).toEqual({ width: r.width, height: 30000 });
  }, 120_000);

  test("a download the page started by itself is kept on the server: event, downloads, downloads save", async () => {
    await ok(["navigate", w.fixtures.url("/files-page-downloads.html")]);
    const click = await ok(["click", "#attachment"]);
    const id = click.effect.download?.id as string;
    expect(id).toMatch(/^d[0-9a-f]{8}$/);
    const done = await until("the kept download's event to say complete", async () =>
      ((await ok(["events", "--type", "download"])).events as any[])
        .map((e) => e.data)
        .find((e) => e.download_id === id && e.state !== "in_progress"),
    );
    expect(done).toMatchObject({ state: "complete", name: "report.bin", size: 4321, sha256: generatedSha(4321) });
    expect(((await ok(["downloads"])).downloads as any[]).find((d) => d.download_id === id)).toMatchObject({
      state: "complete",
      size: 4321,
      sha256: generatedSha(4321),
    });
    const out = join(agentDir, "report.bin");
    expect(await ok(["downloads", "save", id, "--out", out])).toMatchObject({ path: out, size: 4321, sha256: generatedSha(4321) });
    expect(sha256(readFileSync(out))).toBe(generatedSha(4321));
  }, 60_000);

  test("a download the browser saved itself (from a cross-site frame) is fetched again by that frame and removed from Downloads", async () => {
    await ok(["navigate", w.fixtures.url("/files-frame-download.html")]);
    const out = join(agentDir, "framed.bin");
    const r = await ok(["download", "#frame-get", "--out", out]);
    expect(r).toMatchObject({ path: out, name: "framed.bin", size: 5000, sha256: generatedSha(5000), effect_state: "committed" });
    expect(sha256(readFileSync(out))).toBe(generatedSha(5000));
    // Requested twice: once by the browser's download manager, once by the frame for the server.
    expect(w.fixtures.hits("/download/5000/framed.bin")).toBe(2);
    expect(personFiles()).toEqual([]);
    await until("the browser's download list to be empty", async () => (await browserList()).length === 0 || undefined);
  }, 60_000);

  test("one that cannot be fetched again as the same file (a POST) is refused in words: committed, nothing kept anywhere", async () => {
    await ok(["navigate", w.fixtures.url("/files-frame-download.html")]);
    const out = join(agentDir, "posted.bin");
    const r = await run(["download", "#frame-post", "--out", out]);
    expect(r.json?.ok).toBe(false);
    expect(r.json.error).toMatchObject({
      code: "unsupported",
      data: { reason: "download_unavailable", effect_state: "committed" },
    });
    expect(r.json.error.message).toContain("POST");
    expect(r.json.error.message).toContain("removed");
    expect(existsSync(out)).toBe(false);
    expect(w.fixtures.hits("/download/21/posted.bin")).toBe(1);
    expect(personFiles()).toEqual([]);
    await until("the browser's download list to be empty", async () => (await browserList()).length === 0 || undefined);
  }, 60_000);

  test("none of it went through the person's local daemon, and no file landed on the person's side", async () => {
    expect(stagedIn(w.home)).toEqual([]);
    expect((await w.ok(["session", "list"])).sessions).toEqual([]);
    expect(personFiles()).toEqual([]);
    expect(readdirSync(w.home).filter((f) => /\.(bin|txt|png)$/.test(f))).toEqual([]);
    expect(readdirSync(agentDir).sort()).toEqual([
      "big.bin",
      "blob.txt",
      "cv.txt",
      "framed.bin",
      "mid.bin",
      "notes.txt",
      "report.bin",
      "tall.png",
    ]);
  });

  test("a download over the cap is cut with the same error as locally, and nothing is left of it", async () => {
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    const out = join(agentDir, "too-big.bin");
    const before = stagedIn(server.home);
    const remote = await run(["download", "#big", "--out", out]);
    expect(remote.json?.ok).toBe(false);
    expect(remote.json.error).toMatchObject({
      code: "invalid_params",
      data: { reason: "file_too_large", limit_bytes: Number(CAP), effect_state: "committed" },
    });
    expect(existsSync(out)).toBe(false);
    // The uploads and the kept download of the earlier tests stay; nothing of this one does.
    expect(stagedIn(server.home)).toEqual(before);

    // The same click on the person's own daemon, under the same cap.
    const local = await w.startSession();
    try {
      await w.ok(["navigate", w.fixtures.url("/files-download.html"), "--session", local]);
      const mine = await w.bsk(["download", "#big", "--out", join(w.home, "too-big.bin"), "--session", local, "--json"]);
      expect(mine.json?.ok).toBe(false);
      expect({ code: mine.json.error.code, reason: mine.json.error.data?.reason }).toEqual({
        code: remote.json.error.code,
        reason: remote.json.error.data.reason,
      });
    } finally {
      await w.ok(["session", "stop", local]);
    }
  }, 90_000);

  test("attack: a remote session never opens the person's local files, whatever the popup's switch says", async () => {
    // The switch is for agents on the person's computer; an agent on a server gets none of their files.
    const dir = tempDir("bsk-remote-local-");
    writeFileSync(join(dir, "mine.html"), "<title>Mine</title><p>PERSONS-FILE-5521</p>");
    const file = `file://${dir}/mine.html`;
    await w.person.asExtension("chrome.storage.local.set({ allow_file_urls: true })");
    try {
      for (const args of [
        ["navigate", file],
        ["tab", "create", file],
        ["navigate", `file://${w.home}/trust.key`],
      ]) {
        const r = await run(args);
        expect(r.json?.ok).toBe(false);
        expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url", rule: "remote_session" } });
      }
      const tabs = (await ok(["tab", "list"])).tabs as { url: string }[];
      expect(tabs.filter((t) => t.url.startsWith("file:"))).toEqual([]);
    } finally {
      await w.person.asExtension("chrome.storage.local.set({ allow_file_urls: false })");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
