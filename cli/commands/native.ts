/** `bsk native install|uninstall`: the native messaging host registration (shared/native-host-register.ts). */
import type { HomePaths } from "../../shared/home.ts";
import { AllowList } from "../../shared/allow-list.ts";
import { HOST_NAME, launcherPath, registerNativeHost, unregisterNativeHost } from "../../shared/native-host-register.ts";
import type { Outcome } from "../output.ts";
import { absolutePath } from "../plan.ts";

type Env = Record<string, string | undefined>;

interface Ctx {
  paths: HomePaths;
  env: Env;
  params: Record<string, unknown>;
}

function profileDirs({ params, env }: Ctx): string[] {
  const dirs = (params.profile_dirs as string[] | undefined) ?? [];
  return dirs.map((d) => absolutePath(d, process.cwd(), env.HOME));
}

export async function nativeInstall(ctx: Ctx): Promise<Outcome> {
  const { mkdirSync } = await import("node:fs");
  mkdirSync(ctx.paths.home, { recursive: true, mode: 0o700 });
  const registrations = registerNativeHost({
    paths: ctx.paths,
    mode: "explicit",
    explicitRoots: profileDirs(ctx),
    extensionIds: new AllowList(ctx.paths.config).all(),
    env: ctx.env,
  });
  return { ok: true, format: "native.install", result: { host: HOST_NAME, launcher: launcherPath(ctx.paths), registrations } };
}

export async function nativeUninstall(ctx: Ctx): Promise<Outcome> {
  const removed = unregisterNativeHost({ paths: ctx.paths, explicitRoots: profileDirs(ctx), env: ctx.env });
  return { ok: true, format: "native.uninstall", result: { host: HOST_NAME, removed } };
}
