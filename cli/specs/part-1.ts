/** Part 1 of the catalog's commands, inlined at build time (catalog-table.ts, CATALOG_PARTS); loaded by command-index.ts. */
import { catalogPart } from "../catalog-table.ts" with { type: "macro" };
import type { CommandSpec } from "../command-spec.ts";

export const PART: CommandSpec[] = catalogPart(1);
