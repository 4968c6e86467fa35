/** CSS selectors across the document and its open shadow roots (closed ones are out of reach by design). */

export function shadowRoots(root: Document | ShadowRoot): ShadowRoot[] {
  const found: ShadowRoot[] = [];
  const visit = (r: Document | ShadowRoot) => {
    const all = r.querySelectorAll("*");
    for (let i = 0; i < all.length; i++) {
      const sr = all[i]!.shadowRoot;
      if (sr) {
        found.push(sr);
        visit(sr);
      }
    }
  };
  visit(root);
  return found;
}

/** Every element matching `selector` in `doc` and its open shadow roots. Throws the browser's SyntaxError for a bad selector. */
export function queryDeep(doc: Document, selector: string): Element[] {
  const out = [...doc.querySelectorAll(selector)];
  for (const sr of shadowRoots(doc)) out.push(...sr.querySelectorAll(selector));
  return out;
}
