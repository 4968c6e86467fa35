/** The link proofs: the daemon (node:crypto) and the extension (WebCrypto) compute the same MACs over the same transcripts. */
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GLOBAL_BURST, GLOBAL_STEP, PairingCodes, randomCode } from "../../daemon/trust/pairing-codes.ts";
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
import { tempDir } from "../temp.ts";

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
    expect(codes.begin("10.0.0.1")).toEqual({ ok: false, reason: "no_pairing_code" });
    const a = codes.issue();
    const b = codes.issue();
    expect(a.code).not.toBe(b.code);
    const t = codes.begin("10.0.0.1");
    expect(t.ok && t.key).toEqual(pairingKeyBytes(b.code));
    codes.issue();
    now += 5001;
    expect(codes.begin("10.0.0.1")).toEqual({ ok: false, reason: "no_pairing_code" });
  });

  test("attack: no number of wrong tries uses the code up; only the one that pairs burns it", () => {
    const codes = new PairingCodes(60_000, 0);
    const { code } = codes.issue();
    for (let i = 0; i < 500; i++) {
      const t = codes.begin(`10.0.${i >> 8}.${i & 255}`);
      if (!t.ok) throw new Error(`try ${i} refused: ${t.reason}`);
      t.done(false);
    }
    const right = codes.begin("192.0.2.7");
    expect(right).toMatchObject({ ok: true, key: pairingKeyBytes(code) });
    if (right.ok) right.done(true);
    expect(codes.begin("192.0.2.7")).toEqual({ ok: false, reason: "no_pairing_code" });
  });

  test("a peer's tries double its wait; another peer is not held up by it; a refused try does not count", () => {
    let now = 0;
    const codes = new PairingCodes(600_000, 1000, () => now);
    codes.issue();
    expect(codes.begin("203.0.113.9")).toMatchObject({ ok: true, nextTryInMs: 1000 });
    now = 400;
    for (let i = 0; i < 20; i++)
      expect(codes.begin("203.0.113.9")).toEqual({ ok: false, reason: "pairing_rate_limited", retryAfterMs: 600, scope: "peer" });
    expect(codes.begin("198.51.100.1")).toMatchObject({ ok: true, nextTryInMs: 1000 });
    now = 1000;
    expect(codes.begin("203.0.113.9")).toMatchObject({ ok: true, nextTryInMs: 2000 });
    now = 2999;
    expect(codes.begin("203.0.113.9")).toMatchObject({ ok: false, retryAfterMs: 1, scope: "peer" });
    now = 3000;
    expect(codes.begin("203.0.113.9")).toMatchObject({ ok: true, nextTryInMs: 4000 });
    // An IPv6 host is counted by its /64: rotating through it is one peer.
    expect(codes.begin("2001:db8:1:2::1").ok).toBe(true);
    expect(codes.begin("2001:db8:1:2:ffff::9")).toMatchObject({ ok: false, scope: "peer" });
  });

  test(`all peers together: ${GLOBAL_BURST} at once, then one per interval, slower after every ${GLOBAL_STEP}`, () => {
    let now = 0;
    const codes = new PairingCodes(86_400_000, 1000, () => now);
    codes.issue();
    let peer = 0;
    const next = () => codes.begin(`10.1.${peer >> 8}.${peer++ & 255}`);
    for (let i = 0; i < GLOBAL_BURST; i++) expect(next().ok).toBe(true);
    expect(codes.begin("10.9.9.9")).toEqual({ ok: false, reason: "pairing_rate_limited", retryAfterMs: 1000, scope: "all" });
    now += 1000;
    expect(next().ok).toBe(true);
    // Up to GLOBAL_STEP tries, one a second; then one per 2 s.
    for (let i = GLOBAL_BURST + 1; i < GLOBAL_STEP; i++) {
      now += 1000;
      expect(next().ok).toBe(true);
    }
    now += 1000;
    expect(codes.begin("10.9.9.9")).toMatchObject({ ok: false, retryAfterMs: 1000, scope: "all" });
    now += 1000;
    expect(next().ok).toBe(true);
  });

  test("brute force stays hopeless: an attacker with endless addresses gets 80 tries at a 5-minute code, 2,780 at a day's", () => {
    // The arithmetic docs/remote.md states: tries per code life, against 30^12 codes.
    for (const [ttl, most] of [
      [300_000, 80],
      [86_400_000, 2780],
    ] as const) {
      let now = 0;
      const codes = new PairingCodes(ttl, 1000, () => now);
      codes.issue();
      let tries = 0;
      while (now <= ttl) {
        const t = codes.begin(`10.${tries >> 16}.${(tries >> 8) & 255}.${tries & 255}`);
        if (t.ok) tries++;
        else if (t.reason === "pairing_rate_limited") now += t.retryAfterMs;
        else break;
      }
      expect(tries).toBe(most);
      expect(tries / 30 ** 12).toBeLessThan(1e-14);
    }
  });
});

describe("install secret", () => {
  test("made once (0600), then read back; two first users agree; a damaged file is an error, never replaced", () => {
    const home = tempDir("bsk-secret-");
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
