/**
 * Files: upload and download, and the transfer plumbing under them. The CLI alone reads upload sources and writes
 * download destinations; the daemon stages bytes under session-scoped opaque transfer ids
 * ($BSK_HOME/transfers/<session>/, kept until the session ends); the extension reads staged bytes by id and builds
 * the files in the page itself. Bytes travel as base64 in chunks of at most TRANSFER_CHUNK_BYTES per frame.
 */
import { z } from "zod";
import { ActedOn, ActionEffect, method, wireMethod, sessionParam, Target, tabParams } from "../define.ts";

/** Raw bytes per chunk frame: 3 MiB is 4 MiB of base64, far below the 16 MiB frame cap. */
export const TRANSFER_CHUNK_BYTES = 3 * 1024 * 1024;
const CHUNK_B64_MAX = Math.ceil(TRANSFER_CHUNK_BYTES / 3) * 4;

const TransferId = () =>
  z
    .string()
    .regex(/^t[0-9a-f]{24}$/)
    .describe("Opaque transfer id from transfer.begin");
const Sha256 = () =>
  z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("SHA-256, lower-case hex");
/** A file name as the page sees it: no directories. */
const FileName = () =>
  z
    .string()
    .min(1)
    .max(255)
    .refine((n) => !/[/\\\0]/.test(n) && n !== "." && n !== "..", "a file name without directories");

/** A staged upload as the extension receives it. */
export const StagedFile = () =>
  z.object({
    transfer_id: TransferId(),
    name: FileName(),
    size: z.number().int().min(0),
    sha256: Sha256(),
    mime: z.string().max(255).default(""),
  });

export const EffectState = () =>
  z.enum(["committed", "none", "unknown"]).describe("committed: it happened; none: nothing happened; unknown: it may have");

const DownloadId = () =>
  z
    .string()
    .regex(/^d[0-9a-f]{8}$/)
    .describe("A kept download's id (its `download` event, the click's effect, bsk downloads)");

/** A download a session's tab started, as the daemon keeps it. */
const KeptDownload = () =>
  z.object({
    download_id: DownloadId(),
    tab_id: z.number().int(),
    url: z.string(),
    name: z.string(),
    mime: z.string(),
    /** Bytes received so far (the whole file once complete). */
    size: z.number().int(),
    sha256: Sha256().optional(),
    state: z.enum(["in_progress", "complete"]),
    started_at: z.string(),
  });

const FileFacts = () => z.object({ name: z.string(), size: z.number().int(), sha256: z.string() });

const TWO_MINUTES = 120_000;

export const fileMethods = {
  upload: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description:
      "Put local files into a page: click the target and fill the file input it activates (--mode input), or drop them on it (--mode drop). The CLI stages the files through the daemon first.",
    params: () =>
      z.object({
        ...tabParams(),
        target: Target(),
        files: z.array(StagedFile()).min(1).max(20).describe("Staged files (the CLI fills this from --file paths)"),
        mode: z
          .enum(["input", "drop"])
          .default("input")
          .describe("input: a file input the click activates; drop: drag and drop onto the target"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        target: ActedOn().nullable(),
        mode: z.enum(["input", "drop"]),
        /** The file input that received the files (input mode). */
        input: ActedOn().nullable(),
        files: z.array(FileFacts()),
        /** How the page got the files: built in the page from staged bytes, or set from staged paths. */
        via: z.enum(["page", "path"]),
        effect: ActionEffect(),
        effect_state: EffectState(),
      }),
    transfer: { upload: "files" },
    cli: {
      words: ["upload"],
      positionals: [
        { param: "target", description: "@eN ref or CSS selector (a file input, its button or label, or a drop zone)", required: true },
      ],
      flags: {
        file: { param: "files", description: "Local file to upload (repeat for several; only into a multiple input)" },
        mode: { description: "input: file input; drop: drag and drop" },
      },
      defaultTimeoutMs: TWO_MINUTES,
      examples: [
        "bsk upload @e7 --file ./cv.pdf --session $S",
        "bsk upload '#dropzone' --mode drop --file a.png --file b.png --session $S",
      ],
    },
  }),

  download: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description:
      "Click the target and save exactly the download that click caused to --out (checked by size and SHA-256, written atomically; an existing file only with --overwrite).",
    params: () =>
      z.object({
        ...tabParams(),
        target: Target(),
        out: z.string().min(1).describe("File to write (the CLI writes it)"),
        overwrite: z.boolean().default(false).describe("Replace out if it exists"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        target: ActedOn().nullable(),
        effect: ActionEffect(),
        url: z.string(),
        /** The file name the site suggested. */
        name: z.string(),
        mime: z.string(),
        size: z.number().int(),
        sha256: Sha256().optional(),
        /** Staged bytes the CLI writes to `path` (dropped from its output). */
        transfer_id: TransferId().optional(),
        /** The extension's account of where the browser saved it; the daemon takes the file from there. */
        local_path: z.string().optional(),
        path: z.string().optional(),
        effect_state: EffectState(),
      }),
    transfer: { download: { pathParam: "out", overwriteParam: "overwrite", outRequired: true, defaultName: "bsk-download" } },
    cli: {
      words: ["download"],
      positionals: [{ param: "target", description: "@eN ref or CSS selector of what starts the download", required: true }],
      flags: {
        out: { description: "File to write (required)" },
        overwrite: { description: "Replace --out if it exists" },
      },
      defaultTimeoutMs: TWO_MINUTES,
      examples: ["bsk download @e9 --out ./report.pdf --session $S"],
    },
  }),

  downloads: method({
    owner: "daemon",
    effect: "PassiveRead",
    scope: "session",
    description:
      "List the downloads the session's tabs started (a click on a download link, a page's script): bsk keeps their bytes in its private folder until the session ends, never in the person's Downloads folder.",
    params: () => z.object({ ...sessionParam() }),
    result: () => z.object({ downloads: z.array(KeptDownload()) }),
    cli: {
      words: ["downloads"],
      examples: ["bsk downloads --session $S"],
    },
  }),

  "downloads.save": method({
    owner: "daemon",
    effect: "PassiveRead",
    scope: "session",
    description:
      "Write a download the session keeps to --out (checked by size and SHA-256, written atomically; an existing file only with --overwrite). It stays kept until the session ends.",
    params: () =>
      z.object({
        ...sessionParam(),
        download_id: DownloadId(),
        out: z.string().min(1).describe("File to write (the CLI writes it)"),
        overwrite: z.boolean().default(false).describe("Replace out if it exists"),
      }),
    result: () =>
      z.object({
        download_id: DownloadId(),
        url: z.string(),
        name: z.string(),
        mime: z.string(),
        size: z.number().int(),
        sha256: Sha256(),
        /** Staged bytes the CLI writes to `path` (dropped from its output). */
        transfer_id: TransferId().optional(),
        path: z.string().optional(),
      }),
    transfer: { download: { pathParam: "out", overwriteParam: "overwrite", outRequired: true, defaultName: "bsk-download", keep: true } },
    cli: {
      words: ["downloads", "save"],
      positionals: [{ param: "download_id", description: "The download's id (bsk downloads, its download event)", required: true }],
      flags: {
        out: { description: "File to write (required)" },
        overwrite: { description: "Replace --out if it exists" },
      },
      examples: ["bsk downloads save d3f9a0c1d --out ./report.pdf --session $S"],
    },
  }),
};

/** Not commands: sent only between bsk's own processes (see `callers`). */
export const fileWireMethods = {
  "transfer.begin": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description:
      "Open a staged transfer in the session: an upload source (size and sha256 known: the same bytes staged again return the same id, complete) or bytes produced by the extension.",
    params: () =>
      z.object({
        ...sessionParam(),
        name: FileName(),
        size: z.number().int().min(0).optional(),
        sha256: Sha256().optional(),
        mime: z.string().max(255).optional(),
        /** Bytes of a download a session's tab started (extension only): kept and listed by `downloads`. */
        download: z.object({ id: DownloadId(), tab_id: z.number().int(), url: z.string().max(4096) }).optional(),
      }),
    result: () =>
      z.object({
        transfer_id: TransferId(),
        /** The same bytes are already staged: send no chunks. */
        complete: z.boolean(),
        chunk_bytes: z.number().int(),
      }),
  }),

  "transfer.chunk": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Append bytes to an open transfer at `offset` (which must be the bytes received so far).",
    params: () =>
      z.object({
        ...sessionParam(),
        transfer_id: TransferId(),
        offset: z.number().int().min(0),
        data: z.string().max(CHUNK_B64_MAX).describe("Base64 bytes"),
      }),
    result: () => z.object({ received: z.number().int() }),
  }),

  "transfer.finish": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Close an open transfer: its size and SHA-256 are checked against what begin declared (or what is given here).",
    params: () =>
      z.object({
        ...sessionParam(),
        transfer_id: TransferId(),
        sha256: Sha256().optional(),
        /** Bytes that replace the start of the file (a PNG header written last, once its height is known). */
        head: z.string().max(4096).optional(),
      }),
    result: () => z.object({ transfer_id: TransferId(), size: z.number().int(), sha256: Sha256() }),
  }),

  "transfer.read": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Read up to `length` bytes of a complete transfer from `offset`.",
    params: () =>
      z.object({
        ...sessionParam(),
        transfer_id: TransferId(),
        offset: z.number().int().min(0).default(0),
        length: z.number().int().min(0).max(TRANSFER_CHUNK_BYTES).default(TRANSFER_CHUNK_BYTES),
      }),
    result: () =>
      z.object({
        data: z.string(),
        eof: z.boolean(),
        size: z.number().int(),
        /** The staged file on the daemon's disk (the extension uses it only when it may read local files). */
        path: z.string(),
      }),
  }),

  "transfer.release": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Drop a staged transfer now instead of at session end.",
    params: () => z.object({ ...sessionParam(), transfer_id: TransferId() }),
    result: () => z.object({ released: z.boolean() }),
  }),
};
