import { describe, expect, test } from "bun:test";
import { endShowing, paintsSoon, showing } from "../../extension/src/page/shown.ts";

describe("a tab a call brought to the front (page/shown.ts)", () => {
  test("the effect watch takes the mark once; a call that ended without taking it leaves none behind", () => {
    showing(1, "aaaa");
    expect(paintsSoon(1)).toBe(true);
    expect(paintsSoon(1, true)).toBe(true);
    expect(paintsSoon(1)).toBe(false);

    // Failed before arming its watch: the mark goes with the call, and only that session's marks do.
    showing(2, "aaaa");
    showing(3, "bbbb");
    endShowing("aaaa");
    expect(paintsSoon(2)).toBe(false);
    expect(paintsSoon(3)).toBe(true);
    endShowing("bbbb");
    expect(paintsSoon(3)).toBe(false);
  });
});
