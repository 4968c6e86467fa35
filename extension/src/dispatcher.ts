/**
 * Method name → handler, for every extension-owned method of the catalog. HANDLERS is typed as a complete
 * Record over ExtensionMethodName, so a catalog method without a handler does not compile.
 * Params are validated again here with the method's own schema (which also fills its defaults).
 */
import type { ExtensionMethodName } from "../../protocol/catalog.ts";
import { getMethod, isMethodName, METHODS } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import { diagnosticsHandlers } from "./tools/diagnostics.ts";
import { emulationHandlers } from "./tools/emulation.ts";
import { interactionHandlers } from "./tools/interaction.ts";
import { navigationHandlers } from "./tools/navigation.ts";
import { observationHandlers } from "./tools/observation.ts";
import { sessionHandlers } from "./tools/session.ts";
import type { CallContext, Handler } from "./tools/handler.ts";
import { tabHandlers } from "./tools/tabs.ts";

const HANDLERS: { [M in ExtensionMethodName]: Handler<M> } = {
  ...sessionHandlers,
  ...tabHandlers,
  ...navigationHandlers,
  ...observationHandlers,
  ...interactionHandlers,
  ...diagnosticsHandlers,
  ...emulationHandlers,
};

type AnySchema = ReturnType<ReturnType<typeof getMethod>["params"]>;
const schemas = new Map<ExtensionMethodName, AnySchema>();

function paramsSchema(method: ExtensionMethodName): AnySchema {
  let schema = schemas.get(method);
  if (!schema) schemas.set(method, (schema = getMethod(method).params()));
  return schema;
}

function isExtensionMethod(name: string): name is ExtensionMethodName {
  return isMethodName(name) && METHODS[name].owner === "extension";
}

export async function dispatch(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  if (!isExtensionMethod(method)) {
    throw new BskError("unknown_method", `the extension does not implement ${method}`, { data: { method } });
  }
  const parsed = paramsSchema(method).safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw new BskError("invalid_params", `${method}: ${where}${issue?.message ?? "invalid params"}`);
  }
  const handler = HANDLERS[method] as Handler<ExtensionMethodName>;
  return handler(parsed.data as never, ctx);
}
