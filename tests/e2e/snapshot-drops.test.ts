/**
 * Drop zones in the snapshot (issue 14): an element with drop, dragover or dragenter listeners gets a ref and
 * `[drop]`, told by the drop registry in the page's own world (entrypoints/page-world/drops.ts), in every frame; upload
 * --mode drop and drag reach it by that ref; React's delegated onDrop marks the zone, not the root; a removed
 * listener unmarks it. The page can answer the snapshot's ask
 * with marks of its own and patch its world, and the snapshot still holds: the threat is written in
 * extension/src/shared/messages/drops.ts. Page: tests/fixtures/pages/snap-drops.html.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_DIR, refIn, until, useWorld, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const snapshot = async () => (await w.ok(["snapshot", "--session", s])).text as string;
const js = async (expr: string, ...more: string[]) => (await w.ok(["evaluate", expr, "--session", s, ...more])).value;
/** A file to drop, written under the test's home. */
function file(name: string): string {
  const path = join(w.home, `drop-${name}`);
  writeFileSync(path, `bytes of ${name}`);
  return path;
}
/** The ref of the first line with `text` after the line with `after`. */
const refAfter = (snap: string, after: string, text: string) => refIn(snap.slice(snap.indexOf(after)), text);

describe("snapshot: drop zones", () => {
  test("listeners, properties and attributes mark [drop] with a ref, in every frame; the page-wide one once", async () => {
    await w.ok(["navigate", w.fixtures.url("/snap-drops.html"), "--session", s]);
    // The cross-site frame gets its src from a script: wait until its content is in.
    const text = await until("both frames' drop zones", async () => {
      const snap = await snapshot();
      return (snap.match(/group "Frame drop zone" @e\d+ \[drop\]/g) ?? []).length === 2 && snap;
    });
    expect(text).toMatch(/^group "Drop files here" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^group "Late zone" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^group "Property zone" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^group "Attribute zone" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^"Plain box"$/m);
    expect(text).not.toMatch(/Apple.*\[drop\]/);
    // <body>'s and window's listeners: the page is a drop zone, said once, first.
    expect(text.split("\n")[1]).toMatch(/^document @e\d+ \[drop\]$/);
    expect(text.match(/^document @e\d+/gm)).toHaveLength(1);
    expect(text).toMatch(/^iframe "Same origin" @e\d+\n {2}group "Frame drop zone" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^iframe "Cross site" @e\d+\n {2}group "Frame drop zone" @e\d+ \[drop\]$/m);
  });

  test("upload --mode drop lands by ref: a listener added after load, and a zone in a cross-site frame", async () => {
    const text = await snapshot();
    await w.ok(["upload", refIn(text, '"Late zone"'), "--mode", "drop", "--file", file("late.csv"), "--session", s]);
    expect(await js("document.getElementById('dropped').textContent")).toBe("dropped on late: drop-late.csv");
    await w.ok([
      "upload",
      refAfter(text, 'iframe "Cross site"', '"Frame drop zone"'),
      "--mode",
      "drop",
      "--file",
      file("far.txt"),
      "--session",
      s,
    ]);
    expect(await js("document.getElementById('fdropped').textContent", "--frame", "#cross")).toBe("dropped drop-far.txt");
    expect(await js("document.getElementById('fdropped').textContent", "--frame", "#same")).toBe("nothing dropped");
  });

  test("drag @apple onto the [drop] zone by refs; the page-wide ref takes a drop too", async () => {
    const text = await snapshot();
    await w.ok(["drag", refIn(text, '"Apple"'), refIn(text, '"Property zone"'), "--session", s]);
    expect(await js("document.getElementById('dropped').textContent")).toBe("dropped on prop: apple");
    const page = refIn(text, "document @e");
    await w.ok(["upload", page, "--mode", "drop", "--file", file("anywhere.png"), "--session", s]);
  });

  test("React's delegated onDrop: the zone is marked, not the root that listens for every event", async () => {
    await w.ok(["navigate", w.fixtures.url("/snap-drops-react.html"), "--session", s]);
    const text = await snapshot();
    expect(text).toMatch(/^group "Drag files here or click" @e\d+ \[drop\]$/m);
    expect(text.match(/\[drop\]/g)).toHaveLength(1);
    await w.ok(["upload", refIn(text, '"Drag files here or click"'), "--mode", "drop", "--file", file("cv.pdf"), "--session", s]);
    expect(await js("document.getElementById('rdropped').textContent")).toBe("dropped drop-cv.pdf");
    await w.ok(["navigate", w.fixtures.url("/snap-drops.html"), "--session", s]);
  });

  test("a removed listener, a cleared property: no mark on the next snapshot", async () => {
    await js(`(() => {
      const zone = document.getElementById("zone");
      zone.removeEventListener("dragover", zoneOver);
      zone.removeEventListener("drop", zoneDrop);
      const prop = document.getElementById("prop");
      prop.ondrop = null;
      prop.ondragover = null;
      return true;
    })()`);
    const text = await snapshot();
    expect(text).toMatch(/^"Drop files here"$/m);
    expect(text).toMatch(/^"Property zone"$/m);
    expect(text).toMatch(/^group "Late zone" @e\d+ \[drop\]$/m);
  });

  test("the wrappers read as native code and leave the page's DOM as it was", async () => {
    const natives = await js(`[
      Function.prototype.toString.call(EventTarget.prototype.addEventListener),
      Function.prototype.toString.call(EventTarget.prototype.removeEventListener),
      Function.prototype.toString.call(Object.getOwnPropertyDescriptor(HTMLElement.prototype, "ondrop").set),
      Function.prototype.toString.call(Function.prototype.toString),
      EventTarget.prototype.addEventListener.name,
      EventTarget.prototype.addEventListener.length,
    ]`);
    expect(natives).toEqual([
      "function addEventListener() { [native code] }",
      "function removeEventListener() { [native code] }",
      "function set ondrop() { [native code] }",
      "function toString() { [native code] }",
      "addEventListener",
      2,
    ]);
    const before = await js("document.body.outerHTML");
    await snapshot();
    expect(await js("document.body.outerHTML")).toBe(before);
  });

  test("a hostile page: garbage marks, patched built-ins and throwing listeners do not break the snapshot", async () => {
    await w.ok(["navigate", w.fixtures.url("/snap-drops.html"), "--session", s]);
    const attacked = await js(`(() => {
      const errors = [];
      const tryIt = (f) => { try { f(); } catch (e) { errors.push(String(e).slice(0, 40)); } };
      // Calls of the wrapper with garbage: each fails (or not) exactly as the browser's own would.
      const add = EventTarget.prototype.addEventListener;
      tryIt(() => add.call(document.getElementById("plain"), { toString() { throw new Error("no type"); } }, () => {}));
      tryIt(() => add.call(document.getElementById("plain"), "drop", 42));
      tryIt(() => add.call({}, "drop", () => {}));
      tryIt(() => add.call(document.getElementById("plain"), "drop", null));
      const fire = Function.prototype.call.bind(EventTarget.prototype.dispatchEvent);
      // The page patches what a registry in its world could use, after the registry started.
      Set.prototype.add = WeakMap.prototype.get = WeakMap.prototype.set = () => { throw new Error("patched"); };
      EventTarget.prototype.dispatchEvent = () => { throw new Error("patched"); };
      Object.defineProperty(Event.prototype, "target", { get() { throw new Error("patched"); } });
      Object.defineProperty(Event.prototype, "composedPath", { get() { throw new Error("patched"); } });
      // Answers of its own to the snapshot's ask: garbage targets, a flood, a nested ask, and a throw.
      const hidden = Array.from({ length: 3000 }, () => {
        const d = document.createElement("div");
        d.style.display = "none";
        return document.body.appendChild(d);
      });
      const other = document.implementation.createHTMLDocument("x").body;
      let depth = 0;
      document.addEventListener("bsk-drop-ask", () => {
        window.asked = (window.asked ?? 0) + 1;
        fire(document.getElementById("plain"), new CustomEvent("bsk-drop-mark", { composed: true }));
        for (const t of [window, document.createTextNode("t"), document.createElement("p"), other, ...hidden]) {
          try { fire(t, new CustomEvent("bsk-drop-mark", { composed: true })); } catch {}
        }
        if (depth++ < 3) fire(document, new Event("bsk-drop-ask"));
        throw new Error("hostile listener");
      }, true);
      // A drop zone added after all that is still told.
      add.call(document.getElementById("apple"), "dragover", (e) => e.preventDefault());
      return errors;
    })()`);
    expect(attacked).toHaveLength(3);
    const text = await snapshot();
    // The page can hint [drop] on an element of its choice (as a listener would), nothing more.
    expect(text).toMatch(/^group "Plain box" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/"Apple" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^group "Drop files here" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^group "Attribute zone" @e\d+ \[drop\]$/m);
    expect(text).toMatch(/^heading "Drops" \[level=1\]$/m);
    expect(text.match(/\[drop\]/g)!.length).toBeLessThan(12);
    expect(await js("window.asked")).toBeGreaterThan(0);
  });

  test("the registry is never in the person's own pages, with or without a session live; a session's document has it", async () => {
    // What the registry answers: marks on the elements with drop listeners, when a snapshot asks.
    const probe = `(() => {
      const zone = document.body.appendChild(document.createElement("div"));
      zone.addEventListener("drop", () => {});
      let marks = 0;
      zone.addEventListener("bsk-drop-mark", () => marks++);
      document.dispatchEvent(new Event("bsk-drop-ask"));
      return marks;
    })()`;
    await w.ok(["session", "stop", s]);
    await w.person.openInOwnWindow(w.fixtures.url("/snap-drops.html?person"));
    const page = await PersonPage.find(w.browser.cdpPort!, "snap-drops.html?person");
    expect(await page.evaluate(probe)).toBe(0);
    page.close();
    // The positive control: the same probe in a session's tab, after its first navigation.
    s = (await w.ok(["session", "start", "--no-focus"])).session_id;
    await w.ok(["navigate", w.fixtures.url("/snap-drops.html?session"), "--session", s]);
    expect(await js(probe)).toBe(1);
    // With the session live, a page the person opens in their own window (and one loaded there before) still has none.
    await w.person.openInOwnWindow(w.fixtures.url("/snap-drops.html?person-live"));
    const live = await PersonPage.find(w.browser.cdpPort!, "snap-drops.html?person-live");
    expect(await live.evaluate(probe)).toBe(0);
    expect(await live.evaluate(`document.dispatchEvent(new Event("bsk-page-world-hello", { cancelable: true }))`)).toBe(true);
    live.close();
    // A document is offered the registry more than once (a worker restart re-reports its frames): it installs once,
    // so a listener is marked once, not twice.
    const registry = readFileSync(join(EXTENSION_DIR, "page-world.js"), "utf8");
    await js(`${registry}; 0`);
    expect(await js(probe)).toBe(1);
  });
});
