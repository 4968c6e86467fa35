/**
 * bsk's entry (and, as `bsk daemon start --foreground`, the daemon's). An agent pays this start-up on every command:
 * `bsk version` and `bsk --version` are answered here before anything else loads; everything else is run.ts, loaded
 * only then (cli/README.md, the hot path).
 */
import { version, versionLine } from "./commands/version.ts";
import { runOnceJit } from "./jit-policy.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "version" || argv[0] === "--version")) console.log(versionLine(version().result));
else {
  runOnceJit();
  process.exit(await (await import("./run.ts")).main(argv, process.env));
}
