/**
 * The snapshot's side of the drop registry (extension/src/page/snapshot/page/drops.ts) on happy-dom, with the page's
 * answers played by listeners: what it takes as a drop target, what it refuses, and the page-wide line.
 * The real registry in the page's world is tested in Chromium (tests/e2e/snapshot-drops.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { DROP_ASK, DROP_MARK, MAX_DROP_MARKS } from "../../extension/src/shared/messages/drops.ts";
import { RefRegistry } from "../../extension/src/page/snapshot/page/identity.ts";
import { walkDocument } from "../../extension/src/page/snapshot/page/runtime.ts";

function page(html: string): { win: Window; doc: Document } {
  const win = new Window({ url: "http://shop.test/" });
  win.document.body.innerHTML = html;
  return { win, doc: win.document as unknown as Document };
}
const text = (doc: Document) =>
  walkDocument(doc, new RefRegistry(), { session: "s", next: 1, viewport: false }).walk.lines.map(([d, t]) => "  ".repeat(d) + t);
/** The page's world answering the ask by marking `targets()`. */
function answer(win: Window, targets: () => unknown[]): void {
  win.document.addEventListener(DROP_ASK, () => {
    for (const t of targets()) (t as EventTarget).dispatchEvent(new win.Event(DROP_MARK, { composed: true }) as unknown as Event);
  });
}

describe("snapshot drop marks", () => {
  test("marked elements and drop attributes get a ref and [drop]; the page-wide one is said once, first", () => {
    const { win, doc } = page(`<h1>Up</h1><div id="zone">Drop files here</div><div id="attr" ondrop="x()">Attr zone</div><p>Plain</p>`);
    answer(win, () => [doc.getElementById("zone"), doc.body, doc]);
    expect(text(doc)).toEqual([
      "document @e1 [drop]",
      'heading "Up" [level=1]',
      'group "Drop files here" @e2 [drop]',
      'group "Attr zone" @e3 [drop]',
      '"Plain"',
    ]);
  });

  test("garbage from the page: text nodes, detached elements, another document's, a throwing listener, a flood", () => {
    const { win, doc } = page(`<div id="zone">Zone</div><p>Plain</p>`);
    const other = new Window().document.body;
    const hidden = Array.from({ length: MAX_DROP_MARKS + 50 }, () => {
      const d = doc.createElement("div");
      d.style.display = "none";
      return doc.body.appendChild(d);
    });
    answer(win, () => [doc.getElementById("zone"), doc.createTextNode("t"), doc.createElement("b"), other, win, ...hidden]);
    doc.addEventListener(DROP_ASK, () => {
      throw new Error("hostile");
    });
    expect(text(doc)).toEqual(['group "Zone" @e1 [drop]', '"Plain"']);
  });

  test("a drop zone labelled by another element takes its name from it, which is not printed again", () => {
    const { win, doc } = page(`<p id="cap">Upload your CV</p><div id="zone" aria-labelledby="cap">Drag a PDF here</div>`);
    answer(win, () => [doc.getElementById("zone")]);
    expect(text(doc)).toEqual(['group "Upload your CV" @e1 [drop]', '  "Drag a PDF here"']);
  });

  test("no answer (a page without the registry): nothing is marked", () => {
    const { doc } = page(`<div>Zone</div>`);
    expect(text(doc)).toEqual(['"Zone"']);
  });
});
