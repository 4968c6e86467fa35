/** --diff and find over snapshot lines. */
import { describe, expect, test } from "bun:test";
import { diffLines } from "../../extension/src/page/snapshot/diff.ts";
import { findLines } from "../../extension/src/page/snapshot/find.ts";

describe("snapshot diff", () => {
  test("changed, added and removed lines, each hunk after its enclosing line", () => {
    const before = [
      "main",
      '  heading "Users"',
      "  table",
      '    row "Ada"',
      '      button "View" @e1',
      '    row "Bob"',
      '      button "View" @e2',
    ];
    const after = [
      "main",
      '  heading "People"',
      "  table",
      '    row "Ada"',
      '      button "View" @e1',
      '    row "Cy"',
      '      button "View" @e3',
    ];
    expect(diffLines(before, after)).toEqual({
      lines: [
        "  main",
        '-   heading "Users"',
        '+   heading "People"',
        "    table",
        '-     row "Bob"',
        '-       button "View" @e2',
        '+     row "Cy"',
        '+       button "View" @e3',
      ],
      added: 3,
      removed: 3,
    });
  });

  test("no change, and huge inputs fall back to a multiset comparison", () => {
    expect(diffLines(["a", "b"], ["a", "b"])).toEqual({ lines: [], added: 0, removed: 0 });
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    const moved = [...big.slice(2500), ...big.slice(0, 2500), "new"];
    const d = diffLines(big, moved);
    expect(d.added).toBe(1);
    expect(d.removed).toBe(0);
  });
});

describe("find", () => {
  const lines = [
    "main",
    '  button "View" @e1 [in: row "Ada"]',
    '  link "view all" @e2',
    '  "Viewing 2 of 9"',
    "# covered by the dialog: 2 controls, not actionable",
  ];

  test("text is case-insensitive; lines come back trimmed with their ref", () => {
    expect(findLines(lines, "view", 10)).toEqual({
      matches: [
        { line: 'button "View" @e1 [in: row "Ada"]', ref: "@e1" },
        { line: 'link "view all" @e2', ref: "@e2" },
        { line: '"Viewing 2 of 9"', ref: null },
      ],
      total: 3,
    });
    expect(findLines(lines, "view", 1)).toMatchObject({ total: 3, matches: [{ ref: "@e1" }] });
  });

  test("/regex/flags; a bad one is invalid_params", () => {
    expect(findLines(lines, "/^link/", 10).matches.map((m) => m.ref)).toEqual(["@e2"]);
    expect(findLines(lines, "/VIEW\\b/i", 10).total).toBe(2);
    expect(() => findLines(lines, "/(/", 10)).toThrow(expect.objectContaining({ code: "invalid_params" }));
  });
});
