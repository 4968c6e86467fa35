/**
 * "Ask me before the agent acts here": the person's list of origins (storage.local ask_first_origins). On these
 * sites every page-changing call of an agent waits for their Allow in the tab (src/features/approval/). Only this
 * popup writes the list: no protocol method, CLI flag or page can.
 */
import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import { browser } from "wxt/browser";
import { askFirstOrigin, readAskFirst } from "../../src/features/approval/sites.ts";
import { LOCAL } from "../../src/session/settings.ts";
import { t } from "../../src/shared/i18n.ts";
import { steady } from "./steady.ts";

async function save(change: (now: string[]) => string[]): Promise<void> {
  // Read again right before writing: another popup may have changed the list meanwhile.
  const now = (await readAskFirst()) ?? [];
  await browser.storage.local.set({ [LOCAL.askFirst]: change(now) });
}

export function AskFirst() {
  const [origins, setOrigins] = createSignal<string[]>([]);
  const [error, setError] = createSignal<string | null>(null);
  let input!: HTMLInputElement;
  const load = async () => {
    const list = (await readAskFirst()) ?? [];
    steady("ask_first", () => setOrigins(list));
  };
  const onChange = (changes: Record<string, unknown>, area: string) => {
    if (area === "local" && LOCAL.askFirst in changes) void load();
  };
  onMount(() => {
    void load();
    browser.storage.onChanged.addListener(onChange);
  });
  onCleanup(() => browser.storage.onChanged.removeListener(onChange));

  const add = (ev: SubmitEvent) => {
    ev.preventDefault();
    const origin = askFirstOrigin(input.value);
    if (!origin) return void setError(t("ask_first.bad"));
    setError(null);
    input.value = "";
    void save((now) => (now.includes(origin) ? now : [...now, origin]));
  };
  const remove = (origin: string) => void save((now) => now.filter((o) => o !== origin));

  return (
    <section class="ask-first">
      <h2>{t("ask_first.title")}</h2>
      <div class="muted">{t("ask_first.hint")}</div>
      <Show when={origins().length > 0} fallback={<div class="muted empty">{t("ask_first.empty")}</div>}>
        <ul class="origins">
          <For each={origins()}>
            {(origin) => (
              <li data-origin={origin}>
                <span class="origin">{origin}</span>
                <button type="button" data-action="remove" title={t("ask_first.remove_title", { origin })} onClick={() => remove(origin)}>
                  {t("ask_first.remove")}
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <form class="field" onSubmit={add}>
        <input name="ask_first" ref={input} placeholder={t("ask_first.placeholder")} aria-label={t("ask_first.title")} />
        <button type="submit" name="ask_first_add">
          {t("ask_first.add")}
        </button>
      </form>
      <Show when={error()}>
        <div class="error">{error()}</div>
      </Show>
    </section>
  );
}
