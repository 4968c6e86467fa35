/**
 * The one way bsk writes a whole file (CLI outputs, downloads, the update's binary, skill copies, the daemon's
 * state files): a temp file with a random name in the target's folder, opened O_CREAT|O_EXCL|O_NOFOLLOW (a name
 * someone planted, link or not, is never opened), written, fsync'd (not the daemon's often rewritten state: see
 * fs-util.ts), then renamed over the target (or hard-linked, when an existing file must be kept). Only nothing or
 * a regular file is ever replaced: a device, FIFO, socket, symbolic link or folder at the target is refused with
 * `invalid_params` and left as it was; so is a target whose folder is not the caller's or root's all the way down
 * (out-folder.ts), checked before the temp file is opened and again before it is placed.
 * Here in shared/, not protocol/ (wire vocabulary, no I/O), because both the daemon and the CLI write files.
 */
import { closeSync, constants, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BskError } from "../protocol/errors.ts";
import { checkOutFolder } from "./out-folder.ts";

export interface AtomicOptions {
  /** Mode of a new file (the umask applies). */
  mode: number;
  /** true: an existing regular file is replaced; false: it is kept and the commit fails with code EEXIST. */
  replace: boolean;
  /** false: no fsync before the rename (never torn either way; only durability across a power cut is lost). */
  fsync?: boolean;
}

export interface AtomicFile {
  /** The temp file's path, until commit or abort. */
  readonly tmp: string;
  write(data: Uint8Array | string): void;
  /** fsync, close, then put the temp file in place of the target. The temp file is gone either way. */
  commit(): void;
  /** Close and remove the temp file; the target is untouched. */
  abort(): void;
}

const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "folder";
  if (st.isSymbolicLink()) return "symbolic link";
  if (st.isFIFO()) return "FIFO";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  return "special file";
}

/**
 * Refuses (invalid_params) a target whose folder another user could steer (reason untrusted_out_folder), or that
 * exists and is not a regular file (reason not_regular_file).
 */
export function checkReplaceable(path: string): void {
  checkOutFolder(path);
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isFile()) return;
  const kind = kindOf(st);
  throw new BskError("invalid_params", `${path} is a ${kind}: bsk writes only regular files`, {
    hint: "Give a path that does not exist yet or is a regular file; bsk never replaces a device, FIFO, socket, symbolic link or folder.",
    data: { reason: "not_regular_file", path, kind },
  });
}

function tempName(path: string): string {
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("hex");
  // Short enough for NAME_MAX whatever the target's name; hidden so a half-written file is not mistaken for output.
  return join(dirname(path), `.${basename(path).slice(0, 64)}.${random}.tmp`);
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

/**
 * A new, empty temp file beside `path` that no one else could have named: refused at once when `path` exists and
 * is not a regular file. For writers that must use the file before it is placed (the update runs its binary).
 */
export function openTemp(path: string, mode: number): { fd: number; tmp: string } {
  checkReplaceable(path);
  for (let attempt = 0; ; attempt++) {
    const tmp = tempName(path);
    try {
      return { fd: openSync(tmp, OPEN_FLAGS, mode), tmp };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 4) throw err;
    }
  }
}

/** Puts a written, closed temp file in place of `path` (see AtomicOptions.replace); the temp name is gone after. */
export function placeTemp(tmp: string, path: string, replace: boolean): void {
  try {
    // Checked again: the target may have appeared since the temp file was opened.
    checkReplaceable(path);
    if (replace) return renameSync(tmp, path);
    linkSync(tmp, path); // link() never replaces anything, where rename would
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
  removeQuietly(tmp);
}

export function writeAll(fd: number, data: Uint8Array | string): void {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/** Opens a fresh temp file beside `path`, to be written and then committed in its place. */
export function openAtomic(path: string, opts: AtomicOptions): AtomicFile {
  const opened = openTemp(path, opts.mode);
  const { tmp } = opened;
  let fd = opened.fd;
  const close = () => {
    if (fd >= 0) closeSync(fd);
    fd = -1;
  };
  return {
    tmp,
    write: (data) => writeAll(fd, data),
    commit() {
      try {
        if (opts.fsync !== false) fsyncSync(fd);
        close();
      } catch (err) {
        close();
        removeQuietly(tmp);
        throw err;
      }
      placeTemp(tmp, path, opts.replace);
    },
    abort() {
      close();
      removeQuietly(tmp);
    },
  };
}

/** Writes a whole file so readers see the old or the new content, never a torn one. */
export function writeAtomic(path: string, data: Uint8Array | string, opts: AtomicOptions): void {
  const file = openAtomic(path, opts);
  try {
    file.write(data);
  } catch (err) {
    file.abort();
    throw err;
  }
  file.commit();
}
