/**
 * The two archive formats a release uses, with exact modes and fixed timestamps (the same inputs give the same
 * bytes): a one-file `.tar.gz` (ustar) for Unix and a `.zip` (deflate, fflate) for Windows and the extension.
 * fflate writes no tar, and a release's tar holds one regular file: its 512-byte header is written here, the
 * gzip around it by Bun.
 */
import { zipSync, type Zippable, type ZipOptions } from "fflate";

export interface Entry {
  name: string;
  data: Uint8Array;
  /** Unix permission bits (default 0644). */
  mode?: number;
}

const enc = new TextEncoder();

// ---------------------------------------------------------------- tar.gz

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

function tarHeader(name: string, size: number, mode: number): Uint8Array {
  const nameBytes = enc.encode(name);
  if (nameBytes.length > 100) throw new Error(`tar entry name too long: ${name}`);
  const h = new Uint8Array(512);
  const put = (s: string, at: number) => h.set(enc.encode(s), at);
  h.set(nameBytes, 0);
  put(octal(mode, 8), 100);
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(size, 12), 124);
  put(octal(0, 12), 136); // mtime: fixed
  put("        ", 148); // checksum field counts as spaces while summing
  put("0", 156); // regular file
  put("ustar\u000000", 257);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

/** A gzip'd tar of regular files. */
export function tarGz(entries: Entry[], level = 9): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e.name, e.data.length, e.mode ?? 0o644), e.data);
    const pad = (512 - (e.data.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024));
  return Bun.gzipSync(concat(parts), { level: level as 9 });
}

// ---------------------------------------------------------------- zip

/** 1980-01-01 00:00 local time, the earliest DOS date (zip stores local time): fixed so archives are reproducible. */
const DOS_EPOCH = new Date(1980, 0, 1);

/** A deflated zip; entries made on Unix (os 3) so their external attributes carry the mode. */
export function zip(entries: Entry[], level = 9): Uint8Array {
  const files: Zippable = {};
  for (const e of entries) {
    files[e.name] = [
      e.data,
      { level: level as ZipOptions["level"], mtime: DOS_EPOCH, os: 3, attrs: ((0o100000 | (e.mode ?? 0o644)) << 16) >>> 0 },
    ];
  }
  return zipSync(files);
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
