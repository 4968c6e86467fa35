/**
 * The person-facing texts: extension/locales/en.json and zh_CN.json, which @wxt-dev/i18n builds into _locales/.
 * Both catalogs have the same keys with the same placeholders, and nothing in them is a Chrome substitution by
 * accident (a `$` would be one).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseMessagesFile } from "@wxt-dev/i18n/build";
import { REMOTE_REASONS } from "../../extension/src/session/settings.ts";

const LOCALES = join(import.meta.dir, "../../extension/locales");

async function catalog(name: string): Promise<Map<string, string>> {
  const parsed = await parseMessagesFile(join(LOCALES, name));
  const out = new Map<string, string>();
  for (const m of parsed) if (m.type === "simple" && !m.key[0]?.startsWith("@@")) out.set(m.key.join("."), m.message);
  return out;
}

const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();

describe("i18n catalogs", () => {
  test("every reason a remote link can show has its words (the popup never shows the worker's English)", async () => {
    const en = await catalog("en.json");
    for (const reason of REMOTE_REASONS) expect({ reason, has: en.has(`remote.error.${reason}`) }).toEqual({ reason, has: true });
  });

  test("English and Simplified Chinese have the same keys", async () => {
    const en = await catalog("en.json");
    const zh = await catalog("zh_CN.json");
    expect(en.size).toBeGreaterThan(50);
    expect([...zh.keys()].sort()).toEqual([...en.keys()].sort());
  });

  test("every text has the same placeholders in both, no `$`, and the Chinese one is not left in English", async () => {
    const en = await catalog("en.json");
    const zh = await catalog("zh_CN.json");
    for (const [key, text] of en) {
      const other = zh.get(key) ?? "";
      expect({ key, placeholders: placeholders(other) }).toEqual({ key, placeholders: placeholders(text) });
      expect({ key, dollar: text.includes("$") || other.includes("$") }).toEqual({ key, dollar: false });
      // Texts that are the same in both languages are names and numbers only (bsk, 1–65535).
      if (other === text) expect({ key, text }).toEqual({ key, text: text.match(/^[\d–bsk]+$/)?.[0] ?? "" });
    }
  });

  test("the manifest's name and description come from the catalogs", async () => {
    const en = await catalog("en.json");
    expect(en.get("manifest.name")).toBe("bsk");
    expect(en.get("manifest.description")?.length).toBeGreaterThan(10);
  });
});
