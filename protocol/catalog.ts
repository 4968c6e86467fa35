/**
 * The method catalog: the one place a method is defined. Family files declare methods;
 * this file merges them. Each family also declares the effect class of each of its methods, as a
 * Record over its own method names, so the compiler checks every family's table (and EFFECTS) is complete.
 */
import type { z } from "zod";
import type { Effect, MethodDef } from "./define.ts";
import { diagnosticsEffects, diagnosticsMethods } from "./methods/diagnostics.ts";
import { dialogEffects, dialogMethods } from "./methods/dialogs.ts";
import { emulationEffects, emulationMethods } from "./methods/emulation.ts";
import { humanEffects, humanMethods } from "./methods/human.ts";
import { fileEffects, fileMethods } from "./methods/files.ts";
import { interactionEffects, interactionMethods } from "./methods/interaction.ts";
import { navigationEffects, navigationMethods } from "./methods/navigation.ts";
import { observationEffects, observationMethods } from "./methods/observation.ts";
import { historyEffects, historyMethods } from "./methods/history.ts";
import { recordingEffects, recordingMethods } from "./methods/recording.ts";
import { sessionEffects, sessionMethods } from "./methods/session.ts";
import { systemEffects, systemMethods } from "./methods/system.ts";
import { tabEffects, tabMethods } from "./methods/tabs.ts";
import { waitEffects, waitMethods } from "./methods/waits.ts";

export const METHODS = {
  ...systemMethods,
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

export type MethodName = keyof typeof METHODS;
export type Params<M extends MethodName> = z.input<ReturnType<(typeof METHODS)[M]["params"]>>;
export type ParsedParams<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["params"]>>;
export type Result<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["result"]>>;

/** Every method's effect class, merged from the families; complete by construction (Record<MethodName, Effect>). */
export const EFFECTS: Record<MethodName, Effect> = {
  ...systemEffects,
  ...sessionEffects,
  ...tabEffects,
  ...navigationEffects,
  ...waitEffects,
  ...observationEffects,
  ...interactionEffects,
  ...dialogEffects,
  ...diagnosticsEffects,
  ...emulationEffects,
  ...humanEffects,
  ...historyEffects,
  ...recordingEffects,
  ...fileEffects,
};

export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

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

export const EXTENSION_METHODS = METHOD_NAMES.filter((m) => METHODS[m].owner === "extension") as ExtensionMethodName[];

/** Methods reachable from the CLI, keyed by their command words. */
export function cliMethods(): { name: MethodName; def: MethodDef }[] {
  return METHOD_NAMES.filter((m) => METHODS[m].cli).map((name) => ({ name, def: METHODS[name] as MethodDef }));
}
