/**
 * What each CLI-only command runs (its shape is in commands-table.ts, by the same `local` name), its module loaded
 * only then. It sits above the table and plan.ts: the commands use both, the table never imports a command.
 */
import type { LocalContext } from "./command-spec.ts";
import { longLivedJit } from "./jit-policy.ts";
import type { Outcome } from "./output.ts";

export const LOCAL_RUNS: Record<string, (c: LocalContext) => Promise<Outcome>> = {
  "daemon.start": async (c) => (await import("./commands/daemon.ts")).daemonStart(c),
  "daemon.stop": async (c) => (await import("./commands/daemon.ts")).daemonStop(c),
  "daemon.status": async (c) => (await import("./commands/daemon.ts")).daemonStatus(c),
  logs: async (c) => {
    const { printLogLine } = await import("./output.ts");
    return (await import("./commands/logs.ts")).logs({ ...c, print: (l) => printLogLine(l, c.json) });
  },
  "install-skill": async (c) => (await import("./commands/install-skill.ts")).installSkill(c),
  doctor: async (c) => {
    const { writeStderr } = await import("./output.ts");
    return (await import("./commands/doctor.ts")).doctor({ ...c, say: writeStderr });
  },
  mcp: async (c) => {
    longLivedJit();
    return (await import("./mcp/server.ts")).mcpCommand(c);
  },
  "native.install": async (c) => (await import("./commands/native.ts")).nativeInstall(c),
  "native.uninstall": async (c) => (await import("./commands/native.ts")).nativeUninstall(c),
  completion: async (c) => (await import("./completion.ts")).completionCommand(String(c.params.shell)),
  update: async (c) => (await import("./commands/update.ts")).update(c),
  version: async () => (await import("./commands/version.ts")).version(),
};
