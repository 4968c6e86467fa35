/**
 * `bsk install-skill`: put skill/SKILL.md (and its references) where agent harnesses look for skills.
 * --list shows every harness with its path and state; --harness (repeatable) or --all choose; with neither, a TTY
 * gets a multi-select of the detected harnesses. Copies the person edited are reported and kept unless --force.
 */
import { BskError } from "../../protocol/errors.ts";
import { findHarness, HARNESSES, type Env, type Harness } from "../../skill/harnesses.ts";
import { install, status, type HarnessStatus } from "../../skill/install.ts";
import type { Outcome } from "../output.ts";
import { closest } from "../suggest.ts";

interface Options {
  env: Env;
  params: Record<string, unknown>;
  json: boolean;
}

export interface InstallReport {
  installed: { harness: string; path: string; was: string }[];
  current: { harness: string; path: string }[];
  skipped: { harness: string; path: string; reason: "edited"; edited_files: string[] }[];
}

function chosenByFlag(ids: unknown): Harness[] {
  const list = (Array.isArray(ids) ? ids : [])
    .flatMap((v) => String(v).split(","))
    .map((s) => s.trim())
    .filter(Boolean);
  return list.map((id) => {
    const h = findHarness(id);
    if (!h) {
      const ids = HARNESSES.map((x) => x.id);
      const guess = closest(id.toLowerCase(), ids);
      throw new BskError("invalid_params", `unknown harness ${JSON.stringify(id)}`, {
        hint: `${guess ? `Did you mean --harness ${guess}? ` : ""}Known harnesses: ${ids.join(", ")} (bsk install-skill --list shows their paths).`,
      });
    }
    return h;
  });
}

async function chooseInteractively(statuses: HarnessStatus[]): Promise<Harness[]> {
  const { consola } = await import("consola");
  const picked = (await consola.prompt("Install the bsk browser skill into which harnesses?", {
    type: "multiselect",
    required: false,
    options: statuses.map((s) => ({
      value: s.harness,
      label: s.name,
      hint: `${s.path}${s.state === "not_installed" ? "" : ` (${s.state})`}${s.detected ? "" : " — not detected"}`,
    })),
    initial: statuses.filter((s) => s.detected).map((s) => s.harness),
    cancel: "reject",
  })) as unknown as (string | { value: string })[];
  return picked.map((p) => findHarness(typeof p === "string" ? p : p.value)!);
}

export function installInto(targets: Harness[], env: Env, force: boolean): InstallReport {
  const report: InstallReport = { installed: [], current: [], skipped: [] };
  for (const h of targets) {
    const s = status(h, env);
    if (s.state === "edited" && !force) {
      report.skipped.push({ harness: h.id, path: s.path, reason: "edited", edited_files: s.edited_files ?? [] });
    } else if (s.state === "current" && !force) {
      report.current.push({ harness: h.id, path: s.path });
    } else {
      install(h, env);
      report.installed.push({ harness: h.id, path: s.path, was: s.state });
    }
  }
  return report;
}

export async function installSkill({ env, params, json }: Options): Promise<Outcome> {
  const statuses = HARNESSES.map((h) => status(h, env));
  if (params.list) return { ok: true, format: "install-skill.list", result: { harnesses: statuses } };

  let targets: Harness[];
  if (Array.isArray(params.harness) && params.harness.length) targets = chosenByFlag(params.harness);
  else if (params.all) targets = HARNESSES.filter((h) => statuses.find((s) => s.harness === h.id)!.detected);
  else if (!json && process.stdin.isTTY && process.stdout.isTTY) targets = await chooseInteractively(statuses);
  else {
    const found = statuses.filter((s) => s.detected).map((s) => s.harness);
    throw new BskError("invalid_params", "choose where to install: --harness <id> (repeatable) or --all", {
      hint: found.length
        ? `Detected here: ${found.join(", ")}. Example: bsk install-skill --harness ${found[0]}`
        : `No harness detected; name one: bsk install-skill --harness claude-code (bsk install-skill --list shows all).`,
    });
  }
  if (!targets.length) {
    throw new BskError("not_found", "no harness to install into", {
      hint: "Name one with --harness <id>; bsk install-skill --list shows every harness and its path.",
    });
  }
  return { ok: true, format: "install-skill", result: installInto(targets, env, Boolean(params.force)) };
}
