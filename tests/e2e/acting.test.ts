/**
 * Acting items of issue 14, each on a page built for it: links inside shadow roots whose text is slotted light DOM,
 * and covers named right (never a container of the target).
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type Run, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);
const page = (name: string) => ok(["navigate", w.fixtures.url(`/${name}`)]);
const js = async (expression: string) => (await ok(["evaluate", expression])).value;

async function fails(args: string[], code: string): Promise<any> {
  const r: Run = await run(args);
  if (r.json?.ok !== false) throw new Error(`expected ${args.join(" ")} to fail with ${code}, got:\n${r.stdout}${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  return r.json.error;
}

async function refFor(text: string): Promise<string> {
  const snap = await ok(["snapshot"]);
  const line = (snap.text as string).split("\n").find((l) => l.includes(text));
  const ref = line?.match(/@e\d+/)?.[0];
  if (!ref) throw new Error(`no ref for ${text} in:\n${snap.text}`);
  return ref;
}

describe("shadow DOM", () => {
  test("a link whose text is slotted into its shadow root is clicked and navigates", async () => {
    await page("act-shadow.html");
    const signUp = await refFor(`link "Sign up"`);
    const r = await ok(["click", signUp]);
    expect(r.target).toMatchObject({ role: "link", name: "Sign up" });
    expect(r.effect.kind).toBe("navigated");
    expect(await js("location.search")).toBe("?signed-up");
  });

  test("a slotted element inside a shadow link is the link too", async () => {
    await page("act-shadow.html");
    const r = await ok(["click", await refFor(`link "Read more"`)]);
    expect(r.effect.kind).toBe("navigated");
    expect(await js("location.search")).toBe("?span");
  });

  test("a shadow link under a banner is refused, naming the banner, and nothing is clicked", async () => {
    await page("act-shadow.html");
    const covered = await fails(["click", await refFor(`link "Log in"`)], "element_obscured");
    expect(covered.data.covered_by.selector).toBe("div#banner");
    expect(covered.hint).toContain(`"Cookie notice"`);
    expect(covered.hint).not.toContain("x-link");
    expect(await js("location.search")).toBe("");
  });

  test("an anonymous veil is named itself, never the container holding the target", async () => {
    await page("act-shadow.html");
    const covered = await fails(["click", "#under-veil"], "element_obscured");
    expect(covered.data.covered_by.selector).toBe("div.veil");
    expect(covered.hint).not.toContain("section");
    expect(await js(`document.getElementById("status").textContent`)).toBe("idle");
  });
});
