/**
 * Pairing by code through the real popup, for a browser without the native messaging host: not paired at first
 * (it does not connect at all), a wrong code is refused without burning the code, the right one then pairs it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { startWorld, until, type World } from "./harness.ts";
import { enterPairingCode, evalInPage } from "./page-eval.ts";

let w: World;
beforeAll(async () => {
  // The person retypes at once here; the one-try-a-second rule has its own test (integration/daemon-trust).
  w = await startWorld({ env: { BSK_PAIRING_INTERVAL_MS: "0" } });
});
afterAll(async () => {
  await w.stop();
});

/** Evaluates in the first extension page whose URL contains `marker`. */
const inPage = (marker: string, expression: string) => evalInPage(w.browser.cdpPort!, marker, expression);

const state = () => inPage("/connect.html", "chrome.storage.session.get('connection').then((r) => r.connection)").catch(() => undefined);

/** Types a code into the popup's Pairing field and presses Pair; resolves with the line the popup shows. */
const enterCode = (code: string) => enterPairingCode(w.browser.cdpPort!, code);

test("without native messaging the browser is not paired; a code from bsk daemon pair pairs it through the popup", async () => {
  await until("connected through native messaging first", async () => (await state())?.state === "connected");
  await w.ok(["native", "uninstall", "--profile-dir", join(w.home, "profile")]);
  await inPage("/connect.html", "chrome.runtime.sendMessage({ type: 'unpair' })");
  const unpaired = await until("not paired", async () => {
    const s = await state();
    return s?.state === "not_paired" && s;
  });
  expect(unpaired.error).toContain("bsk daemon pair");
  expect((await w.ok(["browsers"])).browsers).toEqual([]);

  await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await until(
    "the popup",
    async () => (await inPage("/popup.html", "!!document.getElementById('pairing-code')").catch(() => false)) === true,
  );
  expect(await inPage("/popup.html", "document.querySelector('.pairing').dataset.trust")).toBe("not_paired");

  // A wrong code is refused; the pending code survives it.
  const { code, expires_in_ms } = await w.ok(["daemon", "pair"]);
  expect(expires_in_ms).toBeGreaterThan(0);
  const wrong = await enterCode("AAAA-BBBB-CCCC");
  expect(wrong.error).toBe(true);
  expect(wrong.text).toContain("could not prove the code");

  const ok = await enterCode(code.toLowerCase());
  expect(ok.error).toBe(false);
  const status = await w.ok(["status"]);
  expect(ok.text).toContain(status.daemon.key_id);
  await until("connected with the paired key", async () => {
    const s = await state();
    return s?.state === "connected" && s.key_id === status.daemon.key_id;
  });
  expect((await w.ok(["browsers"])).browsers).toHaveLength(1);
  const s = await w.startSession();
  await w.ok(["session", "stop", s]);
});
