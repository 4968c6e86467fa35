import { expect, test } from "bun:test";
import { rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../cli/commands-table.ts";
import { complete, completionScript } from "../../cli/completion.ts";
import { tempDir } from "../temp.ts";

test("completes command words, flags and enum values from the catalog", () => {
  expect(complete(["ta"])).toEqual(["tab"]);
  expect(complete(["tab", ""])).toEqual(expect.arrayContaining(["close", "create", "list", "select"]));
  expect(complete(["tab", "l"])).toEqual(["list"]);
  expect(complete(["navigate", "b"])).toEqual(["back"]);
  expect(complete(["click", "--b"])).toEqual(["--button"]);
  expect(complete(["click", "--button", ""])).toEqual(["left", "middle", "right"]);
  expect(complete(["navigate", "--wait-until", "n"])).toEqual(["networkidle"]);
  expect(complete(["session", "start", "--no"])).toEqual(["--no-borrow", "--no-focus"]);
  expect(complete(["session", "start", "--where", ""])).toEqual(["window", "group"]);
  // A free value (a URL) is left to the shell.
  expect(complete(["navigate", "--session", ""])).toEqual([]);
});

test("every command is reachable by completion, word by word", () => {
  for (const cmd of COMMANDS) {
    for (let i = 0; i < cmd.words.length; i++) {
      expect(complete([...cmd.words.slice(0, i), cmd.words[i]!])).toContain(cmd.words[i]!);
    }
  }
});

test("the bash script completes through `bsk __complete`", async () => {
  const dir = tempDir("bsk-compl-");
  try {
    const main = join(import.meta.dir, "../../cli/main.ts");
    writeFileSync(join(dir, "bsk"), `#!/bin/sh\nexec "${process.execPath}" "${main}" "$@"\n`);
    chmodSync(join(dir, "bsk"), 0o755);
    writeFileSync(join(dir, "bsk.bash"), completionScript("bash"));
    const script = `source ${dir}/bsk.bash; COMP_WORDS=(bsk tab l); COMP_CWORD=2; _bsk_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const proc = Bun.spawn(["bash", "-c", script], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, stdout: "pipe" });
    expect((await new Response(proc.stdout).text()).trim()).toBe("list");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("after --session: the live session ids of a running daemon; nothing (and no daemon started) without one", async () => {
  const { completeLive } = await import("../../cli/completion.ts");
  const { fakeDaemon, makeHome } = await import("./cli-fake-daemon.ts");
  const { homePaths } = await import("../../shared/home.ts");
  const { existsSync } = await import("node:fs");
  const d = fakeDaemon((f) =>
    f.method === "session.list"
      ? {
          result: {
            sessions: [
              { session_id: "k7qm", state: "live" },
              { session_id: "k2ab", state: "taken_over" },
              { session_id: "kold", state: "ended" },
              { session_id: "z9zz", state: "live" },
            ],
          },
        }
      : null,
  );
  try {
    expect(await completeLive(["snapshot", "--session", "k"], d.paths)).toEqual(["k2ab", "k7qm"]);
    expect(await completeLive(["snapshot", "--session", ""], d.paths)).toEqual(["k2ab", "k7qm", "z9zz"]);
    // Not after --session: the catalog's candidates, and the daemon is not asked.
    const asked = d.frames.length;
    expect(await completeLive(["tab", "l"], d.paths)).toEqual(["list"]);
    expect(d.frames.length).toBe(asked);
  } finally {
    d.stop();
  }
  const empty = makeHome();
  try {
    const paths = homePaths(empty, {});
    expect(await completeLive(["snapshot", "--session", ""], paths)).toEqual([]);
    expect(existsSync(paths.socket)).toBe(false);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test("a daemon that does not answer the session list in time: nothing offered", async () => {
  const { completeLive } = await import("../../cli/completion.ts");
  const { fakeDaemon } = await import("./cli-fake-daemon.ts");
  const d = fakeDaemon(() => null);
  try {
    expect(await completeLive(["click", "--session", ""], d.paths)).toEqual([]);
  } finally {
    d.stop();
  }
});
