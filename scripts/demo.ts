/**
 * npm run demo: a real browser with the bsk extension doing a small real task on a local shop page,
 * driven only by `bsk` commands, each printed with its output.
 *
 * Task: open the shop, read the items and prices from a snapshot, add the cheapest one to the cart by its ref, wait
 * for the cart to say so, go to the checkout, take a screenshot, stop.
 * Runs in a private $BSK_HOME and port, on a fresh Chromium profile (headless unless HEADLESS=off).
 */
import { privateWorld } from "./world.ts";

const world = await privateWorld("bsk-demo");
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

async function bsk(...args: string[]): Promise<string> {
  const shown = args.map((a) => (/[\s'"$()]/.test(a) ? `'${a.replace(/'/g, "'\\''")}'` : a)).join(" ");
  console.log(bold(`$ bsk ${shown}`));
  const r = await world.run(args);
  const out = r.stdout.trimEnd();
  if (out) console.log(out);
  if (r.stderr.trim()) console.log(dim(r.stderr.trimEnd()));
  if (r.code !== 0) throw new Error(`bsk ${args[0]} exited ${r.code}`);
  return out;
}

/** Items in a snapshot: a heading with the item's name, its price as text, then its "Add to cart" button's ref. */
function cheapestItem(snapshot: string): { name: string; price: number; ref: string } {
  const items: { name: string; price: number; ref: string }[] = [];
  let name = "";
  let price = Number.NaN;
  for (const line of snapshot.split("\n")) {
    const heading = /^heading "(.+)" \[level=2\]/.exec(line);
    if (heading) [name, price] = [heading[1]!, Number.NaN];
    const amount = /^"(\d+\.\d\d)"$/.exec(line.trim());
    if (amount) price = Number(amount[1]);
    const button = /button "Add to cart" (@e\d+)/.exec(line);
    if (button && name && !Number.isNaN(price)) items.push({ name, price, ref: button[1]! });
  }
  if (!items.length) throw new Error("no items in the snapshot");
  return items.sort((a, b) => a.price - b.price)[0]!;
}

let failed = false;
try {
  await world.startDaemon();
  console.log(dim(`# private daemon home ${world.home}, port ${world.port}; shop at ${world.fixtures.url("/shop.html")}`));
  const browser = await world.launchBrowser();
  console.log(dim(`# launched ${browser.binary} (pid ${browser.pid}) with the extension`));

  const s = await bsk("session", "start", "--name", "demo: buy the cheapest item");
  await bsk("navigate", world.fixtures.url("/shop.html"), "--session", s);
  // The agent's loop: observe, act on a ref from what it saw, observe again.
  const page = await bsk("snapshot", "--session", s);
  const cheapest = cheapestItem(page);
  console.log(
    dim(
      `# the agent reads the snapshot: the cheapest item is ${cheapest.name} (${cheapest.price.toFixed(2)}), its button is ${cheapest.ref}`,
    ),
  );
  await bsk("click", cheapest.ref, "--session", s);
  await bsk("wait-for", "--text", "Cart: 1 item", "--session", s);
  const checkout = /link "Checkout" (@e\d+)/.exec(await bsk("snapshot", "--session", s))?.[1];
  if (!checkout) throw new Error("no Checkout link in the snapshot");
  await bsk("click", checkout, "--session", s);
  await bsk("screenshot", "--session", s);
  await bsk("session", "stop", s);
  console.log(
    bold("\ndemo finished: the agent read the page, added the cheapest item to the cart by its ref, checked out and closed its window."),
  );
} catch (err) {
  failed = true;
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error(`daemon log: ${world.home}/logs/daemon.log`);
} finally {
  await world.dispose({ keepHome: failed });
}
process.exit(failed ? 1 : 0);
