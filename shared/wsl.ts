/**
 * WSL: a CLI in Linux under Windows driving the person's Windows browser through the Windows daemon. Pure and
 * injectable: detection (env, then the kernel's release string), Windows ⇄ /mnt path mapping (the automount root of
 * /etc/wsl.conf), and finding the Windows user's %LOCALAPPDATA% through interop (cmd.exe). cli/wsl-daemon.ts wires it.
 */

type Env = Record<string, string | undefined>;

/** BSK_WSL: auto (default: the Windows daemon when a Windows bsk home is found), windows (only it), off (never). */
export type WslChoice = "auto" | "windows" | "off";

export function wslChoice(env: Env): WslChoice {
  const v = env.BSK_WSL;
  return v === "windows" || v === "off" ? v : "auto";
}

/** Does the environment say WSL? Free: no file is read. WSL sets both in every process it starts. */
export function wslEnvHint(env: Env): boolean {
  return Boolean(env.WSL_DISTRO_NAME || env.WSL_INTEROP);
}

/**
 * The WSL version from the kernel's release string (/proc/sys/kernel/osrelease, or /proc/version): WSL2 kernels say
 * "microsoft-standard-WSL2" (older: "-microsoft-standard"), WSL1's "-Microsoft"; null when it is not WSL.
 */
export function wslVersion(release: string): 1 | 2 | null {
  const lower = release.toLowerCase();
  if (lower.includes("wsl2") || lower.includes("microsoft-standard")) return 2;
  if (lower.includes("microsoft") || lower.includes("wsl")) return 1;
  return null;
}

export interface WslFacts {
  version: 1 | 2;
  /** Where Windows drives are mounted, with a trailing slash (default /mnt/). */
  root: string;
}

export interface WslReaders {
  /** A file's text, or undefined when it cannot be read. */
  read(path: string): string | undefined;
}

/**
 * Is this WSL, and how is it set up? The environment first (costs nothing); the kernel's release string only when it
 * hints WSL, or when `probe` asks (doctor), so a plain Linux CLI reads no file. null: not WSL.
 */
export function detectWsl(env: Env, io: WslReaders, probe = false): WslFacts | null {
  if (!wslEnvHint(env) && !probe) return null;
  const release = io.read("/proc/sys/kernel/osrelease") ?? io.read("/proc/version") ?? "";
  const version = wslVersion(release) ?? (wslEnvHint(env) ? 2 : null);
  if (version === null) return null;
  return { version, root: automountRoot(io.read("/etc/wsl.conf") ?? "") };
}

/** A key's value in an INI file (wsl.conf, .wslconfig): section and key match in any case; comments and quotes off. */
export function iniValue(text: string, section: string, key: string): string | undefined {
  let current = "";
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) current = head[1]!.trim().toLowerCase();
    const kv = head ? null : /^([^=]+)=(.*)$/.exec(line);
    if (kv && current === section && kv[1]!.trim().toLowerCase() === key.toLowerCase()) found = kv[2]!.trim().replace(/^"(.*)"$/, "$1");
  }
  return found;
}

/** The [automount] root= of /etc/wsl.conf, with one trailing slash; /mnt/ when unset. */
export function automountRoot(wslConf: string): string {
  const value = iniValue(wslConf, "automount", "root");
  return value?.startsWith("/") ? `${value.replace(/\/+$/, "")}/` : "/mnt/";
}

/** WSL 2's networking mode from %USERPROFILE%\.wslconfig ([wsl2] networkingMode=), nat when unset. */
export function networkingMode(wslConfig: string): string {
  return (iniValue(wslConfig, "wsl2", "networkingMode") ?? "nat").toLowerCase();
}

/** C:\Users\ann → /mnt/c/Users/ann (the drive letter lowered, as WSL mounts it); null for a path with no drive. */
export function windowsToWsl(winPath: string, root = "/mnt/"): string | null {
  const m = /^([A-Za-z]):(?:[\\/](.*))?$/.exec(winPath.trim());
  if (!m) return null;
  const rest = (m[2] ?? "")
    .split(/[\\/]+/)
    .filter(Boolean)
    .join("/");
  return `${root}${m[1]!.toLowerCase()}${rest ? `/${rest}` : ""}`;
}

/** /mnt/c/Users/ann → C:\Users\ann; null for a path outside the drives' root. */
export function wslToWindows(path: string, root = "/mnt/"): string | null {
  if (!path.startsWith(root)) return null;
  const m = /^([A-Za-z])(?:\/(.*))?$/.exec(path.slice(root.length));
  if (!m) return null;
  const rest = (m[2] ?? "").split("/").filter(Boolean).join("\\");
  return `${m[1]!.toUpperCase()}:\\${rest}`;
}

/** Runs a Windows program through WSL interop; its stdout, or undefined when it could not run. */
export type InteropRunner = (argv: string[]) => string | undefined;

/**
 * A Windows user's environment variable holding a path (LOCALAPPDATA, USERPROFILE), asked of cmd.exe through interop.
 * An answer that is not a drive path (interop off: cmd.exe missing; the variable unset: cmd echoes "%NAME%") is none.
 */
export function windowsPathVar(run: InteropRunner, name: "LOCALAPPDATA" | "USERPROFILE"): string | undefined {
  const out = run(["cmd.exe", "/d", "/c", `echo %${name}%`]);
  const line = out
    ?.split(/\r?\n/)
    .find((l) => l.trim())
    ?.trim();
  return line && /^[A-Za-z]:\\/.test(line) ? line : undefined;
}

/** The Windows user's %LOCALAPPDATA% (e.g. C:\Users\ann\AppData\Local), where the Windows bsk home is. */
export function windowsLocalAppData(run: InteropRunner): string | undefined {
  return windowsPathVar(run, "LOCALAPPDATA");
}

/** The Windows daemon's bsk home as WSL sees it: %LOCALAPPDATA%\bsk under the automount root (shared/home.ts). */
export function windowsHomeInWsl(localAppData: string, root: string): string | null {
  return windowsToWsl(`${localAppData}\\bsk`, root);
}
