/** doctor's skill check: is the bsk skill installed, and current, in the agent harnesses found here? Never a failure. */
import { HARNESSES, type Env } from "../../skill/harnesses.ts";
import { status, type HarnessStatus } from "../../skill/install.ts";
import type { Check } from "./doctor-report.ts";

const ids = (list: HarnessStatus[]) => list.map((s) => s.harness).join(", ");

export function skillCheck(env: Env): { value: true; detail: string; status?: Check["status"]; hint?: string } {
  const all = HARNESSES.map((h) => status(h, env));
  const installed = all.filter((s) => s.state !== "not_installed");
  const missing = all.filter((s) => s.detected && s.state === "not_installed");
  const outdated = installed.filter((s) => s.state === "outdated");
  const edited = installed.filter((s) => s.state === "edited");
  const warn = (detail: string, hint: string) => ({ value: true as const, detail, status: "warn" as const, hint });

  if (!installed.length) {
    return missing.length
      ? warn(
          `not installed (detected: ${ids(missing)})`,
          `Teach your agent bsk: bsk install-skill --harness ${missing[0]!.harness} (or --all)`,
        )
      : warn(
          "not installed, and no agent harness detected",
          "Install it where your agent reads skills: bsk install-skill --list shows the places",
        );
  }
  if (outdated.length) return warn(`outdated in ${ids(outdated)}`, `Update it: bsk install-skill --harness ${outdated[0]!.harness}`);
  if (edited.length) {
    return warn(
      `edited by hand in ${ids(edited)} (kept as is)`,
      `bsk install-skill --harness ${edited[0]!.harness} --force replaces it with this version's`,
    );
  }
  const current = `current in ${ids(installed)}`;
  return { value: true, detail: missing.length ? `${current}; not in ${ids(missing)} (detected)` : current };
}
