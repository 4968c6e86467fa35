/**
 * Whose hands: the agent's input or the person's, for one tab (pure; agent-input.ts wires it to the browser).
 *
 * The agent's input and the person's both reach the page as trusted events (CDP input is trusted, like hardware),
 * so an event alone cannot say whose it is. What can: this extension knows every input command it sends to the tab,
 * and when the browser answered it, and the browser answers an input command only after the page has handled it.
 * So the tab has an "agent window" from the moment an input command goes out until a drain that starts after the
 * last answer: the drain (scripting.executeScript in the hands script's world, in every frame) runs after the
 * page handled the agent's events, so it returns every event that happened in the window, whatever the order in
 * which runtime messages arrive. Within a window each command allows the events it can make (a mouse press one
 * pointerdown, a key down one keydown); presses and keys beyond those are the person's. Edits and drops in a window
 * are allowed (the agent's keys and inserted text make them); outside one, any hand event is the person's.
 *
 * So the agent's own input never counts as the person's, also while the person's input arrives during it; the
 * person's input does, except a press or key that exactly stands in for one the agent's command then did not make.
 *
 * A worker knows only the input it sent itself: an event from before it started (`bornAt`) may be a previous worker's
 * input (the page keeps its last events, and a restarted worker's first drain knows nothing of them), so it is never
 * the person's. Without this, the first action after a worker restart counted the old life's keys and presses as the
 * person's and took the session over (the soak: three sessions at once, a second after the worker was stopped).
 */
import type { HandEvent, HandsDrain } from "../../shared/messages/hands.ts";

type Counted = "pointerdown" | "keydown";

/** CDP commands that put input into the page. */
export const INPUT_COMMAND = /^Input\.(dispatch|insertText|ime)/;

/**
 * Whether an input command can make a hand event (HAND_KINDS) in the page, and so opens an agent window: a pointer
 * move or a wheel turn never makes a press, a key, an edit or a drop (a drag's drop comes with its release), so a
 * hover needs no window and no drain after it.
 */
export function makesHandEvents(method: string, params: Record<string, any>): boolean {
  if (!INPUT_COMMAND.test(method)) return false;
  return !(method === "Input.dispatchMouseEvent" && (params.type === "mouseMoved" || params.type === "mouseWheel"));
}

/** How many counted events one input command can make in the page. */
export function allowance(method: string, params: Record<string, any>): Partial<Record<Counted, number>> {
  if (method === "Input.dispatchMouseEvent" && params.type === "mousePressed") return { pointerdown: 1 };
  if (method === "Input.dispatchKeyEvent" && (params.type === "keyDown" || params.type === "rawKeyDown")) return { keydown: 1 };
  if (method === "Input.dispatchTouchEvent" && params.type === "touchStart")
    return { pointerdown: Array.isArray(params.touchPoints) ? params.touchPoints.length : 1 };
  return {};
}

/** A report of a document the last drain did not reach (gone, navigated) arriving this soon after it is not decided. */
const LATE_MS = 1000;
/** Documents remembered per tab (frames come and go); the oldest is forgotten first. */
const MAX_DOCS = 64;

interface AgentWindow {
  inflight: number;
  allowed: Record<Counted, number>;
}

export class Attribution {
  /** `bornAt`: when this worker started (ms since the epoch); events before it are not attributed. */
  constructor(private readonly bornAt = Number.NEGATIVE_INFINITY) {}

  /** Happened before this worker started: whoever made it, this worker cannot tell. */
  private beforeBirth(ev: HandEvent): boolean {
    return typeof ev.at === "number" && ev.at < this.bornAt;
  }

  /** Per document: the last event decided (by a drain or a report). */
  private readonly decided = new Map<string, number>();
  private window: AgentWindow | null = null;
  /** Bumped by every input command: a drain that started before the newest one cannot close the window. */
  private gen = 0;
  private drainedDocs = new Set<string>();
  private closedAt = -Infinity;

  get generation(): number {
    return this.gen;
  }

  get agentActing(): boolean {
    return this.window !== null;
  }

  /** What the drain passes to each frame: per document, the last event already decided. */
  known(): Record<string, number> {
    return Object.fromEntries(this.decided);
  }

  /** An input command goes out. */
  agentSends(method: string, params: Record<string, any>): void {
    this.gen++;
    this.window ??= { inflight: 0, allowed: { pointerdown: 0, keydown: 0 } };
    this.window.inflight++;
    for (const [kind, n] of Object.entries(allowance(method, params)) as [Counted, number][]) this.window.allowed[kind] += n;
  }

  /** Its answer came (or it failed). True when no input command is in flight: time to drain. */
  agentAnswered(): boolean {
    if (!this.window) return false;
    this.window.inflight = Math.max(0, this.window.inflight - 1);
    return this.window.inflight === 0;
  }

  /** A report the hands script pushed: true when it is the person's hands. */
  reported(ev: HandEvent, now: number): boolean {
    if ((this.decided.get(ev.doc) ?? 0) >= ev.seq) return false;
    // In a window the drain decides, with the window's allowances.
    if (this.window) return false;
    this.decide(ev.doc, ev.seq);
    if (this.beforeBirth(ev)) return false;
    return !(now - this.closedAt < LATE_MS && !this.drainedDocs.has(ev.doc));
  }

  /**
   * A drain's results (one per frame that answered), started at generation `gen`: true when an event in them is the
   * person's. Closes the window when nothing was sent since the drain started and nothing is in flight.
   */
  drained(frames: HandsDrain[], gen: number, now: number): boolean {
    const w = this.window;
    // A newer drain already closed the window; it saw everything this one did.
    if (!w) return false;
    let person = false;
    for (const f of frames) {
      for (const ev of [...f.events].sort((a, b) => a.seq - b.seq)) {
        if ((this.decided.get(f.doc) ?? 0) >= ev.seq) continue;
        this.decide(f.doc, ev.seq);
        if (this.beforeBirth(ev)) continue;
        if (ev.kind === "pointerdown" || ev.kind === "keydown") {
          if (w.allowed[ev.kind] > 0) w.allowed[ev.kind]--;
          else person = true;
        }
      }
    }
    if (gen === this.gen && w.inflight === 0) {
      this.window = null;
      this.drainedDocs = new Set(frames.map((f) => f.doc));
      this.closedAt = now;
    }
    return person;
  }

  /** The drain failed (the tab went away or cannot be scripted): the window closes undecided. */
  drainFailed(gen: number, now: number): void {
    if (this.window && gen === this.gen && this.window.inflight === 0) {
      this.window = null;
      this.drainedDocs = new Set();
      this.closedAt = now;
    }
  }

  private decide(doc: string, seq: number): void {
    this.decided.delete(doc);
    this.decided.set(doc, seq);
    if (this.decided.size > MAX_DOCS) this.decided.delete(this.decided.keys().next().value!);
  }
}
