/**
 * Test hook: connect.html?port=NNNN[&label=XYZ][&close=1] stores the port (and label), tells the service worker
 * to reconnect now, and shows "connecting to NNNN", then "connected" (or "not paired: …" / "untrusted: …"). Tests use it instead of the popup.
 * The page title mirrors the text, so a test can read it from the tab list.
 */
import { browser } from "wxt/browser";
import { LOCAL, SESSION, validPort, type ConnectionStatus, type PageMessage } from "../../src/session/settings.ts";

const statusEl = document.getElementById("status")!;

function show(text: string): void {
  statusEl.textContent = text;
  document.title = `bsk: ${text}`;
}

/** window.close() is refused for a tab the script did not open; the tabs API is not. */
async function closeThisTab(): Promise<void> {
  const tab = await browser.tabs.getCurrent();
  if (tab?.id !== undefined) await browser.tabs.remove(tab.id);
  else window.close();
}

async function main(): Promise<void> {
  const q = new URLSearchParams(location.search);
  const port = validPort(q.get("port"));
  if (port === null) return show("error: give ?port=NNNN (1-65535)");
  const label = q.get("label");
  await browser.storage.local.set({ [LOCAL.port]: port, ...(label ? { [LOCAL.label]: label.slice(0, 64) } : {}) });
  show(`connecting to ${port}`);

  const check = (s: ConnectionStatus | undefined) => {
    if (!s || s.port !== port) return;
    if (s.state === "connected") {
      show("connected");
      if (q.get("close") === "1") void closeThisTab();
    } else if (s.state === "version_skew") {
      show(`version skew: ${s.error ?? "the daemon refused this extension's protocol"}`);
    } else if (s.state === "not_paired" || s.state === "untrusted") {
      show(`${s.state.replace("_", " ")}: ${s.error ?? ""}`);
    }
  };
  browser.storage.session.onChanged.addListener((changes) => {
    const change = changes[SESSION.connection];
    if (change) check(change.newValue as ConnectionStatus | undefined);
  });
  const message: PageMessage = { type: "reconnect" };
  await browser.runtime.sendMessage(message);
  const now = await browser.storage.session.get(SESSION.connection);
  check(now[SESSION.connection] as ConnectionStatus | undefined);
}

main().catch((err: unknown) => show(`error: ${String(err)}`));
