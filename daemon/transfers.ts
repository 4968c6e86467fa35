/**
 * Staged transfers: bytes on their way between the CLI and the extension, kept in a private directory
 * ($BSK_HOME/transfers/<session>/<id>/<name>, dirs 0700, files 0600) under session-scoped opaque ids, with caps on
 * a file's size, the number of files and a session's total. Uploads arrive from the CLI in chunks and are read by
 * the extension; downloads are taken from where the browser saved them; full-page captures arrive from the
 * extension, and so do the downloads a session's tabs start (kept, tagged with their download id, listed by
 * `downloads` and written out by `downloads.save`, under the same caps). Everything of a session goes when the
 * session ends, and everything at daemon start-up.
 */
import { closeSync, copyFileSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { BskError } from "../protocol/errors.ts";
import { TRANSFER_CHUNK_BYTES } from "../protocol/methods/files.ts";
import { removeTree } from "../shared/fs-util.ts";

export interface TransferLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxSessionBytes: number;
}

export const TRANSFER_DEFAULTS: TransferLimits = {
  maxFileBytes: 200 * 1024 * 1024,
  maxFiles: 20,
  maxSessionBytes: 500 * 1024 * 1024,
};

function envInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const n = Number(env[name]);
  return env[name] && Number.isInteger(n) && n > 0 ? n : fallback;
}

export function transferLimits(env: Record<string, string | undefined>): TransferLimits {
  return {
    maxFileBytes: envInt(env, "BSK_TRANSFER_MAX_FILE_BYTES", TRANSFER_DEFAULTS.maxFileBytes),
    maxFiles: envInt(env, "BSK_TRANSFER_MAX_FILES", TRANSFER_DEFAULTS.maxFiles),
    maxSessionBytes: envInt(env, "BSK_TRANSFER_MAX_SESSION_BYTES", TRANSFER_DEFAULTS.maxSessionBytes),
  };
}

interface Entry {
  id: string;
  session: string;
  name: string;
  mime: string;
  path: string;
  /** Declared by begin (uploads); undefined for bytes produced by the extension. */
  declaredSize?: number;
  declaredSha?: string;
  received: number;
  state: "open" | "complete";
  fd: number;
  hasher?: Bun.CryptoHasher;
  sha256?: string;
  /** name/size/sha key of a complete upload, for staging the same bytes once. */
  key?: string;
  /** A download a session's tab started, kept for the agent. */
  download?: { id: string; tab_id: number; url: string; started_at: string };
  /** An upload a call has carried (whatever its outcome): its place is given back when the session needs room. */
  spent?: boolean;
}

/** Spent uploads let go of, remembered per session by their name/size/sha key (see `begin`). */
const LET_GO_KEYS = 1024;

export interface KeptDownload {
  download_id: string;
  tab_id: number;
  url: string;
  name: string;
  mime: string;
  size: number;
  sha256?: string;
  state: "in_progress" | "complete";
  started_at: string;
}

function newId(): string {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return `t${Buffer.from(b).toString("hex")}`;
}

function tooLarge(what: string, limit: number, reason = "file_too_large"): BskError {
  return new BskError("invalid_params", `${what} is over the ${Math.round(limit / 1048576)} MiB limit`, {
    hint: "Transfers are capped (BSK_TRANSFER_MAX_FILE_BYTES, BSK_TRANSFER_MAX_SESSION_BYTES); send a smaller file.",
    data: { reason, limit_bytes: limit },
  });
}

export class TransferStore {
  private readonly entries = new Map<string, Entry>();
  /** Download folders the browser saved into per session (removed when the session ends). */
  private readonly browserDirs = new Map<string, Set<string>>();
  /**
   * Per session, the key → id of spent uploads let go of to make room: the same bytes staged again get their old
   * id back, so a retry with the same op id sends the same params and replays (the newest LET_GO_KEYS; past them a
   * very old op's retry is refused as op_id_reused, never run twice).
   */
  private readonly letGo = new Map<string, Map<string, string>>();

  constructor(
    readonly root: string,
    readonly limits: TransferLimits = TRANSFER_DEFAULTS,
  ) {}

  /** At start-up: nothing staged by an earlier daemon survives it. */
  clearAll(): void {
    removeTree(this.root);
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
  }

  private sessionEntries(session: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.session === session);
  }

  private get(session: string, id: string): Entry {
    const e = this.entries.get(id);
    if (!e || e.session !== session) {
      throw new BskError("not_found", `no staged transfer ${id} in session ${session}`, {
        hint: "Staged files live until their session ends; stage it again.",
        data: { reason: "no_transfer", transfer_id: id },
      });
    }
    return e;
  }

  /**
   * Room for one more file of `size` bytes in the session: spent uploads, oldest first, give their place back as
   * needed; what is still to be used (uploads no call has carried yet, kept downloads) never does.
   */
  private checkRoom(session: string, size: number): void {
    if (size > this.limits.maxFileBytes) throw tooLarge("the file", this.limits.maxFileBytes);
    let mine = this.sessionEntries(session);
    const bytes = (list: Entry[]) => list.reduce((n, e) => n + Math.max(e.received, e.declaredSize ?? 0), 0);
    for (const e of mine.filter((x) => x.spent)) {
      if (mine.length < this.limits.maxFiles && bytes(mine) + size <= this.limits.maxSessionBytes) break;
      this.letGoOf(e);
      mine = mine.filter((x) => x !== e);
    }
    if (mine.length >= this.limits.maxFiles) {
      throw new BskError("invalid_params", `session ${session} already holds ${mine.length} staged files (limit ${this.limits.maxFiles})`, {
        hint: "An upload's files give their place back once a call has used them; downloads the session's tabs started stay until the session ends. Upload fewer files at once, or start a new session (BSK_TRANSFER_MAX_FILES).",
        data: { reason: "too_many_files", limit: this.limits.maxFiles },
      });
    }
    if (bytes(mine) + size > this.limits.maxSessionBytes)
      throw tooLarge("the session's staged files", this.limits.maxSessionBytes, "session_quota");
  }

  /** A spent upload goes to make room; its key keeps its id for the same bytes staged again. */
  private letGoOf(e: Entry): void {
    if (e.key) {
      let keys = this.letGo.get(e.session);
      if (!keys) this.letGo.set(e.session, (keys = new Map()));
      keys.set(e.key, e.id);
      if (keys.size > LET_GO_KEYS) keys.delete(keys.keys().next().value!);
    }
    this.drop(e);
  }

  /** Uploads a call has carried (whatever its outcome): from now on their places may be given back. */
  spend(session: string, ids: string[]): void {
    for (const id of ids) {
      const e = this.entries.get(id);
      if (e?.session === session && !e.download) e.spent = true;
    }
  }

  /** Room for one more file before a call that brings one (a download) acts: refused before anything is clicked. */
  ensureRoom(session: string): void {
    this.checkRoom(session, 0);
  }

  private create(session: string, name: string, mime: string, reuseId?: string): Entry {
    const id = reuseId ?? newId();
    const dir = join(this.root, session, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, name);
    const fd = openSync(path, "wx", 0o600);
    const e: Entry = { id, session, name, mime, path, received: 0, state: "open", fd, hasher: new Bun.CryptoHasher("sha256") };
    this.entries.set(id, e);
    return e;
  }

  begin(
    session: string,
    p: { name: string; size?: number; sha256?: string; mime?: string; download?: { id: string; tab_id: number; url: string } },
  ): { transfer_id: string; complete: boolean; chunk_bytes: number } {
    if (p.download && this.sessionEntries(session).some((e) => e.download?.id === p.download!.id)) {
      throw new BskError("invalid_params", `download ${p.download.id} is already kept`, { data: { reason: "download_exists" } });
    }
    const key = p.size !== undefined && p.sha256 ? `${p.name}\0${p.size}\0${p.sha256}` : undefined;
    if (key) {
      const same = this.sessionEntries(session).find((e) => e.key === key && e.state === "complete");
      if (same) {
        // About to be carried by another call: not given back meanwhile.
        same.spent = false;
        return { transfer_id: same.id, complete: true, chunk_bytes: TRANSFER_CHUNK_BYTES };
      }
    }
    this.checkRoom(session, p.size ?? 0);
    const keys = key ? this.letGo.get(session) : undefined;
    const reuse = key ? keys?.get(key) : undefined;
    if (reuse) keys!.delete(key!);
    const e = this.create(session, p.name, p.mime ?? "", reuse && !this.entries.has(reuse) ? reuse : undefined);
    e.declaredSize = p.size;
    e.declaredSha = p.sha256;
    e.key = key;
    if (p.download) e.download = { ...p.download, started_at: new Date().toISOString() };
    return { transfer_id: e.id, complete: false, chunk_bytes: TRANSFER_CHUNK_BYTES };
  }

  chunk(session: string, id: string, offset: number, data: string): { received: number } {
    const e = this.get(session, id);
    if (e.state !== "open")
      throw new BskError("invalid_params", `transfer ${id} is already complete`, { data: { reason: "transfer_complete" } });
    if (offset !== e.received) {
      throw new BskError("invalid_params", `chunk at ${offset}, but ${e.received} bytes were received`, {
        data: { reason: "chunk_out_of_order", received: e.received },
      });
    }
    const bytes = Uint8Array.fromBase64(data);
    const limit = e.declaredSize ?? this.limits.maxFileBytes;
    if (e.received + bytes.length > limit) {
      this.drop(e);
      if (e.declaredSize !== undefined) {
        throw new BskError("invalid_params", `transfer ${id} got more bytes than the ${e.declaredSize} declared`, {
          data: { reason: "size_mismatch" },
        });
      }
      throw tooLarge("the file", this.limits.maxFileBytes);
    }
    const others = this.sessionEntries(session).reduce((n, x) => (x === e ? n : n + Math.max(x.received, x.declaredSize ?? 0)), 0);
    if (e.declaredSize === undefined && others + e.received + bytes.length > this.limits.maxSessionBytes) {
      this.drop(e);
      throw tooLarge("the session's staged files", this.limits.maxSessionBytes, "session_quota");
    }
    for (let off = 0; off < bytes.length; ) off += writeSync(e.fd, bytes, off);
    e.hasher!.update(bytes);
    e.received += bytes.length;
    return { received: e.received };
  }

  async finish(
    session: string,
    id: string,
    p: { sha256?: string; head?: string },
  ): Promise<{ transfer_id: string; size: number; sha256: string }> {
    const e = this.get(session, id);
    if (e.state === "complete") return { transfer_id: e.id, size: e.received, sha256: e.sha256! };
    let sha: string;
    if (p.head) {
      const head = Uint8Array.fromBase64(p.head);
      if (head.length > e.received)
        throw new BskError("invalid_params", "the header is longer than the file", { data: { reason: "bad_head" } });
      writeSync(e.fd, head, 0, head.length, 0);
      fsyncSync(e.fd);
      sha = await hashFile(e.path);
    } else {
      fsyncSync(e.fd);
      sha = e.hasher!.digest("hex");
    }
    closeSync(e.fd);
    e.fd = -1;
    e.hasher = undefined;
    const wantSha = p.sha256 ?? e.declaredSha;
    if ((e.declaredSize !== undefined && e.received !== e.declaredSize) || (wantSha && wantSha !== sha)) {
      this.drop(e);
      throw new BskError(
        "invalid_params",
        `transfer ${id} does not match what was declared (${e.received} B, sha256 ${sha.slice(0, 12)}…)`,
        {
          hint: "The file changed while it was read; stage it again.",
          data: { reason: "checksum_mismatch", size: e.received, sha256: sha },
        },
      );
    }
    e.state = "complete";
    e.sha256 = sha;
    return { transfer_id: e.id, size: e.received, sha256: sha };
  }

  async read(
    session: string,
    id: string,
    offset: number,
    length: number,
  ): Promise<{ data: string; eof: boolean; size: number; path: string }> {
    const e = this.get(session, id);
    if (e.state !== "complete")
      throw new BskError("invalid_params", `transfer ${id} is not complete yet`, { data: { reason: "transfer_open" } });
    const end = Math.min(e.received, offset + length);
    const bytes = offset >= end ? new Uint8Array(0) : new Uint8Array(await Bun.file(e.path).slice(offset, end).arrayBuffer());
    return { data: bytes.toBase64(), eof: end >= e.received, size: e.received, path: e.path };
  }

  /** The facts of a complete transfer. */
  info(session: string, id: string): { name: string; mime: string; size: number; sha256: string; path: string } {
    const e = this.get(session, id);
    return { name: e.name, mime: e.mime, size: e.received, sha256: e.sha256 ?? "", path: e.path };
  }

  /** The downloads the session's tabs started that are kept (running or complete), oldest first. */
  downloads(session: string): KeptDownload[] {
    return this.sessionEntries(session).flatMap((e) =>
      e.download
        ? [
            {
              download_id: e.download.id,
              tab_id: e.download.tab_id,
              url: e.download.url,
              name: e.name,
              mime: e.mime,
              size: e.received,
              ...(e.sha256 && { sha256: e.sha256 }),
              state: e.state === "complete" ? ("complete" as const) : ("in_progress" as const),
              started_at: e.download.started_at,
            },
          ]
        : [],
    );
  }

  /** A kept download that is complete, with the transfer that holds it. */
  keptDownload(session: string, downloadId: string): KeptDownload & { transfer_id: string } {
    const e = this.sessionEntries(session).find((x) => x.download?.id === downloadId);
    if (!e) {
      throw new BskError("not_found", `session ${session} keeps no download ${downloadId}`, {
        hint: "bsk downloads lists the session's downloads; one that failed (its download event says why) is not kept.",
        data: { reason: "no_download", download_id: downloadId },
      });
    }
    if (e.state !== "complete") {
      throw new BskError("invalid_params", `download ${downloadId} is still arriving (${e.received} B so far)`, {
        hint: "Wait for its download event with state complete (bsk events --type download), then save it.",
        data: { reason: "download_in_progress", download_id: downloadId, size: e.received },
      });
    }
    return { ...this.downloads(session).find((d) => d.download_id === downloadId)!, transfer_id: e.id };
  }

  release(session: string, id: string): { released: boolean } {
    const e = this.entries.get(id);
    if (!e || e.session !== session) return { released: false };
    this.drop(e);
    return { released: true };
  }

  /**
   * Take a file the browser downloaded into `bsk-<session>/` of its own download folder: a regular file (no
   * symlink), within the caps; moved (or copied) into staging and hashed.
   */
  async importDownload(session: string, src: string, mime: string): Promise<{ transfer_id: string; size: number; sha256: string }> {
    const dir = dirname(src);
    if (!isAbsolute(src) || basename(dir) !== `bsk-${session}`) {
      throw new BskError("protocol_error", `the browser saved the download outside the session's folder: ${src}`, {
        data: { reason: "download_path_refused" },
      });
    }
    let dirs = this.browserDirs.get(session);
    if (!dirs) this.browserDirs.set(session, (dirs = new Set()));
    dirs.add(dir);
    const st = lstatSync(src);
    if (!st.isFile() || lstatSync(dir).isSymbolicLink()) {
      throw new BskError("protocol_error", `the downloaded file is not a regular file: ${src}`, {
        data: { reason: "download_path_refused" },
      });
    }
    try {
      this.checkRoom(session, st.size);
    } catch (err) {
      unlinkSync(src);
      throw err;
    }
    const e = this.create(session, basename(src).replace(/^[0-9a-f-]{36}-/, "") || "download", mime);
    closeSync(e.fd);
    e.fd = -1;
    try {
      try {
        renameSync(src, e.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
        copyFileSync(src, e.path);
        unlinkSync(src);
      }
      e.received = lstatSync(e.path).size;
      e.sha256 = await hashFile(e.path);
      e.state = "complete";
      e.hasher = undefined;
    } catch (err) {
      this.drop(e);
      throw err;
    }
    return { transfer_id: e.id, size: e.received, sha256: e.sha256 };
  }

  private drop(e: Entry): void {
    this.entries.delete(e.id);
    if (e.fd >= 0) {
      try {
        closeSync(e.fd);
      } catch {}
      e.fd = -1;
    }
    removeTree(dirname(e.path));
  }

  /** The session ended: its staged files and its (empty) download folders go. */
  dropSession(session: string): void {
    for (const e of this.sessionEntries(session)) this.drop(e);
    removeTree(join(this.root, session));
    this.letGo.delete(session);
    for (const dir of this.browserDirs.get(session) ?? []) {
      try {
        rmdirSync(dir);
      } catch {
        /* not empty (a download the person kept) or already gone */
      }
    }
    this.browserDirs.delete(session);
  }

  get size(): number {
    return this.entries.size;
  }
}

async function hashFile(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  const file = Bun.file(path);
  const step = 8 * 1024 * 1024;
  for (let off = 0, size = file.size; off < size; off += step) h.update(await file.slice(off, off + step).arrayBuffer());
  return h.digest("hex");
}
