/**
 * doctor in WSL: one line on what it found (WSL 1 or 2, the drives' root, the Windows bsk home, WSL 2's networking
 * mode, which decides whether Windows' 127.0.0.1 is reachable), and the transport check of the Windows daemon when
 * that is the one this CLI reached. No line on plain Linux.
 */
import { readDaemonInfo } from "../daemon-client.ts";
import { networkingMode, windowsPathVar, windowsToWsl, wslChoice } from "../../shared/wsl.ts";
import { loopbackNote, realWslDeps, windowsHome, type WindowsHome, type WslDeps } from "../wsl-daemon.ts";
import type { Check } from "./doctor-report.ts";
import { probe } from "./doctor-transport.ts";

type Env = Record<string, string | undefined>;
type Line = { value: WindowsHome | null; detail: string; status?: Check["status"]; hint?: string };

/** null when this is not WSL. */
export function wslCheck(env: Env, deps: WslDeps = realWslDeps): Line | null {
  const win = windowsHome({ ...env, BSK_WSL: "windows" }, deps, true);
  if (!win) return null;
  const { facts } = win;
  let mode = "";
  if (facts.version === 2) {
    const profile = windowsPathVar(deps.run, "USERPROFILE");
    const config = profile && windowsToWsl(`${profile}\\.wslconfig`, facts.root);
    mode = networkingMode((config && deps.read(config)) ?? "");
  }
  const detail =
    `WSL ${facts.version}${mode && ` (networkingMode ${mode})`}, drives under ${facts.root}; ` +
    `Windows bsk home ${win.windows}: ${win.found ? "found" : "none"}; BSK_WSL=${wslChoice(env)}`;
  if (wslChoice(env) === "off" || !win.found) return { value: null, detail };
  if (facts.version === 2 && mode !== "mirrored")
    return { value: win, detail, status: "warn", hint: `The Windows daemon listens on 127.0.0.1 only: ${loopbackNote(facts)}.` };
  return { value: win, detail };
}

/** The transport line when this CLI reached the Windows daemon: its loopback TCP port, with the link proof. */
export async function windowsTransportCheck(
  win: WindowsHome,
  env: Env,
): Promise<{ value: true; detail: string; status?: Check["status"]; hint?: string }> {
  const port = (await readDaemonInfo(win.paths))?.cli_port;
  const tcp = await probe(win.paths, env, "tcp");
  const detail = `the Windows daemon over tcp 127.0.0.1:${port ?? "-"}: ${tcp}`;
  return tcp === "ok" ? { value: true, detail } : { value: true, detail, status: "fail", hint: `${loopbackNote(win.facts)}.` };
}
