/**
 * The effect probe (extension/src/page/dom-probe.ts) is sent to the page as source, so it spells the work registry's
 * event names out instead of importing them: they must stay the ones messages/page-world.ts gives the registry.
 */
import { expect, test } from "bun:test";
import { installDomProbe } from "../../extension/src/page/dom-probe.ts";
import { WORK_ASK, WORK_DUE_ASK, WORK_MARK } from "../../extension/src/shared/messages/page-world.ts";

test("the probe's source names the work registry's events", () => {
  const source = installDomProbe.toString();
  for (const name of [WORK_MARK, WORK_ASK, WORK_DUE_ASK]) expect(source).toContain(JSON.stringify(name));
});
