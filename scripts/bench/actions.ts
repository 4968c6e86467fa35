/**
 * Latency of seeing and acting through dist/bsk (whole CLI processes): snapshot of a typical page (~300 elements)
 * and of a 10,000-element page, click with effect detection, fill, and evaluate while the page floods the console
 * and network (what console/network capture costs). Targets: ./targets.ts (`local`).
 */
import { TARGETS } from "./targets.ts";
import { RUNS, row, series, unmeasured, type Row } from "./timing.ts";

type Run = (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

interface Ctx {
  bsk: string;
  env: Record<string, string>;
  run: Run;
  session: string;
  url: (path: string) => string;
}

/** Measures `args` as a series, or records why it could not be measured. */
async function measure(c: Ctx, name: string, args: string[], target?: number, runs = RUNS, note?: string, jitterMs = 0): Promise<Row> {
  try {
    return row(name, await series([c.bsk, ...args, "--session", c.session], c.env, runs, 5, jitterMs), target, note);
  } catch (err) {
    return unmeasured(name, err instanceof Error ? err.message.slice(0, 200) : String(err), target);
  }
}

/** The ref on the first snapshot line that matches `line`, e.g. /button "Add note"/. */
async function refOf(c: Ctx, line: RegExp): Promise<string | null> {
  const r = await c.run(["snapshot", "--max-tokens", "200000", "--session", c.session, "--json"]);
  if (r.code !== 0) return null;
  const text: string = JSON.parse(r.stdout).result.text;
  const hit = text.split("\n").find((l) => line.test(l));
  return hit?.match(/@e\d+/)?.[0] ?? null;
}

async function open(c: Ctx, path: string): Promise<void> {
  const r = await c.run(["navigate", c.url(path), "--session", c.session]);
  if (r.code !== 0) throw new Error(`navigate ${path} failed: ${r.stderr}`);
}

export async function actionLatency(c: Ctx): Promise<Row[]> {
  const rows: Row[] = [];
  await open(c, "/bench-typical.html");
  rows.push(
    await measure(
      c,
      "bsk snapshot (typical page, ~300 elements)",
      ["snapshot"],
      TARGETS.local["bsk snapshot (typical page, ~300 elements)"],
    ),
  );

  // Click and fill settle on the page's next frame: sampled at random moments (see series), and back to back.
  const FRAME = 17;
  const clickTarget = TARGETS.local["bsk click (button, effect: dom changed)"];
  const button = await refOf(c, /button "Add note"/);
  rows.push(
    button
      ? await measure(
          c,
          `bsk click ${button} (button, effect: dom changed)`,
          ["click", button],
          clickTarget,
          RUNS,
          "calls at random moments",
          FRAME,
        )
      : unmeasured("bsk click (button, effect: dom changed)", "no ref for the Add note button in bsk snapshot", clickTarget),
  );
  if (button)
    rows.push(await measure(c, `bsk click ${button} back to back`, ["click", button], undefined, RUNS, "phase-locked to the frame clock"));
  const field = await refOf(c, /textbox "Full name"/);
  rows.push(
    field
      ? await measure(
          c,
          `bsk fill ${field} (text input)`,
          ["fill", field, "Ada Lovelace"],
          undefined,
          RUNS,
          "calls at random moments",
          FRAME,
        )
      : unmeasured("bsk fill (text input)", "no ref for the Full name field in bsk snapshot"),
  );

  await open(c, "/bench-10k.html");
  rows.push(
    await measure(
      c,
      "bsk snapshot (10,000 elements, default budget)",
      ["snapshot"],
      TARGETS.local["bsk snapshot (10,000 elements, default budget)"],
      10,
    ),
  );
  rows.push(await measure(c, "bsk snapshot (10,000 elements, --max-tokens 200000)", ["snapshot", "--max-tokens", "200000"], undefined, 10));

  // Console and network capture cost: evaluate while the page logs and fetches every 20 ms.
  await open(c, "/bench-typical.html");
  const flood =
    "window.flood = setInterval(() => { console.log('tick', Date.now()); fetch('/echo-title/x').then((r) => r.text()); }, 20); 1";
  await c.run(["evaluate", flood, "--session", c.session]);
  rows.push(
    await measure(
      c,
      "bsk evaluate 1+1 (page logs + fetches 50×/s)",
      ["evaluate", "1+1"],
      TARGETS.local["bsk evaluate 1+1 (page logs + fetches 50×/s)"],
    ),
  );
  await c.run(["evaluate", "clearInterval(window.flood); 1", "--session", c.session]);
  return rows;
}
