/**
 * `screenshot full-page --tiles`: the staged transfer holds the tiles' PNGs one after another, and the reply says
 * where each is in it (offset, bytes). Each goes to a file of its own, named by the CLI alone after --out: a folder
 * gets fresh names in it, anything else is a name prefix (a trailing .png dropped): PREFIX-1.png, PREFIX-2.png, …,
 * all in --out's folder, which was judged before the call (shared/out-folder.ts) and is again as each file is placed.
 * A reply whose tiles do not cover the transfer in order, end to end, is refused before anything is written; no
 * name in a reply is ever used. Every tile is read and checked before any is placed, and a failure leaves none.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { checkOutPath } from "../shared/out-folder.ts";
import { type AtomicFile, checkReplaceable, openAtomic, removeQuietly } from "../shared/atomic-file.ts";
import type { TransferSpec } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";
import type { Connection } from "./daemon-client.ts";
import { defaultPath, notWritten, outExists } from "./file-result.ts";
import { readTransfer } from "./transfer-steps.ts";

type Env = Record<string, string | undefined>;

/** More tiles than any page bsk captures (200,000 CSS px at 64 px a tile is 3,125). */
const MAX_TILES = 4096;

interface Tile {
  offset: number;
  bytes: number;
  x: number;
  y: number;
  width: number;
  height: number;
  claude_tokens: number;
}

function badTiles(why: string): BskError {
  return new BskError("protocol_error", `the full-page capture's tiles are not what was staged: ${why}; nothing was written`, {
    data: { reason: "bad_tiles" },
  });
}

/** The tiles as the reply gives them, checked to cover the transfer's `size` bytes in order and nothing else. */
export function checkTiles(images: unknown, size: number): Tile[] {
  if (!Array.isArray(images) || images.length === 0 || images.length > MAX_TILES) throw badTiles("no list of tiles");
  let end = 0;
  const tiles: Tile[] = [];
  for (const t of images as Record<string, unknown>[]) {
    const n = (k: string) => (Number.isSafeInteger(t?.[k]) && (t[k] as number) >= 0 ? (t[k] as number) : Number.NaN);
    const tile = {
      offset: n("offset"),
      bytes: n("bytes"),
      x: n("x"),
      y: n("y"),
      width: n("width"),
      height: n("height"),
      claude_tokens: n("claude_tokens"),
    };
    if (Object.values(tile).some(Number.isNaN) || tile.bytes === 0) throw badTiles(`tile ${tiles.length + 1} is malformed`);
    if (tile.offset !== end) throw badTiles(`tile ${tiles.length + 1} starts at byte ${tile.offset}, not ${end}`);
    end += tile.bytes;
    tiles.push(tile);
  }
  if (end !== size) throw badTiles(`they cover ${end} of ${size} bytes`);
  return tiles;
}

/** The files the tiles go to: PREFIX-1.png … in --out's folder (or a fresh prefix in a folder, or the temp dir). */
export function tilePaths(asked: unknown, count: number, name: string, env: Env, now = new Date()): string[] {
  let prefix: string;
  if (typeof asked !== "string") prefix = defaultPath(env.TMPDIR || "/tmp", name, "png", now).slice(0, -4);
  else if (existsSync(asked) && statSync(asked).isDirectory()) prefix = defaultPath(asked, name, "png", now).slice(0, -4);
  else prefix = asked.replace(/\.png$/i, "");
  const folder = dirname(prefix);
  const paths = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}.png`);
  for (const p of paths) {
    // By construction; checked so that the folder judged is the one written into.
    if (dirname(p) !== folder || basename(p).includes("/")) throw badTiles(`${p} is outside ${folder}`);
  }
  return paths;
}

/** Before the call: a first tile's file that exists is refused unless --overwrite, before anything is captured. */
export function checkFirstTile(spec: NonNullable<TransferSpec["download"]>, params: Record<string, unknown>): void {
  const asked = params[spec.pathParam];
  if (typeof asked !== "string" || (existsSync(asked) && statSync(asked).isDirectory())) return;
  const [first] = tilePaths(asked, 1, spec.defaultName, {});
  if (!existsSync(first!)) return;
  checkReplaceable(first!);
  if (params[spec.overwriteParam] !== true) throw outExists(first!);
}

export async function writeTiles(
  conn: Connection,
  sessionId: string,
  id: string,
  spec: NonNullable<TransferSpec["download"]>,
  params: Record<string, unknown>,
  result: Record<string, unknown>,
  env: Env,
): Promise<Record<string, unknown>[]> {
  const size = Number(result.bytes);
  const tiles = checkTiles(result.images, size);
  const paths = tilePaths(params[spec.pathParam], tiles.length, spec.defaultName, env);
  const overwrite = params[spec.overwriteParam] === true;
  for (const path of paths) {
    checkOutPath(path);
    if (existsSync(path)) {
      checkReplaceable(path);
      if (!overwrite) throw outExists(path);
    }
  }
  const files: AtomicFile[] = [];
  const placed: string[] = [];
  try {
    for (const path of paths) files.push(openAtomic(path, { mode: 0o644, replace: overwrite }));
    let at = 0;
    let tile = 0;
    await readTransfer(conn, sessionId, id, { size, sha256: String(result.sha256) }, "writing tiles", (bytes) => {
      for (let i = 0; i < bytes.length; ) {
        while (at >= tiles[tile]!.offset + tiles[tile]!.bytes) tile++;
        const n = Math.min(bytes.length - i, tiles[tile]!.offset + tiles[tile]!.bytes - at);
        files[tile]!.write(bytes.subarray(i, i + n));
        i += n;
        at += n;
      }
    });
    for (const [i, file] of files.entries()) {
      file.commit();
      placed.push(paths[i]!);
    }
  } catch (err) {
    for (const file of files.slice(placed.length)) file.abort();
    for (const path of placed) removeQuietly(path);
    const at = paths[placed.length] ?? paths[0]!;
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw outExists(at);
    throw notWritten(at, err);
  }
  return tiles.map(({ offset: _o, ...t }, i) => ({ path: paths[i], ...t }));
}
