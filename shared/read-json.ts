/**
 * A small JSON file read whole. node:fs is required when it reads, not at load: the CLI's call path reads
 * update-state.json and daemon.json with it after the socket check has loaded node:fs, where Bun.file's first
 * asynchronous read would cost ~2 ms more (cli/README.md, the hot path).
 */

/** Parsed JSON of a file, or undefined when it is missing or unreadable. */
export function readJsonFile(path: string): unknown {
  const fs = require("node:fs") as typeof import("node:fs");
  let text: string;
  try {
    // A missing file is the common case (no daemon, no update check yet): existsSync spares the thrown error (~0.2 ms).
    if (!fs.existsSync(path)) return undefined;
    text = fs.readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
