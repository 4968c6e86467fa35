/** The person-facing texts: English and Simplified Chinese, picked from the browser's language. */
import { describe, expect, test } from "bun:test";
import { MESSAGE_KEYS, pickLang, t } from "../../extension/src/shared/i18n.ts";

describe("i18n", () => {
  test("Simplified Chinese for zh, zh-CN, zh-Hans, zh-SG; English otherwise", () => {
    for (const tag of ["zh", "zh-CN", "zh_CN", "zh-Hans-CN", "zh-SG"]) expect(pickLang(tag)).toBe("zh-CN");
    for (const tag of ["en", "en-US", "de", "zh-TW", "zh-HK", "", undefined]) expect(pickLang(tag)).toBe("en");
  });

  test("every key has both texts, with the same placeholders", () => {
    for (const key of MESSAGE_KEYS) {
      const en = t(key, undefined, "en");
      const zh = t(key, undefined, "zh-CN");
      expect(zh.length).toBeGreaterThan(0);
      expect(zh.match(/\{\w+\}/g)?.sort()).toEqual(en.match(/\{\w+\}/g)?.sort());
    }
  });

  test("placeholders are filled", () => {
    expect(t("popup.tabs", { n: 3 }, "en")).toBe("3 tabs");
    expect(t("popup.tabs", { n: 3 }, "zh-CN")).toBe("3 个标签页");
    expect(t("consent.countdown", { s: 9 }, "en")).toContain("9 s");
  });
});
