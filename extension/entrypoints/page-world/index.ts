/**
 * bsk's script in the page's own world (MAIN), in every frame of the tabs bsk debugs, from document start, before any
 * page script (src/features/page-world-script.ts adds it to the tab's attachment). Two registries that only the
 * page's own world can keep, each answering bsk's isolated worlds through events on the document:
 * - drops.ts: which targets take drops (the snapshot's `[drop]`);
 * - work.ts: whether the page has work queued for the next frame or task (how long an action's effect settles).
 * What the page can do with those events: src/shared/messages/drops.ts and page-world.ts.
 */
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { PAGE_WORLD_HELLO } from "../../src/shared/messages/page-world.ts";
import { installDropRegistry } from "./drops.ts";
import { pageTools } from "./tools.ts";
import { installWorkRegistry } from "./work.ts";

export default defineUnlistedScript(() => {
  // Once per document: the script there already says so by cancelling the hello.
  if (!document.dispatchEvent(new Event(PAGE_WORLD_HELLO, { cancelable: true }))) return;
  const tools = pageTools();
  installDropRegistry(tools);
  installWorkRegistry(tools);
  tools.apply(tools.addListener, document, [PAGE_WORLD_HELLO, (e: Event) => tools.preventDefault(e), true]);
});
