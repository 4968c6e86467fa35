/** The import floors hold (.dependency-cruiser.cjs): `npm run deps` shows the same findings, warnings included. */
import { expect, test } from "bun:test";
import { checkFloors } from "../../scripts/floors.ts";

test("imports follow the floors: no cycle in shipped code, no arrow back up (run `npm run deps` when this fails)", async () => {
  const { code, output } = await checkFloors();
  // Warn-level findings do not fail the test and would drown the errors: show only the rest.
  const errors = output
    .split("\n")
    .filter((line) => !line.startsWith("  warn "))
    .join("\n");
  if (code !== 0) console.error(errors);
  expect(code).toBe(0);
}, 120_000);
