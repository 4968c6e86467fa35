/**
 * Taking the one executable out of a release archive, in memory: entries are matched by exact name and never
 * written by their own path, so an archive cannot place files anywhere (`../bsk` or `/bsk` is not `bsk`).
 * tar.gz (Unix: gzip by node:zlib with an output cap, the one-file ustar walked here, as fflate reads no tar) and
 * zip (Windows: fflate). The archive's bytes were checked against the signed manifest's SHA-256 before.
 */
import { unzipSync } from "fflate";
import { gunzipSync } from "node:zlib";
import { BskError } from "../../protocol/errors.ts";

/** The binary is ~110 MB; anything past this is not a bsk archive. */
const MAX_BYTES = 1 << 30;

function badArchive(why: string): BskError {
  return new BskError("unsupported", `the downloaded archive is not usable: ${why}`, { data: { reason: "bad_archive" } });
}

const cstr = (b: Uint8Array) => {
  const end = b.indexOf(0);
  return new TextDecoder().decode(end < 0 ? b : b.subarray(0, end));
};

export function fromTarGz(archive: Uint8Array, name: string): Uint8Array {
  let tar: Uint8Array;
  try {
    tar = new Uint8Array(gunzipSync(archive, { maxOutputLength: MAX_BYTES }));
  } catch {
    throw badArchive("not gzip");
  }
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const size = parseInt(cstr(h.subarray(124, 136)).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0) throw badArchive("bad tar header");
    const prefix = cstr(h.subarray(345, 500));
    const path = (prefix ? `${prefix}/` : "") + cstr(h.subarray(0, 100));
    const type = String.fromCharCode(h[156] ?? 0);
    const data = at + 512;
    if ((type === "0" || type === "\0") && (path === name || path === `./${name}`)) {
      if (data + size > tar.length) throw badArchive("truncated");
      return tar.slice(data, data + size);
    }
    at = data + Math.ceil(size / 512) * 512;
  }
  throw badArchive(`no ${name} in it`);
}

export function fromZip(archive: Uint8Array, name: string): Uint8Array {
  let size = -1;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(archive, {
      filter: (entry) => {
        if (entry.name !== name) return false;
        if (entry.originalSize > MAX_BYTES) throw badArchive("entry too large");
        size = entry.originalSize;
        return true;
      },
    });
  } catch (err) {
    if (err instanceof BskError) throw err;
    throw badArchive(`not a readable zip (${(err as Error).message})`);
  }
  const data = files[name];
  if (!data) throw badArchive(`no ${name} in it`);
  if (data.length !== size) throw badArchive("truncated entry");
  return data;
}

export function extractBinary(archive: Uint8Array, assetName: string, binaryName: string): Uint8Array {
  return assetName.endsWith(".zip") ? fromZip(archive, binaryName) : fromTarGz(archive, binaryName);
}
