/**
 * Checks a Mach-O's embedded code signature the way macOS does at launch, minus the certificate: the load commands
 * (LC_CODE_SIGNATURE inside __LINKEDIT, which ends the file), the CodeDirectory (SHA-256, codeLimit at the
 * signature, one hash per page), every page hash, the special slots against the blobs they name, and the
 * executable segment against __TEXT. A CMS signature, when there is one, is not checked (no certificate chain here).
 */
import {
  CS_ADHOC,
  CS_HASHTYPE_SHA256,
  CSMAGIC_CODEDIRECTORY,
  CSMAGIC_EMBEDDED_SIGNATURE,
  CSSLOT_CODEDIRECTORY,
  CSSLOT_INFOSLOT,
  sha256,
  SHA256_SIZE,
} from "./codesign.ts";
import { parseMachO, segment } from "./macho.ts";

export interface Verification {
  ok: boolean;
  /** Each thing found wrong, in words (empty when ok). */
  problems: string[];
  cpu?: "x86_64" | "arm64";
  identifier?: string;
  adhoc?: boolean;
  pages?: number;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

export function verifyCodeSignature(buf: Uint8Array): Verification {
  const problems: string[] = [];
  const done = (extra: Partial<Verification> = {}): Verification => ({ ok: problems.length === 0, problems, ...extra });
  let m: ReturnType<typeof parseMachO>;
  try {
    m = parseMachO(buf);
  } catch (err) {
    problems.push((err as Error).message);
    return done();
  }
  const sig = m.signature;
  if (!sig) {
    problems.push("no LC_CODE_SIGNATURE: unsigned");
    return done({ cpu: m.cpu });
  }
  let linkedit: ReturnType<typeof segment>;
  let text: ReturnType<typeof segment>;
  try {
    linkedit = segment(m, "__LINKEDIT");
    text = segment(m, "__TEXT");
  } catch (err) {
    problems.push((err as Error).message);
    return done({ cpu: m.cpu });
  }
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  if (linkeditEnd !== buf.length) problems.push(`__LINKEDIT ends at ${linkeditEnd}, the file at ${buf.length}`);
  if (BigInt(linkedit.filesize) > linkedit.vmsize)
    problems.push(`__LINKEDIT's vmsize ${linkedit.vmsize} is below its filesize ${linkedit.filesize}`);
  if (sig.dataoff < linkedit.fileoff || sig.dataoff + sig.datasize > linkeditEnd) {
    problems.push(`the signature (${sig.dataoff}+${sig.datasize}) is not inside __LINKEDIT (${linkedit.fileoff}..${linkeditEnd})`);
    return done({ cpu: m.cpu });
  }

  const sb = new DataView(buf.buffer, buf.byteOffset + sig.dataoff, sig.datasize);
  const u32 = (at: number) => (at + 4 <= sb.byteLength ? sb.getUint32(at) : Number.NaN);
  if (u32(0) !== CSMAGIC_EMBEDDED_SIGNATURE) {
    problems.push("the signature is not an embedded-signature SuperBlob");
    return done({ cpu: m.cpu });
  }
  const blobs = new Map<number, Uint8Array>();
  const count = u32(8);
  for (let i = 0; i < count; i++) {
    const type = u32(12 + i * 8);
    const off = u32(16 + i * 8);
    const len = u32(off + 4);
    if (!(off + len <= sig.datasize)) {
      problems.push(`blob ${i} (slot 0x${type.toString(16)}) runs past the signature`);
      return done({ cpu: m.cpu });
    }
    blobs.set(type, buf.subarray(sig.dataoff + off, sig.dataoff + off + len));
  }
  const cdBytes = blobs.get(CSSLOT_CODEDIRECTORY);
  if (!cdBytes || cdBytes.length < 44) {
    problems.push("no CodeDirectory");
    return done({ cpu: m.cpu });
  }
  const cd = new DataView(cdBytes.buffer, cdBytes.byteOffset, cdBytes.byteLength);
  if (cd.getUint32(0) !== CSMAGIC_CODEDIRECTORY) problems.push("the CodeDirectory slot holds no CodeDirectory");
  const version = cd.getUint32(8);
  const flags = cd.getUint32(12);
  const hashOffset = cd.getUint32(16);
  const identOffset = cd.getUint32(20);
  const nSpecial = cd.getUint32(24);
  const nCode = cd.getUint32(28);
  const codeLimit = cd.getUint32(32);
  const hashSize = cd.getUint8(36);
  const hashType = cd.getUint8(37);
  const pageSize = 2 ** cd.getUint8(39);
  const identifier = new TextDecoder().decode(cdBytes.subarray(identOffset, cdBytes.indexOf(0, identOffset)));
  const info = { cpu: m.cpu, identifier, adhoc: (flags & CS_ADHOC) !== 0, pages: nCode };
  if (hashType !== CS_HASHTYPE_SHA256 || hashSize !== SHA256_SIZE) {
    problems.push(`hash type ${hashType} size ${hashSize}, not SHA-256`);
    return done(info);
  }
  if (hashOffset - nSpecial * hashSize < identOffset || hashOffset + nCode * hashSize > cdBytes.length) {
    problems.push("the CodeDirectory's hash slots run outside it");
    return done(info);
  }
  if (codeLimit !== sig.dataoff) problems.push(`codeLimit ${codeLimit} is not the signature's offset ${sig.dataoff}`);
  const limit = Math.min(codeLimit, sig.dataoff);
  const wantPages = Math.ceil(codeLimit / pageSize);
  if (nCode !== wantPages) problems.push(`${nCode} page hashes for ${wantPages} pages`);

  const slot = (i: number) => cdBytes.subarray(hashOffset + i * hashSize, hashOffset + (i + 1) * hashSize);
  const wrong: number[] = [];
  for (let p = 0; p < Math.min(nCode, wantPages); p++) {
    const page = buf.subarray(p * pageSize, Math.min((p + 1) * pageSize, limit));
    if (!same(sha256(page), slot(p))) wrong.push(p);
  }
  if (wrong.length)
    problems.push(
      `${wrong.length} page hash${wrong.length === 1 ? "" : "es"} wrong (pages ${wrong.slice(0, 5).join(", ")}${wrong.length > 5 ? ", …" : ""})`,
    );

  for (let s = 1; s <= nSpecial; s++) {
    const have = slot(-s);
    const data = blobs.get(s);
    // Slot 1 (Info.plist) and 3 (resources) name files beside a bundle: a bare program has none, so zero.
    const want = data && s !== CSSLOT_INFOSLOT ? sha256(data) : new Uint8Array(hashSize);
    if (!same(have, want)) problems.push(`special slot -${s} does not match ${data ? "its blob" : "zero (no such blob)"}`);
  }
  if (version >= 0x20400 && cdBytes.length >= 88) {
    const base = Number(cd.getBigUint64(64));
    const execLimit = Number(cd.getBigUint64(72));
    if (base !== text.fileoff || execLimit !== text.filesize) {
      problems.push(`executable segment ${base}+${execLimit} is not __TEXT (${text.fileoff}+${text.filesize})`);
    }
  }
  return done(info);
}
