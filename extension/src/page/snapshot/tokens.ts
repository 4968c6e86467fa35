/**
 * A cheap estimate of o200k tokens, shaped on how o200k splits snapshot text: a word (with the space before it) is
 * one token, a long one more; digits go in groups of three, a space before them is a token of its own; a run of
 * punctuation is a token per three characters (`="`, `"]`, `","` are one each), a lone mark between a non-space
 * and a word often merges into the word; a line break after punctuation merges into it, an indentation run is one
 * token; CJK characters one each. tests/unit/snapshot-tokens.test.ts measures it against o200k on the fixture
 * pages: within ±10% on each.
 */
const PIECE = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|(\p{L}+)|(\p{N}+)|([^\s\p{L}\p{N}]+)|(\n *)/gu;
const LETTER = /\p{L}/u;
const WORD_CHARS = 9;

export function estimateTokens(text: string): number {
  return Math.ceil(tokenWeight(text));
}

/** The estimate before rounding: line costs add up these, so halves are not rounded up once per line. */
export function tokenWeight(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) {
    const len = m[0].length;
    const prev = m.index ? text[m.index - 1]! : "";
    if (m[1]) n += 1;
    else if (m[2]) n += len > WORD_CHARS ? 1 + Math.ceil((len - WORD_CHARS) / 3) : 1;
    else if (m[3]) n += Math.ceil(len / 3) + (prev === " " ? 1 : 0);
    else if (m[4]) n += len === 1 && prev !== " " && LETTER.test(text[m.index + 1] ?? "") ? 0.5 : Math.ceil(len / 3);
    else n += (LETTER.test(prev) || (prev >= "0" && prev <= "9") ? 1 : 0) + (len > 2 ? 1 : 0);
  }
  return n;
}
