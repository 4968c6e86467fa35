/**
 * Live sessions: id, name, tabs, and Take over / Resume / Stop for each; a page that hides bsk's pill is named here,
 * and so is the last tab the person dragged into a session's group that was not lent.
 */
import { For, Show } from "solid-js";
import { browser } from "wxt/browser";
import { t } from "../../src/shared/i18n.ts";
import { lendRefusedText, type LendRefusedNotice } from "../../src/shared/lend-refused.ts";
import type { PageMessage, SessionState } from "../../src/session/settings.ts";

function tell(msg: PageMessage): void {
  void browser.runtime.sendMessage(msg);
}

export function Sessions(props: {
  sessions: SessionState[];
  takenOver: string[];
  recording: string[];
  pillHidden: string[];
  lendRefused: Record<string, LendRefusedNotice>;
}) {
  return (
    <section class="sessions">
      <h2>{t("popup.sessions")}</h2>
      <Show when={props.sessions.length > 0} fallback={<div class="muted">{t("popup.no_sessions")}</div>}>
        <ul class="sessions">
          <For each={props.sessions}>
            {(s) => {
              const taken = () => props.takenOver.includes(s.session_id);
              // A recording's tab is the person's already: no Take over (it would cut off the trace), Stop ends it.
              const recording = () => props.recording.includes(s.session_id);
              const tabs = () => Object.keys(s.tabs).length;
              return (
                <li data-session={s.session_id}>
                  <div class="who">
                    <b>{s.session_id}</b> <span class="name">{s.name ?? ""}</span>
                    <div class="muted">
                      {tabs() === 1 ? t("popup.tab_one") : t("popup.tabs", { n: tabs() })}
                      <Show when={s.remote_host}>
                        {(host) => (
                          <>
                            {" · "}
                            <span class="remote">{t("session.remote", { host: host() })}</span>
                          </>
                        )}
                      </Show>
                      <Show when={s.isolated}>
                        {" · "}
                        <span class="isolated" title={t("session.isolated_title")}>
                          {t("session.isolated")}
                        </span>
                      </Show>
                      <Show when={taken()}>
                        {" · "}
                        <span class="taken">{t("popup.taken_over")}</span>
                      </Show>
                      <Show when={recording()}>
                        {" · "}
                        <span class="recording">{t("popup.recording")}</span>
                      </Show>
                      <Show when={props.pillHidden.includes(s.session_id)}>
                        {" · "}
                        <span class="pill-hidden" title={t("popup.pill_hidden_title")}>
                          {t("popup.pill_hidden")}
                        </span>
                      </Show>
                    </div>
                    <Show when={props.lendRefused[s.session_id]}>
                      {(n) => (
                        <div class="notice" data-notice="lend_refused">
                          {lendRefusedText(n())}
                        </div>
                      )}
                    </Show>
                  </div>
                  <Show
                    when={taken() || recording()}
                    fallback={
                      <button
                        type="button"
                        data-action="takeover"
                        title={t("pill.takeover_title")}
                        onClick={() => tell({ type: "takeover_session", session_id: s.session_id })}
                      >
                        {t("pill.takeover")}
                      </button>
                    }
                  >
                    <Show when={taken()}>
                      <button
                        type="button"
                        data-action="resume"
                        title={t("pill.resume_title")}
                        onClick={() => tell({ type: "resume_session", session_id: s.session_id })}
                      >
                        {t("pill.resume")}
                      </button>
                    </Show>
                  </Show>
                  <button
                    type="button"
                    class="stop"
                    data-action="stop"
                    title={t("pill.stop_title")}
                    onClick={() => tell({ type: "stop_session", session_id: s.session_id })}
                  >
                    {t("pill.stop")}
                  </button>
                </li>
              );
            }}
          </For>
        </ul>
      </Show>
    </section>
  );
}
