/**
 * Page-side functions (sent as source, run in bsk's isolated world of the element's frame, `this` = the element) that
 * build File objects from staged bytes and hand them to a file input or a drop zone. Bytes arrive chunk by chunk and
 * wait in the world's `__bskFiles` until the files are built.
 */

/** What the element is, as a file input. */
export const FILE_INPUT_FN = `function () {
  const file = this instanceof HTMLInputElement && this.type === "file";
  return JSON.stringify({ file, disabled: file && this.disabled, multiple: file && this.multiple, accept: file ? this.accept : "" });
}`;

export const PUT_CHUNK_FN = `function (key, b64) {
  const store = (globalThis.__bskFiles ??= new Map());
  let parts = store.get(key);
  if (!parts) store.set(key, (parts = []));
  parts.push(Uint8Array.fromBase64 ? Uint8Array.fromBase64(b64) : Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  return parts.length;
}`;

export const CLEAR_CHUNKS_FN = `function (keys) {
  for (const k of keys) globalThis.__bskFiles?.delete(k);
  return true;
}`;

/** Builds the files (each key's chunks) in order, checking every size; shared by the two functions below. */
const BUILD = `
  const store = globalThis.__bskFiles ?? new Map();
  const list = files.map((f) => {
    const parts = store.get(f.key) ?? [];
    store.delete(f.key);
    return new File(parts, f.name, { type: f.mime, lastModified: Date.now() });
  });
  const bad = list.findIndex((f, i) => f.size !== files[i].size);
  if (bad !== -1) return JSON.stringify({ error: "size_mismatch", name: files[bad].name, size: list[bad].size });
  const dt = new DataTransfer();
  for (const f of list) dt.items.add(f);
`;

/** Input mode: the files become the input's, announced with input and change events as a chooser would. */
export const SET_INPUT_FILES_FN = `function (files) {${BUILD}
  this.files = dt.files;
  const count = this.files.length;
  if (count !== list.length) return JSON.stringify({ error: "not_kept", count });
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return JSON.stringify({ ok: true, count });
}`;

/**
 * Drop mode: dragenter, dragover and drop at (x, y) in the frame's viewport, on the element there (inside the
 * target) or the target itself. A drop zone accepts by cancelling dragover; one that does not gets dragleave.
 */
export const DROP_FILES_FN = `function (files, x, y) {${BUILD}
  const hit = document.elementFromPoint(x, y);
  const on = hit && (this === hit || this.contains(hit)) ? hit : this;
  const fire = (type) =>
    on.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: dt }));
  fire("dragenter");
  if (fire("dragover")) {
    fire("dragleave");
    return JSON.stringify({ error: "drop_refused" });
  }
  fire("drop");
  return JSON.stringify({ ok: true, count: list.length });
}`;

/** Notes file inputs that get a click (a label or a script's input.click()) while armed. */
export const ARM_INPUT_PROBE_FN = `function () {
  const seen = [];
  const onClick = (e) => {
    const el = e.composedPath()[0];
    if (el instanceof HTMLInputElement && el.type === "file") seen.push(el);
  };
  globalThis.__bskFileProbe?.stop();
  document.addEventListener("click", onClick, true);
  const stop = () => document.removeEventListener("click", onClick, true);
  setTimeout(stop, 30000);
  globalThis.__bskFileProbe = { seen, stop };
}`;

/** The one input the probe saw (as an object), or how many it saw. */
export const READ_INPUT_PROBE_FN = `function () {
  const p = globalThis.__bskFileProbe;
  globalThis.__bskFileProbe = undefined;
  if (!p) return 0;
  p.stop();
  const unique = [...new Set(p.seen)];
  return unique.length === 1 ? unique[0] : unique.length;
}`;
