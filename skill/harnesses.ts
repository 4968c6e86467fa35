/**
 * Agent harnesses bsk can teach: where each keeps its skills, and how to tell it is installed.
 * The skill lands in `<skills dir>/browser-skill/` (SKILL.md plus references/).
 */
export interface Harness {
  id: string;
  name: string;
  aliases: string[];
  /** Skills directory for a given environment. */
  skillsDir(env: Env): string;
  /** Directories whose existence means the harness is installed (besides the skills dir itself). */
  markers(env: Env): string[];
  /** Commands on PATH that mean the harness is installed. */
  commands: string[];
}

export type Env = Record<string, string | undefined>;

const home = (env: Env) => (env.HOME || env.USERPROFILE || "/tmp").replace(/\/+$/, "");
const under =
  (...parts: string[]) =>
  (env: Env) =>
    [home(env), ...parts].join("/");

function envHome(variable: string, fallback: string[]) {
  return (env: Env) => (env[variable] ? env[variable]!.replace(/\/+$/, "") : [home(env), ...fallback].join("/"));
}

export const HARNESSES: Harness[] = [
  {
    id: "claude-code",
    name: "Claude Code",
    aliases: ["claude", "cc"],
    skillsDir: under(".claude", "skills"),
    markers: (e) => [under(".claude")(e)],
    commands: ["claude"],
  },
  {
    id: "codex",
    name: "Codex",
    aliases: [],
    skillsDir: under(".agents", "skills"),
    markers: (e) => [under(".codex")(e)],
    commands: ["codex"],
  },
  {
    id: "cursor",
    name: "Cursor",
    aliases: [],
    skillsDir: under(".cursor", "skills"),
    markers: (e) => [under(".cursor")(e)],
    commands: ["cursor", "cursor-agent"],
  },
  {
    id: "openclaw",
    name: "OpenClaw",
    aliases: [],
    skillsDir: under(".openclaw", "skills"),
    markers: (e) => [under(".openclaw")(e)],
    commands: ["openclaw"],
  },
  {
    id: "codebuddy",
    name: "CodeBuddy",
    aliases: [],
    skillsDir: under(".codebuddy", "skills"),
    markers: (e) => [under(".codebuddy")(e)],
    commands: ["codebuddy"],
  },
  {
    id: "workbuddy",
    name: "WorkBuddy",
    aliases: [],
    skillsDir: under(".workbuddy", "skills"),
    markers: (e) => [under(".workbuddy")(e)],
    commands: ["workbuddy"],
  },
  { id: "pi", name: "Pi", aliases: [], skillsDir: under(".pi", "agent", "skills"), markers: (e) => [under(".pi")(e)], commands: ["pi"] },
  {
    id: "hermes",
    name: "Hermes Agent",
    aliases: [],
    skillsDir: (e) => `${envHome("HERMES_HOME", [".hermes"])(e)}/skills`,
    markers: (e) => [envHome("HERMES_HOME", [".hermes"])(e)],
    commands: ["hermes"],
  },
  {
    id: "kimi-code",
    name: "Kimi Code",
    aliases: ["kimi"],
    skillsDir: (e) => `${envHome("KIMI_CODE_HOME", [".kimi-code"])(e)}/skills`,
    markers: (e) => [envHome("KIMI_CODE_HOME", [".kimi-code"])(e)],
    commands: ["kimi"],
  },
  {
    id: "gemini-cli",
    name: "Gemini CLI",
    aliases: ["gemini"],
    skillsDir: under(".gemini", "skills"),
    markers: (e) => [under(".gemini")(e)],
    commands: ["gemini"],
  },
  {
    id: "opencode",
    name: "OpenCode",
    aliases: [],
    skillsDir: under(".config", "opencode", "skills"),
    markers: (e) => [under(".config", "opencode")(e)],
    commands: ["opencode"],
  },
];

export function findHarness(idOrAlias: string): Harness | undefined {
  const key = idOrAlias.toLowerCase();
  return HARNESSES.find((h) => h.id === key || h.aliases.includes(key));
}
