/**
 * A long session's files: more uploads and downloads than the staged-file cap (BSK_TRANSFER_MAX_FILES, here 3), each
 * of them working, because what a call has used no longer holds a place. Found by the soak (issue #40): after 20
 * uploads and downloads a session's next download was clicked and then failed on the cap, its file never written.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startWorld, until, type World } from "./harness.ts";

const CAP = 3;
let w: World;
let s: string;
let dir: string;

beforeAll(async () => {
  w = await startWorld({
    env: { BSK_TRANSFER_MAX_FILES: String(CAP) },
    prefs: (home) => ({ download: { default_directory: join(home, "browser-downloads"), prompt_for_download: false } }),
  });
  s = await w.startSession();
  dir = join(w.home, "work");
  mkdirSync(dir);
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);
const ok = (args: string[]) => w.ok([...args, "--session", s]);
const sha256 = (bytes: Uint8Array | string) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

function localFile(name: string, content: string): { path: string; sha256: string } {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, sha256: sha256(content) };
}

test("uploads and downloads past the staged-file cap each work; a retry of an early upload still replays", async () => {
  await ok(["navigate", w.fixtures.url("/files-upload.html")]);
  const first = localFile("up-0.txt", "upload 0");
  const r0 = await run(["upload", "#single", "--file", first.path, "--op-id", "many-up-0"]);
  expect(r0.json?.ok).toBe(true);
  for (let i = 1; i <= 2 * CAP; i++) {
    const f = localFile(`up-${i}.txt`, `upload ${i}`);
    const r = await ok(["upload", "#single", "--file", f.path]);
    expect(r.effect_state).toBe("committed");
    expect((await ok(["evaluate", "window.settled()"])).value.single).toEqual([
      { name: `up-${i}.txt`, size: `upload ${i}`.length, type: "text/plain", sha256: f.sha256 },
    ]);
  }
  // The first upload's bytes left staging long ago: its retry, sending the same params, replays its reply.
  const again = await run(["upload", "#single", "--file", first.path, "--op-id", "many-up-0"]);
  expect(again.json).toMatchObject({ ok: true, result: { effect_state: "committed" } });
  expect(again.json.result.files).toEqual(r0.json.result.files);

  await ok(["navigate", w.fixtures.url("/files-download.html")]);
  for (let i = 0; i < 2 * CAP; i++) {
    const out = join(dir, `down-${i}.txt`);
    const r = await ok(["download", "#small", "--out", out]);
    expect(r).toMatchObject({ path: out, size: 13, effect_state: "committed" });
    expect(sha256(readFileSync(out))).toBe(r.sha256);
  }
});

test("one call with more files than the cap is refused before anything is attached, and holds no place after", async () => {
  await ok(["navigate", w.fixtures.url("/files-upload.html")]);
  const files = Array.from({ length: CAP + 1 }, (_, i) => localFile(`multi-${i}.txt`, `multi ${i}`).path);
  const r = await run(["upload", "#multi", ...files.flatMap((f) => ["--file", f])]);
  expect(r.json).toMatchObject({ ok: false, error: { code: "invalid_params", data: { reason: "too_many_files" } } });
  expect((await ok(["evaluate", "window.settled()"])).value.multi).toBeUndefined();
  // What it staged before the refusal went back: a call with the cap's worth of files works.
  const r2 = await ok(["upload", "#multi", ...files.slice(1).flatMap((f) => ["--file", f])]);
  expect(r2.files.map((f: { name: string }) => f.name)).toEqual(["multi-1.txt", "multi-2.txt", "multi-3.txt"]);
});

test("a download with no room left to keep its file is refused before anything is clicked", async () => {
  // Downloads the session's tabs start on their own are kept until the session ends: CAP of them fill it.
  const mine = await w.startSession();
  const run2 = (args: string[]) => w.bsk([...args, "--session", mine, "--json"]);
  await w.ok(["navigate", w.fixtures.url("/files-download.html"), "--session", mine]);
  for (let i = 0; i < CAP; i++) await w.ok(["click", "#small", "--session", mine]);
  await until("the clicked downloads to be kept", async () => (await w.ok(["downloads", "--session", mine])).downloads.length === CAP);
  await w.ok([
    "evaluate",
    "window.clicks = 0; document.getElementById('small').addEventListener('click', () => window.clicks++)",
    "--session",
    mine,
  ]);
  const r = await run2(["download", "#small", "--out", join(dir, "no-room.txt")]);
  expect(r.json).toMatchObject({ ok: false, error: { code: "invalid_params", data: { reason: "too_many_files", effect_state: "none" } } });
  expect((await w.ok(["evaluate", "window.clicks", "--session", mine])).value).toBe(0);
  expect(existsSync(join(dir, "no-room.txt"))).toBe(false);
});
