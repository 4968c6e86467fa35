/**
 * `screenshot full-page --tiles` on the CLI's side (cli/tile-files.ts): the staged transfer holds the tiles one after
 * another and the reply says where each is; the CLI alone names the files (--out's folder and name, -1.png, -2.png …)
 * and places them all or none. Attacks: a reply that names its own paths, tiles that do not cover the transfer in
 * order, and a planted link where a tile goes, are refused or ignored, and nothing is written outside --out's place.
 * Real CLI entry against a fake daemon.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tilePaths } from "../../cli/tile-files.ts";
import { fakeDaemon, type FakeDaemon } from "./cli-fake-daemon.ts";
import { tempDir as freshDir } from "../temp.ts";

const MAIN = join(import.meta.dir, "../../cli/main.ts");
const TILE_A = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 1, 1]);
const TILE_B = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 2, 2, 2, 2]);
const STAGED = new Uint8Array([...TILE_A, ...TILE_B]);
const SHA = new Bun.CryptoHasher("sha256").update(STAGED).digest("hex");
const tile = (offset: number, bytes: number, y: number, extra: object = {}) => ({
  offset,
  bytes,
  x: 0,
  y,
  width: 100,
  height: 50,
  claude_tokens: 7,
  ...extra,
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function tempDir(): string {
  const dir = freshDir("bsk-tile-files-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A daemon whose full-page capture staged STAGED and replies with `images`. */
function daemon(images: unknown[]): FakeDaemon {
  const d = fakeDaemon((f) => {
    if (f.method === "screenshot.full_page") {
      return {
        result: {
          tab_id: 1,
          format: "png",
          width: 100,
          height: 100,
          bytes: STAGED.length,
          sha256: SHA,
          tiles: 2,
          scale: 1,
          claude_tokens: 14,
          stopped: "end",
          images,
          transfer_id: "t1",
        },
      };
    }
    if (f.method === "transfer.read") {
      const offset = Number(f.params?.offset ?? 0);
      const data = STAGED.subarray(offset);
      return { result: { data: Buffer.from(data).toString("base64"), size: STAGED.length, eof: true } };
    }
    return { result: {} };
  });
  cleanups.push(() => {
    d.stop();
    rmSync(d.home, { recursive: true, force: true });
  });
  return d;
}

async function run(args: string[], d: FakeDaemon, cwd: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), BSK_HOME: d.home, BSK_AUTO_START: "0", TMPDIR: cwd };
  delete env.BSK_SESSION;
  const proc = Bun.spawn([process.execPath, MAIN, ...args, "--json"], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { json: JSON.parse(stdout), code };
}

const shoot = (out: string, more: string[] = []) => ["screenshot", "--full-page", "--tiles", "--out", out, "--session", "s1", ...more];

test("each tile goes to its own file named after --out, with its place on the page; the reply names no path", async () => {
  const dir = tempDir();
  const elsewhere = tempDir();
  const d = daemon([
    tile(0, TILE_A.length, 0, { path: join(elsewhere, "escape.png"), name: "../../escape.png" }),
    tile(TILE_A.length, TILE_B.length, 50),
  ]);
  const r = await run(shoot(join(dir, "page.png")), d, dir);
  expect(r.code).toBe(0);
  expect(r.json.result.images).toEqual([
    { path: join(dir, "page-1.png"), bytes: TILE_A.length, x: 0, y: 0, width: 100, height: 50, claude_tokens: 7 },
    { path: join(dir, "page-2.png"), bytes: TILE_B.length, x: 0, y: 50, width: 100, height: 50, claude_tokens: 7 },
  ]);
  expect(new Uint8Array(readFileSync(join(dir, "page-1.png")))).toEqual(TILE_A);
  expect(new Uint8Array(readFileSync(join(dir, "page-2.png")))).toEqual(TILE_B);
  expect(readdirSync(elsewhere)).toEqual([]);
  expect(readdirSync(dir).sort()).toEqual(["page-1.png", "page-2.png"]);
  expect(d.frames.map((f) => f.method)).toContain("transfer.release");
});

test("attack: tiles that overlap, leave a gap or run past the staged bytes are refused, and nothing is written", async () => {
  for (const images of [
    [tile(0, TILE_A.length, 0), tile(0, TILE_B.length, 50)],
    [tile(0, TILE_A.length, 0), tile(TILE_A.length + 1, TILE_B.length - 1, 50)],
    [tile(0, TILE_A.length, 0), tile(TILE_A.length, TILE_B.length + 64, 50)],
    [tile(0, TILE_A.length, 0)],
    [],
  ]) {
    const dir = tempDir();
    const r = await run(shoot(join(dir, "page")), daemon(images), dir);
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatchObject({ code: "protocol_error", data: { reason: "bad_tiles" } });
    expect(readdirSync(dir)).toEqual([]);
  }
});

test("attack: a link planted where a tile goes is not followed: refused, its target untouched, no tile left", async () => {
  const dir = tempDir();
  const elsewhere = tempDir();
  const target = join(elsewhere, "victim.png");
  writeFileSync(target, "keep me");
  symlinkSync(target, join(dir, "page-2.png"));
  for (const more of [[], ["--overwrite"]]) {
    const r = await run(shoot(join(dir, "page"), more), daemon([tile(0, TILE_A.length, 0), tile(TILE_A.length, TILE_B.length, 50)]), dir);
    expect(r.code).not.toBe(0);
    expect(r.json.error.code).toBe("invalid_params");
    expect(["out_exists", "not_regular_file"]).toContain(r.json.error.data.reason);
    expect(readFileSync(target, "utf8")).toBe("keep me");
    expect(readdirSync(dir)).toEqual(["page-2.png"]);
  }
});

test("a first tile that exists is refused before the capture runs, unless --overwrite", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "page-1.png"), "old");
  const d = daemon([tile(0, TILE_A.length, 0), tile(TILE_A.length, TILE_B.length, 50)]);
  const r = await run(shoot(join(dir, "page")), d, dir);
  expect(r.json.error).toMatchObject({ code: "invalid_params", data: { reason: "out_exists" } });
  expect(d.frames.map((f) => f.method)).not.toContain("screenshot.full_page");
  const again = await run(shoot(join(dir, "page"), ["--overwrite"]), d, dir);
  expect(again.code).toBe(0);
  expect(new Uint8Array(readFileSync(join(dir, "page-1.png")))).toEqual(TILE_A);
});

test("tile names: a prefix (a trailing .png dropped), a folder's fresh names, the temp dir without --out", () => {
  const dir = tempDir();
  expect(tilePaths(join(dir, "shot.png"), 2, "bsk-screenshot", {})).toEqual([join(dir, "shot-1.png"), join(dir, "shot-2.png")]);
  expect(tilePaths(join(dir, "shot"), 1, "bsk-screenshot", {})).toEqual([join(dir, "shot-1.png")]);
  for (const p of tilePaths(dir, 3, "bsk-screenshot", {})) expect(p).toMatch(new RegExp(`^${dir}/bsk-screenshot-[\\d-]+-\\d\\.png$`));
  for (const p of tilePaths(undefined, 2, "bsk-screenshot", { TMPDIR: dir })) expect(p.startsWith(`${dir}/bsk-screenshot-`)).toBe(true);
  expect(existsSync(join(dir, "shot-1.png"))).toBe(false);
});
