/**
 * Remote connection: the person pastes a pairing link from `bsk daemon pair` on a server, sees the server's host and
 * key fingerprint, and confirms; the worker then pairs (src/link/remote/authorize.ts). The code never leaves this
 * browser except as proofs to a server that proved it first.
 */
import { createSignal, Show } from "solid-js";
import { browser } from "wxt/browser";
import { parsePairingLink, type PairingLink } from "../../../protocol/remote.ts";
import { type MessageKey, t } from "../../src/shared/i18n.ts";
import type { PageMessage } from "../../src/session/settings.ts";

type Reply = { ok: boolean; host?: string; device_id?: string; error?: string; reason?: string };

/** The person's words for a failed try: by its reason (src/link/remote/authorize.ts), never the worker's English text. */
function failure(r: Reply): string {
  return t(`remote.error.${r.reason ?? "refused"}` as MessageKey, { host: r.host ?? "?" });
}

export function RemoteConnection() {
  const [pending, setPending] = createSignal<{ text: string; link: PairingLink }>();
  const [busy, setBusy] = createSignal(false);
  const [outcome, setOutcome] = createSignal<Reply>();
  let input!: HTMLInputElement;

  const check = (ev: SubmitEvent) => {
    ev.preventDefault();
    setOutcome(undefined);
    const parsed = parsePairingLink(input.value);
    if (!parsed.ok) {
      setPending(undefined);
      setOutcome({ ok: false, reason: "bad_link" });
      return;
    }
    setPending({ text: input.value, link: parsed.link });
  };
  const confirm = async () => {
    const p = pending();
    if (!p) return;
    setBusy(true);
    try {
      const r = (await browser.runtime.sendMessage({ type: "remote_pair", link: p.text } satisfies PageMessage)) as Reply;
      setOutcome({ ...r, host: r.host ?? p.link.authority });
      if (r.ok) input.value = "";
    } catch {
      setOutcome({ ok: false, reason: "refused", host: p.link.authority });
    } finally {
      setBusy(false);
      setPending(undefined);
    }
  };

  return (
    <section class="remote">
      <h2>{t("remote.title")}</h2>
      <form class="field" onSubmit={check}>
        <label for="remote-link">{t("remote.link")}</label>
        <input
          id="remote-link"
          name="remote-link"
          ref={input}
          placeholder="wss://host/extension#pair=…&key=…"
          autocomplete="off"
          spellcheck={false}
        />
        <button type="submit" data-action="remote-check" disabled={busy()}>
          {t("remote.check")}
        </button>
      </form>
      <Show when={pending()}>
        {(p) => (
          <div class="remote-confirm" data-host={p().link.host} data-key={p().link.keyId}>
            <p>{t("remote.confirm_text", { host: p().link.authority, key: p().link.keyId })}</p>
            <button type="button" data-action="remote-confirm" disabled={busy()} onClick={() => void confirm()}>
              {busy() ? t("remote.working") : t("remote.confirm")}
            </button>
            <button type="button" data-action="remote-cancel" disabled={busy()} onClick={() => setPending(undefined)}>
              {t("remote.cancel")}
            </button>
          </div>
        )}
      </Show>
      <Show when={outcome()}>
        {(o) => (
          <p class={o().ok ? "remote-result" : "remote-result error"} data-reason={o().reason ?? (o().ok ? "paired" : "")}>
            {o().ok ? t("remote.paired", { host: o().host ?? "", device: o().device_id ?? "" }) : failure(o())}
          </p>
        )}
      </Show>
    </section>
  );
}
