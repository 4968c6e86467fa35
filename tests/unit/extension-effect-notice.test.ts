/**
 * The page's notice of a DOM change (extension/src/page/effect-notice.ts): only the notice of the probe this watch armed
 * counts; a late one of an earlier action, another binding's call or a malformed payload never does.
 */
import { describe, expect, test } from "bun:test";
import { EFFECT_BINDING, readNotice } from "../../extension/src/page/effect-notice.ts";

const call = (payload: unknown, name = EFFECT_BINDING) => ({ name, payload, executionContextId: 3 });

describe("effect notices", () => {
  test("the armed id's notice counts, with whether the element is a download link", () => {
    expect(readNotice(call(JSON.stringify(["id-2", false])), "id-2")).toEqual({ link: false });
    expect(readNotice(call(JSON.stringify(["id-2", true])), "id-2")).toEqual({ link: true });
  });

  test("an earlier arming's notice, arriving late, does not count for this action", () => {
    expect(readNotice(call(JSON.stringify(["id-1", false])), "id-2")).toBeNull();
  });

  test("no armed id, another binding, or a payload that is not the notice: nothing", () => {
    expect(readNotice(call(JSON.stringify(["id-2", false])), undefined)).toBeNull();
    expect(readNotice(call(JSON.stringify(["id-2", false]), "__bskObserve"), "id-2")).toBeNull();
    for (const payload of ["{", "null", '"id-2"', JSON.stringify({ 0: "id-2" }), JSON.stringify(["id-2"]), 42, undefined]) {
      expect(readNotice(call(payload), "id-2")).toBeNull();
    }
    expect(readNotice(call(JSON.stringify(["id-2", false, "x".repeat(300)])), "id-2")).toBeNull();
  });
});
