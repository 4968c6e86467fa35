/**
 * The files bsk writes for the agent, attacked, through dist/bsk and real Chromium.
 * Item 2 of issue 10: a second local user plants symlinks, in a shared sticky folder and in a shared non-sticky
 * one, at the temp names the writers used to use (`<out>.<pid>.tmp`, `<out>.bsk-<pid>.tmp`); bsk is held before
 * it runs (`sh -c 'read; exec bsk …'` keeps the pid) so the links are there first. The file they point at stays as
 * it was, and --out gets the real output.
 * Item 3: an --out that is a FIFO, a device, a socket or a folder is refused with invalid_params
 * (not_regular_file) and left as it was; a download or a recording refused so starts nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localAttacker, sharedFolder } from "../local-attacker.ts";

const { attacker, skipReason } = localAttacker();
import { BSK, startWorld, until, type Run, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";
import { outputOf } from "../run.ts";

let w: World;
let s: string;
let mine: string;
let victim: string;

beforeAll(async () => {
  w = await startWorld({
    prefs: (home) => ({ download: { default_directory: join(home, "browser-downloads"), prompt_for_download: false } }),
  });
  s = await w.startSession();
  mine = join(w.home, "mine");
  mkdirSync(mine);
  victim = join(mine, "victim.txt");
  writeFileSync(victim, "precious");
}, 60_000);

const shared: string[] = [];

afterAll(async () => {
  await w?.stop();
  for (const dir of shared) rmSync(dir, { recursive: true, force: true });
});

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const run = (args: string[]) => w.bsk([...args, "--json"]);

/** dist/bsk with `args`, held until `before(pid)` has run: `exec` keeps the shell's pid, so it is bsk's. */
async function runHeld(args: string[], before: (pid: number) => void): Promise<Run> {
  const proc = Bun.spawn(["/bin/sh", "-c", 'read _ && exec "$@"', "sh", BSK, ...args, "--json"], {
    env: w.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  before(proc.pid);
  proc.stdin.write("go\n");
  proc.stdin.end();
  return outputOf(proc);
}

function result(r: Run): any {
  if (r.code !== 0 || !r.json?.ok) throw new Error(`bsk failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.json.result;
}

function refused(r: Run, path: string, kind: string): void {
  if (r.json?.ok !== false) throw new Error(`expected a refusal, got (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  expect(r.json.error).toMatchObject({ code: "invalid_params", data: { reason: "not_regular_file", path, kind } });
  expect(r.json.error.hint).toContain("regular file");
}

const isPng = (path: string) => [...readFileSync(path).subarray(0, 4)].join() === [0x89, 0x50, 0x4e, 0x47].join();

/** The names the CLI's writers used before, for a process `pid`. */
const oldNames = (out: string, pid: number) => [`${out}.${pid}.tmp`, `${out}.bsk-${pid}.tmp`];

describe.skipIf(!attacker)(
  `item 2: another local user's symlinks at the old temp names${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    beforeAll(async () => {
      await ok(["navigate", w.fixtures.url("/files-download.html")]);
    });

    /** Runs `args` (which write `file` in a fresh shared folder) with the attacker's links planted first. */
    async function attacked(
      sticky: boolean,
      file: string,
      args: (out: string) => string[],
      during?: () => Promise<void>,
    ): Promise<{ out: string; result: any }> {
      const folder = sharedFolder(sticky);
      shared.push(folder);
      const out = join(folder, file);
      let planted: string[] = [];
      const running = runHeld(args(out), (pid) => {
        planted = oldNames(out, pid);
        attacker!.plantLinks(victim, planted);
      });
      await during?.();
      const r = result(await running);
      expect(readFileSync(victim, "utf8")).toBe("precious");
      expect(lstatSync(out).isFile()).toBe(true);
      for (const l of planted) expect(readlinkSync(l)).toBe(victim);
      expect(readdirSync(folder).sort()).toEqual([file, ...planted.map((p) => p.slice(folder.length + 1))].sort());
      return { out, result: r };
    }

    for (const sticky of [true, false]) {
      const where = sticky ? "a sticky shared folder" : "a non-sticky shared folder";

      test(`screenshot --out into ${where}`, async () => {
        const { out } = await attacked(sticky, "shot.png", (o) => ["screenshot", "--out", o, "--session", s]);
        expect(isPng(out)).toBe(true);
      });

      test(`screenshot --full-page --out into ${where}`, async () => {
        const { out, result: r } = await attacked(sticky, "full.png", (o) => ["screenshot", "--full-page", "--out", o, "--session", s]);
        expect(isPng(out)).toBe(true);
        expect(readFileSync(out).length).toBe(r.bytes);
      });

      test(`download --overwrite --out into ${where}`, async () => {
        const { out } = await attacked(sticky, "notes.txt", (o) => ["download", "#small", "--out", o, "--overwrite", "--session", s]);
        expect(readFileSync(out).length).toBe(13);
      });

      test(`record start --out into ${where}`, async () => {
        // Its own URL each time, so the page found is this recording's.
        const marker = `/record-start.html?in=${sticky ? "sticky" : "plain"}`;
        const { out } = await attacked(
          sticky,
          "trace.json",
          (o) => ["record", "start", "--url", w.fixtures.url(marker), "--out", o],
          async () => {
            const page = await PersonPage.find(w.browser.cdpPort!, marker, 20_000);
            await page.waitOverlay("the record panel", (o) => !!o?.panel);
            // The panel can show before the daemon has the extension's answer to record.begin: until then, stop
            // says no_recording and changes nothing.
            await until("record stop to find the recording", async () => (await w.bsk(["record", "stop", "--json"])).json?.ok === true);
          },
        );
        expect(JSON.parse(readFileSync(out, "utf8")).stopped_by).toBe("stop");
      }, 60_000);
    }
  },
);

describe.skipIf(!attacker)(
  `issue 36 item 12: an --out folder another user steers is refused${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    let theirs: string;
    let links: string;
    let ownLink: string;

    beforeAll(async () => {
      // The attacker's own folder, and their link to it inside a folder both users share (sticky, like /tmp).
      const base = sharedFolder(true);
      shared.push(base);
      theirs = join(base, "theirs");
      attacker!.run(["mkdir", "-m", "0777", theirs]);
      links = join(base, "shared");
      mkdirSync(links);
      chmodSync(links, 0o1777);
      attacker!.plantLinks(theirs, [join(links, "shots")]);
      // The caller's own link to a folder of theirs: an ordinary setup, followed.
      mkdirSync(join(base, "mine"));
      ownLink = join(base, "my-shots");
      symlinkSync(join(base, "mine"), ownLink);
      await ok(["navigate", w.fixtures.url("/files-download.html")]);
      await ok(["evaluate", `window.clicks = 0; document.getElementById("small").addEventListener("click", () => window.clicks++)`]);
    });

    const untrusted = (r: Run, out: string, folder: string) => {
      if (r.json?.ok !== false) throw new Error(`expected a refusal, got (exit ${r.code}):\n${r.stdout}${r.stderr}`);
      expect(r.json.error).toMatchObject({ code: "invalid_params", data: { reason: "untrusted_out_folder", path: out, folder } });
      expect(r.json.error.hint).toContain("folder of your own");
    };

    test("screenshot, full-page, download and record start --out through their link, or into their folder", async () => {
      const before = (await w.ok(["session", "list"])).sessions.length;
      const cases: [string, string][] = [
        [join(links, "shots"), join(links, "shots")],
        [`${links}/shots/deeper/..`, join(links, "shots")],
        [theirs, theirs],
      ];
      for (const [dir, folder] of cases) {
        // The CLI names the path as it resolved it (`deeper/..` gone).
        const at = (name: string) => `${dir}/${name}`;
        untrusted(await run(["screenshot", "--out", at("a.png"), "--session", s]), join(dir, "a.png"), folder);
        untrusted(await run(["screenshot", "--full-page", "--out", at("b.png"), "--session", s]), join(dir, "b.png"), folder);
        untrusted(await run(["download", "#small", "--out", at("c.txt"), "--session", s]), join(dir, "c.txt"), folder);
        untrusted(
          await run(["record", "start", "--url", w.fixtures.url("/record-start.html"), "--out", at("d.json")]),
          join(dir, "d.json"),
          folder,
        );
      }
      expect(readdirSync(theirs)).toEqual([]);
      expect((await ok(["evaluate", "window.clicks"])).value).toBe(0);
      expect((await w.ok(["session", "list"])).sessions.length).toBe(before);

      // A download the page started and bsk kept: downloads save writes it nowhere of theirs either.
      await ok(["click", "#small"]);
      const id = await until(
        "the kept download",
        async () => ((await ok(["downloads"])).downloads as any[]).find((d) => d.state === "complete")?.download_id,
      );
      const out = join(links, "shots", "e.txt");
      untrusted(await run(["downloads", "save", id, "--out", out, "--session", s]), out, join(links, "shots"));
      expect(readdirSync(theirs)).toEqual([]);
    });

    test("the caller's own link to their own folder still works", async () => {
      const out = join(ownLink, "shot.png");
      result(await run(["screenshot", "--out", out, "--session", s]));
      expect(isPng(out)).toBe(true);
    });
  },
);

describe("item 3: an --out that is not a regular file is refused and left as it was", () => {
  let dir: string;
  const specials: { path: string; kind: string; is: (p: string) => boolean }[] = [];

  beforeAll(async () => {
    dir = join(w.home, "specials");
    mkdirSync(dir);
    const fifo = join(dir, "fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    specials.push({ path: fifo, kind: "FIFO", is: (p) => lstatSync(p).isFIFO() });
    if (process.getuid?.() === 0) {
      // The machine's /dev/null stands in as its twin here, so a failure cannot break the machine.
      const dev = join(dir, "null");
      expect(Bun.spawnSync(["mknod", "-m", "666", dev, "c", "1", "3"]).exitCode).toBe(0);
      specials.push({ path: dev, kind: "character device", is: (p) => lstatSync(p).isCharacterDevice() });
    } else console.log("not root: the character device cases are skipped (mknod needs root)");
    const link = join(dir, "link");
    Bun.spawnSync(["ln", "-s", victim, link]);
    specials.push({ path: link, kind: "symbolic link", is: (p) => readlinkSync(p) === victim });
    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    await ok(["evaluate", `window.clicks = 0; document.getElementById("small").addEventListener("click", () => window.clicks++)`]);
  });

  const untouched = () => {
    for (const sp of specials) expect(sp.is(sp.path)).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(readdirSync(dir).sort()).toEqual(specials.map((sp) => sp.path.slice(dir.length + 1)).sort());
  };

  test("screenshot and full-page screenshot", async () => {
    for (const sp of specials) {
      refused(await run(["screenshot", "--out", sp.path, "--session", s]), sp.path, sp.kind);
      refused(await run(["screenshot", "--full-page", "--out", sp.path, "--session", s]), sp.path, sp.kind);
    }
    untouched();
  });

  test("download, with and without --overwrite: refused before anything is clicked; a folder too", async () => {
    for (const sp of specials) {
      refused(await run(["download", "#small", "--out", sp.path, "--overwrite", "--session", s]), sp.path, sp.kind);
      refused(await run(["download", "#small", "--out", sp.path, "--session", s]), sp.path, sp.kind);
    }
    const folder = join(w.home, "a-folder");
    mkdirSync(folder);
    refused(await run(["download", "#small", "--out", folder, "--overwrite", "--session", s]), folder, "folder");
    expect(readdirSync(folder)).toEqual([]);
    rmSync(folder, { recursive: true });
    expect((await ok(["evaluate", "window.clicks"])).value).toBe(0);
    untouched();
  });

  test("record start --overwrite: refused before any recording starts", async () => {
    const before = (await w.ok(["session", "list"])).sessions.length;
    for (const sp of specials) {
      refused(
        await run(["record", "start", "--url", w.fixtures.url("/record-start.html"), "--out", sp.path, "--overwrite"]),
        sp.path,
        sp.kind,
      );
    }
    expect((await w.ok(["session", "list"])).sessions.length).toBe(before);
    untouched();
  });
});
