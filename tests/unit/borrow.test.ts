/** tab borrow / tab return: the CLI's shape and wait, the borrow rule (pure), the human output. */
import { describe, expect, test } from "bun:test";
import { humanSuccess, loadFormatters } from "../../cli/output.ts";
import { plan } from "../../cli/router.ts";
import { GRACE_MS, type Ids, type Plan } from "../../cli/plan.ts";
import { linkedTo, prune, renamed } from "../../extension/src/features/borrow/link-graph.ts";
import { borrowRefusal, type BorrowCandidate } from "../../extension/src/features/borrow/rules.ts";

// The see-and-act, history and trace formatters load on demand (cli/output.ts); these tests render them directly.
await loadFormatters();

const ids: Ids = { traceId: "0badcafe", opId: () => "op-fixed" };

function call(argv: string[]): Extract<Plan, { kind: "call" }> {
  const p = plan(argv, { BSK_SESSION: "s1" }, ids, 4242);
  if (p.kind !== "call") throw new Error(`expected a call, got ${p.kind}`);
  return p;
}

describe("bsk tab borrow / return", () => {
  test("the call waits as long as the person may take to answer (60 s by default), plus slack", () => {
    const p = call(["tab", "borrow", "12"]);
    expect(p).toMatchObject({ method: "tab.borrow", params: { session_id: "s1", tab_id: 12 }, meta: { op_id: "op-fixed" } });
    expect(p.params.timeout_ms).toBeUndefined(); // the schema's default (60 s) applies in the daemon
    expect(p.meta.timeout_ms).toBe(60_000 + GRACE_MS);
    expect(p.giveUpMs).toBeGreaterThan(p.meta.timeout_ms!);
  });

  test("--timeout is the person's time to answer; the call's deadline covers it", () => {
    const long = call(["tab", "borrow", "12", "--timeout", "2m"]);
    expect(long.params.timeout_ms).toBe(120_000);
    expect(long.meta.timeout_ms).toBe(120_000 + GRACE_MS);
    const short = call(["tab", "borrow", "--tab", "12", "--timeout", "2s"]);
    expect(short.params).toMatchObject({ tab_id: 12, timeout_ms: 2000 });
    expect(short.meta.timeout_ms).toBe(30_000);
  });

  test("tab return takes the tab id", () => {
    expect(call(["tab", "return", "12"])).toMatchObject({ method: "tab.return", params: { session_id: "s1", tab_id: 12 } });
  });

  test("human output says where the tab went and where it came from", () => {
    const from = { window_id: 1, index: 3, pinned: true, muted: false, group_id: -1 };
    expect(humanSuccess("tab.borrow", { tab_id: 12, window_id: 9, index: 2, from, asked: true, current_tab_id: 12 }, {}).stdout).toBe(
      "borrowed 12 into window 9 (from window 1 index 3, pinned)",
    );
    expect(humanSuccess("tab.borrow", { tab_id: 12, window_id: 9, index: 2, from, asked: false, current_tab_id: 12 }, {}).stdout).toContain(
      "without a prompt",
    );
    expect(
      humanSuccess("tab.return", { tab_id: 12, window_id: 4, index: 0, fallback: true, closed_tab_ids: [], current_tab_id: null }, {})
        .stdout,
    ).toBe("returned 12 to window 4 index 0 (its own window is gone)");
  });
});

describe("which tabs may be borrowed", () => {
  const tab = (more: Partial<BorrowCandidate> = {}): BorrowCandidate => ({
    tab_id: 7,
    url: "https://example.com/",
    incognito: false,
    window_type: "normal",
    ...more,
  });
  const refusal = (caller: string, t: BorrowCandidate) => {
    const e = borrowRefusal(caller, t);
    return e && { code: e.code, reason: e.data?.reason };
  };

  test("a person's tab in a normal window, or in the caller's own Agent Window", () => {
    expect(borrowRefusal("aaaa", tab())).toBeNull();
    expect(borrowRefusal("aaaa", tab({ window_session_id: "aaaa" }))).toBeNull();
  });

  test("incognito tabs never", () => {
    expect(refusal("aaaa", tab({ incognito: true }))).toEqual({ code: "permission_denied", reason: "incognito" });
  });

  test("browser, extension and store pages never", () => {
    for (const url of ["chrome://settings", "chrome-extension://abc/page.html", "https://chromewebstore.google.com/detail/x"]) {
      expect(refusal("aaaa", tab({ url }))).toEqual({ code: "permission_denied", reason: "restricted_url" });
    }
  });

  test("another session's tab, a tab in its Agent Window, or one it is asking for: borrow_conflict, never naming it", () => {
    for (const more of [{ owner_session_id: "bbbb" }, { window_session_id: "bbbb" }, { pending_for: "bbbb" }, { pending_for: "aaaa" }]) {
      const e = borrowRefusal("aaaa", tab(more))!;
      expect({ code: e.code, reason: e.data?.reason }).toEqual({ code: "permission_denied", reason: "borrow_conflict" });
      expect(JSON.stringify(e.toBody())).not.toContain("bbbb");
    }
  });

  test("the caller's own tab is invalid_params; a tab of a popup window cannot move", () => {
    expect(refusal("aaaa", tab({ owner_session_id: "aaaa" }))).toEqual({ code: "invalid_params", reason: "already_owned" });
    expect(refusal("aaaa", tab({ window_type: "popup" }))).toEqual({ code: "unsupported", reason: "not_a_normal_window" });
    expect(refusal("aaaa", tab({ window_type: "unknown" }))?.code).toBe("unsupported");
  });

  test("conflict beats incognito and restricted: the other session is not probed through the error", () => {
    expect(refusal("aaaa", tab({ owner_session_id: "bbbb", incognito: true }))?.reason).toBe("borrow_conflict");
  });
});

describe("linked tabs (link-graph)", () => {
  const live = (...ids: number[]) => new Set(ids);

  test("an opener and the tab it opened reach each other, both ways", () => {
    const edges = [[1, 2]] as const;
    expect(linkedTo(edges, 2, live(1, 2))).toEqual([1]);
    expect(linkedTo(edges, 1, live(1, 2))).toEqual([2]);
  });

  test("tabs one page opened stay linked after it closed; a closed tab is never listed", () => {
    const edges = [
      [1, 2],
      [1, 3],
      [3, 4],
    ] as const;
    expect(linkedTo(edges, 2, live(2, 3, 4))).toEqual([3, 4]);
    expect(linkedTo(edges, 9, live(2, 3, 9))).toEqual([]);
  });

  test("a group left with one open tab is forgotten; one with two is kept whole", () => {
    const edges = [
      [1, 2],
      [1, 3],
      [5, 6],
    ] as const;
    expect(prune(edges, live(2, 3, 5))).toEqual([
      [1, 2],
      [1, 3],
    ]);
    expect(renamed(edges, 1, 7)[0]).toEqual([7, 2]);
  });

  test("a linked tab is refused with linked_tabs, before any consent", () => {
    const e = borrowRefusal("s1", {
      tab_id: 3,
      url: "https://example.com/",
      incognito: false,
      window_type: "normal",
      linked_tab_ids: [7, 8],
    });
    expect(e?.code).toBe("permission_denied");
    expect(e?.data).toMatchObject({ reason: "linked_tabs", tab_id: 3, linked_tabs: 2 });
    expect(e?.hint).toContain("new tab");
  });
});
