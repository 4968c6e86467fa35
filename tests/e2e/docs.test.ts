/**
 * Docs are tests: every ```sh block of skill/SKILL.md, of README.md's "## A first session" and of docs/usage.md's
 * "## Sessions" section runs against a real
 * browser, each command line in its own `bash -c` — as agent harnesses (Claude Code, Codex) run them, so no variable,
 * `cd` or trap carries over from one line to the next. Every command must exit 0.
 *
 * The docs' placeholders, and what the test puts in their place:
 *   k7qm                      the session id `bsk session start` printed (the docs' example id). A block that uses it
 *                             while no session of the docs is live runs in one the test starts on the example.com page
 *                             (a block continues the lifecycle the first block showed).
 *   https://example.com[/…]   tests/fixtures/pages/docs-example.html (its first snapshot: @e5 a textbox, @e12 a button)
 *   https://example.org[/…]   tests/fixtures/pages/docs-example-org.html
 *   1234                      a tab the person opened in their own window (for `tab borrow`: they click Allow)
 * The person's part, while a command waits for them: `request-help` → they sign in (a click that lands on
 * /dashboard.html); `tab borrow` → they click Allow. A block preceded by `<!-- docs-test: skip: REASON -->` is not
 * run (keep them rare; the reason is printed).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BSK, ROOT, useWorld, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";
import { runProcess, type Ran } from "../run.ts";

const EXAMPLE_SESSION = "k7qm";
const PERSON_TAB = "1234";

interface Block {
  heading: string;
  skip?: string;
  commands: string[];
}

/** The ```sh blocks of `markdown`, each with the nearest heading above it and its command lines. */
export function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  let heading = "(top)";
  let previous = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, "");
    if (line.trim() !== "```sh") {
      if (line.trim() !== "") previous = line.trim();
      continue;
    }
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!);
    const skip = /^<!-- docs-test: skip: (.+) -->$/.exec(previous)?.[1];
    blocks.push({ heading, ...(skip && { skip }), commands: commandLines(body) });
    previous = "";
  }
  return blocks;
}

/** Continuation lines joined; blank and comment-only lines dropped. */
function commandLines(body: string[]): string[] {
  const out: string[] = [];
  let pending = "";
  for (const raw of body) {
    if (raw.endsWith("\\")) {
      pending += raw.slice(0, -1);
      continue;
    }
    const line = (pending + raw).trim();
    pending = "";
    if (line !== "" && !line.startsWith("#")) out.push(line);
  }
  return out;
}

/** `file` from the second-level `heading` up to the next second-level heading. */
function section(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`${file} has no "## ${heading}" section`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

const DOCS: { name: string; blocks: Block[] }[] = [
  { name: "skill/SKILL.md", blocks: shellBlocks(readFileSync(join(ROOT, "skill/SKILL.md"), "utf8")) },
  { name: "README.md ## A first session", blocks: shellBlocks(section("README.md", "A first session")) },
  { name: "docs/usage.md ## Sessions", blocks: shellBlocks(section("docs/usage.md", "Sessions")) },
];

let w: World;
useWorld({}, (world) => (w = world));

/** The docs' session now: the id a documented `session start` printed, or one the test started. */
let live: string | undefined;
let personTab: number | undefined;

async function ensureSession(): Promise<string> {
  if (live) return live;
  live = await w.startSession(["--name", "docs test"]);
  await w.ok(["navigate", w.fixtures.url("/docs-example.html"), "--session", live]);
  return live;
}

async function ensurePersonTab(): Promise<number> {
  personTab ??= await w.person.openInOwnWindow(w.fixtures.url("/borrow-form.html?docs"));
  return personTab;
}

async function substitute(command: string): Promise<string> {
  let out = command
    .replace(/https:\/\/example\.com(\/[^\s'"]*)?/g, w.fixtures.url("/docs-example.html"))
    .replace(/https:\/\/example\.org(\/[^\s'"]*)?/g, w.fixtures.url("/docs-example-org.html"));
  // `session start` makes the id (its comment shows the example one).
  const startsOne = /^bsk session start\b/.test(command);
  if (!startsOne && new RegExp(`\\b${EXAMPLE_SESSION}\\b`).test(out))
    out = out.replace(new RegExp(`\\b${EXAMPLE_SESSION}\\b`, "g"), await ensureSession());
  if (new RegExp(`\\b${PERSON_TAB}\\b`).test(out))
    out = out.replace(new RegExp(`\\b${PERSON_TAB}\\b`, "g"), String(await ensurePersonTab()));
  return out;
}

/** What the person does while `command` waits for them. */
async function personPart(command: string): Promise<void> {
  if (/^bsk request-help\b/.test(command)) {
    const page = await PersonPage.find(w.browser.cdpPort!, "/docs-example.html");
    try {
      await page.waitOverlay("the help panel", (o) => !!o?.panel);
      await page.clickSelector('a[href="/dashboard.html"]');
    } finally {
      page.close();
    }
  } else if (/^bsk tab borrow\b/.test(command)) {
    await w.person.answerConsent(true);
  }
}

/**
 * One line in a shell of its own, as a harness runs it; bsk is found on PATH like an installed one. Its temp folder is
 * the world's own, so what the docs' commands write by default (a screenshot's PNG) goes with the world.
 */
function runLine(line: string): Promise<Ran> {
  const env = { ...w.env, PATH: `${dirname(BSK)}:${w.env.PATH ?? "/usr/bin:/bin"}`, TMPDIR: w.out };
  return runProcess(["bash", "-c", line], { env });
}

async function runCommand(command: string): Promise<void> {
  const line = await substitute(command);
  const [r] = await Promise.all([runLine(line), personPart(command)]);
  if (r.code !== 0) throw new Error(`\`${command}\` (run as \`${line}\`) exited ${r.code}:\n${r.stdout}${r.stderr}`);
  if (process.env.DOCS_TEST_VERBOSE) console.log(`$ ${line}\n${r.stdout}${r.stderr}`);
  if (/^bsk session start\b/.test(command)) {
    live = r.stdout.trim();
    expect(live).toMatch(/^[a-z2-9]{4}$/);
  }
  if (/^bsk session stop\b/.test(command)) live = undefined;
}

for (const doc of DOCS) {
  describe(doc.name, () => {
    test("has shell blocks to run", () => {
      expect(doc.blocks.filter((b) => !b.skip && b.commands.length > 0).length).toBeGreaterThan(0);
    });
    doc.blocks.forEach((block, i) => {
      const name = `block ${i + 1} (${block.heading}): ${block.commands.length} commands, each in its own shell`;
      if (block.skip) {
        console.log(`skipped ${doc.name} ${name}: ${block.skip}`);
        test.skip(name, () => {});
        return;
      }
      test(name, async () => {
        for (const command of block.commands) await runCommand(command);
      }, 120_000);
    });
  });
}

describe("the lifecycle the skill teaches survives separate shells", () => {
  test("SKILL.md shows no trap and no shell variable carrying the session", () => {
    const skill = readFileSync(join(ROOT, "skill/SKILL.md"), "utf8");
    const code = shellBlocks(skill).flatMap((b) => b.commands);
    expect(code.filter((c) => /\btrap\b|\$S\b|\$\{S\}|S=\$\(/.test(c))).toEqual([]);
  });

  test("a session started in one shell is used, waited on and listed from others; stop ends it", async () => {
    const started = await runLine("bsk session start --no-focus --lease 1h --name 'separate shells'");
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    for (const line of [
      `bsk status --session ${id}`,
      `bsk wait 10ms --session ${id}`,
      `bsk browsers --session ${id}`,
      `bsk tab list --session ${id}`,
    ]) {
      const r = await runLine(line);
      if (r.code !== 0) throw new Error(`${line} exited ${r.code}:\n${r.stdout}${r.stderr}`);
    }
    const listed = await runLine(`bsk session list --session ${id} --json`);
    expect(JSON.parse(listed.stdout).result.sessions.map((s: any) => [s.session_id, s.state])).toEqual([[id, "live"]]);
    expect((await runLine(`bsk session stop ${id}`)).code).toBe(0);
    const ended = await runLine(`bsk wait 10ms --session ${id} --json`);
    expect(JSON.parse(ended.stdout).error).toMatchObject({ code: "not_found", data: { reason: "session_ended", end_reason: "stopped" } });
  });

  test("an empty --session (a variable lost between shells) is refused in words, on every kind of command", async () => {
    for (const line of [
      'bsk snapshot --session "$S"',
      'bsk status --session ""',
      'bsk session list --session "$S"',
      'bsk wait 1s --session "$S"',
    ]) {
      const r = await runLine(line);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("--session is empty");
      expect(r.stderr).toContain("session start printed");
      expect(r.stderr).not.toContain("Too small");
    }
  });
});
