/**
 * Runs in the page's main world of a session's tabs (Page.addScriptToEvaluateOnNewDocument): wraps the web APIs
 * that make the browser ask the person (permissions, device choosers, printing) and reports each call that will
 * show a prompt through a CDP binding, before calling the real API unchanged. A permission already granted or
 * denied shows nothing and is not reported. The binding is taken off the page's global at once.
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
  const report = (kind, permission) => {
    try { send(JSON.stringify({ kind, permission: permission || "", url: String(location.href).slice(0, 2048) })); } catch {}
  };
  const wrap = (owner, key, before) => {
    const desc = owner && Object.getOwnPropertyDescriptor(owner, key);
    if (!desc || typeof desc.value !== "function") return;
    const real = desc.value;
    const wrapped = { [key](...args) { try { before.apply(this, args); } catch {} return real.apply(this, args); } }[key];
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
