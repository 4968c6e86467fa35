/**
 * What an image costs a model, so an agent never sends one its model rejects or shrinks anyway. The estimate is
 * Anthropic's for Claude: an image whose long edge is over 1568 px, or over 1.2 megapixels (~1,600 tokens), is first
 * scaled down, aspect kept, until it is within both; it then costs about width × height / 750 tokens. Models take
 * at most 8000 px a side (2000 px when a request carries more than 20 images).
 */
export const CLAUDE_LONG_EDGE = 1568;
const CLAUDE_MAX_PIXELS = 1_200_000;
const PIXELS_PER_TOKEN = 750;

/** Estimated Claude input tokens of a width × height image (px), after Claude's own downscale. */
export function claudeImageTokens(width: number, height: number): number {
  if (width <= 0 || height <= 0) return 0;
  const shrink = Math.min(1, CLAUDE_LONG_EDGE / Math.max(width, height), Math.sqrt(CLAUDE_MAX_PIXELS / (width * height)));
  return Math.ceil((Math.floor(width * shrink) * Math.floor(height * shrink)) / PIXELS_PER_TOKEN);
}

/**
 * The scale on top of the device pixel ratio (CDP's clip.scale) that keeps both sides of a width × height CSS px
 * area within `maxEdge` image px; 1 when it already is. A hair under, so the browser's rounding never makes it one over.
 */
export function fitScale(width: number, height: number, dpr: number, maxEdge: number | undefined): number {
  const long = Math.max(width, height) * dpr;
  return maxEdge && long > maxEdge ? (maxEdge - 0.01) / long : 1;
}
