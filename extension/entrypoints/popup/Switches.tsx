/** The person's switches, persisted in storage.local; only this popup changes them (CLI flags and env vars cannot). */
import { For } from "solid-js";
import { browser } from "wxt/browser";
import { t, type MessageKey } from "../../src/shared/i18n.ts";
import { LOCAL, type Switches as SwitchValues } from "../../src/session/settings.ts";

const ROWS: { key: keyof SwitchValues; storage: string; label: MessageKey }[] = [
  { key: "confirm_borrow", storage: LOCAL.confirmBorrow, label: "popup.confirm_borrow" },
  { key: "allow_help", storage: LOCAL.allowHelp, label: "popup.allow_help" },
  { key: "show_hints", storage: LOCAL.showHints, label: "popup.show_hints" },
  { key: "allow_file_urls", storage: LOCAL.allowFileUrls, label: "popup.allow_file_urls" },
  { key: "auto_takeover", storage: LOCAL.autoTakeover, label: "popup.auto_takeover" },
];

export function Switches(props: { values: SwitchValues }) {
  return (
    <section class="switches">
      <h2>{t("popup.settings")}</h2>
      <For each={ROWS}>
        {(row) => (
          <label class="switch">
            <span>{t(row.label)}</span>
            <input
              type="checkbox"
              role="switch"
              name={row.key}
              checked={props.values[row.key]}
              onChange={(e) => void browser.storage.local.set({ [row.storage]: e.currentTarget.checked })}
            />
            <span class="track" aria-hidden="true" />
          </label>
        )}
      </For>
    </section>
  );
}
