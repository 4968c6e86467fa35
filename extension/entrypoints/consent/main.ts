/**
 * consent.html?id=<prompt>: the person's Allow / Deny for one tab.borrow, in a window of its own. Everything it
 * shows comes from the service worker over the port; when the port drops (answered, timed out, cancelled, the
 * worker restarted) the window closes itself. It opens focused, over whatever the person was typing into: Allow and
 * Deny take their input only once they have been seen, and keys only after a press in the card (shared/arming.ts).
 */
import { browser } from "wxt/browser";
import { Arming } from "../../src/shared/arming.ts";
import { CONSENT_PORT, type ConsentInfo, type ToPage, type ToWorker } from "../../src/shared/messages/consent.ts";
import { t } from "../../src/shared/i18n.ts";

const query = new URLSearchParams(location.search);
const id = query.get("id") ?? "";
const $ = (name: string) => document.getElementById(name)!;
const arming = new Arming($("card"));

async function closeSelf(): Promise<void> {
  const tab = await browser.tabs.getCurrent().catch(() => undefined);
  if (tab?.id !== undefined) await browser.tabs.remove(tab.id).catch(() => window.close());
  else window.close();
}

function render(info: ConsentInfo, answer: (allow: boolean) => void): void {
  $("heading").textContent = t("consent.title");
  const session = info.session_name ? `"${info.session_name}" (${info.session_id})` : info.session_id;
  $("session").textContent = t("consent.body", { session });
  $("tab-title").textContent = info.title || info.url;
  $("tab-url").textContent = info.url;
  if (info.fav_icon_url) {
    const img = $("favicon") as HTMLImageElement;
    img.src = info.fav_icon_url;
    img.hidden = false;
  }
  $("explain").textContent = t("consent.explain");
  const allow = $("allow") as HTMLButtonElement;
  const deny = $("deny") as HTMLButtonElement;
  allow.textContent = t("consent.allow");
  deny.textContent = t("consent.deny");
  const tick = () => {
    const left = Math.max(0, Math.ceil((info.deadline - Date.now()) / 1000));
    $("countdown").textContent = t("consent.countdown", { s: left });
  };
  tick();
  setInterval(tick, 250);
  arming.button(allow, () => answer(true));
  arming.button(deny, () => answer(false));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") answer(false);
  });
  document.title = `bsk: borrow "${info.title || info.url}"?`;
  $("card").hidden = false;
}

const port = browser.runtime.connect({ name: CONSENT_PORT });
let answered = false;
const answer = (allow: boolean) => {
  if (answered) return;
  answered = true;
  arming.spend();
  $("status").textContent = t(allow ? "consent.allowed" : "consent.denied");
  const msg: ToWorker = { type: "answer", id, allow };
  port.postMessage(msg);
};
port.onMessage.addListener((msg: ToPage) => {
  if (msg.type === "info") render(msg.info, answer);
  else void closeSelf();
});
port.onDisconnect.addListener(() => void closeSelf());
const hello: ToWorker = { type: "hello", id };
port.postMessage(hello);
