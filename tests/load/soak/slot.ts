/**
 * One agent of the soak: a session in the Agent Window doing a realistic mix of calls on the soak page
 * (tests/fixtures/pages/soak.html), each with its own op id; ops whose arrival the page logs carry a token (the op
 * id) so their outcome can be checked afterwards. A slot whose session ended (its window closed, the extension
 * reloaded) or stopped working starts a new one. When the person takes over, the slot does what skill/SKILL.md asks
 * of an agent: it stops acting and waits for the hand-back, then looks at the page afresh.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallRecord, OpRecord } from "../../../scripts/soak/run.ts";
import type { World } from "../../e2e/harness.ts";
import { Follower } from "./watch.ts";

export const CALL_TIMEOUT_MS = 10_000;
/**
 * How long a slot waits for the person to hand back before it tries the page again (that call, refused while they
 * still hold it, is what shows a session that never resumes: its calls keep failing, and the soak calls it wedged).
 */
const HAND_BACK_WAIT_MS = 30_000;
/** How often a waiting slot reads the session's state (`bsk session list`). */
const HAND_BACK_POLL_MS = 1000;
const DOWNLOAD_BYTES = 4096;

export interface Shared {
  w: World;
  now: () => number;
  done: () => boolean;
  files: string;
  calls: CallRecord[];
  /** Token ops, filled in with the ledger and the page's log at the end. */
  ops: OpRecord[];
  /** Downloads: op id → the file it should have written. */
  downloads: Map<string, string>;
  /** Every session a slot used, with its follower. */
  followers: Follower[];
  /** Op ids of clicks, per session, with the reply's effect (the ledger is read at the end). */
  clicks: Map<string, string[]>;
}

type Step = (s: string, tok: string) => { argv: string[]; op?: "token" | "click" | "download" | "plain" };

export class Slot {
  session?: string;
  /** A detour the fault loop asked for: the page to sit on, and until when (seconds since start). */
  detour?: { url: string; until: number; entered?: boolean };
  private n = 0;
  private failures = 0;

  constructor(
    readonly index: number,
    private readonly sh: Shared,
  ) {}

  private get w(): World {
    return this.sh.w;
  }

  private token(): string {
    return `soak-${this.index}-${++this.n}`;
  }

  soakUrl(s: string, tok: string): string {
    return this.w.fixtures.url(`/soak.html?s=${s}&n=${tok}`);
  }

  /** One call, timed and recorded. `opId` makes it an op (the catalog's mutations take --op-id). */
  async call(method: string, argv: string[], opId?: string): Promise<{ ok: boolean; json: any }> {
    const t = this.sh.now();
    const start = performance.now();
    const session = this.session ?? "";
    const r = await this.w.bsk([
      ...argv,
      ...(session && !argv.includes("--session") ? ["--session", session] : []),
      ...(opId ? ["--op-id", opId] : []),
      "--timeout",
      `${CALL_TIMEOUT_MS / 1000}s`,
      "--json",
    ]);
    const ms = performance.now() - start;
    const json = r.json;
    const structured = typeof json?.ok === "boolean" && (json.ok || typeof json.error?.code === "string");
    const effect = json?.effect_state ?? json?.error?.data?.effect_state;
    this.sh.calls.push({
      t,
      slot: this.index,
      session,
      method,
      ms,
      ...(typeof json?.timings?.cli === "number" && { cli_ms: json.timings.cli }),
      timeout_ms: CALL_TIMEOUT_MS,
      ok: json?.ok === true,
      ...(json?.error?.code && { code: json.error.code, message: String(json.error.message).slice(0, 200) }),
      ...(opId && effect && { effect_state: effect }),
      ...(opId && !effect && { effect_state: "lost" }),
      structured,
    });
    // The session is gone (its window closed, the extension reloaded): the agent starts a new one.
    if (/^(no )?session \S+ (has )?ended|^no session /.test(String(json?.error?.message ?? ""))) this.ended = true;
    this.takenOver = json?.error?.code === "user_aborted" && json.error.data?.reason === "taken_over";
    return { ok: json?.ok === true, json };
  }

  /** The last call said the session has ended. */
  private ended = false;
  /**
   * The last call was refused because the person has taken the session over: not a failure of the session. Stopping
   * it then (as after three failures) would close the tab under the person's hands, Resume button and all.
   */
  private takenOver = false;

  /**
   * After `taken_over`, as skill/SKILL.md says: stop acting and wait until `bsk session list` no longer shows the
   * session taken over (the person clicked Resume, or Stop), at most HAND_BACK_WAIT_MS; then a new snapshot (refs
   * from before are stale), whose reply says whether the session works again.
   */
  private async afterHandBack(): Promise<boolean> {
    const deadline = performance.now() + HAND_BACK_WAIT_MS;
    while (!this.sh.done() && performance.now() < deadline) {
      // Not recorded as calls: waiting is not work, and an answered poll would hide a session that never resumes.
      const r = await this.w.bsk(["session", "list", "--session", this.session!, "--json"]);
      if (r.json?.result?.sessions?.[0]?.state !== "taken_over") break;
      await Bun.sleep(HAND_BACK_POLL_MS);
    }
    return this.step("snapshot", () => ({ argv: ["snapshot"] }));
  }

  private async startSession(): Promise<boolean> {
    if (this.session && !this.ended) await this.call("session stop", ["session", "stop"]);
    this.session = undefined;
    this.ended = false;
    const r = await this.call("session start", ["session", "start", "--no-focus", "--name", `soak ${this.index}`]);
    if (!r.ok) return false;
    this.session = r.json.result.session_id as string;
    this.sh.followers.push(new Follower(this.w, this.session));
    await this.step("navigate", () => ({ argv: ["navigate", this.soakUrl(this.session!, "")], op: "plain" }));
    return true;
  }

  private readonly mix: [number, string, Step][] = [
    [3, "navigate", (s, tok) => ({ argv: ["navigate", this.soakUrl(s, tok)], op: "token" })],
    [4, "snapshot", () => ({ argv: ["snapshot"] })],
    [3, "click", () => ({ argv: ["click", "#b"], op: "click" })],
    [3, "fill", (_, tok) => ({ argv: ["fill", "#t", `${tok};`], op: "token" })],
    [2, "type", (_, tok) => ({ argv: ["type", `${tok};`, "--target", "#ty"], op: "token" })],
    [1, "select", () => ({ argv: ["select", "#s", Math.random() < 0.5 ? "a" : "b"], op: "plain" })],
    [1, "check", () => ({ argv: [Math.random() < 0.5 ? "check" : "uncheck", "#c"], op: "plain" })],
    [1, "upload", (_, tok) => ({ argv: ["upload", "#f", "--file", this.uploadFile(tok)], op: "token" })],
    [1, "download", (_, tok) => ({ argv: ["download", "#dl", "--out", join(this.sh.files, `${tok}.bin`)], op: "download" })],
    [2, "screenshot", () => ({ argv: ["screenshot", "--out", join(this.sh.files, `shot-${this.index}.png`), "--overwrite"] })],
    [2, "evaluate", (_, tok) => ({ argv: ["evaluate", `soakMark(${JSON.stringify(tok)})`], op: "token" })],
    [1, "wait-for", () => ({ argv: ["wait-for", "--target", "#late"] })],
    [1, "console", () => ({ argv: ["console"] })],
  ];

  private uploadFile(tok: string): string {
    const path = join(this.sh.files, `${tok}.txt`);
    writeFileSync(path, tok);
    return path;
  }

  private pick(): [string, Step] {
    const total = this.mix.reduce((a, [w]) => a + w, 0);
    let r = Math.random() * total;
    for (const [weight, name, step] of this.mix) {
      r -= weight;
      if (r < 0) return [name, step];
    }
    return [this.mix[0]![1], this.mix[0]![2]];
  }

  /** Runs one step of the mix (or the given one); records its op for the checks. */
  private async step(name: string, make: Step): Promise<boolean> {
    const s = this.session!;
    const tok = this.token();
    const { argv, op } = make(s, tok);
    const r = await this.call(name, argv, op ? tok : undefined);
    const effect = r.json?.effect_state ?? r.json?.error?.data?.effect_state;
    if (op === "token" || op === "download")
      this.sh.ops.push({ op_id: tok, method: name, session: s, ...(effect && { effect_state: effect }), reply_ok: r.ok, received: null });
    if (op === "download") this.sh.downloads.set(tok, join(this.sh.files, `${tok}.bin`));
    if (op === "click") this.sh.clicks.set(s, [...(this.sh.clicks.get(s) ?? []), tok]);
    return r.ok;
  }

  /** A borrow of one of the person's tabs, a look at it, and its return. */
  private async borrowRound(): Promise<boolean> {
    let tab: number;
    try {
      tab = await this.w.person.openInOwnWindow(this.w.fixtures.url(`/borrow-form.html?soak-${this.index}-${this.n}`));
    } catch {
      return true; // the person's hands failed (the extension reloading): nothing of bsk's to judge
    }
    const borrowed = await this.call("tab borrow", ["tab", "borrow", String(tab)], this.token());
    if (borrowed.ok) {
      await this.call("snapshot", ["snapshot", "--tab", String(tab)]);
      await this.call("tab return", ["tab", "return", String(tab)], this.token());
    }
    await this.w.person.asExtension(`chrome.tabs.remove(${tab}).then(() => true, () => false)`).catch(() => undefined);
    return borrowed.ok;
  }

  async run(): Promise<void> {
    while (!this.sh.done()) {
      if (!this.session || this.ended || this.failures >= 3) {
        if (!(await this.startSession())) {
          this.failures++;
          continue;
        }
        this.failures = 0;
      }
      let ok: boolean;
      if (this.takenOver) {
        ok = await this.afterHandBack();
      } else if (this.detour && this.sh.now() < this.detour.until) {
        const detour = this.detour;
        const look = Math.random() < 0.5 ? "snapshot" : "console";
        if (detour.entered) ok = (await this.call(look, [look])).ok;
        else ok = detour.entered = await this.step("navigate", () => ({ argv: ["navigate", detour.url], op: "plain" }));
      } else if (this.detour) {
        this.detour = undefined;
        ok = await this.step("navigate", (s, tok) => ({ argv: ["navigate", this.soakUrl(s, tok)], op: "token" }));
      } else if (this.failures > 0) {
        // After a failure (a crashed page, the network off), the page may not be the soak page any more.
        ok = await this.step("navigate", (s, tok) => ({ argv: ["navigate", this.soakUrl(s, tok)], op: "token" }));
      } else if (Math.random() < 0.03) {
        ok = await this.borrowRound();
      } else {
        const [name, step] = this.pick();
        ok = await this.step(name, step);
      }
      if (ok) this.failures = 0;
      else if (!this.takenOver) this.failures++;
    }
    if (this.session) await this.call("session stop", ["session", "stop"]);
  }

  /**
   * Downloads written as they should be (the size the fixture serves). A download whose reply was an error writes
   * no file whether or not the page was clicked: the file cannot tell, so it is unverified (null).
   */
  static downloaded(path: string, replyOk: boolean | undefined): number | null {
    if (existsSync(path) && statSync(path).size === DOWNLOAD_BYTES) return 1;
    return replyOk === false ? null : 0;
  }
}
