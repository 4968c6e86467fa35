/**
 * Why no browser is connected, when the daemon knows: it logs every extension it turns away (wrong protocol major,
 * another install's secret, an origin not on the allow-list, a failed pairing). doctor reads the log's tail for the
 * latest such refusal since the daemon started and turns it into the precise failure; none means the extension never
 * reached the daemon (not loaded, not paired, or pointed at another port).
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { versionRefusal } from "../../protocol/version-refusal.ts";
import { BskError, hintFor } from "../../protocol/errors.ts";

const TAIL_BYTES = 256 * 1024;

export function readLogTail(path: string, bytes = TAIL_BYTES): string {
  try {
    const size = statSync(path).size;
    const length = Math.min(size, bytes);
    const buf = Buffer.alloc(length);
    const fd = openSync(path, "r");
    try {
      readSync(fd, buf, 0, length, size - length);
    } finally {
      closeSync(fd);
    }
    return buf.toString("utf8");
  } catch {
    return "";
  }
}

interface LogLine {
  ts?: string;
  level?: string;
  msg?: string;
  [field: string]: unknown;
}

/** The latest refusal of an extension logged at or after `since` (the daemon's start), as the error doctor reports. */
export function refusalSince(logText: string, since: string): BskError | undefined {
  const lines = logText.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    let l: LogLine;
    try {
      l = JSON.parse(lines[i]!);
    } catch {
      continue;
    }
    if (typeof l.ts !== "string" || l.ts < since) return undefined;
    const refusal = l.level === "warn" && typeof l.msg === "string" ? asError(l) : undefined;
    if (refusal) return refusal;
  }
  return undefined;
}

function asError(l: LogLine): BskError | undefined {
  const msg = l.msg!;
  if (msg === "extension refused: protocol version") return versionRefusal(String(l.extension_protocol));
  if (msg.startsWith("extension refused: it could not prove")) {
    return new BskError(
      "permission_denied",
      "an extension connected but could not prove it holds this install's secret (paired with another bsk home?)",
      {
        hint: "Pair it with this daemon: run bsk daemon pair and type the code into the extension popup's Pairing field.",
        data: { reason: "untrusted_extension" },
      },
    );
  }
  if (msg.startsWith("pairing refused")) {
    return new BskError("permission_denied", `an extension tried to pair and was refused (${msg.replace(/^pairing refused: /, "")})`, {
      hint: "Pair again: run bsk daemon pair and type the new code into the extension popup's Pairing field within its time.",
    });
  }
  if (msg === "extension connection refused") {
    const origin = typeof l.origin === "string" ? l.origin : "an unknown origin";
    const id = /^chrome-extension:\/\/([a-p]{32})$/.exec(origin)?.[1];
    return new BskError("permission_denied", `the daemon refused a connection from ${origin}: ${String(l.reason ?? "refused")}`, {
      hint: id
        ? `If that is your bsk extension, allow it: bsk daemon allow-extension ${id}`
        : hintFor("permission_denied", "extension_not_allowed"),
      data: { reason: "extension_not_allowed" },
    });
  }
  return undefined;
}
