/**
 * The two archive formats a release uses, written by hand so entries carry exact modes and fixed timestamps
 * (the same inputs give the same bytes): a one-file `.tar.gz` (ustar) for Unix and a `.zip` (deflate) for
 * Windows and the extension. No zip64: every entry and the whole archive stay under 4 GiB.
 */
import { crc32, deflateRawSync } from "node:zlib";

export interface Entry {
  name: string;
  data: Uint8Array;
  /** Unix permission bits (default 0644). */
  mode?: number;
}

const enc = new TextEncoder();

// ---------------------------------------------------------------- tar.gz

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
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

/** 1980-01-01 00:00, the earliest DOS date: fixed so archives are reproducible. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export function zip(entries: Entry[], level = 9): Uint8Array {
  const locals: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const deflated = deflateRawSync(e.data, { level });
    const stored = deflated.length >= e.data.length;
    const body = stored ? e.data : new Uint8Array(deflated);
    const crc = crc32(e.data) >>> 0;
    const method = stored ? 0 : 8;

    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed
    local.setUint16(6, 0x0800, true); // UTF-8 names
    local.setUint16(8, method, true);
    local.setUint16(10, DOS_TIME, true);
    local.setUint16(12, DOS_DATE, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, body.length, true);
    local.setUint32(22, e.data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    locals.push(new Uint8Array(local.buffer), name, body);

    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, (3 << 8) | 20, true); // made by Unix, so the external attributes carry the mode
    cd.setUint16(6, 20, true);
    cd.setUint16(8, 0x0800, true);
    cd.setUint16(10, method, true);
    cd.setUint16(12, DOS_TIME, true);
    cd.setUint16(14, DOS_DATE, true);
    cd.setUint32(16, crc, true);
    cd.setUint32(20, body.length, true);
    cd.setUint32(24, e.data.length, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(38, ((0o100000 | (e.mode ?? 0o644)) << 16) >>> 0, true);
    cd.setUint32(42, offset, true);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + body.length;
  }
  const cdBytes = concat(central);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, cdBytes.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, cdBytes, new Uint8Array(end.buffer)]);
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
