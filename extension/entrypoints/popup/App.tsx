/**
 * The popup: what the person acts on first (the connection's state with the next step when it is not up, the
 * pairing field while not paired, live sessions with Take over / Resume / Stop, the switches, the ask-first sites), then the connection
 * details folded below (versions, instance, label and port, links, the key, remote pairing). Everything it shows
 * comes from chrome.storage and refreshes when that changes; its language is the browser's (src/shared/i18n.ts).
 */
import { createSignal, onCleanup, onMount, Show } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import { browser } from "wxt/browser";
import { parseBrowser } from "../../src/shared/browser-info.ts";
import { t, type MessageKey } from "../../src/shared/i18n.ts";
import type { LendRefusedNotice } from "../../src/shared/lend-refused.ts";
import {
  DEFAULT_SWITCHES,
  LOCAL,
  loadSettings,
  readConnectionStatus,
  readSessions,
  readSwitches,
  SESSION,
  validPort,
  type ConnectionStatus,
  type RemoteStatus,
  type SessionState,
  type Settings,
  type Switches as SwitchValues,
} from "../../src/session/settings.ts";
import { AskFirst } from "./AskFirst.tsx";
import { Links } from "./Links.tsx";
import { PairedKey, Pairing } from "./Pairing.tsx";
import { RemoteConnection } from "./Remote.tsx";
import { Sessions } from "./Sessions.tsx";
import { steady } from "./steady.ts";
import { Switches } from "./Switches.tsx";

const STATE_TEXT: Record<ConnectionStatus["state"], MessageKey> = {
  connected: "popup.connected",
  connecting: "popup.connecting",
  version_skew: "popup.version_skew",
  disconnected: "popup.off",
  not_paired: "popup.not_paired",
  untrusted: "popup.untrusted",
};

/** The next step for a link that is not up, in words; nothing when connected (not paired: the Pairing section says it). */
function StateHint(props: { conn: ConnectionStatus | undefined; port: number | undefined }) {
  const hint = (): string | null => {
    const c = props.conn;
    const port = c?.port ?? props.port ?? "?";
    switch (c?.state ?? "disconnected") {
      case "disconnected":
        return c?.error === PAUSED ? t("popup.paused") : t("popup.daemon_down", { port });
      case "connecting":
        return t("popup.connecting_hint", { port });
      case "version_skew":
        return t("popup.skew_hint");
      default:
        return null;
    }
  };
  return (
    <Show when={hint()}>
      <p class="hint">{hint()}</p>
    </Show>
  );
}

/**
 * While the daemon is down the worker retries on its back-off, each attempt a moment of "connecting" between two of
 * "off". Shown as is, the hint under the title would swap its words (and the rows below it would jump) on every
 * attempt. An attempt from a down link shows only once it has lasted this long; every other change shows at once.
 */
const RETRY_QUIET_MS = 1500;

function quietRetries(set: (c: ConnectionStatus | undefined) => void, shown: () => ConnectionStatus | undefined) {
  let pending: ReturnType<typeof setTimeout> | undefined;
  let latest: ConnectionStatus | undefined;
  onCleanup(() => clearTimeout(pending));
  return (c: ConnectionStatus | undefined) => {
    latest = c;
    const before = shown()?.state;
    const wasDown = before !== undefined && before !== "connected" && before !== "connecting";
    if (c?.state === "connecting" && wasDown) {
      // Other refreshes during the attempt (a session's change) do not restart its clock.
      pending ??= setTimeout(() => {
        pending = undefined;
        set(latest);
      }, RETRY_QUIET_MS);
      return;
    }
    clearTimeout(pending);
    pending = undefined;
    set(c);
  };
}

/** The worker's `error` when the person pressed Disconnect (src/link/connection.ts). */
const PAUSED = "disconnected from the popup";

function EditField(props: { name: string; label: string; value: string; save: (text: string) => string | null }) {
  const [error, setError] = createSignal<string | null>(null);
  let input!: HTMLInputElement;
  const submit = (ev: SubmitEvent) => {
    ev.preventDefault();
    setError(props.save(input.value));
  };
  return (
    <form class="field" onSubmit={submit}>
      <label for={props.name}>{props.label}</label>
      <input id={props.name} name={props.name} ref={input} value={props.value} />
      <button type="submit">{t("popup.save")}</button>
      <Show when={error()}>
        <span class="error">{error()}</span>
      </Show>
    </form>
  );
}

export function App() {
  const [conn, setShownConn] = createSignal<ConnectionStatus>();
  const setConn = quietRetries(setShownConn, conn);
  const [remote, setRemote] = createSignal<RemoteStatus>();
  // A store reconciled by id: a session's row (and the button under the person's pointer) survives refreshes.
  const [sessions, setSessions] = createStore<SessionState[]>([]);
  const [takenOver, setTakenOver] = createSignal<string[]>([]);
  const [recording, setRecording] = createSignal<string[]>([]);
  const [pillHidden, setPillHidden] = createSignal<string[]>([]);
  const [lendRefused, setLendRefused] = createSignal<Record<string, LendRefusedNotice>>({});
  const [settings, setSettings] = createSignal<Settings>();
  const [switches, setSwitches] = createSignal<SwitchValues>(DEFAULT_SWITCHES);
  const defaultLabel = parseBrowser(navigator.userAgent).name.toLowerCase();

  const refresh = async () => {
    const [c, s, st, sw, control, recs, rem, hiding, refused] = await Promise.all([
      readConnectionStatus(),
      readSessions(),
      loadSettings(defaultLabel),
      readSwitches(),
      browser.storage.session.get(SESSION.control),
      browser.storage.session.get(SESSION.recordings),
      browser.storage.session.get(SESSION.remote),
      browser.storage.session.get(SESSION.pillHidden),
      browser.storage.session.get(SESSION.lendRefused),
    ]);
    steady("app", () => {
      setRemote((rem[SESSION.remote] as RemoteStatus | undefined) ?? undefined);
      setConn(c);
      setSessions(reconcile(Object.values(s), { key: "session_id" }));
      setSettings(st);
      setSwitches(sw);
      setTakenOver(Array.isArray(control[SESSION.control]) ? (control[SESSION.control] as string[]) : []);
      const live = Object.values((recs[SESSION.recordings] ?? {}) as Record<string, { session_id: string; ended?: unknown }>);
      setRecording(live.filter((r) => !r.ended).map((r) => r.session_id));
      setPillHidden(Array.isArray(hiding[SESSION.pillHidden]) ? (hiding[SESSION.pillHidden] as string[]) : []);
      setLendRefused((refused[SESSION.lendRefused] ?? {}) as Record<string, LendRefusedNotice>);
    });
  };
  const onChange = () => void refresh();
  onMount(() => {
    void refresh();
    browser.storage.onChanged.addListener(onChange);
  });
  onCleanup(() => browser.storage.onChanged.removeListener(onChange));

  const savePort = (text: string) => {
    const port = validPort(text);
    if (port === null) return t("popup.bad_port");
    void browser.storage.local.set({ [LOCAL.port]: port });
    return null;
  };
  const saveLabel = (text: string) => {
    const label = text.trim().slice(0, 64);
    if (!label) return t("popup.empty");
    void browser.storage.local.set({ [LOCAL.label]: label });
    return null;
  };

  const state = () => conn()?.state ?? "disconnected";
  return (
    <main class={state()}>
      <h1>
        <span class="dot" /> bsk · <span class="state">{t(STATE_TEXT[state()])}</span>
        <Show when={state() === "connected" && conn()?.skew}>
          <span class="muted">{t("popup.skew_note")}</span>
        </Show>
      </h1>
      <StateHint conn={conn()} port={settings()?.port} />
      <Pairing conn={conn()} />
      <Sessions sessions={sessions} takenOver={takenOver()} recording={recording()} pillHidden={pillHidden()} lendRefused={lendRefused()} />
      <Switches values={switches()} />
      <AskFirst />
      <details class="details">
        <summary>{t("popup.details")}</summary>
        <dl>
          <dt>{t("popup.extension")}</dt>
          <dd>{browser.runtime.getManifest().version}</dd>
          <dt>{t("popup.daemon")}</dt>
          <dd>{conn()?.daemon_version ?? "—"}</dd>
          <dt>{t("popup.protocol")}</dt>
          <dd>{conn()?.protocol_version ?? "—"}</dd>
          <dt>{t("popup.instance")}</dt>
          <dd>{settings()?.instance_id ?? "—"}</dd>
        </dl>
        <Show when={settings()}>
          {(st) => (
            <>
              <EditField name="label" label={t("popup.label")} value={st().label} save={saveLabel} />
              <EditField name="port" label={t("popup.port")} value={String(st().port)} save={savePort} />
            </>
          )}
        </Show>
        <PairedKey conn={conn()} />
        <Links local={conn()} remote={remote()} localState={STATE_TEXT[state()]} />
        <RemoteConnection />
      </details>
    </main>
  );
}
