import { describe, expect, test } from "bun:test";
import { lifePortFrom } from "../../extension/src/features/overlay/life-port.ts";

describe("the overlay's life port (features/overlay/life-port.ts)", () => {
  const ID = "mmgjjcpeaknlocpgodfmbngemnnhomck";
  test("held only for bsk's own script in a tab's top frame", () => {
    expect(lifePortFrom({ id: ID, tab: { id: 4 }, frameId: 0 }, ID)).toBe(true);
  });
  test("an iframe, an extension page with no tab, another extension or no sender is cut off", () => {
    expect(lifePortFrom({ id: ID, tab: { id: 4 }, frameId: 3 }, ID)).toBe(false);
    expect(lifePortFrom({ id: ID, frameId: 0 }, ID)).toBe(false);
    expect(lifePortFrom({ id: "otherextensionidotherextensionid", tab: { id: 4 }, frameId: 0 }, ID)).toBe(false);
    expect(lifePortFrom(undefined, ID)).toBe(false);
  });
});
