/**
 * The set-up of remote mode's e2e tests: a server-mode daemon (dist/bsk, its own $BSK_HOME) with a certificate from
 * a CA made here, trusted by the test browser's own NSS database (its HOME), never by turning certificate checks
 * off; a world (harness.ts) whose browser pairs with the server through the real popup.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { makeChain, type Chain } from "../tls/chain.ts";
import { PROXY_ADDRESS, startProxy, type NginxProxy } from "../tls/nginx.ts";
import { serverModeArgs } from "../tls/server-args.ts";
import { BSK, freePort, startWorld, TEST_DURATIONS, until, type Run, type World, type WorldOptions } from "./harness.ts";
import { PersonPage } from "./person-page.ts";
import { tempDir } from "../temp.ts";
import { tearDown } from "../teardown.ts";

/** The path of certutil, or undefined (the caller skips, saying why). */
export const certutil = spawnSync("sh", ["-c", "command -v certutil"]).stdout?.toString().trim() || undefined;

export interface Server {
  home: string;
  port: number;
  env: Record<string, string>;
  proc: ReturnType<typeof Bun.spawn>;
  /** nginx in front of the daemon (startServer's `proxy`). */
  proxy?: NginxProxy;
  bsk(args: string[]): Promise<Run>;
  ok(args: string[]): Promise<any>;
  /** keepHome: the paired devices stay, for a restart on the same home and port; SIGKILL: it ends nothing first. */
  stop(keepHome?: boolean, signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `proxy`: the daemon listens without a certificate on loopback and the distribution's nginx, configured as
 * docs/remote.md says, terminates TLS in front of it (the public URL names nginx's port).
 */
export async function startServer(
  chain: Chain,
  env: Record<string, string> = {},
  again?: { home: string; port: number },
  opts: { proxy?: boolean } = {},
): Promise<Server> {
  const home = again?.home ?? tempDir("bsk-e2e-server-");
  const port = again?.port ?? (await freePort());
  const leaf = chain.leaf(`server-${port}`, ["localhost"]);
  const publicPort = opts.proxy ? await freePort() : port;
  const fullEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...TEST_DURATIONS,
    BSK_HOME: home,
    BSK_AUTO_START: "0",
    // Pairing tries wait between them (tested in tests/integration); here tries follow each other at once.
    BSK_PAIRING_INTERVAL_MS: "0",
    ...env,
  };
  delete fullEnv.BSK_PORT;
  delete fullEnv.BSK_SESSION;
  const url = `wss://localhost:${publicPort}/extension`;
  const args = opts.proxy ? serverModeArgs(port, url, undefined, PROXY_ADDRESS) : serverModeArgs(port, url, leaf);
  const proc = Bun.spawn([BSK, ...args], { env: fullEnv, stdout: "ignore", stderr: "ignore", stdin: "ignore" });
  const bsk = async (args: string[]): Promise<Run> => {
    const p = Bun.spawn([BSK, ...args], { env: fullEnv, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    let json: any;
    try {
      json = JSON.parse(stdout);
    } catch {}
    return { code, stdout, stderr, json };
  };
  const ok = async (args: string[]) => {
    const r = await bsk([...args, "--json"]);
    if (r.code !== 0 || !r.json?.ok) throw new Error(`server: bsk ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r.json.result;
  };
  let proxy: NginxProxy | undefined;
  const stop = (keepHome = false, signal: NodeJS.Signals = "SIGTERM") =>
    tearDown([
      () => proxy?.stop(),
      () => {
        proc.kill(signal);
        return proc.exited;
      },
      () => keepHome || rmSync(home, { recursive: true, force: true }),
    ]);
  try {
    // Ready once its socket answers (the daemon writes nothing we wait on).
    await until("the server daemon to answer", async () => (await bsk(["daemon", "devices", "--json"])).json?.ok === true, 20_000);
    if (opts.proxy)
      proxy = await startProxy({ dir: join(home, "nginx"), port: publicPort, daemonPort: port, cert: leaf.cert, key: leaf.key });
  } catch (e) {
    // No test gets this server to stop; a home handed in for a restart goes too (its test has failed).
    await stop().catch(() => {});
    throw e;
  }
  return { home, port, env: fullEnv, proc, proxy, bsk, ok, stop };
}

export interface RemoteWorld {
  chain: Chain;
  server: Server;
  /** The person's side: the browser and its local daemon. */
  w: World;
  popup: PersonPage;
  /** Pastes a link into the popup's Remote connection field and presses Check; throws when the popup refuses it. */
  pasteAndCheck(link: string): Promise<void>;
  /** Presses Confirm and pair; resolves with the popup's result reason. */
  confirmAndWait(): Promise<string>;
  /** Pairs the popup with a server; resolves with the device id once it is linked. */
  pairWith(s: Server): Promise<string>;
  /** Disconnects the remote link (its grant is forgotten). */
  forget(): Promise<void>;
  stop(): Promise<void>;
}

/** The CA trusted by a fresh HOME's NSS database, a server with a certificate from it, a world whose browser uses that HOME. */
export async function startRemoteWorld(
  opts: { serverEnv?: Record<string, string>; world?: WorldOptions; proxy?: boolean } = {},
): Promise<RemoteWorld> {
  if (!certutil) throw new Error("certutil is missing (apt-get install libnss3-tools)");
  const chain = makeChain();
  const browserHome = tempDir("bsk-e2e-home-");
  let server: Server | undefined;
  let w: World | undefined;
  let popup: PersonPage | undefined;
  // What was started goes, and the folders made here with it, also when the world fails to start.
  const stop = () =>
    tearDown([
      () => popup?.close(),
      () => w?.stop(),
      () => server?.stop(),
      () => rmSync(browserHome, { recursive: true, force: true }),
      () => rmSync(chain.dir, { recursive: true, force: true }),
    ]);
  try {
    const nssdb = join(browserHome, ".pki/nssdb");
    mkdirSync(nssdb, { recursive: true });
    execFileSync(certutil, ["-d", `sql:${nssdb}`, "-N", "--empty-password"]);
    execFileSync(certutil, ["-d", `sql:${nssdb}`, "-A", "-t", "C,,", "-n", "bsk-test-ca", "-i", chain.caCert]);
    server = await startServer(chain, opts.serverEnv, undefined, { proxy: opts.proxy });
    w = await startWorld({ ...opts.world, browserEnv: { ...opts.world?.browserEnv, HOME: browserHome } });
    popup = await openPopup(w);
  } catch (e) {
    await stop().catch(() => {});
    throw e;
  }
  return remoteWorld(chain, server, w, popup, stop);
}

/** The popup of the world's extension, open on its remote pairing controls. */
async function openPopup(w: World): Promise<PersonPage> {
  const url = `chrome-extension://${EXTENSION_ID}/popup.html?n=1`;
  await w.person.openTab(url);
  const page = await PersonPage.find(w.browser.cdpPort!, "popup.html?n=1");
  await page.waitFor(`document.querySelector("section.remote") !== null`);
  // The popup lays itself out again as the local link settles (the state line, its hint, pairing): a control
  // found before that may have moved by the press. A person waits for the popup to settle, so does the test.
  await page.waitFor(`document.querySelector("main")?.className === "connected"`);
  // Remote pairing and the links sit under the popup's folded connection details: the person unfolds them.
  await page.evaluate(`document.querySelector("details.details").open = true`);
  return page;
}

/** The person's moves in the popup, over a started remote world. */
function remoteWorld(chain: Chain, server: Server, w: World, popup: PersonPage, stop: () => Promise<void>): RemoteWorld {
  const pasteAndCheck = async (link: string) => {
    await popup.evaluate(`(() => { const i = document.querySelector("#remote-link"); i.value = ""; return true; })()`);
    await popup.clickSelector("#remote-link");
    await popup.waitFor(`document.activeElement?.id === "remote-link"`);
    await popup.type(link);
    await popup.waitFor(`document.querySelector("#remote-link").value === ${JSON.stringify(link)}`);
    // Enter submits the form as the Check button does. A click can miss: the popup re-lays itself out whenever
    // the links' state changes in storage (the local link settling as the popup opens), which can move the button
    // between the look that found it and the press.
    await popup.press("Enter");
    await popup.waitFor(`document.querySelector(".remote-confirm") !== null || document.querySelector(".remote-result") !== null`);
    const refused = await popup.evaluate(
      `document.querySelector(".remote-confirm") ? null : document.querySelector(".remote-result").textContent + " / typed: " + document.querySelector("#remote-link").value`,
    );
    if (refused) throw new Error(`the popup did not take the link: ${refused}`);
  };

  const confirmAndWait = async () => {
    await popup.evaluate(`document.querySelector(".remote-result")?.remove() ?? true`);
    await popup.clickSelector(`button[data-action="remote-confirm"]`);
    await popup.waitFor(`document.querySelector(".remote-result") !== null`, 15_000);
    return popup.evaluate(`document.querySelector(".remote-result").dataset.reason`);
  };

  const pairWith = async (s: Server) => {
    const link: string = (await s.ok(["daemon", "pair"])).link;
    await pasteAndCheck(link);
    const reason = await confirmAndWait();
    if (reason !== "paired") throw new Error(`pairing ended with ${reason}`);
    await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "connected"`, 15_000);
    return (await s.ok(["daemon", "devices"])).devices[0].device_id;
  };

  const forget = async () => {
    await popup.clickSelector(`li[data-link="remote"] button[data-action="disconnect"]`);
    await popup.waitFor(`document.querySelector('li[data-link="remote"]') === null`);
  };

  return {
    chain,
    server,
    w,
    popup,
    pasteAndCheck,
    confirmAndWait,
    pairWith,
    forget,
    stop,
  };
}
