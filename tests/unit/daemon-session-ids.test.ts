import { describe, expect, test } from "bun:test";
import { ID_ALPHABET, isSessionIdShape, newSessionId } from "../../daemon/session-ids.ts";

describe("session ids", () => {
  test("use 4 characters from an alphabet without look-alikes", () => {
    for (const c of "ilo01") expect(ID_ALPHABET).not.toContain(c);
    expect(new Set(ID_ALPHABET).size).toBe(ID_ALPHABET.length);
    const issued = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = newSessionId(issued);
      expect(isSessionIdShape(id)).toBe(true);
      expect(issued.has(id)).toBe(false);
      issued.add(id);
    }
  });

  test("map random bytes without bias: bytes past the last full multiple of the alphabet are skipped", () => {
    const feed = (bytes: Uint8Array) => {
      bytes.fill(255); // all rejected (>= 248)
      bytes.set([0, 1, 30, 31]);
    };
    expect(newSessionId(new Set(), feed)).toBe(`${ID_ALPHABET[0]}${ID_ALPHABET[1]}${ID_ALPHABET[30]}${ID_ALPHABET[0]}`);
  });

  test("never return an issued id, even when random draws keep colliding", () => {
    const same = (bytes: Uint8Array) => bytes.fill(0);
    const issued = new Set(["aaaa"]);
    const id = newSessionId(issued, same);
    expect(id).not.toBe("aaaa");
    expect(isSessionIdShape(id)).toBe(true);
  });

  test("refuse once every id is used", () => {
    const full = { size: ID_ALPHABET.length ** 4, has: () => true } as unknown as Set<string>;
    expect(() => newSessionId(full)).toThrow("every session id");
  });
});
