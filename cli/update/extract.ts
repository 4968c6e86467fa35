/**
 * Taking the one executable out of a release archive, in memory: entries are matched by exact name and never
 * written by their own path, so an archive cannot place files anywhere. tar.gz (Unix) and zip (Windows).
 */
import { crc32, gunzipSync, inflateRawSync } from "node:zlib";
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
  const view = new DataView(archive.buffer, archive.byteOffset, archive.byteLength);
  let end = -1;
  for (let i = archive.length - 22; i >= Math.max(0, archive.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw badArchive("not a zip");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  for (let i = 0; i < count; i++) {
    if (at + 46 > archive.length || view.getUint32(at, true) !== 0x02014b50) throw badArchive("bad central directory");
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const csize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nlen = view.getUint16(at + 28, true);
    const elen = view.getUint16(at + 30, true);
    const clen = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const entry = new TextDecoder().decode(archive.subarray(at + 46, at + 46 + nlen));
    at += 46 + nlen + elen + clen;
    if (entry !== name) continue;
    if (flags & 1) throw badArchive("encrypted entry");
    if (size > MAX_BYTES || local + 30 > archive.length || view.getUint32(local, true) !== 0x04034b50) throw badArchive("bad entry");
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + csize > archive.length) throw badArchive("truncated");
    const body = archive.subarray(start, start + csize);
    let data: Uint8Array;
    if (method === 0) data = body.slice();
    else if (method === 8) {
      try {
        data = new Uint8Array(inflateRawSync(body, { maxOutputLength: MAX_BYTES }));
      } catch {
        throw badArchive("bad deflate data");
      }
    } else throw badArchive(`compression method ${method}`);
    if (data.length !== size || crc32(data) >>> 0 !== crc) throw badArchive("CRC mismatch");
    return data;
  }
  throw badArchive(`no ${name} in it`);
}

export function extractBinary(archive: Uint8Array, assetName: string, binaryName: string): Uint8Array {
  return assetName.endsWith(".zip") ? fromZip(archive, binaryName) : fromTarGz(archive, binaryName);
}
