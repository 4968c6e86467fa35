/**
 * Runs in the page's main world of a session's tabs (Page.addScriptToEvaluateOnNewDocument): wraps the web APIs
 * that make the browser ask the person (permissions, device choosers, printing) and reports each call that will
 * show a prompt through a CDP binding, before calling the real API unchanged. A permission already granted or
 * denied shows nothing and is not reported; when the call settles (answered), that is reported too. The binding is
 * taken off the page's global at once.
 */
export const PROMPT_BINDING = "__bskPrompt";

export const PAGE_PROMPT_SCRIPT = `(() => {
  const send = globalThis.${PROMPT_BINDING};
  if (typeof send !== "function") return;
  try { delete globalThis.${PROMPT_BINDING}; } catch {}
  const states = {};
  const names = ["geolocation", "notifications", "camera", "microphone", "clipboard-read", "midi", "storage-access", "local-fonts", "window-management"];
  for (const name of names) {
    try { navigator.permissions.query({ name }).then((s) => { states[name] = s; }, () => {}); } catch {}
  }
  const asks = (name) => !states[name] || states[name].state === "prompt";
  let last = null;
  const report = (kind, permission, answered) => {
    if (!answered) last = [kind, permission];
    try { send(JSON.stringify({ kind, permission: permission || "", url: String(location.href).slice(0, 2048), answered: !!answered })); } catch {}
  };
  const wrap = (owner, key, before) => {
    const desc = owner && Object.getOwnPropertyDescriptor(owner, key);
    if (!desc || typeof desc.value !== "function") return;
    const real = desc.value;
    const wrapped = { [key](...args) {
      last = null;
      try { before.apply(this, args); } catch {}
      const asked = last;
      // Printing is not over when print() returns (headless returns at once); a navigation ends it.
      if (!asked || key === "print") return real.apply(this, args);
      // Geolocation answers through its callbacks, the others through a promise.
      const settled = () => report(asked[0], asked[1], true);
      for (const i of [0, 1]) if (typeof args[i] === "function") { const cb = args[i]; args[i] = function (...a) { settled(); return cb.apply(this, a); }; }
      const out = real.apply(this, args);
      if (out && typeof out.then === "function") out.then(settled, settled);
      return out;
    } }[key];
    try { Object.defineProperty(owner, key, { ...desc, value: wrapped }); } catch {}
  };
  const G = globalThis;
  const ask = (name) => () => { if (asks(name)) report("permission", name); };
  wrap(G.Geolocation && G.Geolocation.prototype, "getCurrentPosition", ask("geolocation"));
  wrap(G.Geolocation && G.Geolocation.prototype, "watchPosition", ask("geolocation"));
  wrap(G.Notification, "requestPermission", () => { if (G.Notification.permission === "default") report("permission", "notifications"); });
  wrap(G.MediaDevices && G.MediaDevices.prototype, "getUserMedia", (c) => {
    if (c && c.video && asks("camera")) report("permission", "camera");
    if (c && c.audio && asks("microphone")) report("permission", "microphone");
  });
  wrap(G.MediaDevices && G.MediaDevices.prototype, "getDisplayMedia", () => report("permission", "display-capture"));
  wrap(G.Clipboard && G.Clipboard.prototype, "read", ask("clipboard-read"));
  wrap(G.Clipboard && G.Clipboard.prototype, "readText", ask("clipboard-read"));
  wrap(G.Navigator && G.Navigator.prototype, "requestMIDIAccess", ask("midi"));
  wrap(G.Document && G.Document.prototype, "requestStorageAccess", ask("storage-access"));
  wrap(G, "queryLocalFonts", ask("local-fonts"));
  wrap(G, "getScreenDetails", ask("window-management"));
  wrap(G, "print", () => report("print"));
  for (const [iface, key] of [["Bluetooth", "requestDevice"], ["USB", "requestDevice"], ["HID", "requestDevice"], ["Serial", "requestPort"]]) {
    wrap(G[iface] && G[iface].prototype, key, () => report("device_chooser", iface.toLowerCase()));
  }
})();`;
