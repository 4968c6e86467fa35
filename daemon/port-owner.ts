/**
 * Who listens on a TCP port, for the error of a daemon that could not take it. Linux only: the listening
 * socket's inode from /proc/net/tcp{,6}, then the process whose /proc/<pid>/fd holds it (only processes
 * this user may inspect are found). Elsewhere, or when not found, undefined.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";

export interface PortOwner {
  pid: number;
  command: string;
  /** BSK_HOME of that process, when it is a bsk daemon that has one in its environment. */
  home?: string;
}

const LISTEN = "0A";

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[1]!.endsWith(`:${hexPort}`) && cols[3] === LISTEN && cols[9] !== "0") inodes.add(cols[9]!);
    }
  }
  return inodes;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function describe(pid: number): PortOwner {
  const command = readOr(`/proc/${pid}/cmdline`).split("\0").filter(Boolean).join(" ");
  const home = readOr(`/proc/${pid}/environ`)
    .split("\0")
    .find((v) => v.startsWith("BSK_HOME="))
    ?.slice("BSK_HOME=".length);
  return { pid, command, ...(home && { home }) };
}

export function portOwner(port: number): PortOwner | undefined {
  if (process.platform !== "linux") return undefined;
  const inodes = listeningInodes(port);
  if (!inodes.size) return undefined;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) return describe(Number(entry));
    }
  }
  return undefined;
}

/** The error of a daemon whose gateway port is taken: the port, and who holds it where that is knowable. */
export function portInUse(port: number): BskError {
  const owner = portOwner(port);
  const bsk = owner && /\bdaemon start\b|\/daemon\/main\.ts\b/.test(owner.command);
  const who = !owner
    ? ""
    : bsk
      ? ` by another bsk daemon (pid ${owner.pid}${owner.home ? `, BSK_HOME ${owner.home}` : ""})`
      : ` by pid ${owner.pid} (${owner.command || "unknown command"})`;
  const stop = bsk
    ? `Stop that daemon (bsk daemon stop with ${owner.home ? `BSK_HOME=${owner.home}` : "its BSK_HOME"}, or kill ${owner.pid})`
    : owner
      ? `Stop pid ${owner.pid}`
      : "Stop what holds it";
  return new BskError("unsupported", `port ${port} on 127.0.0.1 is already in use${who}`, {
    hint: `${stop}, or pick another port with BSK_PORT (and set the same port in the extension's popup).`,
    data: { reason: "port_in_use", port, ...(owner && { pid: owner.pid, command: owner.command, home: owner.home }) },
  });
}
