/**
 * The effect watch's page side (extension/src/page/dom-probe.ts, and the settle's read, page/settle-read.ts) in real
 * Chromium, with the one thing bsk's own click cannot force: a frame between the press and the release. A busy
 * machine runs one there now and then (actions.test "a change the page makes in the frame after the input" read
 * `none` once in ~20 runs under load). The frame after the input is then the one after the release, where the
 * click handler's frame callback runs; the settle waits for it and sees the change.
 */
import { expect, test } from "bun:test";
import { installDomProbe } from "../../extension/src/page/dom-probe.ts";
import { afterFrame } from "../../extension/src/page/settle-read.ts";
import { useWorld, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
useWorld({}, (world) => (w = world));

const nextFrames = `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`;

test("a frame between the press and the release: the change the click's frame callback makes is still seen", async () => {
  for (let round = 1; round <= 3; round++) {
    await w.person.openTab(w.fixtures.url(`/act-effects.html?probe=${round}`));
    const page = await PersonPage.find(w.browser.cdpPort!, `act-effects.html?probe=${round}`);
    try {
      await page.waitFor(`document.readyState === "complete" && document.getElementById("later") !== null`);
      await page.send("Page.bringToFront");
      const [x, y] = (await page.evaluate(
        `(() => { const r = document.getElementById("later").getBoundingClientRect(); return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; })()`,
      )) as [number, number];
      await page.evaluate(`(${installDomProbe.toString()})(document.getElementById("later"), null, null); true`);
      const at = { x, y, button: "left", clickCount: 1 };
      await page.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
      await page.send("Input.dispatchMouseEvent", { type: "mousePressed", ...at });
      await page.evaluate(nextFrames);
      await page.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at });
      // As the settle reads after a click's answer: [the DOM changed, the input reached the document, a download].
      const read = await page.evaluate(afterFrame(null, false, true));
      expect(read).toEqual([true, true, false]);
      expect(await page.evaluate(`document.getElementById("status").textContent`)).toBe("changed in frame 1");
    } finally {
      page.close();
    }
  }
});
