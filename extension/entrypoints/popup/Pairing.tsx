/**
 * Pairing: when this browser has no key for the bsk on its port, the next step in words and a field for a code
 * from `bsk daemon pair`; once paired, only the outcome of the last try (the key itself is under the connection
 * details, `PairedKey`). The worker does the exchange (src/link/trust/pairing.ts); the code never leaves this
 * browser except as proofs to a daemon that proved it first.
 */
import { createSignal, Show } from "solid-js";
import { browser } from "wxt/browser";
import { type MessageKey, t } from "../../src/shared/i18n.ts";
import type { ConnectionStatus, PageMessage } from "../../src/session/settings.ts";

type Reply = { ok: boolean; key_id?: string; reason?: string; error?: string };

const send = (msg: PageMessage) => browser.runtime.sendMessage(msg) as Promise<Reply>;

/** The person's words for a failed try: by its reason, never the worker's English text. */
function failure(r: Reply, port: number | string): string {
  return t(`pairing.error.${r.reason ?? "refused"}` as MessageKey, { port });
}

export function Pairing(props: { conn: ConnectionStatus | undefined }) {
  const [busy, setBusy] = createSignal(false);
  const [outcome, setOutcome] = createSignal<Reply>();
  let input!: HTMLInputElement;

  const submit = async (ev: SubmitEvent) => {
    ev.preventDefault();
    setBusy(true);
    setOutcome(undefined);
    try {
      const r = await send({ type: "pair", code: input.value });
      setOutcome(r);
      if (r.ok) input.value = "";
    } catch {
      setOutcome({ ok: false, reason: "refused" });
    } finally {
      setBusy(false);
    }
  };

  const state = () => props.conn?.state;
  const port = () => props.conn?.port ?? "?";
  // The field shows while there is no key, or while the daemon on the port does not prove the key we hold.
  const unpaired = () => state() === "not_paired" || state() === "untrusted";
  return (
    <Show when={unpaired() || outcome()}>
      <section class="pairing" data-trust={state() === "untrusted" ? "untrusted" : unpaired() ? "not_paired" : "paired"}>
        <Show when={state() === "untrusted"}>
          <p class="error">{t("pairing.untrusted", { port: port() })}</p>
        </Show>
        <Show when={state() === "not_paired"}>
          <p class="hint">{t("pairing.not_paired")}</p>
        </Show>
        <Show when={unpaired()}>
          <form class="field" onSubmit={(ev) => void submit(ev)}>
            <label for="pairing-code">{t("pairing.code")}</label>
            <input id="pairing-code" name="pairing-code" ref={input} placeholder="XXXX-XXXX-XXXX" autocomplete="off" spellcheck={false} />
            <button type="submit" disabled={busy()}>
              {busy() ? t("pairing.working") : t("pairing.pair")}
            </button>
          </form>
        </Show>
        <Show when={outcome()}>
          {(o) => (
            <p class={o().ok ? "pairing-result" : "pairing-result error"} data-reason={o().ok ? "paired" : (o().reason ?? "")}>
              {o().ok ? t("pairing.done", { key: o().key_id ?? "" }) : failure(o(), port())}
            </p>
          )}
        </Show>
      </section>
    </Show>
  );
}

/** Under the connection details: the key this browser holds, and Forget. */
export function PairedKey(props: { conn: ConnectionStatus | undefined }) {
  return (
    <Show when={props.conn?.key_id !== undefined && props.conn?.state !== "not_paired" && props.conn?.state !== "untrusted"}>
      <p class="paired">
        {t("pairing.paired", { key: props.conn?.key_id ?? "" })}{" "}
        <button type="button" data-action="forget" onClick={() => void send({ type: "unpair" })}>
          {t("pairing.forget")}
        </button>
      </p>
    </Show>
  );
}
