/**
 * The bsk daemon: one per $BSK_HOME. `bsk daemon start --foreground` calls runDaemon and exits when it
 * resolves; `bun daemon/main.ts` runs it directly (dev, tests) and prints one JSON line when ready.
 */
import { join } from "node:path";
import { APP_VERSION, PROTOCOL_VERSION } from "../protocol/version.ts";
import { AllowList } from "../shared/allow-list.ts";
import { BrowserRegistry } from "./browsers.ts";
import { resolveConfig, type DaemonConfig, type DaemonOptions } from "./config.ts";
import type { DaemonContext } from "./context.ts";
import { removeDaemonJson, writeDaemonJson } from "./daemon-json.ts";
import { Dispatcher } from "./dispatch.ts";
import { FileEventLog } from "./event-store.ts";
import { ensurePrivateDir } from "../shared/fs-util.ts";
import { startGateway } from "./gateway.ts";
import { DAEMON_HANDLERS } from "./handlers/index.ts";
import type { DaemonInfo, HomePaths } from "../shared/home.ts";
import { IdleExit } from "./idle-exit.ts";
import { IdleGc } from "./idle-gc.ts";
import { startIpcServer } from "./ipc-server.ts";
import { ensureLinkKey } from "../shared/key-file.ts";
import type { Ledger } from "./ledger.ts";
import { FileLedger } from "./ledger-file.ts";
import { acquireLock } from "./lock.ts";
import { openLog, type Logger } from "./log.ts";
import { portInUse } from "./port-owner.ts";
import { SessionRegistry } from "./sessions.ts";
import { clearStartError, recordStartError } from "../shared/start-error.ts";
import { registerNativeHost } from "../shared/native-host-register.ts";
import { Authorizer } from "./remote/authorize.ts";
import { DeviceStore } from "./remote/devices.ts";
import { PeerLimiter } from "./remote/limits.ts";
import type { ServerMode } from "./remote/server-options.ts";
import { PairingCodes } from "./trust/pairing-codes.ts";
import { ensureSecret, type InstallSecret } from "./trust/secret.ts";
import { TransferStore, transferLimits } from "./transfers.ts";
import { startUpdateCheck, type UpdateCheck } from "./update-check.ts";
import { warmUp } from "./warm-up.ts";
import { isCompiled } from "../shared/compiled.ts";
import { removeSwappedOut } from "../shared/swapped-out.ts";

export type { DaemonOptions } from "./config.ts";
export type { DaemonInfo } from "../shared/home.ts";

export type RunOutcome = { kind: "stopped" } | { kind: "already_running"; info: DaemonInfo };

/** How long ending live sessions may hold up a stop. */
const STOP_BUDGET_MS = 2000;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/**
 * Run the daemon until it stops (system.shutdown, SIGTERM/SIGINT, or idle). Resolves `already_running`
 * at once when another daemon serves this home. Rejects (BskError) when it cannot start, e.g. the port is taken.
 */
export async function runDaemon(opts: DaemonOptions = {}): Promise<RunOutcome> {
  const config = resolveConfig(opts);
  let ready = false;
  const onReady = (info: DaemonInfo) => {
    ready = true;
    clearStartError(config.paths);
    opts.onReady?.(info);
  };
  try {
    return await start(config, onReady, opts.onListening);
  } catch (err) {
    if (!ready) recordStartError(config.paths, err);
    throw err;
  }
}

async function start(config: DaemonConfig, onReady: (info: DaemonInfo) => void, onListening?: () => void): Promise<RunOutcome> {
  const { paths } = config;
  for (const dir of [paths.home, paths.logsDir, paths.stateDir]) ensurePrivateDir(dir);
  const lock = await acquireLock(paths);
  if (lock.kind === "held") return { kind: "already_running", info: lock.info };
  let log: Logger | undefined;
  let ledger: Ledger | undefined;
  try {
    log = openLog(paths.log, { mirror: config.mirrorLog });
    const warn = log.warn;
    ledger = await FileLedger.open(paths.ledgerDir, { onWarn: (msg, fields) => warn(msg, fields), sync: config.ledgerSync });
    await serve(config, log, ledger, lock.release, onReady, onListening);
    return { kind: "stopped" };
  } catch (err) {
    log?.error("daemon failed", { error: err });
    await ledger?.close().catch(() => undefined);
    log?.close();
    lock.release();
    throw err;
  }
}

/** On upgrade, installed skill copies the person did not edit are brought up to date; edited ones are reported. */
async function syncSkills(log: Logger): Promise<void> {
  try {
    const { syncInstalled } = await import("../skill/install.ts");
    const { updated, edited } = syncInstalled(process.env);
    if (updated.length) log.info("skill updated", { harnesses: updated });
    for (const e of edited)
      log.info("skill copy edited by the person; left as is", { harness: e.harness, path: e.path, files: e.edited_files });
  } catch (err) {
    log.warn("could not check installed skills", { error: err });
  }
}

/** What a Windows update moved aside (shared/swapped-out.ts) goes at this start; one still running stays for a later one. */
function sweepSwappedOut(log: Logger): void {
  if (!isCompiled()) return;
  const { removed, kept } = removeSwappedOut(process.execPath);
  if (removed.length || kept.length) log.info("binaries an update moved aside", { removed, kept });
}

async function serve(
  config: DaemonConfig,
  log: Logger,
  ledger: Ledger,
  releaseLock: () => void,
  onReady?: (info: DaemonInfo) => void,
  onListening?: () => void,
) {
  const { paths } = config;
  const info: DaemonInfo = {
    pid: process.pid,
    socket: paths.socket,
    ws_port: config.port,
    version: APP_VERSION,
    protocol_version: PROTOCOL_VERSION,
    started_at: new Date().toISOString(),
  };
  const browsers = new BrowserRegistry();
  const events = new FileEventLog(paths.eventsDir, { onWarn: (msg, fields) => log.warn(msg, fields) });
  let idle: IdleExit | undefined;
  let updates: UpdateCheck | undefined;
  const onChange = () => {
    idle?.check();
    updates?.sessionsChanged();
  };
  const transfers = new TransferStore(join(paths.home, "transfers"), transferLimits(process.env));
  transfers.clearAll();
  const sessions = new SessionRegistry({ config, log, browsers, events, onChange, onSessionEnded: (id) => transfers.dropSession(id) });
  sessions.load();

  const secret = ensureSecret(paths.secret, paths.home);
  const allowList = new AllowList(paths.config);
  if (config.nativeHost === "auto" && !config.server) registerNativeHostsQuietly(paths, allowList, log);

  const stopped = Promise.withResolvers<void>();
  let stopping: Promise<void> | undefined;
  const server = config.server && remoteParts(config, config.server, secret, paths, log);
  const ctx: DaemonContext = {
    config,
    log,
    info,
    browsers,
    sessions,
    events,
    ledger,
    allowList,
    trust: { secret, pairing: server?.pairing ?? new PairingCodes(config.pairingTtlMs, config.pairingIntervalMs), remote: server?.trust },
    transfers,
    shutdown: (reason) => (stopping ??= stop(reason)),
  };

  // Start-up work is done before ready: run after it, it held up the first calls (warm-up.ts).
  await syncSkills(log);
  let gateway: ReturnType<typeof startGateway>;
  try {
    gateway = startGateway({ ...ctx, onChange, server: server?.gateway });
  } catch (err) {
    sessions.dispose();
    server?.gateway.limiter.stop();
    throw portError(config.server?.port ?? config.port, err);
  }
  info.ws_port = gateway.port;
  let ipc: ReturnType<typeof startIpcServer>;
  const dispatcher = new Dispatcher(ctx, DAEMON_HANDLERS);
  try {
    ipc = startIpcServer({
      paths,
      log,
      dispatcher,
      onChange,
      linkKey: ensureLinkKey(paths),
      tcp: config.cliTcp,
    });
  } catch (err) {
    gateway.stop();
    sessions.dispose();
    throw err;
  }
  if (ipc.tcpPort !== undefined) info.cli_port = ipc.tcpPort;
  writeDaemonJson(paths, info);

  // A server waits for browsers that dial in at any time: it never stops for being idle.
  if (!config.server) {
    idle = new IdleExit(
      config.daemonIdleMs,
      () => ipc.connections === 0 && browsers.size === 0 && sessions.liveCount === 0,
      () => void ctx.shutdown("idle"),
    );
    idle.check();
  }
  const onHangup = () => {
    try {
      gateway.reloadTls();
      const limits = server?.gateway.limiter.reload();
      if (limits) log.info("remote limits reloaded", { ...limits });
    } catch (err) {
      log.error("reload refused; the running certificate stays", { error: err });
    }
  };
  if (config.server) process.on("SIGHUP", onHangup);
  updates = startUpdateCheck(config, log, () => sessions.liveCount);
  const gc = new IdleGc({
    handled: () => dispatcher.handled,
    inFlight: () => dispatcher.inFlight,
    onCollected: (ms) => {
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      log.debug("collected", {
        pid: process.pid,
        ms: Math.round(ms),
        rss_mb: mb(rss),
        heap_mb: mb(heapUsed),
        heap_total_mb: mb(heapTotal),
        external_mb: mb(external),
      });
    },
  });
  const onSignal = (signal: NodeJS.Signals) => void ctx.shutdown(signal);
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  async function stop(reason: string): Promise<void> {
    log.info("daemon stopping", { reason });
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    process.off("SIGHUP", onHangup);
    server?.gateway.limiter.stop();
    try {
      idle?.stop();
      updates?.stop();
      gc.stop();
      ipc.stopAccepting();
      // Sessions end while the links are still up, so browsers close their windows and callers hear why.
      const ended = await sessions.endAll("daemon_stopped", STOP_BUDGET_MS);
      gateway.stop();
      ipc.close();
      sessions.dispose();
      log.info("daemon stopped", { reason, ended_sessions: ended });
    } catch (err) {
      log.error("error while stopping", { error: err });
    } finally {
      await ledger.close().catch((err: unknown) => log.error("could not close the ledger", { error: err }));
      removeDaemonJson(paths, process.pid);
      releaseLock();
      log.close();
      stopped.resolve();
    }
  }

  // Listening, daemon.json written: the browser's link and a first call overlap the warm-up; ready waits for it.
  onListening?.();
  await warmUp(() => stopping !== undefined);
  if (stopping) return stopped.promise;

  // Before it answers: whoever started it finds the sweep done.
  sweepSwappedOut(log);
  log.info("daemon started", { ...info, home: paths.home, jit: process.env.BUN_JSC_useJIT !== "0" });
  onReady?.(info);
  await stopped.promise;
}

/** Server mode's parts: the paired devices, the authorize endpoint, the per-peer limits. */
function remoteParts(config: DaemonConfig, mode: ServerMode, secret: InstallSecret, paths: HomePaths, log: Logger) {
  const devices = new DeviceStore(join(paths.stateDir, "devices.json"), secret.bytes, {
    grantMs: config.deviceGrantMs,
    renewMs: config.deviceRenewMs,
  });
  const pairing = new PairingCodes(config.pairingTtlMs, config.pairingIntervalMs);
  const authorizer = new Authorizer({ authority: mode.authority, keyId: secret.keyId, devices, pairing, log });
  if (!mode.tls && mode.trustedProxies.length === 0)
    log.warn("no --trusted-proxy: X-Forwarded-For is ignored, so behind a proxy every client shares the proxy's per-peer limits", {
      hint: "Give the address the proxy connects from (docs/remote.md).",
    });
  return {
    pairing,
    devices,
    trust: { authority: mode.authority, devices },
    gateway: { mode, authorizer, limiter: new PeerLimiter(paths.config) },
  };
}

/** Lets the extension fetch the secret through native messaging; a failure only means it pairs by code. */
function registerNativeHostsQuietly(paths: DaemonConfig["paths"], allowList: AllowList, log: Logger): void {
  try {
    const done = registerNativeHost({ paths, mode: "auto", extensionIds: allowList.all() });
    const changed = done.filter((r) => r.state !== "kept");
    if (changed.length) log.info("native messaging host", { registrations: changed });
  } catch (err) {
    log.warn("could not register the native messaging host", { error: err });
  }
}

function portError(port: number, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code !== "EADDRINUSE") return err instanceof Error ? err : new Error(String(err));
  return portInUse(port);
}

if (import.meta.main) {
  try {
    const outcome = await runDaemon({ onReady: (info) => console.log(JSON.stringify({ ready: true, ...info })) });
    if (outcome.kind === "already_running") console.log(JSON.stringify({ already_running: true, ...outcome.info }));
    process.exit(0);
  } catch (err) {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    if (err && typeof err === "object" && "hint" in err) console.error(`hint: ${(err as { hint: string }).hint}`);
    process.exit(1);
  }
}
