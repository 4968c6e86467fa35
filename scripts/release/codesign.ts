/**
 * An ad-hoc code signature for a thin Mach-O, written on any OS (no codesign, ldid or rcodesign needed): what
 * `codesign --sign -` writes for a bare program. macOS kills a program whose signature does not match its bytes
 * (on arm64, also one with none), and Bun 1.4.5 leaves its darwin-x64 outputs with the template's stale signature.
 *
 * The embedded signature (a SuperBlob at the end of __LINKEDIT, pointed at by LC_CODE_SIGNATURE) holds:
 * - a CodeDirectory: SHA-256 of every 4 KiB page of the file up to the signature (codeLimit), an identifier, and
 *   special slots -1 (Info.plist: none, zero) and -2 (the hash of the requirements blob);
 * - an empty requirements set; an empty CMS blob (ad-hoc: no certificate signs the CodeDirectory).
 * Apple's formats: xnu's osfmk/kern/cs_blobs.h and the Security framework's codedirectory.h (public sources).
 */
import { createHash } from "node:crypto";
import { HEADER_SIZE, LC_CODE_SIGNATURE, LINKEDIT_DATA_SIZE, parseMachO, segment, vmPageSize } from "./macho.ts";

export const CSMAGIC_REQUIREMENTS = 0xfade0c01;
export const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
export const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
export const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
export const CSSLOT_CODEDIRECTORY = 0;
export const CSSLOT_INFOSLOT = 1;
export const CSSLOT_REQUIREMENTS = 2;
export const CSSLOT_SIGNATURESLOT = 0x10000;
export const CS_ADHOC = 0x2;
export const CS_EXECSEG_MAIN_BINARY = 0x1;
export const CS_HASHTYPE_SHA256 = 2;
export const SHA256_SIZE = 32;
export const PAGE_SHIFT = 12;
export const PAGE_SIZE = 1 << PAGE_SHIFT;
/** The CodeDirectory version with the executable-segment fields (what codesign writes today). */
const CD_VERSION = 0x20400;
const CD_HEADER_SIZE = 88;
const MH_EXECUTE = 2;
/** The superblob and each blob start on this boundary. */
const SIGNATURE_ALIGN = 16;

const alignUp = (n: number, to: number) => Math.ceil(n / to) * to;

export function sha256(bytes: Uint8Array): Uint8Array {
  return createHash("sha256").update(bytes).digest();
}

/** The hash of each PAGE_SIZE page of `bytes[0, limit)` (the last page may be short). */
export function pageHashes(bytes: Uint8Array, limit: number, pageSize = PAGE_SIZE): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < limit; at += pageSize) out.push(sha256(bytes.subarray(at, Math.min(at + pageSize, limit))));
  return out;
}

function blob(magic: number, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const b = new Uint8Array(8 + body.length);
  const v = new DataView(b.buffer);
  v.setUint32(0, magic);
  v.setUint32(4, b.length);
  b.set(body, 8);
  return b;
}

/** An empty requirements set: a SuperBlob of requirements with no entries (magic, length 12, count 0). */
export function emptyRequirements(): Uint8Array {
  return blob(CSMAGIC_REQUIREMENTS, new Uint8Array(4));
}

function codeDirectory(o: {
  identifier: string;
  specialSlots: Uint8Array[];
  codeHashes: Uint8Array[];
  codeLimit: number;
  execSegBase: number;
  execSegLimit: number;
  execSegFlags: number;
}): Uint8Array {
  const ident = new TextEncoder().encode(`${o.identifier}\0`);
  const hashOffset = CD_HEADER_SIZE + ident.length + o.specialSlots.length * SHA256_SIZE;
  const cd = new Uint8Array(hashOffset + o.codeHashes.length * SHA256_SIZE);
  const v = new DataView(cd.buffer);
  v.setUint32(0, CSMAGIC_CODEDIRECTORY);
  v.setUint32(4, cd.length);
  v.setUint32(8, CD_VERSION);
  v.setUint32(12, CS_ADHOC);
  v.setUint32(16, hashOffset);
  v.setUint32(20, CD_HEADER_SIZE); // identOffset
  v.setUint32(24, o.specialSlots.length);
  v.setUint32(28, o.codeHashes.length);
  v.setUint32(32, o.codeLimit);
  v.setUint8(36, SHA256_SIZE);
  v.setUint8(37, CS_HASHTYPE_SHA256);
  v.setUint8(38, 0); // platform: not a platform binary
  v.setUint8(39, PAGE_SHIFT);
  // 40 spare2, 44 scatterOffset, 48 teamOffset, 52 spare3, 56 codeLimit64: all zero.
  v.setBigUint64(64, BigInt(o.execSegBase));
  v.setBigUint64(72, BigInt(o.execSegLimit));
  v.setBigUint64(80, BigInt(o.execSegFlags));
  cd.set(ident, CD_HEADER_SIZE);
  // Special slot -n sits n hashes before hashOffset: they are stored from the highest slot number down.
  o.specialSlots.forEach((h, i) => cd.set(h, hashOffset - (i + 1) * SHA256_SIZE));
  o.codeHashes.forEach((h, i) => cd.set(h, hashOffset + i * SHA256_SIZE));
  return cd;
}

function superBlob(entries: [type: number, data: Uint8Array][]): Uint8Array {
  const header = 12 + entries.length * 8;
  const total = entries.reduce((n, [, d]) => n + d.length, header);
  const sb = new Uint8Array(total);
  const v = new DataView(sb.buffer);
  v.setUint32(0, CSMAGIC_EMBEDDED_SIGNATURE);
  v.setUint32(4, total);
  v.setUint32(8, entries.length);
  let at = header;
  entries.forEach(([type, data], i) => {
    v.setUint32(12 + i * 8, type);
    v.setUint32(16 + i * 8, at);
    sb.set(data, at);
    at += data.length;
  });
  return sb;
}

/** The size of the signature that `adhocSign` writes for a file whose code ends at `codeLimit`. */
function signatureSize(identifier: string, codeLimit: number): number {
  const cd = CD_HEADER_SIZE + new TextEncoder().encode(identifier).length + 1 + (2 + Math.ceil(codeLimit / PAGE_SIZE)) * SHA256_SIZE;
  return alignUp(12 + 3 * 8 + cd + emptyRequirements().length + 8, SIGNATURE_ALIGN);
}

/**
 * Returns `input` ad-hoc signed: any signature it carried (Bun's template one) is replaced, LC_CODE_SIGNATURE is
 * added when missing (there must be room before the first section), and __LINKEDIT grows to hold the signature.
 */
export function adhocSign(input: Uint8Array, identifier: string): Uint8Array {
  const m = parseMachO(input);
  const linkedit = segment(m, "__LINKEDIT");
  const text = segment(m, "__TEXT");
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  if (m.segments.some((s) => s !== linkedit && s.fileoff + s.filesize > linkedit.fileoff)) {
    throw new Error("__LINKEDIT is not the last segment in the file");
  }
  if (linkeditEnd > input.length) throw new Error("__LINKEDIT runs past the end of the file");
  let codeEnd: number;
  if (m.signature) {
    const { dataoff, datasize } = m.signature;
    if (dataoff < linkedit.fileoff || dataoff + datasize > linkeditEnd) {
      throw new Error("the existing code signature lies outside __LINKEDIT");
    }
    codeEnd = dataoff;
  } else {
    codeEnd = linkeditEnd;
    if (HEADER_SIZE + m.sizeofcmds + LINKEDIT_DATA_SIZE > m.firstSectionOffset) {
      throw new Error("no room for an LC_CODE_SIGNATURE load command before the first section");
    }
  }
  const codeLimit = alignUp(codeEnd, SIGNATURE_ALIGN);
  const size = signatureSize(identifier, codeLimit);
  if (codeLimit + size > 0xffffffff) throw new Error("too large for a 32-bit code signature offset");

  const out = new Uint8Array(codeLimit + size);
  out.set(input.subarray(0, codeEnd));
  const v = new DataView(out.buffer);
  let cmdOffset = m.signature?.cmdOffset;
  if (cmdOffset === undefined) {
    cmdOffset = HEADER_SIZE + m.sizeofcmds;
    v.setUint32(16, m.ncmds + 1, true);
    v.setUint32(20, m.sizeofcmds + LINKEDIT_DATA_SIZE, true);
    v.setUint32(cmdOffset, LC_CODE_SIGNATURE, true);
    v.setUint32(cmdOffset + 4, LINKEDIT_DATA_SIZE, true);
  }
  v.setUint32(cmdOffset + 8, codeLimit, true);
  v.setUint32(cmdOffset + 12, size, true);
  const linkeditSize = codeLimit + size - linkedit.fileoff;
  v.setBigUint64(linkedit.cmdOffset + 32, BigInt(alignUp(linkeditSize, vmPageSize(m))), true); // vmsize
  v.setBigUint64(linkedit.cmdOffset + 48, BigInt(linkeditSize), true); // filesize

  // The page hashes cover the load commands as rewritten above.
  const requirements = emptyRequirements();
  const cd = codeDirectory({
    identifier,
    specialSlots: [new Uint8Array(SHA256_SIZE), sha256(requirements)], // -1 Info.plist (none), -2 requirements
    codeHashes: pageHashes(out, codeLimit),
    codeLimit,
    execSegBase: text.fileoff,
    execSegLimit: text.filesize,
    execSegFlags: m.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0,
  });
  const sig = superBlob([
    [CSSLOT_CODEDIRECTORY, cd],
    [CSSLOT_REQUIREMENTS, requirements],
    [CSSLOT_SIGNATURESLOT, blob(CSMAGIC_BLOBWRAPPER)],
  ]);
  if (sig.length > size) throw new Error(`signature of ${sig.length} bytes overflows its ${size}`);
  out.set(sig, codeLimit);
  return out;
}
