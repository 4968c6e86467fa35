/** The skill as shipped inside the binary: relative path → text. */
import commands from "./references/commands.md" with { type: "text" };
import snapshot from "./references/snapshot.md" with { type: "text" };
import skill from "./SKILL.md" with { type: "text" };

export const SKILL_DIR_NAME = "browser-skill";

export const SKILL_FILES: Readonly<Record<string, string>> = {
  "SKILL.md": skill,
  "references/commands.md": commands,
  "references/snapshot.md": snapshot,
};
