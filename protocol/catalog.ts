/**
 * The method catalog: the one place a method is defined. Family files declare methods;
 * this file merges them and assigns every method its effect class. The compiler checks
 * EFFECTS is complete (Record<MethodName, Effect>) and names no unknown method.
 */
import type { z } from "zod";
import type { Effect, MethodDef } from "./define.ts";
import { interactionMethods } from "./methods/interaction.ts";
import { navigationMethods } from "./methods/navigation.ts";
import { sessionMethods } from "./methods/session.ts";
import { systemMethods } from "./methods/system.ts";
import { tabMethods } from "./methods/tabs.ts";

export const METHODS = {
  ...systemMethods,
  ...sessionMethods,
  ...tabMethods,
  ...navigationMethods,
  ...interactionMethods,
};

export type MethodName = keyof typeof METHODS;
export type Params<M extends MethodName> = z.input<ReturnType<(typeof METHODS)[M]["params"]>>;
export type ParsedParams<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["params"]>>;
export type Result<M extends MethodName> = z.output<ReturnType<(typeof METHODS)[M]["result"]>>;

export const EFFECTS: Record<MethodName, Effect> = {
  "system.handshake": "ControlPlane",
  "system.status": "ControlPlane",
  "system.shutdown": "ControlPlane",
  "system.allow_extension": "ControlPlane",
  "browser.list": "ControlPlane",
  cancel: "ControlPlane",
  "session.start": "ControlPlane",
  "session.stop": "ControlPlane",
  "session.list": "ControlPlane",
  "session.open": "ControlPlane",
  "session.close": "ControlPlane",
  "tab.list": "PassiveRead",
  "tab.create": "BrowserMutation",
  "tab.select": "BrowserMutation",
  "tab.close": "BrowserMutation",
  navigate: "BrowserMutation",
  "navigate.back": "BrowserMutation",
  "navigate.forward": "BrowserMutation",
  reload: "BrowserMutation",
  wait_for: "PassiveRead",
  evaluate: "BrowserMutation",
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
