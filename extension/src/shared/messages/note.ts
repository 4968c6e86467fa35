/**
 * The help panel's words and note field ↔ service worker port (`runtime.connect({name: NOTE_PORT})`). The field is an extension
 * page (`note.html?help=<id>`) in a frame of the overlay's panel, so what the person types never passes through the
 * page's document: the worker holds the note per tab and ends the request with it.
 */
export const NOTE_PORT = "bsk-help-note";
export const NOTE_PAGE = "/note.html";

/** The field's whole text, on every edit; `flush` answers the worker's ask of the same number. */
export type NoteToWorker = { type: "note"; help_id: string; note: string; flush?: number };

export type NoteToPage =
  /**
   * The note kept so far (a reload of the tab does not lose it), and what the agent asks: its title and prompt are
   * shown here, in the frame, never in the page's document.
   */
  | { type: "start"; note: string; prompt: string; title?: string }
  /** The request is ending: send the field's text now. */
  | { type: "flush"; flush: number };

/**
 * What the note frame tells the overlay over the MessagePort the overlay hands it (never the text): the field is
 * ready (the worker heard it and sent the kept note), the person pressed in the field.
 */
export const NOTE_READY = "ready";
export const NOTE_PRESSED = "pressed";
/** The frame's content height in CSS px, so the panel sizes the frame to the agent's words (`{ height }`). */
export type NoteSize = { height: number };
