/**
 * Remote connection: the person pastes a pairing link from `bsk daemon pair` on a server, sees the server's host and
 * key fingerprint, and confirms; the worker then pairs (src/link/remote/authorize.ts). The code never leaves this
 * browser except as proofs to a server that proved it first.
 */
import { createSignal, Show } from "solid-js";
import { browser } from "wxt/browser";
import { parsePairingLink, type PairingLink } from "../../../protocol/remote.ts";
import { t } from "../../src/shared/i18n.ts";
import type { PageMessage } from "../../src/session/settings.ts";

type Reply = { ok: boolean; host?: string; device_id?: string; error?: string; reason?: string };

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
      setOutcome({ ok: false, reason: "bad_link", error: `not a bsk pairing link: ${parsed.why}` });
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
      setOutcome(r);
      if (r.ok) input.value = "";
    } catch (err) {
      setOutcome({ ok: false, error: String(err) });
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
            {o().ok ? t("remote.paired", { host: o().host ?? "", device: o().device_id ?? "" }) : o().error}
          </p>
        )}
      </Show>
    </section>
  );
}
