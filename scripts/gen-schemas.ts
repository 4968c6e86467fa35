/** Part of `npm run gen`: regenerate protocol/schemas/ from the catalog. tests/unit/protocol-catalog.test.ts fails when stale. */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderSchemas } from "../protocol/json-schema.ts";

const out = join(import.meta.dir, "../protocol/schemas");
rmSync(out, { recursive: true, force: true });
const files = renderSchemas();
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(dirname(join(out, rel)), { recursive: true });
  writeFileSync(join(out, rel), text);
}
console.log(`wrote ${Object.keys(files).length} schema files to protocol/schemas/`);
