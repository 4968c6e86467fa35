import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../cli/commands-table.ts";
import { complete, completionScript } from "../../cli/completion.ts";

test("completes command words, flags and enum values from the catalog", () => {
  expect(complete(["ta"])).toEqual(["tab"]);
  expect(complete(["tab", ""])).toEqual(expect.arrayContaining(["close", "create", "list", "select"]));
  expect(complete(["tab", "l"])).toEqual(["list"]);
  expect(complete(["navigate", "b"])).toEqual(["back"]);
  expect(complete(["click", "--b"])).toEqual(["--button"]);
  expect(complete(["click", "--button", ""])).toEqual(["left", "middle", "right"]);
  expect(complete(["navigate", "--wait-until", "n"])).toEqual(["networkidle"]);
  expect(complete(["session", "start", "--no"])).toEqual(["--no-focus"]);
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
  const dir = mkdtempSync("/tmp/bsk-compl-");
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
