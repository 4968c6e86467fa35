/**
 * The words the person reads (popup, overlays, help panel, consent window), through WXT's i18n module
 * (@wxt-dev/i18n): the catalogs are `locales/en.json` and `locales/zh_CN.json`, built into `_locales/`, and the
 * browser picks the one for its UI language (English otherwise). `t(key, {name: …})` fills `{name}` placeholders.
 * A unit test checks both catalogs have the same keys and placeholders.
 */
import { createI18n } from "@wxt-dev/i18n";
import type en from "../../locales/en.json";

type Keys<T, P extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Keys<T[K], `${P}${K}.`>;
}[keyof T & string];

/** Every dotted key of the English catalog, e.g. "popup.connected". */
export type MessageKey = Keys<typeof en>;

const i18n = createI18n();

export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  return vars ? i18n.t(key, vars) : i18n.t(key);
}
