/** A process's memory as Linux tells it (/proc), for the tests and load tools that measure the daemon. */
import { readFileSync } from "node:fs";

/** Bytes of anonymous memory in the process's executable mappings: where JavaScriptCore puts the code it compiles. */
export function compiledCodeBytes(pid: number): number {
  let executable = false;
  let bytes = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) /.exec(line);
    if (mapping) executable = mapping[1]!.includes("x");
    else if (executable && line.startsWith("Anonymous:")) bytes += Number(line.split(/\s+/)[1]) * 1024;
  }
  return bytes;
}
