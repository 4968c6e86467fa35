/** Session lifecycle methods the daemon answers: start (picks a browser, opens the Agent Window), stop, list. */
import { METHODS, type ParsedParams, type Result } from "../../protocol/catalog.ts";
import { BskError, isErrorCode, toErrorBody } from "../../protocol/errors.ts";
import { assertOriginAllowed, normalizeOrigin } from "../../protocol/origins.ts";
import { normalizeUrl } from "../../protocol/urls.ts";
import { pickBrowser } from "../browsers.ts";
import type { Call } from "../call.ts";
import type { DaemonContext } from "../context.ts";
import { settle } from "../forward.ts";
import type { DaemonHandler } from "./types.ts";
import { launchByConfig, startBrowser, type Launched } from "../browser-launch.ts";

/** Leave this much of the deadline to answer no_browser_connected before the call itself times out. */
const ANSWER_MARGIN_MS = 100;

/**
 * With a url, the first page loads as a `navigate` step of this call (its own op in the ledger, events and trace), so
 * an agent starts on its page in one call. Start and load are one outcome: a page that does not load ends the
 * session, and the navigation's error (with its effect_state) is the answer.
 */
const start: DaemonHandler<"session.start"> = async ({ call, ctx, params, step }) => {
  const opened = await openSession(ctx, call, params);
  if (params.url === undefined) return opened;
  call.stage = "navigate";
  try {
    const { result, timings } = await step("navigate", { session_id: opened.session_id, url: params.url });
    // The step's own hops, under its name: navigate (its whole time in the daemon), navigate_ledger, navigate_extension, …
    for (const [hop, ms] of Object.entries(timings)) call.timings[hop === "daemon" ? "navigate" : `navigate_${hop}`] = ms;
    return { ...opened, navigation: result };
  } catch (err) {
    const body = toErrorBody(err);
    await ctx.sessions
      .endSession(opened.session_id, "start_failed", { traceId: call.traceId, detail: { code: body.code, step: "navigate" } })
      .catch(() => undefined);
    throw new BskError(isErrorCode(body.code) ? body.code : "protocol_error", `${body.message} (the session was ended)`, {
      hint: body.hint,
      data: { ...body.data, session_id: opened.session_id, session_ended: true },
    });
  }
};

/** Progress notes while no browser is connected: within half a second, then each second, what is awaited and the fix. */
function waitingNotes(call: Call, waitMs: number, launched: Launched | undefined): () => void {
  const started = performance.now();
  const label = launched?.launched
    ? `starting ${launched.browser}; waiting for its bsk extension`
    : "waiting for a browser with the bsk extension (open it, or: bsk browser launch)";
  const note = () =>
    call.onProgress?.({ request_id: call.id, done: Math.round(performance.now() - started), total: waitMs, unit: "ms", label });
  let every: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    note();
    every = setInterval(note, 1000);
  }, 500);
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}

/**
 * Refuses, before any window opens, what cannot be the first page: not a URL, `javascript:`, a bare word (`bsk
 * session start list` is a mistyped command far more often than a host named "list"), or an origin outside
 * --allow-origin. The extension's checks of a navigation (file: and restricted URLs) still run on the step.
 */
function firstPage(input: string, allowOrigins: readonly string[] | undefined): void {
  const url = normalizeUrl(input);
  const text = input.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text) && !/[.:/[]/.test(text)) {
    throw new BskError("invalid_params", `not a URL: ${JSON.stringify(input)} (session start opens ${url} only when asked with a scheme)`, {
      hint: `To open that host write ${url}; bsk session --help lists the session commands.`,
      data: { reason: "not_a_url" },
    });
  }
  assertOriginAllowed(allowOrigins, url, { effect_state: "none" });
}

/** Picks the browser (waiting for one within the call's time), reserves the session and has the browser open its Agent Window. */
export async function openSession(ctx: DaemonContext, call: Call, p: ParsedParams<"session.start">): Promise<Result<"session.start">> {
  const pick = () =>
    pickBrowser(
      ctx.browsers.list().map((c) => c.record),
      p.browser,
    );
  const allowOrigins = p.allow_origins?.length ? [...new Set(p.allow_origins.map((o) => normalizeOrigin(o)!))] : undefined;
  if (p.block_requests && !allowOrigins) {
    throw new BskError("invalid_params", "--block-requests needs --allow-origin (which origins may still be reached)", {
      hint: "For example: bsk session start --allow-origin https://shop.example --block-requests",
    });
  }

  if (p.where === "group" && p.isolated) {
    throw new BskError("invalid_params", "--isolated opens an incognito window of its own; a group session lives in the person's window", {
      hint: "Pick one: --isolated (no logins, its own window) or --where group (beside the person's tabs, with their logins).",
      data: { reason: "isolated_group" },
    });
  }
  if (p.where === "group" && (p.width !== undefined || p.height !== undefined)) {
    throw new BskError("invalid_params", "--width and --height size an Agent Window; a group session lives in the person's own window", {
      hint: "Leave them out with --where group, or use the Agent Window (the default).",
    });
  }
  if (p.url !== undefined) firstPage(p.url, allowOrigins);
  call.stage = "browser_wait";
  let browser = pick();
  if (!browser) {
    const waitMs = Math.max(0, Math.min(ctx.config.browserWaitMs, call.remainingMs() - ANSWER_MARGIN_MS));
    const launched = p.launch || (!ctx.config.server && launchByConfig(ctx.config.paths.config)) ? startBrowser(ctx) : undefined;
    if (launched) ctx.log.info("browser launch", { ...launched, for: "session.start" });
    const stopNotes = waitingNotes(call, waitMs, launched);
    try {
      browser = await ctx.browsers.waitFor(pick, waitMs, call.signal);
    } finally {
      stopNotes();
    }
    if (!browser) {
      throw new BskError("no_browser_connected", `no browser with the bsk extension connected within ${waitMs} ms`, {
        ...(launched?.note && { hint: launched.note }),
        data: { waited_ms: waitMs, ws_port: ctx.info.ws_port, ...(launched && { launched: launched.launched }) },
      });
    }
  }
  const conn = ctx.browsers.get(browser.instance_id);
  if (!conn) throw new BskError("no_browser_connected", `browser ${browser.instance_id} disconnected`);

  const rt = ctx.sessions.reserve({
    browser_instance_id: browser.instance_id,
    name: p.name,
    owner_pid: p.owner_pid,
    lease_ms: p.lease_ms,
    allow_origins: allowOrigins,
    block_requests: p.block_requests || undefined,
    isolated: p.isolated || undefined,
    where: p.where,
    borrow: p.borrow,
    confirm_writes: p.confirm_writes || undefined,
  });
  call.sessionId = rt.id;
  call.stage = "extension";
  try {
    const reply = await conn.request(
      "session.open",
      {
        session_id: rt.id,
        name: p.name,
        focus: p.focus,
        width: p.width,
        height: p.height,
        observe: p.observe,
        where: p.where,
        borrow: p.borrow,
        ...(allowOrigins && { allow_origins: allowOrigins, block_requests: p.block_requests }),
        ...(p.isolated && { isolated: true }),
        ...(p.confirm_writes && { confirm_writes: true }),
      },
      { traceId: call.traceId, timeoutMs: call.remainingMs(), signal: call.signal },
    );
    const raw = settle(call, reply);
    const opened = METHODS["session.open"].result().safeParse(raw);
    if (!opened.success) throw new BskError("protocol_error", "the extension answered session.open with a malformed result");
    // Ended while the window was opening (stop --all, owner exited): report that, not a session that is gone.
    if (rt.record.state === "ended") ctx.sessions.lookup(rt.id);
    ctx.sessions.markOpened(rt, opened.data.window_id, opened.data.tab_id, opened.data.group_id);
    return {
      session_id: rt.id,
      browser_instance_id: browser.instance_id,
      window_id: opened.data.window_id,
      tab_id: opened.data.tab_id,
      ...(opened.data.group_id !== undefined && { group_id: opened.data.group_id }),
    } satisfies Result<"session.start">;
  } catch (err) {
    void ctx.sessions.endSession(rt.id, "start_failed", { traceId: call.traceId, detail: { code: toErrorBody(err).code } });
    throw err;
  }
}

const stop: DaemonHandler<"session.stop"> = async ({ call, ctx, params: p }) => {
  let ids: string[];
  if (p.all) ids = ctx.sessions.liveRecords().map((r) => r.session_id);
  else {
    ctx.sessions.lookup(p.session_id!);
    ids = [p.session_id!];
  }
  const result: Result<"session.stop"> = { stopped: [], failed: [], closed_tab_ids: [], returned_tab_ids: [] };
  const outcomes = await Promise.all(
    ids.map((id) => ctx.sessions.endSession(id, "stopped", { traceId: call.traceId, closeTimeoutMs: call.remainingMs() })),
  );
  ids.forEach((id, i) => {
    const o = outcomes[i];
    if (!o) return; // ended meanwhile by something else
    result.closed_tab_ids.push(...o.closed_tab_ids);
    result.returned_tab_ids.push(...o.returned_tab_ids);
    if (o.left_tab_ids) (result.left_tab_ids ??= []).push(...o.left_tab_ids);
    if (o.error) {
      result.failed.push({
        session_id: id,
        code: o.error.code,
        message: `the session ended, but its window may still be open: ${o.error.message}`,
      });
    } else result.stopped.push(id);
  });
  return result;
};

const list: DaemonHandler<"session.list"> = async ({ ctx, params: { session_id } }) => {
  const ended = ctx.sessions.endedRecords().reverse();
  const sessions = [...ctx.sessions.liveRecords(), ...ended].filter((s) => session_id === undefined || s.session_id === session_id);
  return { sessions } satisfies Result<"session.list">;
};

export const sessionHandlers = {
  "session.start": start,
  "session.stop": stop,
  "session.list": list,
};
