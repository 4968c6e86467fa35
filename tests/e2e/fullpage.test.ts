/**
 * Full-page screenshots end to end: one PNG of the whole page (its height read from the IHDR), an infinite feed
 * with follow and current, and a capture aborted by a navigation, which leaves no file behind.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, openSync, readdirSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";
import { BSK, startWorld, type World } from "./harness.ts";

let w: World;
let s: string;
let dir: string;

beforeAll(async () => {
  w = await startWorld();
  s = await w.startSession();
  dir = join(w.home, "shots");
  mkdirSync(dir);
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const ok = (args: string[]) => w.ok([...args, "--session", s]);

/** Width and height from the PNG's IHDR (the file is not read whole). */
function pngSize(path: string): { width: number; height: number } {
  const fd = openSync(path, "r");
  const head = new Uint8Array(24);
  readSync(fd, head, 0, 24, 0);
  closeSync(fd);
  expect([...head.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const v = new DataView(head.buffer);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

test("a 30,000 px tall page becomes one image 30,000 px tall", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  const out = join(dir, "tall.png");
  const r = await ok(["screenshot", "--full-page", "--out", out]);
  expect(r).toMatchObject({ path: out, format: "png", height: 30000, stopped: "end" });
  expect(r.transfer_id).toBeUndefined();
  expect(pngSize(out)).toEqual({ width: r.width, height: 30000 });
  // The image decodes: a PNG reader takes it whole, and a band boundary is where the page has it.
  const img = await Bun.file(out).bytes();
  expect(img.length).toBe(r.bytes);
  expect(await js(`scrollY`)).toBe(0);
}, 120_000);

const js = async (expression: string) => (await ok(["evaluate", expression])).value;

test("on a terminal the capture shows its progress while it runs (stderr), and wipes it before the result", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  const out = join(dir, "tall-tty.png");
  // `script` gives the CLI a pseudo-terminal, as a person's shell would.
  const cmd = [BSK, "screenshot", "--full-page", "--out", out, "--session", s].map((a) => `'${a}'`).join(" ");
  const proc = Bun.spawn(["script", "-qefc", cmd, "/dev/null"], { env: { ...process.env, ...w.env }, stdout: "pipe", stderr: "pipe" });
  const text = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  expect(text).toMatch(/capturing \d+ px of 30000 px \d+%/);
  expect(text).toContain("\x1b[K");
  expect(pngSize(out).height).toBe(30000);
}, 120_000);

test("an infinite feed: current stops at the height it had, follow keeps going while it grows", async () => {
  await ok(["navigate", w.fixtures.url("/files-feed.html")]);
  const start = await js(`document.documentElement.scrollHeight`);
  const cur = await ok(["screenshot", "full-page", "--scope", "current", "--out", join(dir, "current.png")]);
  expect(cur.height).toBe(start);
  expect(pngSize(join(dir, "current.png")).height).toBe(start);

  await ok(["navigate", w.fixtures.url("/files-feed.html")]);
  // Written over the first capture: only with --overwrite (one rule for every writer), else refused before the call.
  const refused = await w.bsk(["screenshot", "--full-page", "--out", join(dir, "current.png"), "--session", s, "--json"]);
  expect(refused.json.error).toMatchObject({ code: "invalid_params", data: { reason: "out_exists" } });
  expect(pngSize(join(dir, "current.png")).height).toBe(start);
  const fol = await ok([
    "screenshot",
    "--full-page",
    "--scope",
    "follow",
    "--quiet",
    "3000ms",
    "--out",
    join(dir, "current.png"),
    "--overwrite",
  ]);
  const end = await js(`document.documentElement.scrollHeight`);
  // 100 posts of 100 px (and the 1 px sentinel under them)
  expect(end).toBeGreaterThanOrEqual(10000);
  expect(fol.height).toBe(end);
  expect(pngSize(join(dir, "current.png")).height).toBe(end);
}, 120_000);

test("follow stops at --max-height", async () => {
  await ok(["navigate", w.fixtures.url("/files-feed.html")]);
  const r = await ok(["screenshot", "--full-page", "--scope", "follow", "--max-height", "3000", "--out", join(dir, "capped.png")]);
  expect(r).toMatchObject({ height: 3000, stopped: "max_height" });
}, 60_000);

test("a navigation during the capture aborts it with a clear reason and leaves no file", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html?leave=3000")]);
  const out = join(dir, "aborted.png");
  const r = await w.bsk(["screenshot", "--full-page", "--out", out, "--session", s, "--json"]);
  expect(r.json?.ok).toBe(false);
  expect(r.json.error).toMatchObject({ code: "cancelled", data: { reason: "capture_navigated" } });
  expect(existsSync(out)).toBe(false);
  expect(readdirSync(dir).filter((f) => f.startsWith("aborted"))).toEqual([]);
  // Nothing stays staged in the daemon either.
  const staged = join(w.home, "transfers", s);
  expect(existsSync(staged) ? readdirSync(staged) : []).toEqual([]);
}, 60_000);
