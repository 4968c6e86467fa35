/**
 * note.html?help=<id>: the help panel's words (the agent's title and prompt) and its note field, in a frame of the
 * overlay's panel. An extension page's frame is cross-origin to the page around it: the page's key and input
 * listeners, its `find()` and other extensions' content scripts never see what the agent asks or what the person
 * types here. The frame tells the overlay its height, so the panel fits the words. Every edit goes to the worker over the port (it keeps the note per
 * tab); Done and Cancel stay in the panel. A press in the field is told to the overlay (over the MessagePort it hands
 * this frame) so that the person's Tab and Enter from here reach Done (shared/arming.ts).
 */
import { browser } from "wxt/browser";
import { t } from "../../src/shared/i18n.ts";
import { NOTE_PORT, NOTE_PRESSED, NOTE_READY, type NoteSize, type NoteToPage, type NoteToWorker } from "../../src/shared/messages/note.ts";

const helpId = new URLSearchParams(location.search).get("help") ?? "";
const title = document.getElementById("title")!;
const prompt = document.getElementById("prompt")!;
const field = document.getElementById("note") as HTMLTextAreaElement;
field.placeholder = t("help.note");
field.setAttribute("aria-label", t("help.note"));

let overlay: MessagePort | null = null;
let ready = false;
const port = browser.runtime.connect({ name: NOTE_PORT });
const send = (msg: NoteToWorker) => port.postMessage(msg);
port.onMessage.addListener((msg: NoteToPage) => {
  // What the person typed before the kept note arrived wins over it.
  if (msg.type === "start") {
    title.textContent = msg.title ?? "";
    prompt.textContent = msg.prompt;
    if (!field.value) field.value = msg.note;
    ready = true;
    overlay?.postMessage(NOTE_READY);
  } else if (msg.type === "flush") send({ type: "note", help_id: helpId, note: field.value, flush: msg.flush });
});
// The request ended or the worker went: nothing typed now would reach anyone.
port.onDisconnect.addListener(() => (field.disabled = true));
field.addEventListener("input", () => send({ type: "note", help_id: helpId, note: field.value }));

// The MessagePort handed in is the overlay's (the page cannot reach this frame: a frame in a shadow root is not in its
// `frames`); it hears only that the field is ready and that the person pressed here.
addEventListener("message", (e) => {
  if (overlay || !e.ports[0]) return;
  overlay = e.ports[0];
  tellHeight();
  if (ready) overlay.postMessage(NOTE_READY);
});
function tellHeight(): void {
  overlay?.postMessage({ height: Math.ceil(document.documentElement.scrollHeight) } satisfies NoteSize);
}
new ResizeObserver(tellHeight).observe(document.body);
addEventListener(
  "pointerdown",
  (e) => {
    if (e.isTrusted) overlay?.postMessage(NOTE_PRESSED);
  },
  true,
);
