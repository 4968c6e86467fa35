/** Every link this browser holds (local and remote) with its host and state, and a Disconnect for each. */
import { Show } from "solid-js";
import { browser } from "wxt/browser";
import { t, type MessageKey } from "../../src/shared/i18n.ts";
import type { ConnectionStatus, PageMessage, RemoteStatus } from "../../src/session/settings.ts";

function tell(msg: PageMessage): void {
  void browser.runtime.sendMessage(msg);
}

export function Links(props: { local: ConnectionStatus | undefined; remote: RemoteStatus | undefined; localState: MessageKey }) {
  const localOff = () => props.local?.state === "disconnected" && props.local?.error === "disconnected from the popup";
  return (
    <section class="links">
      <h2>{t("links.title")}</h2>
      <ul>
        <li data-link="local" data-state={props.local?.state ?? "disconnected"}>
          <span>{t("links.local", { port: props.local?.port ?? "?" })}</span> · <span class="state">{t(props.localState)}</span>{" "}
          <Show
            when={localOff()}
            fallback={
              <button type="button" data-action="disconnect" onClick={() => tell({ type: "local_disconnect" })}>
                {t("links.disconnect")}
              </button>
            }
          >
            <button type="button" data-action="connect" onClick={() => tell({ type: "reconnect" })}>
              {t("links.connect")}
            </button>
          </Show>
        </li>
        <Show when={props.remote} fallback={<li class="muted">{t("links.none")}</li>}>
          {(r) => (
            <li data-link="remote" data-state={r().state} data-host={r().host} data-generation={r().generation}>
              <span>{t("links.remote", { host: r().authority })}</span> ·{" "}
              <span class="state">{t(`remote.state.${r().state}` as MessageKey)}</span>{" "}
              <button type="button" data-action="disconnect" onClick={() => tell({ type: "remote_disconnect" })}>
                {t("links.disconnect")}
              </button>
              <Show when={(r().reason || r().error) && r().state !== "connected"}>
                <div class="error" data-reason={r().reason ?? "refused"} title={r().error}>
                  {t(`remote.error.${r().reason ?? "refused"}` as MessageKey, { host: r().host })}
                </div>
              </Show>
            </li>
          )}
        </Show>
      </ul>
    </section>
  );
}
