/**
 * record start|stop end to end: the agent starts a recording through dist/bsk in the background; the person
 * (through the browser's DevTools port, real input events) clicks, types a username and a password, picks an
 * option, presses Enter and clicks Finish in the record panel. The trace validates against the schema, names its
 * targets by role and name, tells navigations with their cause, and the password is nowhere: not in the trace,
 * the output, the daemon's files or the event store. Progress is known from the panel's step count, never by sleeps.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { RecordTrace } from "../../protocol/trace.ts";
import { findQuery } from "../../cli/format-trace.ts";
import { daemonLogTail, useWorld, type Run, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

const PASSWORD = "hunter2-Sekret!";

let w: World;

useWorld({}, (world) => (w = world));

/** Without an --out of the test's own, the trace goes into the world's folder (not the temp folder). */
function recordStart(args: string[]): Promise<Run> {
  return w.bsk(["record", "start", ...args, ...(args.includes("--out") ? [] : ["--out", w.out]), "--json"]);
}

async function finished(r: Promise<Run>, page?: PersonPage): Promise<any> {
  // A recording that never ends fails here, with the daemon's last words, rather than running the test out.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(async () => {
      const look = page ? await page.overlay().then(JSON.stringify, String) : "(no page)";
      const seen = page ? await page.pointerLog().catch(String) : "";
      reject(
        new Error(
          `record start did not end within 30 s; the overlay: ${look}; the page saw: ${seen}; the daemon's log ends:\n${daemonLogTail(w.home)}`,
        ),
      );
    }, 30_000);
  });
  const got = await Promise.race([r, stuck]).finally(() => clearTimeout(timer));
  if (got.code !== 0 || !got.json?.ok) throw new Error(`record start failed (exit ${got.code}):\n${got.stdout}${got.stderr}`);
  return got.json.result;
}

/** The recording tab once its record panel shows `steps` steps. */
function panelAt(page: PersonPage, steps: number) {
  return page.waitOverlay(
    `the record panel at ${steps} steps`,
    (o) => !!o?.panel && o.panelText.includes(steps === 1 ? "1 step" : `${steps} steps`),
  );
}

/** Every file under `dir` (the Chromium profile left out: that is the browser's, not bsk's). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "profile") continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe("record", () => {
  test("human output lists the steps as bsk commands", async () => {
    const recording = w.bsk(["record", "start", "--url", w.fixtures.url("/record-start.html"), "--out", w.out]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-start.html", 20_000);
    await panelAt(page, 0);
    await page.clickSelector("#to-login");
    await panelAt(page, 2);
    const stopped = await w.ok(["record", "stop"]);
    expect(stopped.steps).toBe(2);
    const r = await recording;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("recorded 2 steps");
    expect(r.stdout).toContain("ended by stop");
    expect(r.stdout).toContain("bsk click '#to-login'   # link \"Sign in\"");
    const path = /trace: (\S+)/.exec(r.stdout)?.[1];
    expect(path && existsSync(path)).toBe(true);
  }, 60_000);

  test("an --out that exists is refused before anything starts, unless --overwrite", async () => {
    const out = join(w.home, "taken.json");
    writeFileSync(out, "keep me");
    const before = (await w.ok(["session", "list"])).sessions.length;
    const refused = await recordStart(["--url", w.fixtures.url("/record-start.html"), "--out", out]);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: "invalid_params", data: { reason: "out_exists" } });
    expect(readFileSync(out, "utf8")).toBe("keep me");
    expect((await w.ok(["session", "list"])).sessions.length).toBe(before);
  });

  test("the person closing the tab ends the recording with what it captured", async () => {
    const out = join(w.home, "closed.json");
    writeFileSync(out, "old");
    const recording = recordStart(["--url", w.fixtures.url("/record-login.html"), "--out", out, "--overwrite"]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-login.html", 20_000);
    await panelAt(page, 0);
    await page.clickSelector("#user");
    await page.type("bob");
    await panelAt(page, 1);
    await page.closeTab();
    const r = await finished(recording);
    expect(r.trace.stopped_by).toBe("tab_closed");
    expect(r.trace.steps).toHaveLength(1);
    expect(r.trace.steps[0]).toMatchObject({ op: "fill", value: "bob" });
    expect(JSON.parse(readFileSync(out, "utf8")).stopped_by).toBe("tab_closed");
    const sessions = (await w.ok(["session", "list"])).sessions;
    expect(sessions.find((s: any) => s.session_id === r.session_id)?.state).toBe("ended");
  }, 60_000);

  test("the person's link click, fills, select, Enter and Finish become a trace; the password is nowhere", async () => {
    const out = join(w.home, "signin-trace.json");
    const recording = recordStart(["--url", w.fixtures.url("/record-start.html"), "--purpose", "sign in", "--out", out]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-start.html", 20_000);
    const look = await panelAt(page, 0);
    expect(look!.buttons).toEqual(["finish"]);
    expect(look!.pill).toBe(false);
    expect(look!.panelText).toContain("sign in");

    await page.clickSelector("#to-login");
    await page.waitFor(`location.pathname === "/record-login.html" && document.readyState === "complete"`);
    await panelAt(page, 2);
    await page.clickSelector("#user");
    await page.type("alice");
    await panelAt(page, 3);
    // A native select's popup is not drivable through CDP: the person tabs to it and picks with the arrow key.
    await page.evaluate(`document.querySelector("#plan").focus()`);
    await page.press("ArrowDown");
    await panelAt(page, 4);
    await page.clickSelector("#pass");
    await page.type(PASSWORD);
    await panelAt(page, 5);
    await page.press("Enter");
    await page.waitFor(`location.pathname === "/record-welcome.html" && document.readyState === "complete"`);
    await panelAt(page, 7);
    await page.watchPointer();
    await page.clickOverlay("finish");

    const r = await finished(recording, page);
    expect(r.path).toBe(out);
    const trace = JSON.parse(readFileSync(out, "utf8"));
    expect(RecordTrace().safeParse(trace).success).toBe(true);
    expect(trace).toEqual(r.trace);
    expect(trace).toMatchObject({ version: 1, stopped_by: "finish", purpose: "sign in" });
    expect(trace.start_url).toContain("/record-start.html");
    const ops = trace.steps.map((s: any) => s.op);
    expect(ops).toEqual(["click", "navigate", "fill", "select", "fill", "press", "navigate"]);
    const [click, toLogin, user, select, pass, enter, submitted] = trace.steps;
    expect(click.target).toMatchObject({ role: "link", name: "Sign in", tag: "a", selector: "#to-login" });
    expect(toLogin).toMatchObject({ cause: "link" });
    expect(toLogin.to).toContain("/record-login.html");
    expect(user).toMatchObject({ value: "alice", target: { role: "textbox", name: "Username", selector: "#user" } });
    expect(user.redacted).toBeUndefined();
    expect(select).toMatchObject({ values: ["pro"], labels: ["Professional"], target: { role: "combobox", name: "Plan" } });
    expect(pass).toMatchObject({ value: "***", redacted: true, target: { role: "textbox", name: "Password", selector: "#pass" } });
    expect(enter).toMatchObject({ key: "Enter", modifiers: [] });
    expect(submitted).toMatchObject({ cause: "form_submit" });
    expect(submitted.to).toContain("/record-welcome.html");
    expect(trace.pages.map((p: any) => p.title)).toEqual(["Record start", "Record sign in", "Record welcome"]);

    // The session is gone with the recording; its events stay readable, and nowhere holds the password
    // (the daemon stopped first, so its batched log is on disk; this is the file's last test).
    const sessionId = r.session_id;
    const events = await w.bsk(["events", "--session", sessionId, "--json"]);
    expect(events.code).toBe(0);
    expect(events.stdout).not.toContain(PASSWORD);
    await w.bsk(["daemon", "stop"]);
    for (const file of filesUnder(w.home)) expect(readFileSync(file, "latin1").includes(PASSWORD)).toBe(false);
    expect((await recording).stdout).not.toContain(PASSWORD);
  }, 90_000);

  test("inside iframes too, same-site and cross-site: each step says which frame", async () => {
    const recording = recordStart(["--url", w.fixtures.url("/record-frames.html")]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-frames.html", 20_000);
    await panelAt(page, 0);
    // The inner page's layout is fixed: Subscribe at (10, 10) 120×30, Email at (10, 60) 200×30 in each frame.
    await page.waitFor(
      `document.getElementById("cross").contentWindow && performance.getEntriesByType("resource").some((e) => e.name.includes("?cross"))`,
    );
    const at = (frame: string) =>
      page
        .evaluate(`JSON.stringify(document.getElementById(${JSON.stringify(frame)}).getBoundingClientRect())`)
        .then((r: string) => JSON.parse(r));
    const same = await at("same");
    await page.clickAt(Math.round(same.x + 70), Math.round(same.y + 25));
    await panelAt(page, 1);
    const cross = await at("cross");
    await page.clickAt(Math.round(cross.x + 110), Math.round(cross.y + 75));
    await page.type("me@example.com");
    await panelAt(page, 2);
    await w.ok(["record", "stop"]);
    const r = await finished(recording);
    expect(RecordTrace().safeParse(r.trace).success).toBe(true);
    expect(r.trace.steps).toMatchObject([
      { op: "click", target: { role: "button", name: "Subscribe", frame: expect.stringContaining("record-frame-inner.html?same") } },
      { op: "fill", value: "me@example.com", target: { role: "textbox", name: "Email", frame: expect.stringContaining("localhost") } },
    ]);
    // The page itself keeps its own address and title (an iframe's are not the page's).
    expect(r.trace.pages).toEqual([{ id: 1, url: w.fixtures.url("/record-frames.html"), title: "Record frames" }]);
  }, 60_000);

  test("a step on one of two duplicate cards carries its context, and its bsk find matches one line only", async () => {
    const recording = recordStart(["--url", w.fixtures.url("/snap-controls.html")]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/snap-controls.html", 20_000);
    await panelAt(page, 0);
    // Both cards hold a button "Edit" with no attribute of its own: no unique selector, only the card tells them apart.
    await page.clickSelector(".card:nth-of-type(2) button");
    await panelAt(page, 1);
    await w.ok(["record", "stop"]);
    const r = await finished(recording);
    expect(RecordTrace().safeParse(r.trace).success).toBe(true);
    const [step] = r.trace.steps;
    expect(step).toMatchObject({ op: "click", target: { role: "button", name: "Edit", context: 'in: "Mastercard 5555"' } });
    expect(step.target.selector).toBeUndefined();

    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/snap-controls.html"), "--session", s]);
    const text = (await w.ok(["snapshot", "--session", s])).text as string;
    expect(text.match(/button "Edit" @e\d+/g)).toHaveLength(2);
    const found = await w.ok(["find", findQuery(step.target), "--session", s]);
    expect(found.total).toBe(1);
    expect(found.matches[0].line).toMatch(/^button "Edit" @e\d+ \[in: "Mastercard 5555"\]$/);
    await w.ok(["session", "stop", "--session", s]);
  }, 60_000);

  test("the page's own typing, text it adds on a key and a rename at pointerdown are not the person's steps", async () => {
    const recording = recordStart(["--url", w.fixtures.url("/record-false-steps.html")]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-false-steps.html", 20_000);
    await panelAt(page, 0);
    // The person presses a button the page renames at pointerdown: the step names it as the person saw it.
    await page.clickSelector("#rename");
    await panelAt(page, 1);
    // The person clicks Forge; the page then fills Note by execCommand (trusted input events, no key behind them).
    await page.clickSelector("#forge");
    await page.waitFor(`document.getElementById("note").value === "wire 1000 to mallory"`);
    // The person types "ax" into City; on the "x" key the page inserts "EVIL" too.
    await page.clickSelector("#city");
    await page.typeKeys("ax");
    await page.waitFor(`document.getElementById("city").value === "aEVILx"`);
    await page.waitOverlay("the record panel with City's fill", (o) => !!o?.panel && /\b[3-9] steps/.test(o.panelText));
    await w.ok(["record", "stop"]);
    const r = await finished(recording);
    expect(RecordTrace().safeParse(r.trace).success).toBe(true);
    expect(r.trace.steps).toMatchObject([
      { op: "click", target: { role: "button", name: "Cancel order", selector: "#rename" } },
      { op: "click", target: { role: "button", name: "Forge" } },
      { op: "fill", value: "ax", target: { role: "textbox", name: "City", selector: "#city" } },
    ]);
    expect(r.trace.steps).toHaveLength(3);
    expect(JSON.stringify(r.trace)).not.toContain("mallory");
    expect(JSON.stringify(r.trace)).not.toContain("EVIL");
    expect(JSON.stringify(r.trace)).not.toContain("Confirm payment");
  }, 60_000);

  test("a page's own <bsk-overlay> elements are the page's: the person's clicks on them are recorded; Finish is not", async () => {
    const recording = recordStart(["--url", w.fixtures.url("/fake-overlay.html")]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/fake-overlay.html", 20_000);
    await panelAt(page, 0);
    // An element of the page's named bsk-overlay, then a button in the shadow root of the page's web component of that name.
    await page.clickSelector("#pay");
    await panelAt(page, 1);
    const b = JSON.parse(
      await page.evaluate(`JSON.stringify(document.getElementById("widget").shadowRoot.querySelector("button").getBoundingClientRect())`),
    );
    await page.clickAt(Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2));
    await panelAt(page, 2);
    expect(await page.evaluate("clicks")).toEqual(["pay", "subscribe"]);
    await page.clickOverlay("finish");
    const r = await finished(recording, page);
    expect(RecordTrace().safeParse(r.trace).success).toBe(true);
    expect(r.trace.stopped_by).toBe("finish");
    expect(r.trace.steps).toMatchObject([
      { op: "click", target: { role: "button", name: "Pay", tag: "bsk-overlay" } },
      { op: "click", target: { role: "button", name: "Subscribe" } },
    ]);
    expect(r.trace.steps).toHaveLength(2);
  }, 60_000);

  test("the popup offers no Take over for a recording (it would cut the trace off), and one asked for anyway is refused", async () => {
    const recording = recordStart(["--url", w.fixtures.url("/record-start.html?popup")]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/record-start.html?popup", 20_000);
    await panelAt(page, 0);
    const { sessions } = await w.ok(["session", "list"]);
    const s = sessions.find((x: any) => x.state === "live" && x.name === "recording").session_id as string;
    await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html?recording`);
    const popup = await PersonPage.find(w.browser.cdpPort!, "/popup.html?recording");
    const row = `document.querySelector('li[data-session="${s}"]')`;
    await popup.waitFor(`!!${row}?.querySelector(".recording")`);
    expect(await popup.evaluate(`[...${row}.querySelectorAll("button")].map((b) => b.dataset.action)`)).toEqual(["stop"]);
    // As if an older popup sent it: the worker refuses, the recording carries on.
    await popup.evaluate(`chrome.runtime.sendMessage({ type: "takeover_session", session_id: ${JSON.stringify(s)} })`);
    await page.clickSelector("#to-login");
    await panelAt(page, 2);
    await w.ok(["record", "stop"]);
    const r = await finished(recording);
    expect(r.trace).toMatchObject({ stopped_by: "stop" });
    expect(r.trace.steps).toHaveLength(2);
    await popup.closeTab();
  }, 60_000);
});
