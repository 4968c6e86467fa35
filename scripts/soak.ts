/**
 * The soak (issue #40): `npm run soak -- --minutes N [--sessions M] [--faults kind,kind|none] [--report bench/soak.json]`. Runs
 * tests/load/soak.ts as its own process (it drives a real Chromium with the real extension through dist/bsk, with
 * faults injected, and records the raw run), then judges the run (scripts/soak/figures.ts) and writes the report
 * (bench/soak.json) and its picture (bench/soak.svg, next to the report), the raw run (soak.raw.json) and the daemon's
 * logs (soak.logs/, not committed). Exits 1 when a figure broke its bar.
 * Not part of npm test.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { summarise } from "./soak/figures.ts";
import type { SoakRun } from "./soak/run.ts";
import { soakSvg } from "./soak/svg.ts";

const ROOT = join(import.meta.dir, "..");
const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "3" },
    sessions: { type: "string", default: "4" },
    /** Only these fault kinds (tests/load/soak/faults.ts), comma-separated, or `none`; default all. */
    faults: { type: "string" },
    report: { type: "string", default: join(ROOT, "bench/soak.json") },
    /** Judge an earlier raw run again (no new run). */
    raw: { type: "string" },
  },
});

let rawPath = values.raw;
if (!rawPath) {
  rawPath = join(tmpdir(), `bsk-soak-${process.pid}.raw.json`);
  const driver = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "tests/load/soak.ts"),
      "--minutes",
      values.minutes!,
      "--sessions",
      values.sessions!,
      ...(values.faults ? ["--faults", values.faults] : []),
      "--out",
      rawPath,
    ],
    { stdout: "inherit", stderr: "inherit", stdin: "ignore" },
  );
  if ((await driver.exited) !== 0) throw new Error("the soak's run failed before it could be judged (see above)");
}
const run = JSON.parse(readFileSync(rawPath, "utf8")) as SoakRun;
const report = summarise(run);
const reportPath = values.report!;
mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(
  reportPath.replace(/\.json$/, ".svg"),
  soakSvg(
    report,
    run.memory,
    run.faults.filter((f) => f.injected),
  ),
);
// The raw run goes with the report: what each figure was computed from.
writeFileSync(reportPath.replace(/\.json$/, ".raw.json"), JSON.stringify(run));
// And the daemon's logs the driver copied (what the run's daemons said, e.g. each collection): next to the report,
// never left in the temporary folder. bench/*.logs is not committed (.gitignore).
const logs = reportPath.replace(/\.json$/, ".logs");
if (!values.raw && existsSync(`${rawPath}.logs`)) {
  rmSync(logs, { recursive: true, force: true });
  cpSync(`${rawPath}.logs`, logs, { recursive: true });
}
if (!values.raw) {
  rmSync(rawPath, { force: true });
  rmSync(`${rawPath}.logs`, { recursive: true, force: true });
}

const { latency_per_minute: _, failures, ...figures } = report;
console.log(JSON.stringify(figures, null, 2));
if (failures.length) {
  console.log(`\n${failures.length} check(s) broken:\n${failures.map((f) => `  ${f}`).join("\n")}`);
  process.exit(1);
}
console.log("\nevery figure at its bar");
