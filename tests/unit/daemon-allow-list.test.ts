import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { AllowList } from "../../shared/allow-list.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { tempDir } from "../temp.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const OTHER = "abcdefghijklmnopabcdefghijklmnop";

function configPath() {
  const d = tempDir("bsk-allow-");
  dirs.push(d);
  return `${d}/config.json`;
}

describe("AllowList", () => {
  test("allows the pinned extension id by default", () => {
    const list = new AllowList(configPath());
    expect(list.has(EXTENSION_ID)).toBe(true);
    expect(list.has(OTHER)).toBe(false);
  });

  test("adds ids atomically, keeping the config's other keys", () => {
    const path = configPath();
    writeFileSync(path, JSON.stringify({ theme: "dark", allowed_extensions: [] }));
    const list = new AllowList(path);
    expect(list.add(OTHER)).toEqual([EXTENSION_ID, OTHER]);
    expect(list.add(OTHER)).toEqual([EXTENSION_ID, OTHER]);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ theme: "dark", allowed_extensions: [OTHER] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(new AllowList(path).has(OTHER)).toBe(true);
  });

  test("fails closed on a broken config and ignores malformed ids", () => {
    const path = configPath();
    writeFileSync(path, "{broken");
    expect(new AllowList(path).all()).toEqual([EXTENSION_ID]);
    writeFileSync(path, JSON.stringify({ allowed_extensions: ["x", 42, OTHER.toUpperCase()] }));
    expect(new AllowList(path).all()).toEqual([EXTENSION_ID]);
    expect(() => new AllowList(path).add("not-an-id")).toThrow();
  });
});
