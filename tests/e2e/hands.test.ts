/**
 * The person's hands win (extension/src/features/hands/): their own key presses, clicks or taps in a session's tab take the
 * session over, as the pill's Take over does; the agent's own input never does, also while the person's pointer is
 * moving and scrolling at the same time; moves and scrolls alone never do; an open help request expects their input;
 * the popup switch turns it off. The person's input is real trusted input from the browser's DevTools port
 * (PersonPage), which the page sees as it sees hardware input. "In flight" is made certain by the glow, never sleeps.
 */
import { describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { until, useWorld, type Run, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;

useWorld({}, (world) => (w = world));

let marker = 0;

async function sessionOnFixture(): Promise<{ s: string; page: PersonPage }> {
  const s = await w.startSession();
  const path = `/hands.html?m=${++marker}`;
  await w.ok(["navigate", w.fixtures.url(path), "--session", s]);
  const page = await PersonPage.find(w.browser.cdpPort!, path);
  await page.waitOverlay("the pill", (o) => !!o?.pill);
  await page.send("Page.bringToFront");
  return { s, page };
}

const run = (s: string, args: string[]) => w.bsk([...args, "--session", s, "--json"]);

async function takenOver(r: Run | Promise<Run>): Promise<any> {
  const got = await r;
  if (got.json?.ok !== false) throw new Error(`expected user_aborted, got:\n${got.stdout}${got.stderr}`);
  expect(got.json.error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
  expect(got.code).toBe(2);
  return got.json.error;
}

async function state(s: string): Promise<string> {
  const { sessions } = await w.ok(["session", "list"]);
  return sessions.find((x: any) => x.session_id === s).state;
}

const takeovers = async (s: string) =>
  (await w.ok(["events", "--session", s, "--type", "session"])).events.filter((e: any) => e.event === "session.takeover");

async function finish(s: string, page: PersonPage): Promise<void> {
  page.close();
  await w.ok(["session", "stop", s]);
}

describe("the person's input takes the session over", () => {
  test("typing in a field: the agent's fill is refused and the text stays theirs; reads are refused; Resume gives it back", async () => {
    const { s, page } = await sessionOnFixture();
    // The agent put the caret there; the person types into it with the keyboard alone.
    await w.ok(["focus", "#name", "--session", s]);
    await page.typeKeys("mine");
    await until("taken over by the person's keys", async () => (await state(s)) === "taken_over");
    const [ev] = await takeovers(s);
    expect(ev.data).toMatchObject({ cause: "input" });
    expect(typeof ev.data.tab_id).toBe("number");
    const look = await page.waitOverlay("Resume offered", (o) => !!o?.buttons.includes("resume"));
    expect(look!.pillText).toContain("You have control");

    await takenOver(run(s, ["fill", "#name", "agent text"]));
    expect(await page.evaluate(`document.querySelector("#name").value`)).toBe("mine");
    for (const read of [["snapshot"], ["get-html"], ["screenshot"], ["find", "Go"]]) {
      const err = await takenOver(run(s, read));
      expect(err.hint).toContain("Resume");
    }
    // The session's own lists still answer: that is how the agent sees the Resume.
    await w.ok(["tab", "list", "--session", s]);

    await page.clickOverlay("resume");
    await until("live again", async () => (await state(s)) === "live");
    expect((await w.ok(["snapshot", "--session", s])).text).toContain("Go");
    await w.ok(["fill", "#name", "agent text", "--session", s]);
    expect(await page.evaluate(`document.querySelector("#name").value`)).toBe("agent text");
    await finish(s, page);
  });

  test("a click on the page takes it over and cuts off the agent's call running in the tab", async () => {
    const { s, page } = await sessionOnFixture();
    const waiting = run(s, ["wait-for", "--text", "never on this page", "--timeout", "20s"]);
    await page.waitOverlay("the glow while the wait-for runs", (o) => !!o?.glow);
    await page.clickSelector("#go");
    await takenOver(waiting);
    expect(await state(s)).toBe("taken_over");
    expect(await page.evaluate("clicks")).toEqual(["go"]);
    await finish(s, page);
  });

  test("a press whose document goes in that same task (its frame removed) is still told", async () => {
    // Reports wait a little to go as one; a document that goes first sends what it holds as it goes.
    const s = await w.startSession();
    const path = `/hands-leave.html?m=${++marker}`;
    await w.ok(["navigate", w.fixtures.url(path), "--session", s]);
    const page = await PersonPage.find(w.browser.cdpPort!, path);
    await page.waitOverlay("the pill", (o) => !!o?.pill);
    await page.waitFor(`document.getElementById("leaving").contentDocument?.readyState === "complete"`);
    const at = await page.evaluate(
      `(() => { const r = document.getElementById("leaving").getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    await page.clickAt(at.x, at.y);
    expect(await page.evaluate(`document.getElementById("status").textContent`)).toBe("frame gone");
    await until("taken over by the press", async () => (await state(s)) === "taken_over");
    const [ev] = await takeovers(s);
    expect(ev.data).toMatchObject({ cause: "input" });
    await finish(s, page);
  });

  test("pointer moves and wheel turns alone do not take it over", async () => {
    const { s, page } = await sessionOnFixture();
    for (let i = 0; i < 10; i++) await page.moveMouse(50 + i * 20, 120 + i * 10);
    for (let i = 0; i < 3; i++) await page.wheel(200, 200, 120);
    expect(await page.evaluate("seen.pointermove > 0 && seen.wheel > 0")).toBe(true);
    await w.ok(["click", "#go", "--session", s]);
    expect(await page.evaluate("clicks")).toEqual(["go"]);
    expect(await state(s)).toBe("live");
    expect(await takeovers(s)).toEqual([]);
    await finish(s, page);
  });
});

describe("the agent's own input never takes it over", () => {
  test("click, fill, type, press, hover, wheel, double click; also while the person's pointer moves and scrolls meanwhile", async () => {
    const { s, page } = await sessionOnFixture();
    const ok = (...args: string[]) => w.ok([...args, "--session", s]);
    await ok("click", "#go");
    await ok("fill", "#name", "Ada");
    await ok("type", "--target", "#notes", "hello");
    await ok("press", "Enter");
    await ok("press", "Shift+Tab");
    await ok("hover", "#go");
    await ok("wheel", "--dy", "200");
    await ok("dblclick", "#go");
    expect(await page.evaluate("clicks.length")).toBe(3);

    // The person's hand is on the mouse while the agent types slowly: moves and scrolls arrive during its input.
    const typing = run(s, ["type", "--target", "#notes", " slowly typed", "--delay", "30ms"]);
    await page.waitOverlay("the glow while typing", (o) => !!o?.glow);
    let moves = 0;
    for (let done = false; !done; moves++) {
      await page.moveMouse(100 + (moves % 40) * 5, 150);
      if (moves % 5 === 0) await page.wheel(200, 300, moves % 10 === 0 ? 40 : -40);
      done = (await page.overlay())?.glow === false;
    }
    const typed = await typing;
    expect(typed.json?.ok).toBe(true);
    expect(moves).toBeGreaterThan(1);
    expect(await page.evaluate(`document.querySelector("#notes").value`)).toContain(" slowly typed");
    expect(await state(s)).toBe("live");
    expect(await takeovers(s)).toEqual([]);
    await finish(s, page);
  });

  test("the person's key press during the agent's typing takes it over and ends that typing", async () => {
    const { s, page } = await sessionOnFixture();
    const typing = run(s, ["type", "--target", "#notes", "a long text typed slowly by the agent", "--delay", "50ms"]);
    // The agent's keys are arriving in the field (the person's caret is there too).
    await page.waitFor(`document.querySelector("#notes").value.length >= 2`);
    await page.typeKeys("Q");
    await takenOver(typing);
    expect(await state(s)).toBe("taken_over");
    const value = await page.evaluate(`document.querySelector("#notes").value`);
    expect(value).toContain("Q");
    expect(value.replace("Q", "").length).toBeLessThan("a long text typed slowly by the agent".length);
    await finish(s, page);
  });
});

describe("when the person's input is expected or not wanted", () => {
  test("while a help request is open in the tab, the person's input does not take over; its criteria still complete it", async () => {
    const { s, page } = await sessionOnFixture();
    const asking = run(s, [
      "request-help",
      "--prompt",
      "Please type your name and sign in",
      "--until",
      JSON.stringify({ element_exists: "#signed", stable_ms: 100 }),
      "--timeout",
      "20s",
    ]);
    await page.waitOverlay("the help panel", (o) => !!o?.panel);
    await page.clickSelector("#name");
    await page.typeKeys("Grace");
    await page.clickSelector("#sign");
    const r = await asking;
    expect(r.json?.result).toMatchObject({ outcome: "completed" });
    expect(await state(s)).toBe("live");
    expect(await takeovers(s)).toEqual([]);
    await w.ok(["click", "#go", "--session", s]);
    expect(await page.evaluate(`document.querySelector("#name").value`)).toBe("Grace");
    await finish(s, page);
  });

  test('the popup switch "Take over when I use an agent tab" turns it off, and on again', async () => {
    const { s, page } = await sessionOnFixture();
    await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html`);
    const popup = await PersonPage.find(w.browser.cdpPort!, "/popup.html");
    // On by default.
    await popup.waitFor(`document.querySelector('input[name="auto_takeover"]')?.checked === true`);
    await popup.clickSelector('input[name="auto_takeover"]');
    await popup.waitFor(`chrome.storage.local.get("auto_takeover").then((v) => v.auto_takeover === false)`);

    await page.send("Page.bringToFront");
    await page.clickSelector("#go");
    await page.typeKeys("x");
    // The agent acts after them: the session was never taken.
    await w.ok(["fill", "#name", "agent", "--session", s]);
    expect(await state(s)).toBe("live");

    await popup.clickSelector('input[name="auto_takeover"]');
    await popup.waitFor(`chrome.storage.local.get("auto_takeover").then((v) => v.auto_takeover === true)`);
    await popup.closeTab();
    await page.clickSelector("#go");
    await until("taken over again", async () => (await state(s)) === "taken_over");
    expect(await takeovers(s)).toHaveLength(1);
    await finish(s, page);
  });
});
