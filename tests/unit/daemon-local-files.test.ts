/**
 * daemon/local-files.ts on the real file system: which file: URLs a local session may open, judged on the path the
 * OS would open (every component walked, shared/path-walk.ts), and never for a link of a remote device.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { lchownSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answerFileUrl, judgeFileUrl } from "../../daemon/local-files.ts";
import { homePaths } from "../../shared/home.ts";
import { WalkRefused, walkPath } from "../../shared/path-walk.ts";
import { tempDir } from "../temp.ts";

const root = tempDir("bsk-local-files-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, "home");
mkdirSync(join(home, "ledger"), { recursive: true });
writeFileSync(join(home, "trust.key"), "secret");
writeFileSync(join(home, "ledger", "key"), "ledger secret");
const files = join(root, "files");
mkdirSync(join(files, "sub"), { recursive: true });
writeFileSync(join(files, "note.html"), "<p>note</p>");
const secrets = [join(home, "trust.key"), join(home, "ledger", "key")];
const judge = (url: string) => judgeFileUrl(url, home, secrets);
/** A link as another user (or the agent, not root) would own it. */
function othersLink(target: string, path: string): void {
  symlinkSync(target, path);
  if (process.getuid?.() === 0) lchownSync(path, 65534, 65534);
}

describe("judgeFileUrl", () => {
  test("an ordinary file and folder may be opened; the resolved path comes back", () => {
    expect(judge(`file://${files}/note.html`)).toEqual({ rule: null, path: join(files, "note.html") });
    expect(judge(`file://${files}/`).rule).toBeNull();
  });

  test("$BSK_HOME and everything below it, by any name", () => {
    for (const url of [`file://${home}`, `file://${home}/trust.key`, `file://${home}/ledger/`, `file://${files}/../home/trust.key`])
      expect(judge(url).rule).toBe("bsk_home");
    const rootsLink = join(root, "roots-link");
    symlinkSync(home, rootsLink);
    expect(judge(`file://${rootsLink}/ledger/key`).rule).toBe(process.getuid?.() === 0 ? "bsk_home" : "linked_path");
    const hard = join(files, "key.txt");
    linkSync(join(home, "trust.key"), hard);
    expect(judge(`file://${hard}`)).toMatchObject({ rule: "bsk_home", path: hard });
  });

  test("/proc, /sys and /dev, also on the way (/proc/self/root names every path again)", () => {
    for (const url of [
      `file:///proc/self/root${home}/trust.key`,
      `file:///proc/self/root${files}/note.html`,
      "file:///proc/self/environ",
      "file:///sys/kernel",
      "file:///dev/null",
    ])
      expect(judge(url).rule).toBe("system_files");
  });

  test.skipIf(process.getuid?.() !== 0)("a link that is not root's is refused, wherever it points", () => {
    othersLink(files, join(root, "files-link"));
    expect(judge(`file://${root}/files-link/note.html`)).toMatchObject({
      rule: "linked_path",
      detail: expect.stringContaining("files-link"),
    });
  });

  test("what cannot be judged is refused", () => {
    expect(judge(`file://${files}/missing.html`).rule).toBe("unresolved");
    expect(judge("file://elsewhere.example/etc/passwd").rule).toBe("unresolved");
    expect(judge(`file://${files}/a%2Fb`).rule).toBe("unresolved");
    expect(judgeFileUrl(`file://${files}/note.html`, join(root, "no-home"), secrets).rule).toBe("unresolved");
  });
});

describe("answerFileUrl", () => {
  const paths = homePaths(home, {});
  test("answers a local link with the judgement", () => {
    expect(answerFileUrl({ id: 7, method: "system.file_url", params: { url: `file://${home}/trust.key` } }, paths, false)).toMatchObject({
      id: 7,
      result: { rule: "bsk_home" },
    });
  });
  test("a remote device's link is refused: its browser's files are not on the server", () => {
    expect(answerFileUrl({ id: 8, method: "system.file_url", params: { url: `file://${files}/note.html` } }, paths, true)).toMatchObject({
      id: 8,
      error: { code: "permission_denied", data: { reason: "remote_session" } },
    });
  });
});

describe("walkPath", () => {
  test("`..` after a link steps back from the link's target, as the kernel does", () => {
    mkdirSync(join(root, "walk", "x", "y"), { recursive: true });
    mkdirSync(join(root, "walk", "x", "z"));
    symlinkSync(join(root, "walk", "x", "y"), join(root, "walk", "a"));
    const seen: string[] = [];
    expect(
      walkPath(`${root}/walk/a/../z`, ({ path }) => {
        seen.push(path);
        return null;
      }),
    ).toBe(join(root, "walk", "x", "z"));
    expect(seen).toContain(join(root, "walk", "a"));
    expect(() => walkPath(`${root}/walk/a/../z`, ({ st }) => (st.isSymbolicLink() ? "no links" : null))).toThrow(WalkRefused);
  });
});
