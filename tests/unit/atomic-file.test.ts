/**
 * shared/atomic-file.ts, the one way bsk writes a whole file, on the real file system: random exclusive temp
 * names (a name someone planted is never opened), only nothing or a regular file replaced, no temp left behind.
 * Then the in-process writers against a second local user who plants symlinks, in a shared sticky folder and in a
 * shared non-sticky one, at the names the writers used to use (`<out>.<pid>.tmp` and the like): the files the links
 * point at stay as they were.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { checkReplaceable, openAtomic, writeAtomic } from "../../shared/atomic-file.ts";
import { writeFileAtomic } from "../../shared/fs-util.ts";
import { saveFileResult } from "../../cli/file-result.ts";
import { saveJsonFile } from "../../cli/json-file.ts";
import { stage } from "../../cli/update/swap.ts";
import { BskError } from "../../protocol/errors.ts";
import { localAttacker, sharedFolder } from "../local-attacker.ts";
import { tempDir as freshDir } from "../temp.ts";

const { attacker, skipReason } = localAttacker();

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function tempDir(): string {
  const dir = freshDir("bsk-atomic-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function refusal(fn: () => void): BskError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BskError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

function mkfifo(path: string): void {
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
}

describe("the helper", () => {
  test("writes the whole file and leaves only it; temp names are random, hidden and never the pid's", () => {
    const dir = tempDir();
    const path = join(dir, "out.png");
    const a = openAtomic(path, { mode: 0o644, replace: true });
    const b = openAtomic(path, { mode: 0o644, replace: true });
    expect(a.tmp).not.toBe(b.tmp);
    for (const t of [a.tmp, b.tmp]) {
      expect(t.startsWith(`${dir}/.out.png.`)).toBe(true);
      expect(t).not.toContain(String(process.pid));
    }
    b.abort();
    a.write("hello ");
    a.write(new TextEncoder().encode("world"));
    a.commit();
    expect(readFileSync(path, "utf8")).toBe("hello world");
    expect(readdirSync(dir)).toEqual(["out.png"]);
    writeAtomic(path, "again", { mode: 0o644, replace: true });
    expect(readFileSync(path, "utf8")).toBe("again");
    expect(readdirSync(dir)).toEqual(["out.png"]);
  });

  test("replace false keeps an existing file (EEXIST) and leaves no temp", () => {
    const dir = tempDir();
    const path = join(dir, "kept.json");
    writeFileSync(path, "mine");
    let code: string | undefined;
    try {
      writeAtomic(path, "theirs", { mode: 0o644, replace: false });
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code;
    }
    expect(code).toBe("EEXIST");
    expect(readFileSync(path, "utf8")).toBe("mine");
    expect(readdirSync(dir)).toEqual(["kept.json"]);
  });

  test("a FIFO, a socket, a folder, a symbolic link and (as root) a character device are refused and left as they were", () => {
    const dir = tempDir();
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious");
    const targets: { path: string; kind: string; is: (p: string) => boolean }[] = [];
    const fifo = join(dir, "fifo");
    mkfifo(fifo);
    targets.push({ path: fifo, kind: "FIFO", is: (p) => lstatSync(p).isFIFO() });
    const sock = join(dir, "sock");
    const listener = Bun.listen({ unix: sock, socket: { data() {} } });
    cleanups.push(() => listener.stop(true));
    targets.push({ path: sock, kind: "socket", is: (p) => lstatSync(p).isSocket() });
    const folder = join(dir, "folder");
    mkdirSync(folder);
    targets.push({ path: folder, kind: "folder", is: (p) => lstatSync(p).isDirectory() && readdirSync(p).length === 0 });
    const link = join(dir, "link");
    Bun.spawnSync(["ln", "-s", victim, link]);
    targets.push({ path: link, kind: "symbolic link", is: (p) => readlinkSync(p) === victim });
    if (process.getuid?.() === 0) {
      const dev = join(dir, "null");
      expect(Bun.spawnSync(["mknod", dev, "c", "1", "3"]).exitCode).toBe(0);
      targets.push({ path: dev, kind: "character device", is: (p) => lstatSync(p).isCharacterDevice() });
    } else console.log("not root: the character device case is skipped (mknod needs root)");

    const before = readdirSync(dir).sort();
    for (const t of targets) {
      for (const replace of [true, false]) {
        const err = refusal(() => writeAtomic(t.path, "PNG", { mode: 0o644, replace }));
        expect(err.code).toBe("invalid_params");
        expect(err.data).toMatchObject({ reason: "not_regular_file", path: t.path, kind: t.kind });
        expect(err.hint).toContain("regular file");
        expect(t.is(t.path)).toBe(true);
      }
    }
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  test("a target that turns into a FIFO while the file is written is refused at commit; the temp file is gone", () => {
    const dir = tempDir();
    const path = join(dir, "late.png");
    const f = openAtomic(path, { mode: 0o644, replace: true });
    f.write("PNG");
    mkfifo(path);
    expect(refusal(() => f.commit()).data).toMatchObject({ reason: "not_regular_file", kind: "FIFO" });
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(["late.png"]);
  });

  test("checkReplaceable lets nothing and a regular file through", () => {
    const dir = tempDir();
    checkReplaceable(join(dir, "absent"));
    writeFileSync(join(dir, "file"), "x");
    checkReplaceable(join(dir, "file"));
  });
});

/** The names the writers used before: `<out>.<pid>.tmp`, `<out>.bsk-<pid>.tmp`, fs-util's counter, the update's. */
function oldNames(path: string): string[] {
  const pid = process.pid;
  return [
    `${path}.${pid}.tmp`,
    `${path}.bsk-${pid}.tmp`,
    `${path}.update-${pid}`,
    `${path}.tmp-${pid}`,
    ...Array.from({ length: 8 }, (_, i) => `${path}.${pid}.${i + 1}.tmp`),
  ];
}

describe.skipIf(!attacker)(
  `a second local user plants symlinks at the writers' old temp names${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    const writers: { name: string; file: string; write(path: string): void; expected: string | RegExp }[] = [
      {
        name: "screenshot (file result)",
        file: "shot.png",
        write: (path) =>
          saveFileResult(
            { format: "png", data: Buffer.from("PNG bytes").toString("base64") },
            { data: "data", pathParam: "out", overwriteParam: "overwrite", defaultName: "s" },
            { out: path },
            {},
          ),
        expected: "PNG bytes",
      },
      {
        name: "record --out (JSON file)",
        file: "trace.json",
        write: (path) =>
          saveJsonFile(
            { trace: { steps: [] } },
            { data: "trace", pathParam: "out", overwriteParam: "overwrite", defaultName: "r" },
            { out: path },
            {},
          ),
        expected: /"steps": \[\]/,
      },
      { name: "a private state file (fs-util)", file: "state.json", write: (path) => writeFileAtomic(path, "{}"), expected: "{}" },
    ];

    for (const sticky of [true, false]) {
      for (const w of writers) {
        test(`${w.name}, ${sticky ? "sticky" : "non-sticky"} shared folder: the linked-to file is untouched`, () => {
          const mine = tempDir();
          const victim = join(mine, "victim.txt");
          writeFileSync(victim, "precious");
          const shared = sharedFolder(sticky);
          cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
          const out = join(shared, w.file);
          const planted = oldNames(out);
          attacker!.plantLinks(victim, planted);

          w.write(out);

          expect(readFileSync(victim, "utf8")).toBe("precious");
          const text = readFileSync(out, "utf8");
          if (typeof w.expected === "string") expect(text).toBe(w.expected);
          else expect(text).toMatch(w.expected);
          expect(lstatSync(out).isFile()).toBe(true);
          expect(lstatSync(out).uid).toBe(process.getuid!());
          for (const l of planted) expect(readlinkSync(l)).toBe(victim);
          expect(readdirSync(shared).sort()).toEqual([w.file, ...planted.map((p) => p.slice(shared.length + 1))].sort());
        });
      }

      test(`bsk update's staged binary, ${sticky ? "sticky" : "non-sticky"} shared folder: random, exclusive, the linked-to file untouched`, () => {
        const mine = tempDir();
        const victim = join(mine, "victim.txt");
        writeFileSync(victim, "precious");
        const shared = sharedFolder(sticky);
        cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
        const bin = join(shared, "bsk");
        writeFileSync(bin, "old binary");
        chmodSync(bin, 0o755);
        attacker!.plantLinks(victim, oldNames(bin));
        const staged = stage(bin, new TextEncoder().encode("new binary"));
        cleanups.push(() => rmSync(staged, { force: true }));
        expect(readFileSync(victim, "utf8")).toBe("precious");
        expect(readFileSync(staged, "utf8")).toBe("new binary");
        expect(lstatSync(staged).isFile()).toBe(true);
        expect(oldNames(bin)).not.toContain(staged);
      });
    }

    test("a FIFO the attacker made at the --out path in a shared folder is refused, not replaced", () => {
      const shared = sharedFolder(true);
      cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
      const out = join(shared, "fifo.png");
      attacker!.run(["mkfifo", out]);
      expect(existsSync(out)).toBe(true);
      const err = refusal(() => writeAtomic(out, "PNG", { mode: 0o644, replace: true }));
      expect(err.data).toMatchObject({ reason: "not_regular_file", kind: "FIFO" });
      expect(lstatSync(out).isFIFO()).toBe(true);
      expect(readdirSync(shared)).toEqual(["fifo.png"]);
    });
  },
);

describe.skipIf(!attacker)(
  `issue 36 item 12: a folder another user steers is refused by every writer${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    /** A sticky shared folder holding the attacker's own folder and their link to it. */
    function planted(): { shared: string; theirs: string; link: string } {
      const shared = sharedFolder(true);
      cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
      const theirs = join(shared, "theirs");
      attacker!.run(["mkdir", "-m", "0777", theirs]);
      const link = join(shared, "shots");
      attacker!.plantLinks(theirs, [link]);
      return { shared, theirs, link };
    }

    const untrusted = (fn: () => void, folder: string) => {
      const err = refusal(fn);
      expect(err.code).toBe("invalid_params");
      expect(err.data).toMatchObject({ reason: "untrusted_out_folder", folder });
    };

    test("through their link, below it, or into their folder: nothing is written there", () => {
      const { theirs, link } = planted();
      const write = (path: string) => () => writeAtomic(path, "x", { mode: 0o644, replace: true });
      untrusted(write(join(link, "a.png")), link);
      untrusted(write(`${link}/sub/../b.png`), link);
      untrusted(write(join(theirs, "c.png")), theirs);
      untrusted(() => writeFileAtomic(join(link, "state.json"), "{}"), link);
      untrusted(() => checkReplaceable(join(link, "d.png")), link);
      expect(readdirSync(theirs)).toEqual([]);
    });

    test("a folder of the caller's inside a folder anyone may write without the sticky bit is refused", () => {
      const open = sharedFolder(false);
      cleanups.push(() => rmSync(open, { recursive: true, force: true }));
      const mine = join(open, "mine");
      mkdirSync(mine);
      untrusted(() => writeAtomic(join(mine, "a.txt"), "x", { mode: 0o644, replace: true }), mine);
      // Straight into such a folder is fine: the file itself goes in by an exclusive temp name and a rename.
      writeAtomic(join(open, "b.txt"), "x", { mode: 0o644, replace: true });
      expect(readdirSync(open).sort()).toEqual(["b.txt", "mine"]);
    });

    test("the caller's own links and root's folders are followed", () => {
      const base = tempDir();
      mkdirSync(join(base, "real"));
      symlinkSync(join(base, "real"), join(base, "alias"));
      writeAtomic(join(base, "alias", "ok.txt"), "ok", { mode: 0o644, replace: true });
      expect(readFileSync(join(base, "real", "ok.txt"), "utf8")).toBe("ok");
    });
  },
);
