/**
 * The windows-x64 lane's end-to-end session: this machine's Chromium (headless) with the real extension
 * (dist/extension, from npm run build) drives a page for bsk.exe's daemon under Wine, over the daemon's 127.0.0.1
 * TCP port. Native messaging cannot reach across Wine, so the browser is paired by a code from `bsk.exe daemon
 * pair`, typed into the extension's popup, as a person without the registered host does. Then `session start`,
 * `navigate` to a page served here, `snapshot`, `click @eN` (the page reports the click to the server that served it) and
 * `session stop`. The browser, its profile and the page's server are gone afterwards, also on failure.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { removeTree } from "../../shared/fs-util.ts";
import { findChromium, launchChromium, type Browser } from "../chromium.ts";
import { enterPairingCode, evalInPage } from "../page-eval.ts";
import { expectThat, ok, type Wine } from "./wine.ts";

/** A browser or a page that is not there within this long is not coming. */
const WAIT_MS = 30_000;

/** Polls `probe` (a page of the browser, outside this process) until it gives a value; the deadline is a failure. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (performance.now() > deadline) throw new Error(`session: ${what} did not happen within ${WAIT_MS / 1000} s`);
    await Bun.sleep(100);
  }
}

/** One page with one button; its click is reported back here, so the page (not bsk) says it saw it. */
function servePage(): { url: string; clicked: Promise<void>; stop: () => void } {
  const clicked = Promise.withResolvers<void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      if (new URL(req.url).pathname === "/clicked") {
        clicked.resolve();
        return new Response("ok");
      }
      return new Response(
        `<!doctype html><title>Wine lane</title><button onclick="fetch('/clicked', { method: 'POST' }); this.textContent = 'Pressed'">Press me</button>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, clicked: clicked.promise, stop: () => server.stop(true) };
}

type Connection = { state?: string; key_id?: string; error?: string } | undefined;

export async function proveSession(w: Wine, root: string, bin: string, step: (line: string) => void): Promise<void> {
  const extensionDir = join(root, "dist/extension");
  if (!existsSync(join(extensionDir, "manifest.json"))) throw new Error(`session: ${extensionDir} is missing: run npm run build first`);
  if (!findChromium()) throw new Error("session: no Chromium here (apt-get install -y chromium, or CHROMIUM=/path/to/chrome)");
  const started = await ok(w, bin, "session: daemon start", ["daemon", "start"]);
  const port = Number(started.ws_port);
  expectThat("session: daemon start", port > 0, "a ws_port", started);
  const page = servePage();
  const profileDir = join(w.scratch, "chromium-profile");
  let browser: Browser | undefined;
  try {
    browser = await launchChromium({
      extensionDir,
      profileDir,
      urls: [`chrome-extension://${EXTENSION_ID}/connect.html?port=${port}&label=wine-lane`],
      cdp: true,
      headless: true,
    });
    const cdp = browser.cdpPort!;
    const connection = () =>
      evalInPage(cdp, "/connect.html", "chrome.storage.session.get('connection').then((r) => r.connection)") as Promise<Connection>;
    const unpaired = await until("the extension reaching the daemon", async () => {
      const s = await connection();
      return s?.state === "not_paired" && s;
    });

    const { code } = await ok(w, bin, "session: daemon pair", ["daemon", "pair"]);
    await fetch(`http://127.0.0.1:${cdp}/json/new?${encodeURI(`chrome-extension://${EXTENSION_ID}/popup.html`)}`, { method: "PUT" });
    await until(
      "the popup's pairing field",
      async () => (await evalInPage(cdp, "/popup.html", "!!document.getElementById('pairing-code')")) === true,
    );
    const typed = await enterPairingCode(cdp, code);
    expectThat("session: pairing", !typed.error, "the popup to accept the code", typed);
    const keyId = (await ok(w, bin, "session: status", ["status"])).daemon?.key_id;
    await until("the extension connected with the paired key", async () => {
      const s = await connection();
      return s?.state === "connected" && s.key_id === keyId;
    });
    step(
      `Linux Chromium's extension reached bsk.exe's daemon on 127.0.0.1:${port} (not paired: ${unpaired.error ?? "no secret"}); paired by the code of bsk.exe daemon pair typed into the popup (key ${keyId})`,
    );

    const session = String((await ok(w, bin, "session start", ["session", "start", "--no-focus"])).session_id);
    const s = ["--session", session];
    await ok(w, bin, "navigate", ["navigate", page.url, ...s]);
    const snapshot = String((await ok(w, bin, "snapshot", ["snapshot", ...s])).text ?? "");
    const ref = snapshot
      .split("\n")
      .find((l) => l.includes("Press me"))
      ?.match(/@e\d+/)?.[0];
    expectThat("snapshot", !!ref, "a ref for the button Press me", snapshot);
    await ok(w, bin, "click", ["click", ref!, ...s]);
    let timer: Timer | undefined;
    const seen = await Promise.race([page.clicked.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(r, WAIT_MS, false)))]);
    clearTimeout(timer);
    expectThat("click", seen, `the page to report the click within ${WAIT_MS / 1000} s`, ref);
    const stopped = await ok(w, bin, "session stop", ["session", "stop", ...s]);
    expectThat("session stop", stopped.stopped?.[0] === session, `session ${session} stopped`, stopped);
    step(
      `session ${session} through bsk.exe: navigate ${page.url}, snapshot (button ${ref}), click ${ref} (the page reported it), session stop`,
    );
    await ok(w, bin, "session: daemon stop", ["daemon", "stop"]);
  } finally {
    await browser?.close();
    page.stop();
    removeTree(profileDir);
  }
}
