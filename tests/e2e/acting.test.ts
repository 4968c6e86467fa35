/**
 * Acting items of issue 14, each on a page built for it: links inside shadow roots whose text is slotted light DOM,
 * and covers named right (never a container of the target).
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type Run, type World, refIn } from "./harness.ts";

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
  return refIn((await ok(["snapshot"])).text as string, text);
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

describe("image coordinates", () => {
  const clicks = () => js("clicks");
  const canvasRef = () => refFor("canvas 300×200");

  test("screenshot --ref gives a capture; click --capture maps its pixel to the element", async () => {
    await page("act-picture.html");
    const shot = await ok(["screenshot", "--ref", await canvasRef(), "--out", w.out]);
    expect(shot).toMatchObject({ width: 300, height: 200 });
    expect(shot.capture_id).toMatch(/^c[0-9a-f]{8}$/);
    const r = await ok(["click", "--capture", shot.capture_id, "--image-x", "30", "--image-y", "40"]);
    expect(r.target).toMatchObject({ role: "canvas" });
    expect(await clicks()).toEqual([[30, 40]]);
    await ok(["click", "--capture", shot.capture_id, "--image-x", "299", "--image-y", "0"]);
    expect(await clicks()).toEqual([
      [30, 40],
      [299, 0],
    ]);
  });

  test("click --at X,Y clicks relative to the element; outside it is refused and nothing is clicked", async () => {
    await page("act-picture.html");
    const ref = await canvasRef();
    await ok(["click", ref, "--at", "250,150"]);
    expect(await clicks()).toEqual([[250, 150]]);
    const outside = await fails(["click", ref, "--at", "301,10"], "invalid_params");
    expect(outside.data).toMatchObject({ reason: "outside_element", size: { width: 300, height: 200 } });
    expect((await fails(["click", ref, "--at", "-4,10"], "invalid_params")).message).toContain("at");
    expect((await fails(["click", "--at", "4,10"], "invalid_params")).message).toContain("target");
    expect(await clicks()).toEqual([[250, 150]]);
  });

  test("a capture whose element moved, resized or left is refused, nothing clicked", async () => {
    await page("act-picture.html");
    const ref = await canvasRef();
    const id = async () => (await ok(["screenshot", "--ref", ref, "--out", w.out])).capture_id as string;
    const at = (capture: string) => ["click", "--capture", capture, "--image-x", "10", "--image-y", "10"];

    const resized = await id();
    await js("resizeMap()");
    expect((await fails(at(resized), "stale_ref")).data).toMatchObject({ reason: "moved", was: { width: 300 }, now: { width: 320 } });
    const moved = await id();
    await js("moveMap()");
    expect((await fails(at(moved), "stale_ref")).data.reason).toBe("moved");
    const gone = await id();
    await js(`document.getElementById("map").remove()`);
    await fails(at(gone), "stale_ref");
    expect(await clicks()).toEqual([]);
  });

  test("a capture id is this session's only, and its pixels stop at the image's edge", async () => {
    await page("act-picture.html");
    const shot = await ok(["screenshot", "--ref", await canvasRef(), "--out", w.out]);
    const edge = await fails(["click", "--capture", shot.capture_id, "--image-x", "301", "--image-y", "10"], "invalid_params");
    expect(edge.data).toMatchObject({ reason: "outside_image", image: { width: 300, height: 200 } });
    expect((await fails(["click", "--capture", "c00000000", "--image-x", "1", "--image-y", "1"], "not_found")).data.reason).toBe(
      "capture_not_found",
    );
    const other = await w.startSession();
    const theirs = await w.bsk(["click", "--capture", shot.capture_id, "--image-x", "1", "--image-y", "1", "--session", other, "--json"]);
    expect(theirs.json.error).toMatchObject({ code: "not_found", data: { reason: "capture_not_found" } });
    expect(await fails(["click", "--capture", shot.capture_id, "--image-x", "1"], "invalid_params")).toBeTruthy();
    await w.ok(["session", "stop", "--session", other]);
    expect(await clicks()).toEqual([]);
  });
});
