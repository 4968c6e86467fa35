/**
 * `bsk doctor`: proves the whole path with a real round trip instead of reading config. Daemon (reachable, version),
 * browser (waits briefly for one to connect), protocol compatibility, skill installs (a warning only), then a
 * session that opens a built-in page, snapshots it, clicks its button by ref, checks the click took effect and
 * stops — each hop timed. Any failure exits 1 with the fix as a hint.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { MethodName, Params, Result } from "../../protocol/catalog.ts";
import type { HomePaths } from "../../shared/home.ts";
import { BskError, isErrorCode, toErrorBody } from "../../protocol/errors.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { APP_VERSION, checkCompatibility, PROTOCOL_VERSION } from "../../protocol/version.ts";
import type { Connection, Reply } from "../daemon-client.ts";
import { reachDaemon } from "../reach-daemon.ts";
import type { Outcome } from "../output.ts";
import { request } from "../request.ts";
import { readLogTail, refusalSince } from "./doctor-log.ts";
import { renderDoctor, type Check, type DoctorReport } from "./doctor-report.ts";
import { fixSkill, nativeHostCheck, type Say } from "./doctor-fix.ts";
import { installCheck } from "./doctor-install.ts";
import { skillCheck } from "./doctor-skill.ts";
import { transportCheck } from "./doctor-transport.ts";
import { windowsTransportCheck, wslCheck } from "./doctor-wsl.ts";
import { readUpdateState } from "../../shared/update-state.ts";
import { failedCheck } from "../update/status-note.ts";

type Env = Record<string, string | undefined>;

export const DEFAULT_BROWSER_WAIT_MS = 5_000;
/** A daemon that does not answer its status within this is stale (it answers in milliseconds). */
const STATUS_TIMEOUT_MS = 5_000;
const BROWSER_POLL_MS = 250;

export const CLICKED_TITLE = "bsk doctor: clicked";
const BUTTON = "Run check";
const PAGE =
  `<!doctype html><meta charset="utf-8"><title>bsk doctor</title><h1>bsk doctor</h1>` +
  `<p>A page bsk doctor serves to itself to check that it can drive this browser.</p>` +
  `<button onclick="document.title='${CLICKED_TITLE}';this.textContent='Clicked'">${BUTTON}</button>`;

/**
 * The built-in page, served by doctor itself on loopback for the length of the check: no network, and a button
 * whose click changes the title (what the verify hop reads back). Not a data: URL, which Chromium will not load
 * in a top-level frame.
 */
function servePage(): { url: string; stop(): void } {
  const path = `/bsk-doctor-${crypto.randomUUID()}`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === path
        ? new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
        : new Response("not found", { status: 404 }),
  });
  return { url: `http://127.0.0.1:${server.port}${path}`, stop: () => server.stop(true) };
}

interface Browser {
  instance_id: string;
  label: string;
  name: string;
  version: string;
  extension_version: string;
  protocol_version: string;
}

/** Where the unpacked extension is, when bsk runs from a build that has one beside it (dist/bsk, dist/extension). */
function extensionDir(): string {
  const beside = join(dirname(process.execPath), "extension");
  return existsSync(join(beside, "manifest.json")) ? beside : "the unzipped extension folder from the bsk release";
}

export function noBrowserHint(port: unknown): string {
  return (
    `Load the bsk extension: open chrome://extensions, turn on Developer mode, click "Load unpacked" and choose ` +
    `${extensionDir()} (extension id ${EXTENSION_ID}). If it is loaded, open its popup: it must say Connected ` +
    `(this daemon listens on 127.0.0.1:${String(port)}); if it says Not paired, run bsk daemon pair and type the ` +
    `code into its Pairing field.`
  );
}

const asBskError = (e: unknown) => (e instanceof BskError ? e : BskError.from(toErrorBody(e)));

/** The hops' own timings from the daemon (daemon, extension, …), as `daemon 1 ms, extension 20 ms`. */
function hops(reply: Reply): string {
  const t = reply.meta?.timings ?? {};
  const parts = Object.entries(t)
    .filter(([hop, ms]) => hop !== "queue" || ms >= 1)
    .map(([hop, ms]) => `${hop} ${Math.round(ms)} ms`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

class Doctor {
  readonly checks: Check[] = [];
  private conn?: Connection;

  constructor(
    private readonly paths: HomePaths,
    private readonly env: Env,
    private readonly params: Record<string, unknown>,
    /** Given with --fix: says each repair before it is made. */
    private readonly fix?: Say,
  ) {}

  /** Runs one hop: its check gets the time it took; a thrown BskError is the hop's failure. */
  private async hop<T>(
    name: string,
    body: () => Promise<{ value: T; detail: string; status?: Check["status"]; hint?: string }>,
  ): Promise<T | undefined> {
    const t0 = performance.now();
    try {
      const r = await body();
      this.checks.push({
        name,
        status: r.status ?? "ok",
        ms: Math.round(performance.now() - t0),
        detail: r.detail,
        ...(r.hint && { hint: r.hint }),
      });
      return r.value;
    } catch (e) {
      const err = asBskError(e);
      this.checks.push({ name, status: "fail", ms: Math.round(performance.now() - t0), detail: err.message, hint: err.hint });
      return undefined;
    }
  }

  /** One catalog call: params and result typed by the method (an input type: defaults may be left out). */
  private async call<M extends MethodName>(
    method: M,
    params: Params<M>,
    opts: { mutation?: boolean; timeoutMs?: number } = {},
  ): Promise<{ result: Result<M>; reply: Reply }> {
    const reply = await request(this.conn!, method, params as Record<string, unknown>, {
      opId: opts.mutation ? crypto.randomUUID() : undefined,
      timeoutMs: opts.timeoutMs,
    });
    if (!reply.ok) throw reply.error;
    return { result: reply.result as Result<M>, reply };
  }

  async run(): Promise<void> {
    const daemon = await this.hop("daemon", () => this.daemon());
    const browser = daemon ? await this.hop("browser", () => this.browser(daemon.ws_port, daemon.started_at)) : undefined;
    if (daemon && browser) await this.hop("protocol", async () => protocolCheck(daemon.protocol_version, browser));
    await this.hop("native host", async () => nativeHostCheck(this.paths, this.env, this.fix));
    await this.hop("skill", async () => {
      const fixed = this.fix ? fixSkill(this.env, this.fix) : [];
      const check = skillCheck(this.env);
      return fixed.length ? { ...check, detail: `${check.detail} (fixed: ${fixed.join(", ")})` } : check;
    });
    const install = installCheck(this.env);
    if (install) await this.hop("install", async () => install);
    const wsl = wslCheck(this.env);
    if (wsl) await this.hop("wsl", async () => wsl);
    // Reached the Windows daemon from WSL (wsl-daemon.ts): its home is not ours, and TCP is its one way.
    const windows = daemon && daemon.home !== this.paths.home ? wsl?.value : undefined;
    if (daemon)
      await this.hop("transport", () => (windows ? windowsTransportCheck(windows, this.env) : transportCheck(this.paths, this.env)));
    const failed = failedCheck(readUpdateState(this.paths.home));
    // Only when the last update check failed: nothing to say otherwise, and the check list stays the same.
    if (failed)
      await this.hop("updates", async () => ({
        value: failed,
        detail: `the last update check failed: ${failed.error}`,
        status: "warn" as const,
        hint: failed.hint,
      }));
    if (daemon && browser) await this.roundTrip(browser);
    this.conn?.close();
  }

  /** The daemon, reachable and of this version; with --fix one that does not answer or is another version is restarted. */
  private async daemon() {
    let status: Awaited<ReturnType<Doctor["status"]>>;
    try {
      this.conn = await reachDaemon(this.paths, this.env);
      status = await this.status();
    } catch (e) {
      // A daemon that takes the connection but never proves itself (hung): stale, as one that never answers status.
      const err = asBskError(e);
      if (err.code !== "timeout") throw err;
      status = { error: err };
    }
    let fixed = "";
    const stale = !("result" in status);
    const skewed = "result" in status && status.result.daemon.version !== APP_VERSION;
    if (this.fix && (stale || skewed)) {
      const live = "result" in status ? status.result.sessions.filter((s) => s.state !== "ended").length : 0;
      if (!live) {
        this.fix(
          stale
            ? "fixing: restarting the daemon, which does not answer"
            : `fixing: restarting the daemon (bsk ${"result" in status ? status.result.daemon.version : "?"}) so it runs this bsk ${APP_VERSION}`,
        );
        this.conn?.close();
        const { stopDaemon } = await import("../update/daemon.ts");
        await stopDaemon(this.paths, this.env, { unresponsive: stale });
        this.conn = await reachDaemon(this.paths, this.env);
        status = await this.status();
        fixed = " (restarted)";
      }
    }
    if (!("result" in status)) throw status.error;
    const d = status.result.daemon;
    const detail = `running (pid ${d.pid}, bsk ${d.version}, protocol ${d.protocol_version}, port ${d.ws_port})${fixed}`;
    if (d.version !== APP_VERSION) {
      const live = status.result.sessions.filter((s) => s.state !== "ended").length;
      const hint = this.fix
        ? `This CLI is bsk ${APP_VERSION}; not restarted while ${live} session(s) are live: stop them, then run bsk doctor --fix again`
        : `This CLI is bsk ${APP_VERSION}; restart the daemon so both match: bsk doctor --fix (or bsk daemon stop && bsk daemon start)`;
      return { value: d, detail, status: "warn" as const, hint };
    }
    return { value: d, detail };
  }

  /** system.status, or why it did not answer (a daemon that hangs is stale). */
  private async status(): Promise<{ result: Result<"system.status"> } | { error: BskError }> {
    try {
      return { result: (await this.call("system.status", {}, { timeoutMs: STATUS_TIMEOUT_MS })).result };
    } catch (e) {
      const err = asBskError(e);
      if (err.code === "timeout" || err.code === "protocol_error") return { error: err };
      throw err;
    }
  }

  private async browser(port: unknown, daemonStartedAt: string) {
    const waitMs = Number(this.env.BSK_DOCTOR_BROWSER_WAIT_MS ?? DEFAULT_BROWSER_WAIT_MS);
    const deadline = performance.now() + (Number.isFinite(waitMs) ? waitMs : DEFAULT_BROWSER_WAIT_MS);
    const wanted = typeof this.params.browser === "string" ? this.params.browser : undefined;
    for (;;) {
      const browsers: Browser[] = (await this.call("browser.list", {})).result.browsers;
      const pick = wanted ? browsers.find((b) => b.instance_id === wanted || b.label === wanted) : browsers[0];
      if (pick) {
        const others = browsers.length > 1 ? `; ${browsers.length} connected, pick another with --browser` : "";
        const detail = `${pick.name} ${pick.version}, ${JSON.stringify(pick.label)} (${pick.instance_id}), extension ${pick.extension_version}${others}`;
        return { value: pick, detail };
      }
      if (performance.now() >= deadline) {
        if (wanted && browsers.length) {
          throw new BskError("not_found", `no connected browser is ${JSON.stringify(wanted)}`, {
            hint: `Connected: ${browsers.map((b) => `${b.instance_id} (${b.label})`).join(", ")}.`,
          });
        }
        const refused = refusalSince(readLogTail(this.paths.log), daemonStartedAt);
        if (refused) throw refused;
        throw new BskError("no_browser_connected", `no browser connected within ${Math.round(waitMs / 100) / 10} s`, {
          hint: noBrowserHint(port),
        });
      }
      await Bun.sleep(BROWSER_POLL_MS);
    }
  }

  private async roundTrip(browser: Browser): Promise<void> {
    const session = await this.hop("session_start", async () => {
      const { result, reply } = await this.call("session.start", {
        name: "bsk doctor",
        focus: false,
        owner_pid: process.pid,
        browser: browser.instance_id,
      });
      return { value: result.session_id as string, detail: `session ${result.session_id}, tab ${result.tab_id}${hops(reply)}` };
    });
    if (!session) return;
    const page = servePage();
    try {
      await this.pageHops(session, page.url);
    } finally {
      page.stop();
      await this.hop("session_stop", async () => {
        const { result, reply } = await this.call("session.stop", { session_id: session });
        const failed = result.failed?.[0];
        if (failed) throw new BskError(isErrorCode(failed.code) ? failed.code : "protocol_error", failed.message);
        return { value: true, detail: `stopped, ${result.closed_tab_ids.length} tab(s) closed${hops(reply)}` };
      });
    }
  }

  private async pageHops(session_id: string, url: string): Promise<void> {
    const loaded = await this.hop("navigate", async () => {
      const { result, reply } = await this.call("navigate", { session_id, url }, { mutation: true });
      return { value: true, detail: `built-in page loaded (HTTP ${result.status}, title ${JSON.stringify(result.title)})${hops(reply)}` };
    });
    if (!loaded) return;
    const ref = await this.hop("snapshot", async () => {
      const { result, reply } = await this.call("snapshot", { session_id });
      const line = String(result.text)
        .split("\n")
        .find((l) => l.includes(`button "${BUTTON}"`));
      const ref = line?.match(/@e\d+/)?.[0];
      if (!ref) {
        throw new BskError("not_found", `the snapshot has no button "${BUTTON}" with a ref`, {
          hint: "The extension could not read the page; reload the extension, then see bsk logs.",
        });
      }
      return { value: ref, detail: `button ${ref} among ${result.refs} ref(s), ${result.tokens} tokens${hops(reply)}` };
    });
    if (!ref) return;
    const clicked = await this.hop("click", async () => {
      const { result, reply } = await this.call("click", { session_id, target: ref }, { mutation: true });
      return { value: true, detail: `clicked ${ref}, effect ${result.effect?.kind}${hops(reply)}` };
    });
    if (!clicked) return;
    await this.hop("verify", async () => {
      const { result, reply } = await this.call("snapshot", { session_id });
      if (result.title !== CLICKED_TITLE) {
        throw new BskError("cdp_failed", `the click did not reach the page (title is ${JSON.stringify(result.title)})`, {
          hint: "Input is not arriving in the Agent Window; make sure the window is not minimised, then see bsk logs.",
        });
      }
      return { value: true, detail: `the page saw the click (title ${JSON.stringify(result.title)})${hops(reply)}` };
    });
  }
}

function protocolCheck(daemonProtocol: string, browser: Browser) {
  const sides = [
    { who: "daemon", version: daemonProtocol },
    { who: "extension", version: browser.protocol_version },
  ];
  const detail = `cli ${PROTOCOL_VERSION}, daemon ${daemonProtocol}, extension ${browser.protocol_version}`;
  let skew = false;
  for (const side of sides) {
    const c = checkCompatibility(PROTOCOL_VERSION, side.version);
    if (!c.ok) throw new BskError("version_too_old", `${side.who}: ${c.reason}`);
    skew ||= c.skew;
  }
  if (skew) {
    return {
      value: true,
      detail: `${detail} (minor skew)`,
      status: "warn" as const,
      hint: "Works, but update both sides to the same release: bsk update, then reload the extension.",
    };
  }
  return { value: true, detail };
}

export async function doctor({
  paths,
  env,
  params,
  say,
}: {
  paths: HomePaths;
  env: Env;
  params: Record<string, unknown>;
  say: Say;
}): Promise<Outcome> {
  const d = new Doctor(paths, env, params, params.fix === true ? say : undefined);
  await d.run();
  const report: DoctorReport = { ok: !d.checks.some((c) => c.status === "fail"), checks: d.checks };
  return { ok: true, format: "text", result: { text: renderDoctor(report) }, exitCode: report.ok ? 0 : 1, jsonBody: { ...report } };
}
