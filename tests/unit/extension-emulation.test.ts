/** Device presets and how repeated emulate calls merge. */
import { describe, expect, test } from "bun:test";
import { DEVICES, mergeEmulation, touchesMetrics } from "../../extension/src/features/emulation/devices.ts";
import { DEVICE_PRESETS } from "../../protocol/methods/emulation.ts";

describe("device presets", () => {
  test("every preset of the catalog is defined, with a plausible viewport", () => {
    expect(Object.keys(DEVICES).sort()).toEqual([...DEVICE_PRESETS].sort());
    for (const d of Object.values(DEVICES)) {
      expect(d.width).toBeGreaterThan(300);
      expect(d.height).toBeGreaterThan(600);
      expect(d.dpr).toBeGreaterThanOrEqual(1);
    }
  });

  test("iPhone 14: 390×844 @3, mobile, touch, iOS Safari; Android presets carry the running Chrome's major", () => {
    const s = mergeEmulation({}, { device: "iphone-14" }, "150");
    expect(s).toMatchObject({ width: 390, height: 844, dpr: 3, mobile: true, touch: true });
    expect(s.userAgent).toMatch(/iPhone OS 17_\d like Mac OS X.*Version\/17\.\d Mobile\/\w+ Safari/);
    expect(s.metadata).toBeUndefined();
    const pixel = mergeEmulation({}, { device: "pixel-7" }, "150");
    expect(pixel.userAgent).toContain("Chrome/150.0.0.0 Mobile Safari/537.36");
    expect(pixel.metadata).toMatchObject({ platform: "Android", model: "Pixel 7", mobile: true });
    expect(mergeEmulation({}, { device: "desktop-1080p" }, "150")).toMatchObject({
      width: 1920,
      mobile: false,
      touch: false,
      userAgent: "",
    });
  });
});

describe("merging", () => {
  test("explicit fields beat the device; later calls keep earlier fields", () => {
    const a = mergeEmulation({}, { device: "iphone-14", width: 400 }, "150");
    expect(a).toMatchObject({ width: 400, height: 844 });
    const b = mergeEmulation(a, { user_agent: "custom" }, "150");
    expect(b).toMatchObject({ width: 400, height: 844, dpr: 3, userAgent: "custom" });
    expect(b.metadata).toBeUndefined();
  });

  test("touch or UA alone leave the viewport alone", () => {
    expect(touchesMetrics(mergeEmulation({}, { touch: true }, "150"))).toBe(false);
    expect(touchesMetrics(mergeEmulation({}, { user_agent: "x" }, "150"))).toBe(false);
    expect(touchesMetrics(mergeEmulation({}, { dpr: 2 }, "150"))).toBe(true);
  });
});
