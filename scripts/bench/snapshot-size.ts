/**
 * Snapshot size against Playwright, same pages, same run: o200k tokens of `bsk snapshot` (whole page, header
 * included: what the agent reads) and of Playwright's page.ariaSnapshot({ mode: "ai" }) (playwright-snapshot.mjs,
 * under Node), plus how many of the page's actionable controls (actionable.mjs) each one carries:
 *   - ref lines: lines with a ref (bsk `@eN`, Playwright `[ref=…]`; Playwright puts a ref on nearly every node,
 *     so its count runs above the number of controls);
 *   - named controls found: controls whose text key appears on a line with a ref (a heuristic: controls without
 *     any text cannot be matched and are left out of it).
 * Targets: bsk tokens ≤ 60% of Playwright's, and every actionable control present.
 *
 * A second set, bench/unseen (unseenSizes), holds pages the snapshot code was never tuned on: the same columns plus
 * ref coverage, counted exactly (the page's controls are numbered in the page, and each of bsk's refs is traced back
 * to its element). Target there: ≤ 50% of Playwright's tokens over the set, every control with a ref.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { MARK_ACTIONABLE, MARK_ATTRIBUTE } from "./actionable.mjs";

export interface SizeRow {
  page: string;
  bsk_tokens: number | null;
  playwright_tokens: number | null;
  /** bsk / Playwright */
  ratio: number | null;
  /** Tokens of bsk's header line (tab, title, URL, estimate), a fixed cost that dominates tiny pages. */
  bsk_header_tokens: number | null;
  actionable: number | null;
  bsk_ref_lines: number | null;
  playwright_ref_lines: number | null;
  named_controls: number | null;
  bsk_named_found: number | null;
  playwright_named_found: number | null;
  /** Controls (main frame) whose element carries one of bsk's refs, and all of them: only when asked for. */
  bsk_covered?: number | null;
  covered_of?: number | null;
  note?: string;
}

interface PlaywrightPage {
  url: string;
  snapshot?: string;
  ms?: number;
  controls?: { tag: string; key: string }[];
  error?: string;
}

type Run = (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

async function playwrightSnapshots(chromium: string, urls: string[]): Promise<PlaywrightPage[]> {
  const script = join(import.meta.dir, "playwright-snapshot.mjs");
  const proc = Bun.spawn(["node", script, chromium, ...urls], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`playwright-snapshot.mjs exited ${code}: ${err.split("\n").slice(0, 3).join(" ")}`);
  return JSON.parse(out) as PlaywrightPage[];
}

const refLines = (text: string, ref: RegExp) => text.split("\n").filter((l) => ref.test(l));

function namedFound(lines: string[], keys: string[]): number {
  return keys.filter((k) => lines.some((l) => l.includes(k))).length;
}

export async function snapshotSizes(opts: {
  run: Run;
  session: string;
  chromium: string;
  urls: string[];
  /** Count ref coverage exactly (one get-html per ref). */
  coverage?: boolean;
}): Promise<SizeRow[]> {
  const pw = await playwrightSnapshots(opts.chromium, opts.urls);
  const rows: SizeRow[] = [];
  for (const url of opts.urls) {
    const page = new URL(url).pathname.slice(1);
    const theirs = pw.find((p) => p.url === url);
    const controls = theirs?.controls ?? null;
    const keys = controls ? [...new Set(controls.map((c) => c.key).filter((k) => k.length >= 2))] : [];
    const notes: string[] = [];
    if (theirs?.error) notes.push(`playwright: ${theirs.error}`);

    let ours: string | null = null;
    const nav = await opts.run(["navigate", url, "--session", opts.session, "--timeout", "15s"]);
    const marked =
      opts.coverage && nav.code === 0 ? await opts.run(["evaluate", MARK_ACTIONABLE, "--session", opts.session, "--json"]) : null;
    const snap = nav.code === 0 ? await opts.run(["snapshot", "--max-tokens", "200000", "--session", opts.session, "--json"]) : nav;
    if (snap.code === 0) ours = JSON.parse(snap.stdout).result.text as string;
    else notes.push(`bsk: ${(snap.stdout || snap.stderr).trim().split("\n")[0]!.slice(0, 160)}`);

    const ourRefs = ours !== null ? refLines(ours, /@e\d+/) : null;
    const theirRefs = theirs?.snapshot !== undefined ? refLines(theirs.snapshot, /\[ref=[^\]]+\]/) : null;
    const bskTokens = ours !== null ? countTokens(ours) : null;
    const pwTokens = theirs?.snapshot !== undefined ? countTokens(theirs.snapshot) : null;
    const row: SizeRow = {
      page,
      bsk_tokens: bskTokens,
      playwright_tokens: pwTokens,
      ratio: ratio(bskTokens, pwTokens),
      bsk_header_tokens: ours !== null ? countTokens(ours.split("\n")[0]!) : null,
      actionable: controls?.length ?? null,
      bsk_ref_lines: ourRefs?.length ?? null,
      playwright_ref_lines: theirRefs?.length ?? null,
      named_controls: controls ? keys.length : null,
      bsk_named_found: ourRefs && controls ? namedFound(ourRefs, keys) : null,
      playwright_named_found: theirRefs && controls ? namedFound(theirRefs, keys) : null,
    };
    if (marked && ours !== null) {
      const all = marked.code === 0 ? (JSON.parse(marked.stdout).result.value as unknown[]).length : null;
      row.covered_of = all;
      row.bsk_covered = all === null ? null : await coveredControls(opts, ours);
    }
    if (notes.length) row.note = notes.join("; ");
    rows.push(row);
  }
  rows.push(total(rows));
  return rows;
}

/** How many numbered controls (MARK_ACTIONABLE) carry a ref in `snapshot`: each ref's element, read back with get-html. */
async function coveredControls(opts: { run: Run; session: string }, snapshot: string): Promise<number> {
  const found = new Set<string>();
  const mark = new RegExp(`^<[^>]*\\s${MARK_ATTRIBUTE}="(\\d+)"`);
  for (const ref of new Set(snapshot.match(/@e\d+/g) ?? [])) {
    const r = await opts.run(["get-html", "--ref", ref, "--max-bytes", "1024", "--session", opts.session, "--json"]);
    const k = r.code === 0 ? mark.exec(JSON.parse(r.stdout).result.html as string)?.[1] : undefined;
    if (k !== undefined) found.add(k);
  }
  return found.size;
}

const UNSEEN = join(import.meta.dir, "../../bench/unseen");

/**
 * The unseen set: every page of bench/unseen, served from there on a port of its own for the run (the fixture site
 * serves only the tuned pages), measured like the fixtures plus exact ref coverage. In a session of its own: its refs
 * count from @e1, as Playwright's do, not from where the tuned set left the session's counter (3,000+ refs there,
 * a digit more on every ref), so its total does not move when a fixture page is added.
 */
export async function unseenSizes(opts: { run: Run; chromium: string }): Promise<SizeRow[]> {
  const pages = readdirSync(UNSEEN).filter((f) => /^[\w-]+\.html$/.test(f));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const file = new URL(req.url).pathname.slice(1);
      if (!pages.includes(file)) return new Response("not found", { status: 404 });
      return new Response(readFileSync(join(UNSEEN, file)), { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  const started = await opts.run(["session", "start", "--no-focus"]);
  try {
    if (started.code !== 0) throw new Error(`session start failed: ${started.stderr}`);
    const urls = pages.sort().map((f) => `http://127.0.0.1:${server.port}/${f}`);
    return await snapshotSizes({ ...opts, session: started.stdout.trim(), urls, coverage: true });
  } finally {
    if (started.code === 0) await opts.run(["session", "stop", started.stdout.trim()]);
    server.stop(true);
  }
}

const ratio = (a: number | null, b: number | null) => (a !== null && b ? +(a / b).toFixed(3) : null);

/** All pages together (pages either side could not snapshot are left out). */
function total(rows: SizeRow[]): SizeRow {
  const both = rows.filter((r) => r.bsk_tokens !== null && r.playwright_tokens !== null);
  const sum = (f: (r: SizeRow) => number | null) => (both.every((r) => f(r) !== null) ? both.reduce((n, r) => n + f(r)!, 0) : null);
  return {
    page: `all ${both.length} pages`,
    bsk_tokens: sum((r) => r.bsk_tokens),
    playwright_tokens: sum((r) => r.playwright_tokens),
    ratio: ratio(
      sum((r) => r.bsk_tokens),
      sum((r) => r.playwright_tokens),
    ),
    bsk_header_tokens: sum((r) => r.bsk_header_tokens),
    actionable: sum((r) => r.actionable),
    bsk_ref_lines: sum((r) => r.bsk_ref_lines),
    playwright_ref_lines: sum((r) => r.playwright_ref_lines),
    named_controls: sum((r) => r.named_controls),
    bsk_named_found: sum((r) => r.bsk_named_found),
    playwright_named_found: sum((r) => r.playwright_named_found),
    ...(both.some((r) => r.covered_of !== undefined) && {
      bsk_covered: sum((r) => r.bsk_covered ?? null),
      covered_of: sum((r) => r.covered_of ?? null),
    }),
  };
}

type Col = [string, number, (r: SizeRow) => string];
const coverageCol: Col = ["ref coverage", 13, (r) => (r.covered_of == null ? "-" : `${r.bsk_covered ?? "-"}/${r.covered_of}`)];

export function printSizes(rows: SizeRow[]): void {
  const cols: Col[] = [
    ["page", 26, (r) => r.page],
    ["bsk tok", 9, (r) => String(r.bsk_tokens ?? "-")],
    ["hdr", 5, (r) => String(r.bsk_header_tokens ?? "-")],
    ["pw tok", 9, (r) => String(r.playwright_tokens ?? "-")],
    ["ratio", 7, (r) => (r.ratio === null ? "-" : `${Math.round(r.ratio * 100)}%`)],
    ["controls", 9, (r) => String(r.actionable ?? "-")],
    ["bsk refs", 9, (r) => String(r.bsk_ref_lines ?? "-")],
    ["pw refs", 8, (r) => String(r.playwright_ref_lines ?? "-")],
    [
      "named bsk/pw/all",
      17,
      (r) => (r.named_controls === null ? "-" : `${r.bsk_named_found ?? "-"}/${r.playwright_named_found ?? "-"}/${r.named_controls}`),
    ],
    ...(rows.some((r) => r.covered_of !== undefined) ? [coverageCol] : []),
    ["verdict", 8, verdict],
  ];
  console.log(cols.map(([h, w]) => h.padEnd(w)).join(" "));
  for (const r of rows) {
    console.log(cols.map(([, w, f]) => f(r).padEnd(w)).join(" ") + (r.note ? `  (${r.note})` : ""));
  }
}

/**
 * ok when bsk is ≤ 60% of Playwright's tokens, shows at least as many refs as the page has controls and finds at least
 * as many controls' text keys as Playwright's snapshot does; on the unseen set, ≤ 50% and every control carries a ref.
 * The keys are each control's innerText (actionable.mjs): a container's is its descendants' text run together, which
 * bsk deliberately does not print as a name (snap-names.html, issue #39), so "all keys found" is no goal of its own.
 */
function verdict(r: SizeRow): string {
  if (r.ratio === null || r.bsk_ref_lines === null || r.actionable === null) return "-";
  const small = r.ratio <= (r.covered_of !== undefined ? 0.5 : 0.6);
  const complete =
    r.covered_of !== undefined
      ? r.bsk_covered != null && r.bsk_covered === r.covered_of
      : r.bsk_ref_lines >= r.actionable && (r.named_controls === null || (r.bsk_named_found ?? 0) >= (r.playwright_named_found ?? 0));
  return small && complete ? "ok" : `MISSED${small ? "" : " size"}${complete ? "" : " refs"}`;
}
