/**
 * File results (MethodDef.fileResult, e.g. screenshot): the CLI writes the base64 bytes to --out (made absolute
 * against its cwd before the request is sent) or to $TMPDIR/<name>-<timestamp>.<format>, atomically, and prints
 * the path; --json carries path and bytes, never the data. Real CLI entry against a fake daemon.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultPath, saveFileResult } from "../../cli/file-result.ts";
import { absolutePath } from "../../cli/plan.ts";
import { plan } from "../../cli/router.ts";
import { fakeDaemon, type FakeDaemon } from "./cli-fake-daemon.ts";
import { runProcess } from "../run.ts";
import { tempDir as freshDir } from "../temp.ts";

const MAIN = join(import.meta.dir, "../../cli/main.ts");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const SHOT = { tab_id: 3, format: "png", width: 800, height: 600, bytes: PNG.length, data: PNG.toString("base64") };

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function tempDir(): string {
  const dir = freshDir("bsk-file-result-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function daemon(result: unknown = SHOT): FakeDaemon {
  const d = fakeDaemon(() => ({ result }));
  cleanups.push(() => {
    d.stop();
    rmSync(d.home, { recursive: true, force: true });
  });
  return d;
}

async function run(args: string[], d: FakeDaemon, opts: { cwd: string; tmpdir: string }) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BSK_HOME: d.home,
    BSK_AUTO_START: "0",
    TMPDIR: opts.tmpdir,
  };
  delete env.BSK_SESSION;
  return runProcess([process.execPath, MAIN, ...args], { cwd: opts.cwd, env });
}

describe("paths", () => {
  test("absolutePath folds . and .. against the cwd and expands ~/", () => {
    expect(absolutePath("shot.png", "/work/x")).toBe("/work/x/shot.png");
    expect(absolutePath("../a/./b.png", "/work/x")).toBe("/work/a/b.png");
    expect(absolutePath("/abs/c.png", "/work/x")).toBe("/abs/c.png");
    expect(absolutePath("~/d.png", "/work/x", "/home/ada")).toBe("/home/ada/d.png");
  });

  test("plan sends --out absolute; without --out nothing is sent", () => {
    const ids = { traceId: "t", opId: () => "o" };
    const withOut = plan(["screenshot", "--out", "shots/a.png", "--session", "s"], {}, ids, 1, "/work/x");
    expect(withOut).toMatchObject({ kind: "call", params: { out: "/work/x/shots/a.png" } });
    const without = plan(["screenshot", "--session", "s"], {}, ids, 1, "/work/x");
    expect(without.kind === "call" && "out" in without.params).toBe(false);
    expect(() => plan(["screenshot", "--out", " ", "--session", "s"], {}, ids, 1, "/w")).toThrow("--out needs a file path");
  });

  test("--out - is refused (bsk writes files, never stdout by accident), before anything is sent", () => {
    const ids = { traceId: "t", opId: () => "o" };
    for (const args of [
      ["screenshot", "--session", "s"],
      ["record", "start"],
      ["download", "#a", "--overwrite", "--session", "s"],
    ]) {
      let err: unknown;
      try {
        plan([...args, "--out", "-"], {}, ids, 1, "/work/x");
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: "invalid_params", data: { reason: "stdout_not_supported" } });
    }
  });

  test("default names never collide with an existing file", () => {
    const dir = tempDir();
    const now = new Date(2026, 0, 2, 3, 4, 5, 6);
    const first = defaultPath(dir, "bsk-screenshot", "png", now);
    expect(first).toBe(join(dir, "bsk-screenshot-20260102-030405-006.png"));
    saveFileResult(
      { ...SHOT },
      { data: "data", pathParam: "out", overwriteParam: "overwrite", defaultName: "bsk-screenshot" },
      {},
      { TMPDIR: dir },
      now,
    );
    expect(defaultPath(dir, "bsk-screenshot", "png", now)).toBe(join(dir, "bsk-screenshot-20260102-030405-006-2.png"));
  });
});

describe("bsk screenshot through the CLI", () => {
  test("--out relative to the cwd: the bytes land there, stdout is the path, the request carried the absolute path", async () => {
    const cwd = tempDir();
    const d = daemon();
    const r = await run(["screenshot", "--out", "page.png", "--session", "s1"], d, { cwd, tmpdir: tempDir() });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const path = join(cwd, "page.png");
    expect(r.stdout).toBe(`${path}\n`);
    expect(readFileSync(path)).toEqual(PNG);
    expect(d.frames[0]!.params).toEqual({ session_id: "s1", out: path });
    expect(readdirSync(cwd)).toEqual(["page.png"]); // no temp file left behind
  });

  test("an existing --out is refused before the call (nothing sent, file kept); --overwrite replaces it", async () => {
    const cwd = tempDir();
    const path = join(cwd, "page.png");
    writeFileSync(path, "keep me");
    const d = daemon();
    const r = await run(["screenshot", "--out", "page.png", "--session", "s1", "--json"], d, { cwd, tmpdir: tempDir() });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "invalid_params", data: { reason: "out_exists", path } });
    expect(JSON.parse(r.stdout).error.hint).toContain("--overwrite");
    expect(d.frames).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe("keep me");
    const again = await run(["screenshot", "--out", "page.png", "--overwrite", "--session", "s1"], d, { cwd, tmpdir: tempDir() });
    expect(again).toMatchObject({ code: 0, stdout: `${path}\n` });
    expect(readFileSync(path)).toEqual(PNG);
  });

  test("no --out: a fresh file in $TMPDIR; --json has path and bytes and no data", async () => {
    const tmp = tempDir();
    const d = daemon();
    const r = await run(["screenshot", "--session", "s1", "--json"], d, { cwd: tempDir(), tmpdir: tmp });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.result).toEqual({ tab_id: 3, format: "png", width: 800, height: 600, bytes: PNG.length, path: expect.any(String) });
    expect(out.result.path).toMatch(new RegExp(`^${tmp}/bsk-screenshot-\\d{8}-\\d{6}-\\d{3}\\.png$`));
    expect(readFileSync(out.result.path)).toEqual(PNG);
    expect(r.stdout).not.toContain(SHOT.data);
  });

  test("--out naming a directory writes a default name inside it; jpeg keeps its format as extension", async () => {
    const dir = tempDir();
    const d = daemon({ ...SHOT, format: "jpeg" });
    const r = await run(["screenshot", "--out", dir, "--format", "jpeg", "--session", "s1"], d, { cwd: "/", tmpdir: tempDir() });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^${dir}/bsk-screenshot-.*\\.jpeg$`));
  });

  test("--out naming a FIFO, /dev/stdout (a link) or a device: invalid_params not_regular_file, left as it was", async () => {
    const cwd = tempDir();
    const fifo = join(cwd, "pipe.png");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const targets: [string, string][] = [
      [fifo, "FIFO"],
      ["/dev/stdout", "symbolic link"],
    ];
    if (process.getuid?.() === 0) {
      const dev = join(cwd, "null");
      expect(Bun.spawnSync(["mknod", dev, "c", "1", "3"]).exitCode).toBe(0);
      targets.push([dev, "character device"]);
    }
    const d = daemon();
    for (const [out, kind] of targets) {
      const r = await run(["screenshot", "--out", out, "--session", "s1", "--json"], d, { cwd, tmpdir: tempDir() });
      expect(r.code).toBe(1);
      const err = JSON.parse(r.stdout).error;
      expect(err).toMatchObject({ code: "invalid_params", data: { reason: "not_regular_file", path: out, kind } });
      expect(err.hint).toContain("regular file");
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync("/dev/stdout").isSymbolicLink()).toBe(true);
    expect(readdirSync(cwd).sort()).toEqual(targets.length === 3 ? ["null", "pipe.png"] : ["pipe.png"]);
  });

  test("an unwritable --out is an error with a hint, and nothing is left behind", async () => {
    const cwd = tempDir();
    const d = daemon();
    const r = await run(["screenshot", "--out", "missing-dir/page.png", "--session", "s1", "--json"], d, { cwd, tmpdir: tempDir() });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatchObject({
      code: "invalid_params",
      data: { reason: "file_not_written", path: join(cwd, "missing-dir/page.png") },
    });
    expect(out.error.hint).toContain("--out");
    expect(existsSync(join(cwd, "missing-dir"))).toBe(false);
  });
});

describe("redacted params are never echoed", () => {
  test("a fill error's data keeps the value out, human and --json", async () => {
    const d = fakeDaemon(() => ({ error: { code: "stale_ref", message: "ref @e5 is stale", data: { value: "hunter2", ref: "@e5" } } }));
    cleanups.push(() => d.stop());
    const cwd = tempDir();
    for (const json of [false, true]) {
      const r = await run(["fill", "@e5", "hunter2", "--session", "s1", ...(json ? ["--json"] : [])], d, { cwd, tmpdir: cwd });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain("hunter2");
      expect(r.stdout + r.stderr).toContain("@e5");
    }
  });
});
