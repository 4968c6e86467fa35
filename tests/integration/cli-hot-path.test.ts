/**
 * The CLI's hot path (cli/README.md): what a command that is one daemon round trip loads. The CLI is bundled as the
 * release is (cli/main.ts, split into chunks, macros run), each command runs from that bundle against a real daemon,
 * and a preload records every chunk it loads; the bundle's metafile says which source files each chunk holds and
 * what they import. A round trip must not load zod, consola, the whole command table (commands-table.ts) or a
 * module that imports node:path or node:fs at load, except the two that must read the disk before the first request:
 * the socket's folder check (shared/socket-check.ts, docs/security.md) and the link key (shared/link-key.ts); nor the
 * formatters of other methods (format-page.ts, format-history.ts, format-trace.ts: output.ts holds the round trips').
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir } from "../temp.ts";
import { ROOT, startDaemon, type TestDaemon } from "./harness.ts";

/** Source files a round trip may load although they import node:fs at load: each reads the disk before the call. */
const MAY_READ_DISK = new Set(["shared/socket-check.ts", "shared/link-key.ts"]);

/** Formatters output.ts loads only for an outcome that needs one (a page, a history, a trace). */
const ON_DEMAND_FORMATTERS = ["cli/format-page.ts", "cli/format-history.ts", "cli/format-trace.ts"];

const ROUND_TRIPS = [
  ["status"],
  ["session", "list"],
  ["browsers", "--json"],
  ["tab", "list", "--session", "s1"],
  ["snapshot", "--session", "s1", "--json"],
  ["console", "--session", "s1"],
];

let out: string;
let daemon: TestDaemon;
let inputsOf: Record<string, Record<string, unknown>>;
let importsOf: Record<string, { original?: string; kind: string }[]>;

beforeAll(async () => {
  out = tempDir("bsk-hot-path-");
  const built = await Bun.build({
    entrypoints: [join(ROOT, "cli/main.ts")],
    root: ROOT,
    outdir: join(out, "dist"),
    splitting: true,
    format: "esm",
    target: "bun",
    metafile: true,
  });
  if (!built.success || !built.metafile) throw new Error(`bundle failed: ${built.logs.join("\n")}`);
  inputsOf = Object.fromEntries(Object.entries(built.metafile.outputs).map(([file, o]) => [basename(file), o.inputs]));
  importsOf = Object.fromEntries(Object.entries(built.metafile.inputs).map(([file, i]) => [file, i.imports]));
  // Records every module the bundle resolves (its chunks, static and dynamic), written out at exit.
  writeFileSync(
    join(out, "record.ts"),
    `const seen: string[] = [];
Bun.plugin({ name: "record", setup(b) { b.onResolve({ filter: /.*/ }, (a) => { seen.push(a.path); return undefined as never; }); } });
process.on("exit", () => require("node:fs").writeFileSync(process.env.RECORD_TO!, seen.join("\\n")));
`,
  );
  daemon = await startDaemon();
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  if (daemon) rmSync(daemon.home, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

/** The source files a bundled `bsk <argv>` loaded, and its exit code. */
async function loaded(argv: string[]): Promise<{ files: string[]; code: number; stderr: string }> {
  const recordTo = join(out, `loaded-${argv.join("-")}.txt`);
  const proc = Bun.spawn([process.execPath, "--preload", join(out, "record.ts"), join(out, "dist/cli/main.js"), ...argv], {
    // The bundle has no macros left; no transpiler cache is written for it either.
    env: { ...process.env, BSK_HOME: daemon.home, BSK_AUTO_START: "0", RECORD_TO: recordTo, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    cwd: out,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  const chunks = readFileSync(recordTo, "utf8")
    .split("\n")
    .map((p) => basename(p));
  const files = [...new Set(chunks.flatMap((c) => Object.keys(inputsOf[c] ?? {})))].sort();
  return { files, code, stderr };
}

/** Imports of `file` that load `module` when the file loads (a require() inside a function loads it only if called). */
function importsAtLoad(file: string, module: string): boolean {
  return (importsOf[file] ?? []).some((i) => i.original === module && i.kind === "import-statement");
}

describe("a round trip loads only what its call needs", () => {
  for (const argv of ROUND_TRIPS) {
    test(`bsk ${argv.join(" ")}`, async () => {
      const { files, code, stderr } = await loaded(argv);
      // It did reach the daemon: status, session list and browsers answer; the daemon refuses the rest (no session s1).
      expect(code).toBe(argv.length < 3 ? 0 : 1);
      expect(stderr).not.toContain("not running");
      expect(files).toContain("cli/daemon-client.ts");
      expect(files.filter((f) => f.includes("node_modules/zod/") || f.includes("node_modules/consola/"))).toEqual([]);
      expect(files.filter((f) => f === "cli/commands-table.ts" || f === "protocol/catalog.ts")).toEqual([]);
      expect(files.filter((f) => importsAtLoad(f, "node:path"))).toEqual([]);
      expect(files.filter((f) => importsAtLoad(f, "node:fs") && !MAY_READ_DISK.has(f))).toEqual([]);
      expect(files).toContain("cli/command-index.ts");
      expect(files.filter((f) => ON_DEMAND_FORMATTERS.includes(f))).toEqual([]);
    });
  }

  test("a method whose human output is in another module loads it: bsk ops", async () => {
    const { files, code, stderr } = await loaded(["ops"]);
    expect(code).toBe(0);
    expect(stderr).toContain("no ops");
    expect(files).toEqual(expect.arrayContaining(ON_DEMAND_FORMATTERS));
  });

  test("the whole table is still there for what needs it: help, a typo's suggestion", async () => {
    expect((await loaded(["tab", "--help"])).files).toContain("cli/commands-table.ts");
    const typo = await loaded(["tab", "lst"]);
    expect(typo.files).toContain("cli/commands-table.ts");
    expect(typo.stderr).toContain("Did you mean: bsk tab list?");
  });
});
