/**
 * A session's room for staged files (daemon/transfers.ts): uploads a call has carried give their place back, oldest
 * first, when room is needed; uploads not yet carried and kept downloads never do; the same bytes staged again after
 * theirs was let go get the same transfer id (a retried op sends the same params).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TransferStore } from "../../daemon/transfers.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(): TransferStore {
  const root = mkdtempSync(join(tmpdir(), "bsk-room-"));
  dirs.push(root);
  const s = new TransferStore(join(root, "transfers"), { maxFileBytes: 1024, maxFiles: 3, maxSessionBytes: 4096 });
  s.clearAll();
  return s;
}

const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

async function upload(s: TransferStore, session: string, text: string): Promise<string> {
  const b = s.begin(session, { name: `${text}.txt`, size: text.length, sha256: sha(text) });
  if (!b.complete) {
    s.chunk(session, b.transfer_id, 0, new TextEncoder().encode(text).toBase64());
    await s.finish(session, b.transfer_id, {});
  }
  return b.transfer_id;
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as { data?: { reason?: string } }).data?.reason;
  }
  return "not refused";
};

test("spent uploads give their place back, oldest first; unspent ones and other sessions' never", async () => {
  const s = store();
  const a = await upload(s, "s1", "a");
  const b = await upload(s, "s1", "b");
  const c = await upload(s, "s1", "c");
  await upload(s, "s2", "x");
  // Nothing carried yet: no room.
  expect(refusal(() => s.begin("s1", { name: "d.txt", size: 1, sha256: sha("d") }))).toBe("too_many_files");
  s.spend("s1", [b, a]);
  s.spend("s1", ["t-not-mine"]);
  await upload(s, "s1", "d");
  // The oldest spent one went; the other spent one and the unspent one stay.
  expect(refusal(() => s.info("s1", a))).toBe("no_transfer");
  expect(s.info("s1", b).name).toBe("b.txt");
  expect(s.info("s1", c).name).toBe("c.txt");
  expect(s.size).toBe(4);
});

test("the same bytes staged again after theirs was let go get the same transfer id", async () => {
  const s = store();
  const a = await upload(s, "s1", "a");
  s.spend("s1", [a]);
  for (const t of ["b", "c", "d"]) s.spend("s1", [await upload(s, "s1", t)]);
  expect(refusal(() => s.info("s1", a))).toBe("no_transfer");
  expect(await upload(s, "s1", "a")).toBe(a);
});

test("staged again while still there, a spent upload is carried again and not let go meanwhile", async () => {
  const s = store();
  const a = await upload(s, "s1", "a");
  s.spend("s1", [a]);
  expect(await upload(s, "s1", "a")).toBe(a);
  await upload(s, "s1", "b");
  await upload(s, "s1", "c");
  expect(refusal(() => s.begin("s1", { name: "d.txt", size: 1, sha256: sha("d") }))).toBe("too_many_files");
  expect(s.info("s1", a).name).toBe("a.txt");
});

test("kept downloads are never let go; a download with no room is refused before it starts", async () => {
  const s = store();
  for (const n of [1, 2, 3]) s.begin("s1", { name: `k${n}.bin`, download: { id: `d0000000${n}`, tab_id: 1, url: "http://site.test/" } });
  expect(refusal(() => s.ensureRoom("s1"))).toBe("too_many_files");
  expect(s.downloads("s1")).toHaveLength(3);
});
