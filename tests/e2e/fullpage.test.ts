/**
 * Full-page screenshots end to end: one PNG of the whole page (its height read from the IHDR), an infinite feed
 * with follow and current, and a capture aborted by a navigation, which leaves no file behind.
 * Screenshots a model can take (issue #39 item 7), on the 30,000 px page: --max-edge scales a viewport capture and
 * a full-page one so no side is over it, and --tiles cuts the page into PNGs of at most that many px a side, each
 * with its offset on the page; every reply says each image's size and estimated Claude tokens, and the files are
 * what the reply says.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, openSync, readdirSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";
import { claudeImageTokens } from "../../protocol/image-tokens.ts";
import { BSK, startWorld, type World } from "./harness.ts";
import { decodePng } from "./png.ts";

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

test("screenshot --max-edge scales the viewport so no side is over it, and says what it costs", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  const full = await ok(["screenshot", "--out", join(dir, "view.png")]);
  expect(full.claude_tokens).toBe(claudeImageTokens(full.width, full.height));
  const r = await ok(["screenshot", "--max-edge", "400", "--out", join(dir, "view-400.png")]);
  expect(Math.max(r.width, r.height)).toBeLessThanOrEqual(400);
  expect(Math.max(r.width, r.height)).toBeGreaterThanOrEqual(399);
  expect(pngSize(join(dir, "view-400.png"))).toEqual({ width: r.width, height: r.height });
  expect(r.claude_tokens).toBe(Math.ceil((r.width * r.height) / 750));
  expect(r.scale).toBeLessThan(full.scale);
  // A limit above the image's size does not scale it (the viewport is clipped to leave out its scrollbar).
  const same = await ok(["screenshot", "--max-edge", "16384", "--out", join(dir, "view-big.png")]);
  expect(same.height).toBe(full.height);
  expect(same.width).toBeLessThanOrEqual(full.width);
  expect(same.scale).toBe(full.scale);
}, 60_000);

test("full-page --max-edge squeezes the whole 30,000 px page into one image within the limit", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  const out = join(dir, "squeezed.png");
  const r = await ok(["screenshot", "--full-page", "--max-edge", "2000", "--out", out]);
  expect(r).toMatchObject({ path: out, stopped: "end" });
  expect(r.height).toBeLessThanOrEqual(2000);
  expect(r.height).toBeGreaterThanOrEqual(1990);
  expect(r.width).toBeLessThanOrEqual(2000);
  expect(pngSize(out)).toEqual({ width: r.width, height: r.height });
  expect(r.scale).toBeCloseTo(r.height / 30000, 2);
  expect(r.claude_tokens).toBe(claudeImageTokens(r.width, r.height));
  expect(r.images).toBeUndefined();
}, 120_000);

test("full-page --tiles cuts the page into model-sized PNGs with their page offsets, named after --out", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  const r = await ok(["screenshot", "--full-page", "--tiles", "--out", join(dir, "page")]);
  expect(r.transfer_id).toBeUndefined();
  expect(r.path).toBeUndefined();
  expect(r.stopped).toBe("end");
  const images = r.images as { path: string; x: number; y: number; width: number; height: number; bytes: number; claude_tokens: number }[];
  // The default limit is Claude's own long edge, 1568 px: a 30,000 px page at scale 1 is 20 tiles.
  expect(images.length).toBe(Math.ceil(r.height / 1568));
  expect(images.map((t) => t.path)).toEqual(images.map((_, i) => join(dir, `page-${i + 1}.png`)));
  expect(readdirSync(dir).filter((f) => f.startsWith("page-")).length).toBe(images.length);
  let rows = 0;
  for (const t of images) {
    expect(Math.max(t.width, t.height)).toBeLessThanOrEqual(1568);
    expect(pngSize(t.path)).toEqual({ width: t.width, height: t.height });
    expect(Bun.file(t.path).size).toBe(t.bytes);
    expect(t.claude_tokens).toBe(claudeImageTokens(t.width, t.height));
    // Where the tile starts on the page, CSS px: the rows before it over the scale.
    expect(t.x).toBe(0);
    expect(t.y).toBe(Math.round(rows / r.scale));
    rows += t.height;
  }
  expect(rows).toBe(r.height);
  expect(r.claude_tokens).toBe(images.reduce((n, t) => n + t.claude_tokens, 0));
  // The page's 30,000 px end where the last tile ends, and a tile shows what the page has at its offset: the
  // bands alternate pink and blue every 1000 px, with a 4 px black line at the bottom of each.
  const last = images.at(-1)!;
  expect(Math.round(last.y + last.height / r.scale)).toBe(30000);
  const colour = (pageY: number) => (pageY % 1000 >= 996 ? "black" : Math.floor(pageY / 1000) % 2 === 0 ? "pink" : "blue");
  const seen = ([red, green, blue]: [number, number, number]) =>
    red < 60 && green < 60 && blue < 60 ? "black" : red > green + 20 ? "pink" : blue > red + 20 ? "blue" : `rgb(${red},${green},${blue})`;
  for (const t of images) {
    const pixels = decodePng(await Bun.file(t.path).bytes());
    for (let row = 10; row < t.height; row += 97) {
      const pageY = t.y + row / r.scale;
      if (pageY % 1000 > 990 || pageY % 1000 < 3) continue; // too near a line to say which side it falls
      expect({ tile: t.path, row, colour: seen(pixels.at(t.width - 5, row)) }).toEqual({ tile: t.path, row, colour: colour(pageY) });
    }
  }
}, 120_000);

test("full-page --tiles --max-edge: narrower tiles, a folder as --out gets fresh names in it", async () => {
  await ok(["navigate", w.fixtures.url("/files-tall.html")]);
  // 5 bands: a 5,000 px page.
  await ok(["evaluate", "document.querySelectorAll('.band').forEach((b, i) => i >= 5 && b.remove())"]);
  const folder = join(dir, "tiles");
  mkdirSync(folder);
  const r = await ok(["screenshot", "--full-page", "--tiles", "--max-edge", "600", "--out", folder]);
  const images = r.images as { path: string; width: number; height: number }[];
  expect(images.length).toBe(Math.ceil(r.height / 600));
  expect(r.width).toBeLessThanOrEqual(600);
  for (const t of images) {
    expect(t.path.startsWith(`${folder}/bsk-screenshot-`)).toBe(true);
    expect(Math.max(t.width, t.height)).toBeLessThanOrEqual(600);
    expect(pngSize(t.path)).toEqual({ width: t.width, height: t.height });
  }
  expect(readdirSync(folder).length).toBe(images.length);
  // The same --out prefix again is refused before anything is written, unless --overwrite.
  const again = await w.bsk(["screenshot", "--full-page", "--tiles", "--out", join(dir, "page.png"), "--session", s, "--json"]);
  expect(again.json.error).toMatchObject({ code: "invalid_params", data: { reason: "out_exists" } });
}, 120_000);
