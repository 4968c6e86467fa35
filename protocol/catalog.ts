/**
 * The method catalog: the one place a method is defined. Family files declare methods, each with what it is
 * (effect class, who may call it); this file merges them: the public methods (commands, tools) apart from the
 * wire methods only bsk's own processes send.
 */
import type { z } from "zod";
import type { Effect, MethodDef } from "./define.ts";
import { deviceMethods } from "./methods/devices.ts";
import { diagnosticsMethods } from "./methods/diagnostics.ts";
import { dialogMethods } from "./methods/dialogs.ts";
import { emulationMethods } from "./methods/emulation.ts";
import { humanMethods } from "./methods/human.ts";
import { fileMethods, fileWireMethods } from "./methods/files.ts";
import { interactionMethods } from "./methods/interaction.ts";
import { navigationMethods } from "./methods/navigation.ts";
import { observationMethods } from "./methods/observation.ts";
import { historyMethods } from "./methods/history.ts";
import { recordingMethods, recordingWireMethods } from "./methods/recording.ts";
import { sessionMethods, sessionWireMethods } from "./methods/session.ts";
import { systemMethods, systemWireMethods } from "./methods/system.ts";
import { tabMethods } from "./methods/tabs.ts";
import { waitMethods } from "./methods/waits.ts";

/** The methods a person or an agent calls: each is a command (`cli`), most also an MCP tool. */
export const PUBLIC_METHODS = {
  ...systemMethods,
  ...deviceMethods,
  ...sessionMethods,
  ...tabMethods,
  ...navigationMethods,
  ...waitMethods,
  ...observationMethods,
  ...interactionMethods,
  ...dialogMethods,
  ...diagnosticsMethods,
  ...emulationMethods,
  ...humanMethods,
  ...historyMethods,
  ...recordingMethods,
  ...fileMethods,
};

/** Methods only bsk's own processes send: the extension's link handshake, the daemon's calls into the extension, transfers. */
export const WIRE_METHODS = {
  ...systemWireMethods,
  ...sessionWireMethods,
  ...recordingWireMethods,
  ...fileWireMethods,
};

export const METHODS = { ...PUBLIC_METHODS, ...WIRE_METHODS };

export type MethodName = keyof typeof METHODS;
export type Params<M extends MethodName> = z.input<ReturnType<(typeof METHODS)[M]["params"]>>;
export type ParsedParams<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["params"]>>;
export type Result<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["result"]>>;

export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

/** Every method's effect class, as its catalog entry declares it. */
export const EFFECTS = Object.fromEntries(METHOD_NAMES.map((m) => [m, METHODS[m].effect])) as Record<MethodName, Effect>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}

export function getMethod(name: MethodName): MethodDef {
  return METHODS[name] as MethodDef;
}

/** Methods the extension implements (the daemon forwards these). */
export type ExtensionMethodName = {
  [K in MethodName]: (typeof METHODS)[K]["owner"] extends "extension" ? K : never;
}[MethodName];

/** Methods the daemon answers itself for a client (daemon/handlers/): not the extension's link methods. */
export type DaemonMethodName = {
  [K in MethodName]: (typeof METHODS)[K] extends { owner: "daemon"; callers: infer C } ? (C extends "link" ? never : K) : never;
}[MethodName];

export const EXTENSION_METHODS = METHOD_NAMES.filter((m) => METHODS[m].owner === "extension") as ExtensionMethodName[];

/** Methods reachable from the CLI, keyed by their command words. */
export function cliMethods(): { name: MethodName; def: MethodDef }[] {
  return METHOD_NAMES.filter((m) => METHODS[m].cli).map((name) => ({ name, def: METHODS[name] as MethodDef }));
}
