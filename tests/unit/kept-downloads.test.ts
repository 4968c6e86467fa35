/**
 * The downloads a session's tabs start, as the daemon keeps them (daemon/transfers.ts): listed per session, saved
 * only when complete, never another session's, under the transfer caps, gone from disk when the session ends.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BskError } from "../../protocol/errors.ts";
import { TransferStore } from "../../daemon/transfers.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(limits = { maxFileBytes: 1024, maxFiles: 3, maxSessionBytes: 4096 }): TransferStore {
  const root = mkdtempSync(join(tmpdir(), "bsk-kept-"));
  dirs.push(root);
  const s = new TransferStore(join(root, "transfers"), limits);
  s.clearAll();
  return s;
}

const meta = (id: string) => ({ id, tab_id: 7, url: `http://site.test/${id}` });

function refused(f: () => unknown): BskError {
  try {
    f();
  } catch (err) {
    if (err instanceof BskError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("kept downloads", () => {
  test("listed while arriving and once complete; saved only when complete, with its SHA-256", async () => {
    const s = store();
    const { transfer_id } = s.begin("s1", { name: "report.bin", mime: "application/octet-stream", download: meta("d00000001") });
    s.chunk("s1", transfer_id, 0, Buffer.from("hello ").toString("base64"));
    expect(s.downloads("s1")).toEqual([expect.objectContaining({ download_id: "d00000001", state: "in_progress", size: 6, tab_id: 7 })]);
    expect(refused(() => s.keptDownload("s1", "d00000001")).data).toMatchObject({ reason: "download_in_progress" });
    s.chunk("s1", transfer_id, 6, Buffer.from("world").toString("base64"));
    const done = await s.finish("s1", transfer_id, {});
    const sha = new Bun.CryptoHasher("sha256").update("hello world").digest("hex");
    expect(done.sha256).toBe(sha);
    expect(s.keptDownload("s1", "d00000001")).toMatchObject({ state: "complete", size: 11, sha256: sha, name: "report.bin", transfer_id });
  });

  test("another session's download is not found; an unknown id neither; an id kept twice is refused", () => {
    const s = store();
    s.begin("s1", { name: "a.bin", download: meta("d00000002") });
    expect(s.downloads("s2")).toEqual([]);
    expect(refused(() => s.keptDownload("s2", "d00000002"))).toMatchObject({ code: "not_found" });
    expect(refused(() => s.keptDownload("s1", "d0000000f")).data).toMatchObject({ reason: "no_download" });
    expect(refused(() => s.begin("s1", { name: "b.bin", download: meta("d00000002") })).data).toMatchObject({ reason: "download_exists" });
  });

  test("a page that downloads without end hits the session's caps; the session's end takes everything off the disk", () => {
    const s = store();
    const paths: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const { transfer_id } = s.begin("s1", { name: `f${i}.bin`, download: meta(`d0000001${i}`) });
      paths.push(s.info("s1", transfer_id).path);
    }
    expect(refused(() => s.begin("s1", { name: "f4.bin", download: meta("d00000014") })).data).toMatchObject({ reason: "too_many_files" });
    const big = s.begin("s2", { name: "big.bin", download: meta("d00000020") });
    expect(refused(() => s.chunk("s2", big.transfer_id, 0, Buffer.alloc(2048).toString("base64"))).data).toMatchObject({
      reason: "file_too_large",
    });
    expect(s.downloads("s2")).toEqual([]);
    s.dropSession("s1");
    expect(s.downloads("s1")).toEqual([]);
    for (const p of paths) expect(existsSync(p)).toBe(false);
  });
});
