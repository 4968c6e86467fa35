/** The in-page walk on happy-dom: lines, refs, labels, form state, masking, disambiguation, modal, shadow DOM. */
import { describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { RefRegistry } from "../../extension/src/page/snapshot/page/identity.ts";
import { walkDocument } from "../../extension/src/page/snapshot/page/runtime.ts";

function page(html: string): Document {
  const win = new Window({ url: "http://shop.test/" });
  win.document.title = "Test";
  win.document.body.innerHTML = html;
  return win.document as unknown as Document;
}

function snap(doc: Document, registry = new RefRegistry(), next = 1): { text: string; walk: ReturnType<typeof walkDocument>["walk"] } {
  const { walk } = walkDocument(doc, registry, { session: "s", next, viewport: false });
  return { text: walk.lines.map(([d, t]) => "  ".repeat(d) + t).join("\n"), walk };
}

describe("snapshot walk", () => {
  test("roles, names and refs; wrappers dropped, inline text joined", () => {
    const { text, walk } = snap(
      page(`<nav aria-label="Main"><div><a href="/">Home</a></div></nav>
        <main><h1>Hello <b>world</b></h1><div><div><p>Some <em>bold</em> text</p></div></div><button>Go</button></main>`),
    );
    expect(text).toBe(
      [
        'navigation "Main"',
        '  link "Home" @e1',
        "main",
        '  heading "Hello world" [level=1]',
        '  "Some bold text"',
        '  button "Go" @e2',
      ].join("\n"),
    );
    expect(walk.refs).toEqual([
      [1, "link", "Home"],
      [2, "button", "Go"],
    ]);
    expect(walk.next).toBe(3);
  });

  test("a node keeps its ref across walks; new nodes get new numbers from the session counter, never reused", () => {
    const doc = page(`<button id="a">A</button><button id="b">B</button>`);
    const registry = new RefRegistry();
    const first = snap(doc, registry, 10);
    expect(first.text).toBe('button "A" @e10\nbutton "B" @e11');
    doc.getElementById("b")!.remove();
    doc.body.insertAdjacentHTML("beforeend", `<button>C</button>`);
    // The worker's counter may lag (it restarted): the page still never hands out a number twice.
    const second = snap(doc, registry, 5);
    expect(second.text).toBe('button "A" @e10\nbutton "C" @e12');
    expect(registry.lookup(11)).toBe("detached");
    expect(registry.lookup(99)).toBe("unknown");
  });

  test("labels name their controls and are not printed again; form state; secrets masked", () => {
    const { text } = snap(
      page(`<label for="n">Name</label><input id="n" required>
        <label>Email <input type="email" value="a@b.c"></label>
        <input type="password" aria-label="Password" value="hunter2">
        <input aria-label="Card" autocomplete="cc-number" value="4111111111111111">
        <input aria-label="Code" autocomplete="one-time-code" value="123456">
        <input name="cvv" aria-label="CVV" value="999">
        <input aria-label="City" disabled value="Paris">
        <input type="search" placeholder="Search">
        <label><input type="checkbox" checked> Remember me</label>
        <select aria-label="Size"><option>S</option><option selected>M</option></select>
        <textarea aria-label="Bio">Line one
line two</textarea>
        <div role="checkbox" aria-checked="mixed" aria-label="All"></div>
        <button aria-expanded="false" aria-haspopup="menu">Menu</button>`),
    );
    expect(text.split("\n")).toEqual([
      'textbox "Name" @e1 [empty, required]',
      'textbox "Email" @e2 [value="a@b.c", default]',
      'textbox "Password" @e3 [value="•••", default]',
      'textbox "Card" @e4 [value="•••", default]',
      'textbox "Code" @e5 [value="•••", default]',
      'textbox "CVV" @e6 [value="•••", default]',
      'textbox "City" @e7 [value="Paris", default, disabled]',
      'searchbox "Search" @e8 [empty]',
      'checkbox "Remember me" @e9 [checked]',
      'combobox "Size" @e10 [value="M", options=["S","M"]]',
      'textbox "Bio" @e11 [multiline, value="Line one line two", default]',
      'checkbox "All" @e12 [mixed]',
      'button "Menu" @e13 [collapsed, haspopup=menu]',
    ]);
    for (const secret of ["hunter2", "4111", "123456", "999"]) expect(text).not.toContain(secret);
  });

  test("typed values are read live and stay masked in secret fields", () => {
    const doc = page(`<input aria-label="Q"><input type="password" aria-label="P">`);
    (doc.querySelector("input") as HTMLInputElement).value = "shoes";
    (doc.querySelectorAll("input")[1] as HTMLInputElement).value = "s3cret";
    const { text } = snap(doc);
    expect(text).toBe('textbox "Q" @e1 [value="shoes"]\ntextbox "P" @e2 [value="•••"]');
  });

  test("duplicates get the nearest distinguishing context, else an ordinal", () => {
    const { text, walk } = snap(
      page(`<table><tr><th>Name</th><th></th></tr>
          <tr><td>Zhang San</td><td><button>View</button></td></tr>
          <tr><td>Li Si</td><td><button>View</button></td></tr></table>
        <div><h3>Widget</h3><button>Buy</button></div><div><h3>Gadget</h3><button>Buy</button></div>
        <ul><li>Apples <button>Remove</button></li><li>Pears <button>Remove</button></li></ul>
        <fieldset><legend>Billing</legend><button>Edit</button></fieldset><fieldset><legend>Shipping</legend><button>Edit</button></fieldset>
        <button>Help</button><button>Help</button><button>Solo</button>`),
    );
    // Rows and groups printed as lines of their own tell their buttons apart: the label is left to the line alone.
    expect(text).toContain('row "Zhang San"\n    button "View" @e1\n  row "Li Si"\n    button "View" @e2\n');
    expect(text).toContain('group "Billing"\n  button "Edit" @e7\ngroup "Shipping"\n  button "Edit" @e8\n');
    const alone = (ref: string) => walk.lines.find(([, t]) => new RegExp(`${ref}\\b`).test(t))?.[4];
    expect(alone("@e1")).toBe('button "View" @e1 [in: row "Zhang San"]');
    expect(alone("@e2")).toBe('button "View" @e2 [in: row "Li Si"]');
    expect(alone("@e8")).toBe('button "Edit" @e8 [in: group "Shipping"]');
    // Cards and list items are not lines: their buttons carry the label in the tree too.
    expect(text).toContain('button "Buy" @e3 [in: "Widget"]');
    expect(text).toContain('button "Buy" @e4 [in: "Gadget"]');
    expect(text).toContain('button "Remove" @e5 [in: item "Apples"]');
    expect(text).toContain('button "Help" @e9 [nth=1]\nbutton "Help" @e10 [nth=2]\nbutton "Solo" @e11');
    expect(alone("@e3")).toBeUndefined();
  });

  test("hidden content is skipped; custom controls are recovered", () => {
    const { text } = snap(
      page(`<p style="display:none">gone</p><p aria-hidden="true">muted</p><p style="visibility:hidden">ghost</p>
        <div onclick="go()">Open</div><div tabindex="0">Tile</div><div contenteditable="true">Draft</div>
        <span style="cursor:pointer">Pointer <b>here</b></span>
        <details><summary>More</summary><p>Inside</p></details>
        <span draggable="true">Apple</span>`),
    );
    expect(text.split("\n")).toEqual([
      'clickable "Open" @e1',
      'clickable "Tile" @e2',
      'textbox @e3 [value="Draft"]',
      'clickable "Pointer here" @e4',
      'button "More" @e5 [collapsed]',
      'clickable "Apple" @e6',
    ]);
  });

  test("a modal dialog is the active layer and counts what it covers", () => {
    const { text, walk } = snap(
      page(`<button>Behind</button><a href="/x">Link</a>
        <div role="dialog" aria-modal="true" aria-label="Confirm"><h2>Confirm</h2><p>Sure?</p><button>OK</button></div>`),
    );
    expect(text).toBe('dialog "Confirm"\n  "Sure?"\n  button "OK" @e1');
    expect(walk.modal).toEqual({ covered: 2 });
  });

  test("open shadow roots render in place, slotted content where its slot is", () => {
    const doc = page(`<div id="host"><span slot="t">Title</span></div><p>After</p>`);
    const root = doc.getElementById("host")!.attachShadow({ mode: "open" });
    root.innerHTML = `<h2><slot name="t"></slot></h2><button>Inside</button>`;
    const { text } = snap(doc);
    expect(text).toBe('heading "Title" [level=2]\nbutton "Inside" @e1\n"After"');
  });

  test("iframes become placeholders the worker fills with the frame's own walk", () => {
    const { walk } = snap(page(`<button>Top</button><iframe title="Pay"></iframe>`));
    expect(walk.lines).toEqual([
      [0, 'button "Top" @e1', 0, -1],
      [0, 'iframe "Pay" @e2', 0, 0],
    ]);
  });
});
