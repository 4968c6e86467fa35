/**
 * Run by extension-outbox.test.ts in a process of its own (the worker's modules bind `chrome` when first imported).
 * A page flooding events while storage is slow: how many writes are out at once, how many were made, and whether
 * every frame reached the socket in order and a reply's wait for its events ended. Prints JSON.
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

let out = 0;
let most = 0;
let writes = 0;
const slow: (() => void)[] = [];
const set = fakeBrowser.storage.session.set.bind(fakeBrowser.storage.session);
fakeBrowser.storage.session.set = async (items: Record<string, unknown>) => {
  writes++;
  most = Math.max(most, ++out);
  // Storage answers only when the test lets it (one write after another, as a busy browser would).
  await new Promise<void>((resolve) => slow.push(resolve));
  out--;
  return set(items);
};
(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
const outbox = await import("../../../extension/src/ports/outbox.ts");

const seqs: number[] = [];
outbox.setSink("local", (frame) => seqs.push((frame as { seq: number }).seq));
await outbox.outboxStream("local");
const release = async () => {
  while (slow.length) {
    slow.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
};
await release();
writes = 0;
most = 0;
const EVENTS = 1000;
let handed = false;
for (let i = 0; i < EVENTS; i++) {
  outbox.emit("console.error", { session_id: "s1", tab_id: 1, text: `flood ${i}` });
  // Each CDP event is its own task in the worker.
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (i === EVENTS / 2) void outbox.eventsHandedOver().then(() => (handed = true));
}
await release();
await release();
const inOrder = seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1);
console.log(JSON.stringify({ writes, most, frames: seqs.length, inOrder, handed }));
process.exit(0);
