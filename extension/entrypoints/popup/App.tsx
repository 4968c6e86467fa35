/** The popup: connection state, versions, identity, the daemon port, and live sessions with a Stop button each. */
import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import { browser } from "wxt/browser";
import { parseBrowser } from "../../src/browser-info.ts";
import {
  LOCAL,
  loadSettings,
  readConnectionStatus,
  readSessions,
  SESSION,
  validPort,
  type ConnectionStatus,
  type PageMessage,
  type SessionState,
  type Settings,
} from "../../src/settings.ts";

const STATE_TEXT: Record<ConnectionStatus["state"], string> = {
  connected: "Connected",
  connecting: "Connecting",
  version_skew: "Version skew",
  disconnected: "Disconnected",
  not_paired: "Not paired",
  untrusted: "Untrusted daemon",
};

function EditField(props: { label: string; value: string; save: (text: string) => string | null }) {
  const [error, setError] = createSignal<string | null>(null);
  let input!: HTMLInputElement;
  const submit = (ev: SubmitEvent) => {
    ev.preventDefault();
    setError(props.save(input.value));
  };
  return (
    <form onSubmit={submit}>
      <label>{props.label}</label>
      <input ref={input} value={props.value} />
      <button type="submit">Save</button>
      <Show when={error()}>
        <span class="error">{error()}</span>
      </Show>
    </form>
  );
}

export function App() {
  const [conn, setConn] = createSignal<ConnectionStatus>();
  const [sessions, setSessions] = createSignal<SessionState[]>([]);
  const [settings, setSettings] = createSignal<Settings>();
  const defaultLabel = parseBrowser(navigator.userAgent).name.toLowerCase();

  const refresh = async () => {
    const [c, s, st] = await Promise.all([readConnectionStatus(), readSessions(), loadSettings(defaultLabel)]);
    setConn(c);
    setSessions(Object.values(s));
    setSettings(st);
  };
  const onChange = () => void refresh();
  onMount(() => {
    void refresh();
    browser.storage.onChanged.addListener(onChange);
  });
  onCleanup(() => browser.storage.onChanged.removeListener(onChange));

  const savePort = (text: string) => {
    const port = validPort(text);
    if (port === null) return "1-65535";
    void browser.storage.local.set({ [LOCAL.port]: port });
    return null;
  };
  const saveLabel = (text: string) => {
    const label = text.trim().slice(0, 64);
    if (!label) return "empty";
    void browser.storage.local.set({ [LOCAL.label]: label });
    return null;
  };
  const stop = (sessionId: string) => {
    const msg: PageMessage = { type: "stop_session", session_id: sessionId };
    void browser.runtime.sendMessage(msg);
  };

  const state = () => conn()?.state ?? "disconnected";
  return (
    <main class={state()}>
      <h1>
        <span class="dot" /> bsk — {STATE_TEXT[state()]}
        <Show when={state() === "connected" && conn()?.skew}>
          <span class="muted">(version skew)</span>
        </Show>
      </h1>
      <Show when={conn()?.error && state() !== "connected"}>
        <div class="error">{conn()?.error}</div>
      </Show>
      <dl>
        <dt>extension</dt>
        <dd>{browser.runtime.getManifest().version}</dd>
        <dt>daemon</dt>
        <dd>{conn()?.daemon_version ?? "—"}</dd>
        <dt>protocol</dt>
        <dd>{conn()?.protocol_version ?? "—"}</dd>
        <dt>instance</dt>
        <dd>{settings()?.instance_id ?? "—"}</dd>
      </dl>
      <Show when={settings()}>
        {(st) => (
          <>
            <EditField label="label" value={st().label} save={saveLabel} />
            <EditField label="port" value={String(st().port)} save={savePort} />
          </>
        )}
      </Show>
      <h2 style={{ "font-size": "13px", margin: "10px 0 2px" }}>Sessions</h2>
      <Show when={sessions().length > 0} fallback={<div class="muted">No live sessions.</div>}>
        <ul>
          <For each={sessions()}>
            {(s) => (
              <li>
                <span>
                  <b>{s.session_id}</b> {s.name ?? ""}{" "}
                  <span class="muted">
                    {Object.keys(s.tabs).length} tab{Object.keys(s.tabs).length === 1 ? "" : "s"}
                  </span>
                </span>
                <button type="button" onClick={() => stop(s.session_id)}>
                  Stop
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </main>
  );
}
