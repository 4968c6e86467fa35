/** The link proofs: the daemon (node:crypto) and the extension (WebCrypto) compute the same MACs over the same transcripts. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_TRIES, PairingCodes, randomCode } from "../../daemon/trust/pairing-codes.ts";
import {
  checkExtensionProof,
  checkPairExtensionProof,
  daemonProof,
  pairDaemonProof,
  pairingKeyBytes,
  sealSecret,
} from "../../daemon/trust/proofs.ts";
import { ensureSecret, keyIdFor } from "../../daemon/trust/secret.ts";
import {
  CODE_ALPHABET,
  formatCode,
  fromBase64url,
  hmac,
  importHmacKey,
  isWellFormedCode,
  keyIdOf,
  LABELS,
  normalizeCode,
  pairingKey,
  randomBase64url,
  toBase64url,
  transcript,
  verifyHmac,
  xorBytes,
} from "../../protocol/trust.ts";

const secret = crypto.getRandomValues(new Uint8Array(32));
const n = { port: 52800, nonceE: randomBase64url(32), nonceD: randomBase64url(32) };

describe("link proof", () => {
  test("the extension accepts the daemon's proof, and the daemon the extension's, only with the same secret and port", async () => {
    const key = await importHmacKey(secret);
    const proof = daemonProof(secret, n);
    expect(await verifyHmac(key, transcript(LABELS.daemonProof, n.port, n.nonceE, n.nonceD), proof)).toBe(true);
    // Another port (a squatter relaying a real daemon's proof), other nonces, another secret: refused.
    expect(await verifyHmac(key, transcript(LABELS.daemonProof, 52801, n.nonceE, n.nonceD), proof)).toBe(false);
    expect(await verifyHmac(key, transcript(LABELS.daemonProof, n.port, randomBase64url(32), n.nonceD), proof)).toBe(false);
    const other = await importHmacKey(crypto.getRandomValues(new Uint8Array(32)));
    expect(await verifyHmac(other, transcript(LABELS.daemonProof, n.port, n.nonceE, n.nonceD), proof)).toBe(false);

    const ours = toBase64url(await hmac(key, transcript(LABELS.extensionProof, n.port, n.nonceE, n.nonceD)));
    expect(checkExtensionProof(secret, n, ours)).toBe(true);
    // The daemon's own proof is not an extension proof (labels differ), and junk never passes.
    expect(checkExtensionProof(secret, n, proof)).toBe(false);
    for (const junk of [undefined, null, 7, "", "!!", "AAAA", proof.slice(1)]) expect(checkExtensionProof(secret, n, junk)).toBe(false);
  });

  test("the key id is the same on both sides and reveals nothing reusable", async () => {
    expect(await keyIdOf(await importHmacKey(secret))).toBe(keyIdFor(secret));
    expect(keyIdFor(secret)).toMatch(/^[0-9a-f]{8}$/);
  });

  test("the extension's key cannot be read back", async () => {
    const key = await importHmacKey(secret);
    expect(key.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("raw", key)).rejects.toThrow();
  });
});

describe("pairing", () => {
  test("codes: 12 symbols of the alphabet, typed loosely", () => {
    for (let i = 0; i < 50; i++) {
      const code = randomCode();
      expect(isWellFormedCode(code)).toBe(true);
      expect([...code].every((c) => CODE_ALPHABET.includes(c))).toBe(true);
      expect(normalizeCode(` ${formatCode(code).toLowerCase()} `)).toBe(code);
    }
    expect(isWellFormedCode("ABCD-EFGH")).toBe(false);
    expect(isWellFormedCode("ABCDEFGHIJKL")).toBe(false); // I and L are not symbols
  });

  test("the exchange: each side proves the code, the secret arrives sealed and unseals only with the code", async () => {
    const code = randomCode();
    const kDaemon = pairingKeyBytes(code);
    const k = await pairingKey(formatCode(code).toLowerCase());
    expect(await verifyHmac(k, transcript(LABELS.pairDaemon, n.port, n.nonceE, n.nonceD), pairDaemonProof(kDaemon, n))).toBe(true);
    const proof = toBase64url(await hmac(k, transcript(LABELS.pairExtension, n.port, n.nonceE, n.nonceD)));
    expect(checkPairExtensionProof(kDaemon, n, proof)).toBe(true);
    expect(checkPairExtensionProof(pairingKeyBytes(randomCode()), n, proof)).toBe(false);

    const sealed = fromBase64url(sealSecret(kDaemon, n, secret))!;
    expect(sealed).not.toEqual(secret);
    const pad = await hmac(k, transcript(LABELS.pairSeal, n.port, n.nonceE, n.nonceD));
    expect(xorBytes(sealed, pad)).toEqual(secret);
  });

  test("one code at a time (the newest), only until it expires", () => {
    let now = 1000;
    const codes = new PairingCodes(5000, 0, () => now);
    expect(codes.begin()).toEqual({ ok: false, reason: "no_pairing_code" });
    const a = codes.issue();
    const b = codes.issue();
    expect(a.code).not.toBe(b.code);
    const t = codes.begin();
    expect(t.ok && t.key).toEqual(pairingKeyBytes(b.code));
    codes.issue();
    now += 5001;
    expect(codes.begin()).toEqual({ ok: false, reason: "no_pairing_code" });
  });

  test(`a code survives wrong tries, takes ${MAX_TRIES} in all, and is burnt by the one that pairs`, () => {
    const codes = new PairingCodes(60_000, 0);
    const { code } = codes.issue();
    const first = codes.begin();
    if (!first.ok) throw new Error("no try");
    first.done(false);
    const second = codes.begin();
    expect(second).toMatchObject({ ok: true, key: pairingKeyBytes(code), triesLeft: MAX_TRIES - 2 });
    if (second.ok) second.done(true);
    expect(codes.begin()).toEqual({ ok: false, reason: "no_pairing_code" });

    codes.issue();
    for (let i = 1; i <= MAX_TRIES; i++) {
      const t = codes.begin();
      expect(t).toMatchObject({ ok: true, triesLeft: MAX_TRIES - i });
      if (t.ok) t.done(false);
    }
    expect(codes.begin()).toEqual({ ok: false, reason: "no_pairing_code" });
  });

  test("tries are taken at most one per interval; one refused sooner does not count", () => {
    let now = 0;
    const codes = new PairingCodes(60_000, 1000, () => now);
    codes.issue();
    expect(codes.begin().ok).toBe(true);
    now += 400;
    for (let i = 0; i < 20; i++) expect(codes.begin()).toEqual({ ok: false, reason: "pairing_rate_limited", retryAfterMs: 600 });
    now += 600;
    expect(codes.begin()).toMatchObject({ ok: true, triesLeft: MAX_TRIES - 2 });
  });
});

describe("install secret", () => {
  test("made once (0600), then read back; two first users agree; a damaged file is an error, never replaced", () => {
    const home = mkdtempSync("/tmp/bsk-secret-");
    try {
      const path = join(home, "trust.key");
      const first = ensureSecret(path, home);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(ensureSecret(path, home).bytes).toEqual(first.bytes);
      expect(readFileSync(path, "utf8").trim()).toBe(toBase64url(first.bytes));
      writeFileSync(path, "not a secret\n");
      expect(() => ensureSecret(path, home)).toThrow("does not hold a bsk secret");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
