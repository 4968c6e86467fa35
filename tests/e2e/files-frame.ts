/**
 * /files-frame.html (a cross-site iframe "Uploader" holding a "Choose files" button) as the help tests use it: the
 * refs of the frame and its button, and how many help marks a frame's document holds.
 */
import { until, type World } from "./harness.ts";

/** The frame's and its button's refs, once the frame's content (it arrives after load) shows in a snapshot. */
export function uploaderRefs(w: World, session: string): Promise<{ frame: string; button: string }> {
  const refOf = (text: string, line: string) => (line.includes(text) ? /@e\d+/.exec(line)?.[0] : undefined);
  return until("the frame's button in a snapshot", async () => {
    const lines = ((await w.ok(["snapshot", "--session", session])).text as string).split("\n");
    const frame = lines.map((l) => refOf("Uploader", l)).find(Boolean);
    const button = lines.map((l) => refOf("Choose files", l)).find(Boolean);
    return frame && button ? { frame, button } : undefined;
  });
}

/** How many elements of the frame's own document carry a help mark. */
export async function marksInFrame(w: World, session: string, frame: string): Promise<number> {
  const js = `document.querySelectorAll("[data-bsk-help-target]").length`;
  return (await w.ok(["evaluate", js, "--frame", frame, "--session", session])).value;
}
