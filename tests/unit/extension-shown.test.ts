import { describe, expect, test } from "bun:test";
import { BskError } from "../../protocol/errors.ts";
import { besideChecks, endShowing, paintsSoon, showing } from "../../extension/src/page/shown.ts";

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

describe("a read beside the tab's checks (page/shown.ts besideChecks)", () => {
  const refused = () => new BskError("permission_denied", "no", { data: { reason: "restricted_url" } });
  const ahead = (tabId: number | null, checked: Promise<{ tabId: number }>) => {
    checked.catch(() => undefined);
    return { tabId, checked } as Parameters<typeof besideChecks>[0];
  };

  test("the checks' refusal is the answer, whether the read found something or failed", async () => {
    await expect(besideChecks(ahead(7, Promise.reject(refused())), async () => "found")).rejects.toMatchObject({
      code: "permission_denied",
    });
    const gone = new BskError("stale_ref", "gone");
    await expect(
      besideChecks(ahead(7, Promise.reject(refused())), async () => {
        throw gone;
      }),
    ).rejects.toMatchObject({ code: "permission_denied" });
    await expect(
      besideChecks(ahead(7, Promise.resolve({ tabId: 7 })), async () => {
        throw gone;
      }),
    ).rejects.toBe(gone);
    expect(await besideChecks(ahead(7, Promise.resolve({ tabId: 7 })), async (id) => id * 2)).toEqual({ tabId: 7, value: 14 });
  });

  test("a tab the session's records do not name is read only after the checks passed", async () => {
    const reads: number[] = [];
    await expect(besideChecks(ahead(null, Promise.reject(refused())), async (id) => reads.push(id))).rejects.toMatchObject({
      code: "permission_denied",
    });
    expect(reads).toEqual([]);
    expect((await besideChecks(ahead(null, Promise.resolve({ tabId: 9 })), async (id) => reads.push(id))).tabId).toBe(9);
    expect(reads).toEqual([9]);
  });
});
