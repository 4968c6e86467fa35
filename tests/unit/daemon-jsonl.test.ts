import { describe, expect, test } from "bun:test";
import { LineReader } from "../../daemon/jsonl.ts";

const enc = (s: string) => new TextEncoder().encode(s);

function reader(max = 1024) {
  const lines: string[] = [];
  let overflows = 0;
  const r = new LineReader(
    max,
    (l) => lines.push(l),
    () => overflows++,
  );
  return { r, lines, overflows: () => overflows };
}

describe("LineReader", () => {
  test("splits lines across and within chunks, ignoring blank lines and CR", () => {
    const { r, lines } = reader();
    r.push(enc('{"a":1}\n{"b"'));
    r.push(enc(':2}\r\n\n  \n{"c":3}'));
    r.push(enc("\n"));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test("decodes multi-byte characters split between chunks", () => {
    const { r, lines } = reader();
    const bytes = enc("é€\n");
    r.push(bytes.subarray(0, 1));
    r.push(bytes.subarray(1, 4));
    r.push(bytes.subarray(4));
    expect(lines).toEqual(["é€"]);
  });

  test("drops a line past the cap up to its newline, reports it once, then reads on", () => {
    const { r, lines, overflows } = reader(8);
    r.push(enc("0123456"));
    r.push(enc("789abc"));
    r.push(enc("defgh"));
    r.push(enc("ij\nok\n"));
    expect(overflows()).toBe(1);
    expect(lines).toEqual(["ok"]);
    r.push(enc("0123456789\nfine\n"));
    expect(overflows()).toBe(2);
    expect(lines).toEqual(["ok", "fine"]);
  });
});
