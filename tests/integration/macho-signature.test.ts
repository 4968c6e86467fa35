/**
 * The release's macOS signer and verifier (scripts/release/codesign*.ts) on real Bun outputs: a one-line hello
 * cross-compiled for darwin-x64 and darwin-arm64 once per run. Bun downloads each target's runtime once into
 * ~/.bun/install/cache (the cache npm run release fills too); without it and without network, the build says so.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { CSMAGIC_EMBEDDED_SIGNATURE, adhocSign } from "../../scripts/release/codesign.ts";
import { verifyCodeSignature } from "../../scripts/release/codesign-verify.ts";
import { signMachOFile } from "../../scripts/release/build-target.ts";
import { HEADER_SIZE, LINKEDIT_DATA_SIZE, parseMachO, segment } from "../../scripts/release/macho.ts";

const dir = mkdtempSync(join(tmpdir(), "bsk-macho-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');

const BUILD_TIMEOUT = 180_000;
const built = new Map<string, Promise<Uint8Array>>();

/** Bun's own output for `target`, built once per run. */
function hello(target: "darwin-x64" | "darwin-arm64"): Promise<Uint8Array> {
  let p = built.get(target);
  if (!p) {
    p = (async () => {
      const out = join(dir, `hello-${target}`);
      const proc = Bun.spawn([process.execPath, "build", "--compile", `--target=bun-${target}`, "hello.ts", "--outfile", out], {
        cwd: dir,
        stdout: "pipe",
        stderr: "pipe",
      });
      if ((await proc.exited) !== 0) {
        const runtime = `bun-${target.replace("arm64", "aarch64")}-v${Bun.version}`;
        const cached = existsSync(join(homedir(), ".bun/install/cache", runtime));
        throw new Error(
          `cannot build a ${target} hello${cached ? "" : `: Bun's ${runtime} runtime is not in ~/.bun/install/cache and could not be downloaded (this test needs the network once)`}\n${await new Response(proc.stderr).text()}`,
        );
      }
      return new Uint8Array(readFileSync(out));
    })();
    built.set(target, p);
  }
  return p;
}

/** `signed` with its signature and LC_CODE_SIGNATURE taken out, as a linker that does not sign leaves a program. */
function stripSignature(signed: Uint8Array): Uint8Array {
  const m = parseMachO(signed);
  const sig = m.signature!;
  expect(sig.cmdOffset + LINKEDIT_DATA_SIZE).toBe(HEADER_SIZE + m.sizeofcmds); // the last load command
  const out = signed.slice(0, sig.dataoff);
  const v = new DataView(out.buffer);
  out.fill(0, sig.cmdOffset, sig.cmdOffset + LINKEDIT_DATA_SIZE);
  v.setUint32(16, m.ncmds - 1, true);
  v.setUint32(20, m.sizeofcmds - LINKEDIT_DATA_SIZE, true);
  const linkedit = segment(m, "__LINKEDIT");
  v.setBigUint64(linkedit.cmdOffset + 48, BigInt(sig.dataoff - linkedit.fileoff), true);
  return out;
}

/** `verifyCodeSignature` of `bytes` with one byte at `at` flipped (restored afterwards). */
function verifyFlipped(bytes: Uint8Array, at: number) {
  bytes[at]! ^= 0x01;
  try {
    return verifyCodeSignature(bytes);
  } finally {
    bytes[at]! ^= 0x01;
  }
}

describe("Bun's own darwin outputs", () => {
  test(
    "darwin-x64 keeps the template's stale signature, so it does not verify (the day this fails, Bun fixed it)",
    async () => {
      const v = verifyCodeSignature(await hello("darwin-x64"));
      if (v.ok) {
        throw new Error(
          `Bun ${Bun.version} now writes a valid darwin-x64 signature: Bun fixed it; the release's re-signing stays harmless, update this test`,
        );
      }
      expect(v.cpu).toBe("x86_64");
      expect(v.problems.join("; ")).toMatch(/page hash(es)? wrong/);
    },
    BUILD_TIMEOUT,
  );

  test(
    "darwin-arm64 is re-signed ad hoc by Bun and verifies",
    async () => {
      const v = verifyCodeSignature(await hello("darwin-arm64"));
      expect(v.problems).toEqual([]);
      expect(v).toMatchObject({ ok: true, cpu: "arm64", adhoc: true });
    },
    BUILD_TIMEOUT,
  );
});

for (const target of ["darwin-x64", "darwin-arm64"] as const) {
  describe(`${target}: the release's ad-hoc signature`, () => {
    test(
      "signed: every page hash, the special slots and the load commands verify",
      async () => {
        const file = join(dir, `signed-${target}`);
        writeFileSync(file, await hello(target));
        const v = signMachOFile(file);
        expect(v).toMatchObject({ ok: true, problems: [], identifier: "bsk", adhoc: true });
        const bytes = new Uint8Array(readFileSync(file));
        expect(verifyCodeSignature(bytes)).toMatchObject({ ok: true, identifier: "bsk" });
        const m = parseMachO(bytes);
        const linkedit = segment(m, "__LINKEDIT");
        expect(linkedit.fileoff + linkedit.filesize).toBe(bytes.length);
        expect(m.signature!.dataoff + m.signature!.datasize).toBe(bytes.length);
        expect(new DataView(bytes.buffer, m.signature!.dataoff).getUint32(0)).toBe(CSMAGIC_EMBEDDED_SIGNATURE);
        expect(Number(linkedit.vmsize)).toBeGreaterThanOrEqual(linkedit.filesize);
        // Signing again changes nothing: the same bytes sign the same.
        expect(Buffer.compare(adhocSign(bytes, "bsk"), bytes)).toBe(0);
      },
      BUILD_TIMEOUT,
    );

    test(
      "a flipped byte in any page, in the requirements or in a page hash fails",
      async () => {
        const signed = adhocSign(await hello(target), "bsk");
        const m = parseMachO(signed);
        const sig = m.signature!;
        expect(verifyCodeSignature(signed).ok).toBe(true);
        const pages = Math.ceil(sig.dataoff / 4096);
        // The superblob's second index entry (type, offset) is the requirements blob.
        const requirements = sig.dataoff + new DataView(signed.buffer, sig.dataoff).getUint32(12 + 8 + 4);
        const places: [at: number, problem: RegExp][] = [
          [HEADER_SIZE + m.sizeofcmds + 4, /page hash wrong \(pages 0\)/], // padding after the load commands
          [4096 * Math.floor(pages / 2) + 17, new RegExp(`page hash wrong \\(pages ${Math.floor(pages / 2)}\\)`)],
          [sig.dataoff - 1, new RegExp(`page hash wrong \\(pages ${pages - 1}\\)`)], // the last byte before the signature
          [requirements + 9, /special slot -2 does not match/],
        ];
        for (const [at, problem] of places) {
          const v = verifyFlipped(signed, at);
          expect(v.ok).toBe(false);
          expect(v.problems.join("; ")).toMatch(problem);
        }
        // A page hash inside the CodeDirectory: find page 3's hash and flip one of its bits.
        const hash3 = new Bun.CryptoHasher("sha256").update(signed.subarray(3 * 4096, 4 * 4096)).digest();
        const at = Buffer.from(signed.buffer, sig.dataoff, sig.datasize).indexOf(hash3) + sig.dataoff;
        expect(at).toBeGreaterThan(sig.dataoff);
        expect(verifyFlipped(signed, at).problems.join("; ")).toMatch(/page hash wrong \(pages 3\)/);
        expect(verifyCodeSignature(signed).ok).toBe(true);
      },
      BUILD_TIMEOUT,
    );

    test(
      "an unsigned program fails verification; signing adds LC_CODE_SIGNATURE and verifies",
      async () => {
        const bare = stripSignature(await hello(target));
        expect(verifyCodeSignature(bare)).toMatchObject({ ok: false, problems: ["no LC_CODE_SIGNATURE: unsigned"] });
        const before = parseMachO(bare);
        const signed = adhocSign(bare, "bsk");
        const after = parseMachO(signed);
        expect(after.ncmds).toBe(before.ncmds + 1);
        expect(after.sizeofcmds).toBe(before.sizeofcmds + LINKEDIT_DATA_SIZE);
        expect(verifyCodeSignature(signed)).toMatchObject({ ok: true, problems: [] });
      },
      BUILD_TIMEOUT,
    );
  });
}

test("what is not a Mach-O is refused with what it is not, and the release's file is left as it was", () => {
  const script = "#!/bin/sh\necho hi\n";
  expect(() => adhocSign(new TextEncoder().encode(script), "bsk")).toThrow(/not a thin 64-bit/);
  const file = join(dir, "not-macho");
  writeFileSync(file, script);
  expect(() => signMachOFile(file)).toThrow(/not a thin 64-bit/);
  expect(readFileSync(file, "utf8")).toBe(script);
  expect(verifyCodeSignature(new Uint8Array(64))).toMatchObject({ ok: false, problems: [expect.stringMatching(/not a thin 64-bit/)] });
});
