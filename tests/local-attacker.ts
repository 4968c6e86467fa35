/**
 * A second local user, for attacks from another account on the same machine (CI runs as root: useradd works).
 * Each test file calls localAttacker() once at its top level: it gets a user of its own, removed after that file (one
 * bun process runs many files, so a user made once per process would be gone after the first). Where none can be
 * made, `skipReason` says why and the tests that need one skip with that reason printed.
 */
import { afterAll } from "bun:test";
import { mkdtempSync, chmodSync } from "node:fs";

export interface LocalAttacker {
  name: string;
  uid: number;
  /** Runs argv as the attacker; throws with its stderr when it fails. */
  run(argv: string[]): string;
  /** Symlinks planted by the attacker: every link in `links` points at `target`. */
  plantLinks(target: string, links: string[]): void;
}

function sh(argv: string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, out: r.stdout.toString(), err: r.stderr.toString().trim() };
}

let users = 0;

function make(): LocalAttacker | string {
  if (process.platform !== "linux") return `a second local user is only made on Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "not root: useradd needs root to make a second local user";
  if (!sh(["sh", "-c", "command -v useradd && command -v userdel && command -v runuser"]).ok)
    return "useradd, userdel or runuser is missing";
  const name = `bskatk${process.pid}x${++users}`;
  const made = sh(["useradd", "--no-create-home", "--shell", "/bin/sh", "--user-group", name]);
  if (!made.ok) return `useradd ${name} failed: ${made.err}`;
  afterAll(() => {
    sh(["userdel", name]);
  });
  const uid = Number(sh(["id", "-u", name]).out.trim());
  const run = (argv: string[]) => {
    const r = sh(["runuser", "-u", name, "--", ...argv]);
    if (!r.ok) throw new Error(`as ${name}: ${argv.join(" ")} failed: ${r.err}`);
    return r.out;
  };
  return {
    name,
    uid,
    run,
    plantLinks(target, links) {
      if (links.length) run(["sh", "-c", 'target=$1; shift; for l; do ln -s "$target" "$l" || exit 1; done', "sh", target, ...links]);
    },
  };
}

/** This test file's second user, or why there is none. */
export function localAttacker(): { attacker?: LocalAttacker; skipReason?: string } {
  const got = make();
  if (typeof got === "string") {
    console.log(`skipping the second-user tests: ${got}`);
    return { skipReason: got };
  }
  return { attacker: got };
}

/** A folder both users can write: world-writable, with the sticky bit (like /tmp) or without it. */
export function sharedFolder(sticky: boolean): string {
  const dir = mkdtempSync("/tmp/bsk-shared-");
  chmodSync(dir, sticky ? 0o1777 : 0o777);
  return dir;
}
