/**
 * request-help's completion criteria, evaluated against one look at the page. Every condition given must hold
 * (all-of). Text is compared with whitespace collapsed, as the page renders it. Pure: the page side supplies the look.
 */
import type { HelpCriteriaView } from "../../shared/messages/overlay.ts";

export interface PageLook {
  url: string;
  /** Throws on an invalid selector. */
  exists(selector: string): boolean;
  /** The page's rendered text (computed once per check, only if a text condition needs it). */
  text(): string;
}

export const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

export function criteriaHold(c: HelpCriteriaView, page: PageLook): boolean {
  if (c.url_contains !== undefined && !page.url.includes(c.url_contains)) return false;
  if (c.url_matches !== undefined && !new RegExp(c.url_matches).test(page.url)) return false;
  if (c.element_exists !== undefined && !page.exists(c.element_exists)) return false;
  if (c.element_missing !== undefined && page.exists(c.element_missing)) return false;
  if (c.text_present === undefined && c.text_absent === undefined) return true;
  const text = collapse(page.text());
  if (c.text_present !== undefined && !text.includes(collapse(c.text_present))) return false;
  if (c.text_absent !== undefined && text.includes(collapse(c.text_absent))) return false;
  return true;
}
