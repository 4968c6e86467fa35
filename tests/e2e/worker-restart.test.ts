/**
 * The session's event stream while Chrome stops the extension's service worker again and again: a page logging
 * about 10 errors a second loses none of them, or the stream says how many it lost and when (events.lost).
 */
import { expect, test } from "bun:test";
import { evaluateInFrame, evaluateInPage, serviceWorker, stopServiceWorker } from "./devtools.ts";
import { until, useWorld, type World } from "./harness.ts";

let w: World;
useWorld({}, (world) => (w = world));

const N = 100;

test("a burst across three worker stops: every error the page logged is in the stream or in an events.lost", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  // e0 … e99, one every 100 ms; the page says how far it got.
  await w.ok(["evaluate", `window.done = burst(${N}, 1, 100).then(() => (window.finished = true)); 1`, "--session", s]);
  for (const at of [20, 45, 70]) {
    // Stop the worker while the page is mid-burst, at a point the page itself reports (no sleeping).
    await until(`the page past e${at}`, async () => (await lastLogged()) >= at, 20_000);
    const old = await stopServiceWorker(w.person);
    await until(
      "the worker to come back",
      async () => {
        const sw = await serviceWorker(w.person);
        return sw && sw.targetId !== old;
      },
      10_000,
    );
  }
  await until(
    "the page to finish",
    async () => (await evaluateInPage(w.browser.cdpPort!, "/events.html", "!!window.finished")) === true,
    30_000,
  );

  const accounted = (evs: any[]) =>
    evs
      .filter((e) => e.event === "console.error" || e.event === "events.lost")
      .reduce((n, e) => n + (e.event === "events.lost" ? e.data.count : (e.count ?? 1)), 0);
  const evs = await until(
    "every error accounted for",
    async () => {
      const got = (await w.ok(["events", "--session", s, "--limit", "10000"])).events;
      return accounted(got) >= N ? got : undefined;
    },
    15_000,
  );
  // Each error is delivered once, in order: an event's text is the last error it stands for; a gap is an events.lost.
  let seen = 0;
  for (const e of evs.filter((x: any) => x.event === "console.error" || x.event === "events.lost")) {
    if (e.event === "events.lost") {
      seen += e.data.count;
      expect(Date.parse(e.data.from)).toBeLessThanOrEqual(Date.parse(e.data.to));
      continue;
    }
    seen += e.count ?? 1;
    expect(e.data.text).toBe(`e${seen - 1}`);
  }
  expect(seen).toBe(N);
  expect(evs.map((e: any) => e.seq)).toEqual(evs.map((_: any, i: number) => i + 1));
  expect(evs.filter((e: any) => e.event === "session.adopted").length).toBe(3);
  // The buffer came back with the worker: bsk console has the page's messages from before the stops too.
  const messages = (await w.ok(["console", "--session", s, "--limit", "500"])).messages.map((m: any) => m.text);
  expect(messages.filter((t: string) => /^e\d+$/.test(t))).toEqual(Array.from({ length: N }, (_, i) => `e${i}`));
  await w.ok(["session", "stop", s]);
}, 120_000);

/** The index of the last error the page logged so far (the fixture counts in window.logged). */
async function lastLogged(): Promise<number> {
  return (await evaluateInPage(w.browser.cdpPort!, "/events.html", "window.logged ?? -1")) as number;
}

test("the agent's input before a worker restart is not the person's after it: the next action does not take over", async () => {
  // The soak: a second after the worker was stopped, three busy sessions were taken over "by the person's input". The
  // page keeps its last key and press events; the new worker's first drain knew none of them as its own.
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/soak.html?s=restart"), "--session", s]);
  await w.ok(["type", "abc", "--target", "#ty", "--session", s]);
  await w.ok(["click", "#b", "--session", s]);
  const old = await stopServiceWorker(w.person);
  await until("the worker to come back", async () => {
    const sw = await serviceWorker(w.person);
    return sw && sw.targetId !== old;
  });
  const click = await w.bsk(["click", "#b", "--session", s, "--json"]);
  expect({ ok: click.json?.ok, error: click.json?.error?.message }).toEqual({ ok: true, error: undefined });
  await w.ok(["type", "d", "--target", "#ty", "--session", s]);
  const { sessions } = await w.ok(["session", "list"]);
  expect(sessions.find((x: { session_id: string }) => x.session_id === s)?.state).toBe("live");
  expect((await w.ok(["events", "--session", s, "--type", "session.takeover"])).events).toEqual([]);
  await w.ok(["session", "stop", s]);
});

/**
 * The extension's service worker stopped, as Chrome stops an idle one; resolves once a new one runs. A page held by a
 * dialog sends no keep-alive pings: the reconnect alarm would wake the worker within 30 s; the person opening bsk's
 * popup (here, a message from one of its pages) wakes it at once.
 */
async function restartWorker(meanwhile?: () => Promise<unknown>): Promise<void> {
  const old = await stopServiceWorker(w.person);
  await meanwhile?.();
  await w.person.asExtension("chrome.runtime.sendMessage({ type: 'bsk-test-wake' }).then(() => 1, () => 1)");
  await until("the worker to come back", async () => {
    const sw = await serviceWorker(w.person);
    return sw && sw.targetId !== old;
  });
}

test("a dialog open across a worker restart: calls say dialog_pending at once, and it can be answered", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/soak.html?s=dialog-restart"), "--session", s]);
  await w.ok(["evaluate", "setTimeout(() => alert('across'), 0); 1", "--session", s]);
  await until("the dialog to be open", async () => (await w.ok(["dialog", "status", "--session", s])).open === true);
  await restartWorker();
  // Not a call that waits out its timeout behind the dialog: the new worker knows it is there.
  const snap = await w.bsk(["snapshot", "--session", s, "--json", "--timeout", "15s"]);
  expect(snap.json?.error).toMatchObject({ code: "dialog_pending", data: { type: "alert", message: "across" } });
  expect((await w.ok(["dialog", "status", "--session", s])).dialog).toMatchObject({ type: "alert", message: "across" });
  expect(await w.ok(["dialog", "accept", "--session", s, "--timeout", "15s"])).toMatchObject({ accepted: true });
  expect((await w.ok(["evaluate", "1 + 1", "--session", s, "--timeout", "15s"])).value).toBe(2);
  await w.ok(["session", "stop", s]);
}, 90_000);

test("a dialog of a cross-site frame open across a worker restart can be answered after it", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/snap-frames.html?dialog-frame-restart"), "--session", s]);
  await evaluateInFrame(w.browser.cdpPort!, "snap-frame-inner.html?cross", "setTimeout(() => alert('framed'), 0); 1");
  await until("the dialog to be open", async () => (await w.ok(["dialog", "status", "--session", s])).open === true);
  // Kept with the frame that opened it: the tab's own session tells of it, but the main frame is not the one it holds.
  const kept = (await w.person.asExtension("chrome.storage.session.get('dialogs')")) as { dialogs: Record<string, any> };
  expect(Object.values(kept.dialogs)[0]).toMatchObject({ message: "framed", frame_id: expect.stringMatching(/^[0-9A-F]{32}$/) });
  await restartWorker();
  // The frame's document is held by its dialog, the main frame's is not: the dialog read back stays known.
  const snap = await w.bsk(["snapshot", "--session", s, "--json", "--timeout", "15s"]);
  expect(snap.json?.error).toMatchObject({ code: "dialog_pending", data: { type: "alert", message: "framed" } });
  expect((await w.ok(["dialog", "status", "--session", s])).dialog).toMatchObject({ type: "alert", message: "framed" });
  expect(await w.ok(["dialog", "accept", "--session", s, "--timeout", "15s"])).toMatchObject({ accepted: true });
  expect((await w.ok(["dialog", "status", "--session", s])).open).toBe(false);
  expect((await w.ok(["evaluate", "1 + 1", "--session", s, "--timeout", "15s"])).value).toBe(2);
  expect(await evaluateInFrame(w.browser.cdpPort!, "snap-frame-inner.html?cross", "location.search")).toBe("?cross");
  await w.ok(["session", "stop", s]);
}, 90_000);

/**
 * A dialog `open` opened in session `s`'s page `marker`, answered by the person's own DevTools (as their click would)
 * while no worker ran: after the restart, calls on the tab go on and nothing reports it.
 */
async function closedWhileNoWorker(s: string, marker: string, open: () => Promise<unknown>): Promise<void> {
  const { targetId } = await w.person.waitForPage(marker);
  const { sessionId } = await w.person.send("Target.attachToTarget", { targetId, flatten: true });
  try {
    await w.person.send("Page.enable", {}, sessionId);
    await open();
    await until("the dialog to be open", async () => (await w.ok(["dialog", "status", "--session", s])).open === true);
    await restartWorker(() => w.person.send("Page.handleJavaScriptDialog", { accept: true }, sessionId));
    expect((await w.ok(["evaluate", "1 + 1", "--session", s, "--timeout", "15s"])).value).toBe(2);
    expect((await w.ok(["dialog", "status", "--session", s])).open).toBe(false);
  } finally {
    await w.person.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    await w.ok(["session", "stop", s]);
  }
}

test("a dialog the person closed while no worker ran is not reported after the restart", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/soak.html?s=dialog-closed"), "--session", s]);
  await closedWhileNoWorker(s, "soak.html?s=dialog-closed", () =>
    w.ok(["evaluate", "setTimeout(() => alert('closed meanwhile'), 0); 1", "--session", s]),
  );
}, 90_000);

test("a cross-site frame's dialog the person closed while no worker ran is not reported after the restart", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/snap-frames.html?dialog-frame-closed"), "--session", s]);
  // Its frame answers the new worker: the dialog read back is known to be gone before the first call is judged.
  await closedWhileNoWorker(s, "snap-frames.html?dialog-frame-closed", () =>
    evaluateInFrame(w.browser.cdpPort!, "snap-frame-inner.html?cross", "setTimeout(() => alert('framed, closed meanwhile'), 0); 1"),
  );
}, 90_000);

test("a dialog read back that no longer shows (its close was told to no one) is forgotten once the page answers", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/soak.html?s=dialog-stale"), "--session", s]);
  const tabId = (await w.ok(["tab", "list", "--session", s])).current_tab_id as number;
  // What a worker stopped with a dialog open left behind, as if the dialog's Closed event had been lost (its frame id
  // swapped for one no frame has, 100,000 characters long: not taken, so the main frame's answer still counts);
  // beside it, entries no worker writes (malformed, or naming another tab than their key) are passed over.
  const stale = { type: "alert", message: "long gone", url: "http://x/", frame_id: "F".repeat(100_000), target: { tabId } };
  const other = tabId + 1;
  const kept = {
    [tabId]: stale,
    "not-a-tab": stale,
    [other]: { type: "alert", message: "x".repeat(100_000), url: "http://x/", target: { tabId: other + 1 } },
    [other + 2]: { type: "alert", message: 42, target: { tabId: other + 2 } },
    [other + 3]: null,
  };
  await w.person.asExtension(`chrome.storage.session.set({ dialogs: ${JSON.stringify(kept)} }).then(() => 1)`);
  await restartWorker();
  expect((await w.ok(["evaluate", "1 + 1", "--session", s, "--timeout", "15s"])).value).toBe(2);
  expect((await w.ok(["dialog", "status", "--session", s])).open).toBe(false);
  // A dialog read back is at most what the worker keeps of one (4,096 characters): a real one open, its stored
  // record swapped for a huge one while no worker runs.
  await w.ok(["evaluate", "setTimeout(() => prompt('real', 'd'), 0); 1", "--session", s]);
  await until("the dialog to be open", async () => (await w.ok(["dialog", "status", "--session", s])).open === true);
  const big = { type: "prompt", message: "y".repeat(100_000), url: "http://x/", default_prompt: "d", target: { tabId } };
  await restartWorker(() =>
    w.person.asExtension(`chrome.storage.session.set({ dialogs: { ${tabId}: ${JSON.stringify(big)} } }).then(() => 1)`),
  );
  const status = await w.ok(["dialog", "status", "--session", s]);
  expect(status.dialog.message.length).toBeLessThanOrEqual(4096);
  await w.ok(["dialog", "dismiss", "--session", s, "--timeout", "15s"]);
  expect((await w.ok(["evaluate", "1 + 1", "--session", s, "--timeout", "15s"])).value).toBe(2);
  await w.ok(["session", "stop", s]);
}, 60_000);
