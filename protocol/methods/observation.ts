import { z } from "zod";
import { method, Target, tabParams } from "../define.ts";
import { CLAUDE_LONG_EDGE } from "../image-tokens.ts";

/** A long-edge limit in image px: models take at most 8000 px a side (2000 when sent many) and shrink past 1568. */
const MaxEdge = () => z.number().int().min(64).max(16_384);

/** What an image is and costs, for an agent that must not send one its model rejects. */
const imageFacts = {
  scale: z.number().describe("Image px per CSS px (device pixel ratio × the max_edge scaling)"),
  claude_tokens: z.number().int().describe("Estimated Claude input tokens of the image (after its downscale to ≤ 1568 px)"),
};

const snapshotParams = () => ({
  ...tabParams(),
  max_tokens: z.number().int().min(200).max(200_000).default(8000).describe("Token budget; the rest comes with --cursor"),
  cursor: z.string().optional().describe("Continue a snapshot cut by --max-tokens (the parts keep the first call's budget)"),
  viewport: z.boolean().default(false).describe("Nodes in the viewport first"),
  diff: z.boolean().default(false).describe("Only what changed since this session's last full snapshot of the tab"),
  max_depth: z.number().int().min(1).max(200).optional().describe("Deepest level to render"),
  max_options: z.number().int().min(1).max(10_000).optional().describe("Options listed per select (default 10; selected ones always)"),
  full_url: z.boolean().default(false).describe("The header's URL with its query string"),
});

const SnapshotResult = () =>
  z.object({
    tab_id: z.number().int(),
    url: z.string(),
    title: z.string(),
    /** The snapshot text, header line first. */
    text: z.string(),
    tokens: z.number().int().describe("Estimated o200k tokens of text"),
    refs: z.number().int().describe("Refs in this part"),
    truncated: z.boolean(),
    cursor: z.string().nullable().describe("Pass to --cursor for the next part; null when complete"),
    diff: z.boolean().optional(),
  });

const snapshotFlags = {
  "max-tokens": { description: "Token budget for this part" },
  cursor: {},
  viewport: {},
  diff: { description: "Only what changed since the last full snapshot of this tab" },
  "max-depth": {},
  "max-options": {},
  "full-url": {},
} as const;

/** Seeing the page: snapshots with refs, search in the last snapshot, screenshots, HTML. */
export const observationMethods = {
  snapshot: method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "tab",
    description: 'The page as indented role "name" lines, with @eN refs on everything actionable (frames and shadow roots inline).',
    params: () => z.object(snapshotParams()),
    result: SnapshotResult,
    cli: {
      words: ["snapshot"],
      flags: snapshotFlags,
      examples: ["bsk snapshot --session $S", "bsk snapshot --max-tokens 2000 --session $S", "bsk snapshot --diff --session $S"],
    },
  }),

  observe: method({
    owner: "extension",
    effect: "TransientInput",
    inputWhen: "probe_hover",
    scope: "tab",
    description: "A snapshot that may also hover to reveal hover-only menus (--probe-hover), which moves the mouse.",
    params: () =>
      z.object({
        ...snapshotParams(),
        probe_hover: z.boolean().default(false).describe("Hover candidates to reveal hover-only menus"),
        probe_ms: z.number().int().min(100).max(10_000).default(1500).describe("Time budget for hover probing"),
      }),
    result: SnapshotResult,
    cli: {
      words: ["observe"],
      flags: {
        ...snapshotFlags,
        "probe-hover": {},
        "probe-time": { param: "probe_ms", type: "duration" },
      },
    },
  }),

  find: method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "tab",
    description: "Search the session's last snapshot of the tab for text or /regex/; returns the matching lines with their refs.",
    params: () =>
      z.object({
        ...tabParams(),
        query: z.string().min(1).describe("Text (case-insensitive) or /regex/flags"),
        limit: z.number().int().min(1).max(500).default(20).describe("Most matches to return"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        matches: z.array(z.object({ line: z.string(), ref: z.string().nullable() })),
        total: z.number().int(),
      }),
    cli: {
      words: ["find"],
      positionals: [{ param: "query", description: "Text or /regex/", required: true, rest: true }],
      flags: { limit: { description: "Most matches to show" } },
      examples: ["bsk find 'Add to cart' --session $S", "bsk find '/^button .*delete/i' --session $S"],
    },
  }),

  screenshot: method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "tab",
    description:
      "Capture the viewport or one element (--ref) as PNG or JPEG into a file; prints its path, size and estimated Claude tokens. --full-page: the whole page (bsk screenshot full-page).",
    mcp: {
      hidden: [],
      description: "Capture the viewport or one element (target) as PNG or JPEG; bsk screenshot full-page: the whole page.",
    },
    params: () =>
      z.object({
        ...tabParams(),
        target: Target().optional(),
        format: z.enum(["png", "jpeg"]).default("png").describe("Image format"),
        quality: z.number().int().min(1).max(100).optional().describe("JPEG quality"),
        max_edge: MaxEdge().optional().describe("Scale down so no side is over this many px"),
        out: z.string().optional().describe("File to write (the CLI writes it; default in the temp dir)"),
        overwrite: z.boolean().default(false).describe("Replace out if it exists"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        format: z.enum(["png", "jpeg"]),
        width: z.number().int(),
        height: z.number().int(),
        bytes: z.number().int(),
        ...imageFacts,
        /** Base64 image; the CLI writes it to `path` and drops it from its output. */
        data: z.string().optional(),
        path: z.string().optional(),
        capture_id: z
          .string()
          .optional()
          .describe("With --ref: for bsk click --capture ID --image-x X --image-y Y (kept 10 minutes, this session only)"),
      }),
    fileResult: { data: "data", pathParam: "out", overwriteParam: "overwrite", defaultName: "bsk-screenshot" },
    cli: {
      words: ["screenshot"],
      flags: {
        ref: { param: "target", description: "Capture only this element (@eN or selector)" },
        format: { description: "Image format" },
        quality: { description: "JPEG quality 1-100" },
        "max-edge": { description: "Scale the image down so no side is over this many px (e.g. 1568)" },
        out: { description: "File to write (a directory: a new file in it)" },
        overwrite: { description: "Replace --out if it exists" },
      },
      variants: { "full-page": ["screenshot", "full-page"] },
      examples: [
        "bsk screenshot --out page.png --session $S",
        "bsk screenshot --ref @e12 --format jpeg --quality 80 --session $S",
        "bsk screenshot --max-edge 1568 --session $S",
      ],
    },
  }),

  "screenshot.full_page": method({
    owner: "extension",
    effect: "TransientInput",
    scope: "tab",
    description:
      "Capture the whole page top to bottom as one PNG, scrolling through it (follow: keep going while the page grows, up to --max-height); --max-edge scales it, --tiles cuts it into model-sized PNGs with their page offsets. Aborted, leaving no file, if the tab navigates, closes, is deactivated or leaves the session.",
    params: () =>
      z.object({
        ...tabParams(),
        scope: z
          .enum(["current", "follow"])
          .default("current")
          .describe("current: the height at the start; follow: keep capturing as the page grows"),
        max_height: z.number().int().min(1).max(200_000).default(100_000).describe("Tallest image in CSS px"),
        quiet_ms: z.number().int().min(100).max(30_000).default(1500).describe("follow: stop once the page has not grown for this long"),
        max_edge: MaxEdge().optional().describe("Scale down so no side (with tiles: of a tile) is over this many px"),
        tiles: z
          .boolean()
          .default(false)
          .describe(`Split into images of at most max_edge px (default ${CLAUDE_LONG_EDGE}) with their page offsets`),
        out: z.string().optional().describe("File to write (the CLI writes it; default in the temp dir)"),
        overwrite: z.boolean().default(false).describe("Replace out if it exists"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        format: z.literal("png"),
        width: z.number().int(),
        height: z.number().int(),
        bytes: z.number().int(),
        sha256: z.string(),
        tiles: z.number().int(),
        ...imageFacts,
        /** Why capturing stopped: the page's end, --max-height, the --max-edge image height, or (follow) no growth for quiet_ms. */
        stopped: z.enum(["end", "max_height", "max_edge"]),
        /**
         * --tiles: the images, top to bottom, each a PNG of its own. On the wire `offset` and `bytes` say where it is in
         * the staged transfer; the CLI writes each to its own file and gives its `path` instead.
         */
        images: z
          .array(
            z.object({
              offset: z.number().int().optional(),
              bytes: z.number().int(),
              path: z.string().optional(),
              x: z.number().int().describe("Page x of the image's left edge, CSS px"),
              y: z.number().int().describe("Page y of the image's top edge, CSS px"),
              width: z.number().int(),
              height: z.number().int(),
              claude_tokens: z.number().int(),
            }),
          )
          .optional(),
        /** Staged PNG the CLI writes to `path` (dropped from its output). */
        transfer_id: z.string().optional(),
        path: z.string().optional(),
      }),
    transfer: {
      download: { pathParam: "out", overwriteParam: "overwrite", defaultName: "bsk-screenshot", ext: "png", tilesParam: "tiles" },
    },
    cli: {
      words: ["screenshot", "full-page"],
      flags: {
        scope: { description: "follow: keep capturing while the page grows" },
        "max-height": {},
        quiet: { param: "quiet_ms", type: "duration", description: "follow: stop after the page has not grown this long" },
        "max-edge": { description: "Scale down so no side (with --tiles: of a tile) is over this many px" },
        tiles: {
          description: `Split into PNGs of at most --max-edge px (default ${CLAUDE_LONG_EDGE}) a side: --out is their folder or name prefix`,
        },
        out: { description: "File to write (a directory: a new file in it)" },
        overwrite: { description: "Replace --out if it exists" },
      },
      defaultTimeoutMs: 120_000,
      examples: [
        "bsk screenshot --full-page --out page.png --session $S",
        "bsk screenshot --full-page --scope follow --session $S",
        "bsk screenshot --full-page --tiles --out shots/page --session $S",
      ],
    },
  }),

  get_html: method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "tab",
    description: "The HTML of the page or of one element (--ref), capped at --max-bytes.",
    params: () =>
      z.object({
        ...tabParams(),
        target: Target().optional(),
        max_bytes: z
          .number()
          .int()
          .min(1024)
          .max(8 * 1024 * 1024)
          .default(512 * 1024)
          .describe("Cap on the returned HTML, in bytes"),
      }),
    result: () => z.object({ tab_id: z.number().int(), html: z.string(), bytes: z.number().int(), truncated: z.boolean() }),
    cli: {
      words: ["get-html"],
      flags: {
        ref: { param: "target", description: "Only this element (@eN or selector)" },
        "max-bytes": { description: "Cap on the returned HTML" },
      },
    },
  }),
};
