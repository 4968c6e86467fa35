/**
 * npm run demo: a real browser with the bsk extension doing a small real task on a local shop page,
 * driven only by `bsk` commands, each printed with its output.
 *
 * Task: open the shop, read the items and prices, add the cheapest one to the cart, confirm the cart, stop.
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

let failed = false;
try {
  console.log(dim(`# private daemon home ${world.home}, port ${world.port}; shop at ${world.fixtures.url("/shop.html")}`));
  await bsk("daemon", "start", "--port", String(world.port));
  const browser = await world.launchBrowser();
  console.log(dim(`# launched ${browser.binary} (pid ${browser.pid}) with the extension`));

  const s = await bsk("session", "start", "--name", "demo: buy the cheapest item");
  await bsk("navigate", world.fixtures.url("/shop.html"), "--session", s);
  await bsk(
    "evaluate",
    "[...document.querySelectorAll('.item')].map(i => `${i.querySelector('h2').textContent}: ${i.dataset.price}`).join('\\n')",
    "--session",
    s,
  );
  await bsk(
    "evaluate",
    "(() => { const items = [...document.querySelectorAll('.item')]; const cheapest = items.sort((a, b) => a.dataset.price - b.dataset.price)[0]; cheapest.querySelector('button').click(); return 'added ' + cheapest.querySelector('h2').textContent; })()",
    "--session",
    s,
  );
  await bsk("evaluate", "document.getElementById('cart').textContent", "--session", s);
  await bsk("tab", "create", world.fixtures.url("/checkout.html"), "--session", s);
  await bsk("tab", "list", "--session", s);
  await bsk("session", "stop", s);
  console.log(bold("\ndemo finished: the agent found the cheapest item, added it to the cart and closed its window."));
} catch (err) {
  failed = true;
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error(`daemon log: ${world.home}/logs/daemon.log`);
} finally {
  await world.dispose({ keepHome: failed });
}
process.exit(failed ? 1 : 0);
