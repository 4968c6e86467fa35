/**
 * Just enough of a thin 64-bit Mach-O (little-endian, as macOS on x86_64 and arm64 writes it) to sign it: its CPU,
 * its segments and the LC_CODE_SIGNATURE load command, each with where its fields sit in the file so they can be
 * rewritten in place. Apple's layout: <mach-o/loader.h> (mach_header_64, segment_command_64, linkedit_data_command).
 */

export const MH_MAGIC_64 = 0xfeedfacf;
export const CPU_TYPE_X86_64 = 0x01000007;
export const CPU_TYPE_ARM64 = 0x0100000c;
export const LC_SEGMENT_64 = 0x19;
export const LC_CODE_SIGNATURE = 0x1d;
/** sizeof(mach_header_64) and sizeof(linkedit_data_command). */
export const HEADER_SIZE = 32;
export const LINKEDIT_DATA_SIZE = 16;

export interface Segment {
  name: string;
  /** Where its segment_command_64 starts in the file. */
  cmdOffset: number;
  vmaddr: bigint;
  vmsize: bigint;
  fileoff: number;
  filesize: number;
}

export interface MachO {
  cpu: "x86_64" | "arm64";
  ncmds: number;
  sizeofcmds: number;
  /** MH_EXECUTE (2) for a program. */
  filetype: number;
  segments: Segment[];
  /** LC_CODE_SIGNATURE, when the file has one. */
  signature?: { cmdOffset: number; dataoff: number; datasize: number };
  /** The lowest file offset of any section's data (past the load commands): the room left for a new load command. */
  firstSectionOffset: number;
}

/** Reads the header and load commands; throws (with what is wrong) on anything that is not a thin 64-bit Mach-O. */
export function parseMachO(buf: Uint8Array): MachO {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < HEADER_SIZE || v.getUint32(0, true) !== MH_MAGIC_64) {
    throw new Error("not a thin 64-bit little-endian Mach-O (magic 0xfeedfacf)");
  }
  const cputype = v.getUint32(4, true);
  const cpu = cputype === CPU_TYPE_X86_64 ? "x86_64" : cputype === CPU_TYPE_ARM64 ? "arm64" : undefined;
  if (!cpu) throw new Error(`unsupported CPU type 0x${cputype.toString(16)}`);
  const filetype = v.getUint32(12, true);
  const ncmds = v.getUint32(16, true);
  const sizeofcmds = v.getUint32(20, true);
  if (HEADER_SIZE + sizeofcmds > buf.length) throw new Error("load commands run past the end of the file");
  const segments: Segment[] = [];
  let signature: MachO["signature"];
  let firstSectionOffset = buf.length;
  let at = HEADER_SIZE;
  for (let i = 0; i < ncmds; i++) {
    if (at + 8 > HEADER_SIZE + sizeofcmds) throw new Error(`load command ${i} starts past sizeofcmds`);
    const cmd = v.getUint32(at, true);
    const cmdsize = v.getUint32(at + 4, true);
    if (cmdsize < 8 || at + cmdsize > HEADER_SIZE + sizeofcmds) throw new Error(`load command ${i} has a bad size ${cmdsize}`);
    if (cmd === LC_SEGMENT_64) {
      const name = new TextDecoder().decode(buf.subarray(at + 8, at + 24)).replace(/\0.*$/s, "");
      const fileoff = Number(v.getBigUint64(at + 40, true));
      const filesize = Number(v.getBigUint64(at + 48, true));
      segments.push({
        name,
        cmdOffset: at,
        vmaddr: v.getBigUint64(at + 24, true),
        vmsize: v.getBigUint64(at + 32, true),
        fileoff,
        filesize,
      });
      const nsects = v.getUint32(at + 64, true);
      for (let s = 0; s < nsects; s++) {
        const sect = at + 72 + s * 80;
        const offset = v.getUint32(sect + 48, true);
        const flags = v.getUint32(sect + 64, true);
        // Zero-fill sections (S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL) have no file data.
        const type = flags & 0xff;
        if (offset > 0 && type !== 0x1 && type !== 0xc && type !== 0x12) firstSectionOffset = Math.min(firstSectionOffset, offset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = { cmdOffset: at, dataoff: v.getUint32(at + 8, true), datasize: v.getUint32(at + 12, true) };
    }
    at += cmdsize;
  }
  return { cpu, ncmds, sizeofcmds, filetype, segments, signature, firstSectionOffset };
}

export function segment(m: MachO, name: string): Segment {
  const s = m.segments.find((x) => x.name === name);
  if (!s) throw new Error(`no ${name} segment`);
  return s;
}

/** The VM page size of the CPU: segment sizes in memory are multiples of it. */
export function vmPageSize(m: MachO): number {
  return m.cpu === "arm64" ? 0x4000 : 0x1000;
}
