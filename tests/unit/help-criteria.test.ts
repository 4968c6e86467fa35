/** request-help's completion criteria (pure: evaluated against a look at the page) and their schema. */
import { describe, expect, test } from "bun:test";
import { criteriaHold, type PageLook } from "../../extension/src/features/help/criteria.ts";
import { HelpCriteria } from "../../protocol/methods/human.ts";

const look = (url: string, html: { selectors?: string[]; text?: string } = {}): PageLook & { textReads: number } => {
  const page = {
    url,
    textReads: 0,
    exists: (sel: string) => {
      if (sel.includes("[")) throw new SyntaxError(`'${sel}' is not a valid selector`);
      return (html.selectors ?? []).includes(sel);
    },
    text: () => {
      page.textReads++;
      return html.text ?? "";
    },
  };
  return page;
};

const c = (input: object) => HelpCriteria().parse(input);

describe("criteriaHold", () => {
  test("every condition given must hold", () => {
    const criteria = c({ url_contains: "/account", text_present: "Logged in" });
    expect(criteriaHold(criteria, look("http://x/account", { text: "Logged   in\nas ada" }))).toBe(true);
    expect(criteriaHold(criteria, look("http://x/account", { text: "Please sign in" }))).toBe(false);
    expect(criteriaHold(criteria, look("http://x/login", { text: "Logged in" }))).toBe(false);
  });

  test("url_matches, element_exists / element_missing, text_absent", () => {
    expect(criteriaHold(c({ url_matches: "^https://shop\\.example/orders/\\d+$" }), look("https://shop.example/orders/42"))).toBe(true);
    expect(criteriaHold(c({ url_matches: "orders/\\d+$" }), look("https://shop.example/orders/new"))).toBe(false);
    expect(criteriaHold(c({ element_exists: "#done" }), look("u", { selectors: ["#done"] }))).toBe(true);
    expect(criteriaHold(c({ element_missing: "#captcha" }), look("u", { selectors: ["#captcha"] }))).toBe(false);
    expect(criteriaHold(c({ element_missing: "#captcha" }), look("u"))).toBe(true);
    expect(criteriaHold(c({ text_absent: "Loading" }), look("u", { text: "Loading…" }))).toBe(false);
  });

  test("the page's text is read only when a text condition needs it, and a bad selector throws", () => {
    const page = look("http://x/account");
    expect(criteriaHold(c({ url_contains: "/account" }), page)).toBe(true);
    expect(page.textReads).toBe(0);
    expect(() => criteriaHold(c({ element_exists: "a[" }), look("u"))).toThrow("not a valid selector");
  });
});

describe("HelpCriteria", () => {
  test("defaults stable_ms to 500; refuses no condition, unknown keys and bad regexes", () => {
    expect(c({ url_contains: "x" }).stable_ms).toBe(500);
    expect(HelpCriteria().safeParse({ stable_ms: 10 }).success).toBe(false);
    expect(HelpCriteria().safeParse({ url_contain: "x" }).success).toBe(false);
    expect(HelpCriteria().safeParse({ url_matches: "(" }).success).toBe(false);
  });
});
