/**
 * The windows-x64 lane's update proof: `bsk.exe update` replaces the bsk.exe it runs from while that exe's daemon
 * runs (Windows renames a running exe aside, never overwrites it: cli/update/swap.ts), against a release served
 * here and signed with a key made here. Two bsk.exe are built for it that trust that key (0.1.0-wine and
 * 0.1.1-wine; the lane's own bsk.exe trusts only the real release key). The tamper cases of
 * tests/integration/update.test.ts run against the running exe first and must leave it and its daemon untouched.
 */
import { generateKeyPairSync } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { buildBinary } from "../build.ts";
import { publicKeyOf, sha256Hex, signBytes, writeRelease } from "../release/pack.ts";
import { bsk, expectThat, json, linuxPath, ok, type Wine } from "./wine.ts";

const OLD = "0.1.0-wine";
const NEW = "0.1.1-wine";

export interface UpdateBuild {
  oldExe: string;
  newExe: string;
  keyPem: string;
}

/** The two test-key bsk.exe, built while the lane's other steps run. */
export async function buildUpdateBinaries(scratch: string): Promise<UpdateBuild> {
  const keyPem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const pub = publicKeyOf(keyPem);
  const oldExe = join(scratch, "build-old/bsk.exe");
  const newExe = join(scratch, "build-new/bsk.exe");
  await Promise.all([
    buildBinary("bun-windows-x64", oldExe, { BUILD_APP_VERSION: OLD, BUILD_RELEASE_PUBKEY: pub }),
    buildBinary("bun-windows-x64", newExe, { BUILD_APP_VERSION: NEW, BUILD_RELEASE_PUBKEY: pub }),
  ]);
  return { oldExe, newExe, keyPem };
}

/**
 * One signed release of NEW, made by the release's own packaging with relative asset URLs (a mirror's), served
 * under /<name>/ of a local server as good; as tampered (the same signed manifest, the archive changed after
 * signing: a mirror or a network in between) and as otherkey (the same manifest signed by another key).
 */
function serveReleases(scratch: string, b: UpdateBuild): { url: (name: string) => string; stop: () => void } {
  const rel = join(scratch, "releases");
  const good = writeRelease({
    outDir: join(rel, "good"),
    version: NEW,
    protocolVersion: PROTOCOL_VERSION,
    baseUrl: ".",
    binaries: { "windows-x64": b.newExe },
    privateKeyPem: b.keyPem,
    level: 1,
  });
  const copy = (name: string, files: string[]) => {
    mkdirSync(join(rel, name));
    for (const f of files) copyFileSync(join(rel, "good", f), join(rel, name, f));
  };
  const zip = Object.keys(good.files).find((f) => f.endsWith(".zip"))!;
  copy("tampered", ["version.json", "version.json.sig", zip]);
  const bytes = new Uint8Array(readFileSync(join(rel, "tampered", zip)));
  bytes[bytes.length >> 1]! ^= 0xff;
  writeFileSync(join(rel, "tampered", zip), bytes);
  copy("otherkey", ["version.json", zip]);
  const otherPem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  writeFileSync(join(rel, "otherkey", "version.json.sig"), `${signBytes(good.manifestBytes, otherPem)}\n`);

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const m = /^\/([\w-]+)\/(?:.*\/)?([^/]+)$/.exec(new URL(req.url).pathname);
      const file = m && Bun.file(join(rel, m[1]!, m[2]!));
      return file && (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  return {
    url: (name) => `http://127.0.0.1:${server.port}/${name}/latest/download/version.json`,
    stop: () => server.stop(true),
  };
}

export async function proveUpdate(w: Wine, build: Promise<UpdateBuild>, step: (line: string) => void): Promise<void> {
  const b = await build;
  const releases = serveReleases(w.scratch, b);
  const dir = join(w.scratch, "installed");
  mkdirSync(dir);
  const exe = join(dir, "bsk.exe");
  copyFileSync(b.oldExe, exe);
  const oldHash = sha256Hex(new Uint8Array(readFileSync(exe)));
  const hash = () => sha256Hex(new Uint8Array(readFileSync(exe)));
  const listing = () => readdirSync(dir).sort();
  const status = async (what: string) => (await ok(w, exe, what, ["daemon", "status"])).daemon as { pid: number; version: string };
  try {
    const started = await ok(w, exe, "update: daemon start", ["daemon", "start"]);
    expectThat("update: daemon start", (await status("update: status")).version === OLD, `a ${OLD} daemon`, started);

    for (const [name, expected] of [
      ["tampered", "permission_denied/checksum_mismatch"],
      ["otherkey", "permission_denied/bad_signature"],
    ] as const) {
      const ran = await bsk(w, exe, ["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: releases.url(name) });
      const error = json(`update from ${name}`, ran).error;
      expectThat(`update from ${name}`, ran.code !== 0 && `${error?.code}/${error?.data?.reason}` === expected, expected, ran);
      expectThat(`update from ${name}`, hash() === oldHash, "bsk.exe untouched", listing());
      expectThat(`update from ${name}`, listing().join() === "bsk.exe", "nothing beside bsk.exe", listing());
      const after = await status(`status after ${name}`);
      expectThat(`update from ${name}`, after.pid === started.pid && after.version === OLD, `daemon pid ${started.pid} untouched`, after);
    }
    step(
      `bsk.exe update refuses a tampered archive (checksum_mismatch) and a manifest of another key (bad_signature): the running bsk.exe and its daemon (pid ${started.pid}) untouched`,
    );

    const updated = await ok(w, exe, "update", ["update", "--yes"], { BSK_UPDATE_MANIFEST_URL: releases.url("good") });
    expectThat(
      "update",
      updated.updated === true && updated.daemon?.restarted === true && updated.daemon?.version === NEW,
      `updated to ${NEW}, daemon restarted`,
      updated,
    );
    const previous = String(updated.previous);
    expectThat(
      "update",
      /\\bsk\.exe\.old-1$/.test(previous) && /^[A-Z]:\\/.test(previous),
      "the old exe moved aside to ...\\bsk.exe.old-1",
      updated,
    );
    const version = await ok(w, exe, "version after update", ["version"]);
    expectThat("version after update", version.version === NEW, NEW, version);
    const serving = await status("status after update");
    expectThat(
      "update",
      serving.version === NEW && serving.pid === updated.daemon.pid && serving.pid !== started.pid,
      `a new ${NEW} daemon`,
      serving,
    );
    // The new daemon swept at its start while `bsk update` still ran from bsk.exe.old-1: a running exe stays.
    const leftAfterUpdate = listing();
    expectThat(
      "update",
      leftAfterUpdate.every((f) => f === "bsk.exe" || f === "bsk.exe.old-1"),
      "bsk.exe and at most bsk.exe.old-1",
      leftAfterUpdate,
    );
    step(
      `bsk.exe update swapped the running bsk.exe (its daemon pid ${started.pid} and the updater itself ran from it): bsk.exe answers ${NEW}, its daemon pid ${serving.pid} serves ${NEW}; beside it after the update: ${leftAfterUpdate.join(", ")}`,
    );

    await ok(w, exe, "daemon stop after update", ["daemon", "stop"]);
    const restarted = await ok(w, exe, "daemon start after update", ["daemon", "start"]);
    expectThat("next start", listing().join() === "bsk.exe", "bsk.exe.old-* removed by the next start", listing());
    const logText = readFileSync(linuxPath(w.prefix, String(restarted.log)), "utf8");
    step(
      `the next start removed what the update moved aside${logText.includes("binaries an update moved aside") ? " (logged)" : ""}: only bsk.exe left; a tampered release never touched it`,
    );
    await ok(w, exe, "daemon stop", ["daemon", "stop"]);
  } finally {
    releases.stop();
  }
}
