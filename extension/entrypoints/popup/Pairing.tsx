/**
 * Pairing: whether this browser trusts the bsk on its port, and a field for a code from `bsk daemon pair` (when
 * native messaging is not set up). The worker does the exchange (src/trust/pairing.ts); the code never leaves
 * this browser except as proofs to a daemon that proved it first.
 */
import { createSignal, Show } from "solid-js";
import { browser } from "wxt/browser";
import { t } from "../../src/shared/i18n.ts";
import type { ConnectionStatus, PageMessage } from "../../src/session/settings.ts";

type Reply = { ok: boolean; key_id?: string; error?: string };

export function Pairing(props: { conn: ConnectionStatus | undefined }) {
  const [busy, setBusy] = createSignal(false);
  const [outcome, setOutcome] = createSignal<Reply>();
  let input!: HTMLInputElement;

  const send = (msg: PageMessage) => browser.runtime.sendMessage(msg) as Promise<Reply>;
  const submit = async (ev: SubmitEvent) => {
    ev.preventDefault();
    setBusy(true);
    setOutcome(undefined);
    try {
      const r = await send({ type: "pair", code: input.value });
      setOutcome(r);
      if (r.ok) input.value = "";
    } catch (err) {
      setOutcome({ ok: false, error: String(err) });
    } finally {
      setBusy(false);
    }
  };

  const state = () => props.conn?.state;
  const paired = () => props.conn?.key_id !== undefined && state() !== "not_paired";
  return (
    <section class="pairing" data-trust={state() === "untrusted" ? "untrusted" : paired() ? "paired" : "not_paired"}>
      <h2>{t("pairing.title")}</h2>
      <Show when={state() === "untrusted"}>
        <p class="error">{t("pairing.untrusted", { port: props.conn?.port ?? "?" })}</p>
      </Show>
      <Show when={state() === "not_paired"}>
        <p class="muted">{t("pairing.not_paired")}</p>
      </Show>
      <Show when={paired() && state() !== "untrusted"}>
        <p>
          {t("pairing.paired", { key: props.conn?.key_id ?? "" })}{" "}
          <button type="button" onClick={() => void send({ type: "unpair" })}>
            {t("pairing.forget")}
          </button>
        </p>
      </Show>
      <form class="field" onSubmit={(ev) => void submit(ev)}>
        <label for="pairing-code">{t("pairing.code")}</label>
        <input id="pairing-code" name="pairing-code" ref={input} placeholder="XXXX-XXXX-XXXX" autocomplete="off" spellcheck={false} />
        <button type="submit" disabled={busy()}>
          {busy() ? t("pairing.working") : t("pairing.pair")}
        </button>
      </form>
      <Show when={outcome()}>
        {(o) => (
          <p class={o().ok ? "pairing-result" : "pairing-result error"}>
            {o().ok ? t("pairing.done", { key: o().key_id ?? "" }) : o().error}
          </p>
        )}
      </Show>
    </section>
  );
}
