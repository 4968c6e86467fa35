/**
 * What the person does to bsk on chrome://extensions (developer mode, Allow in Incognito), and the reload that follows
 * a change there: the connect page goes with the old instance, and the person's next visit links the new one.
 */
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { evaluateInPage } from "./devtools.ts";
import { until, type World } from "./harness.ts";

/** Developer mode (as for loading bsk unpacked): a reloaded unpacked extension stays off without it. */
export const DEVELOPER_MODE = "chrome.developerPrivate.updateProfileConfiguration({ inDeveloperMode: true })";

export function incognitoAccess(on: boolean): string {
  return `chrome.developerPrivate.updateExtensionConfiguration({ extensionId: ${JSON.stringify(EXTENSION_ID)}, incognitoAccess: ${on} })`;
}

/** Opens chrome://extensions, runs each expression there in order, closes it. */
export async function onExtensionsPage(w: World, ...expressions: string[]): Promise<void> {
  await w.person.openTab("chrome://extensions");
  await until("chrome://extensions", async () => (await w.person.pages()).some((p) => p.url.startsWith("chrome://extensions")));
  for (const expression of expressions) await evaluateInPage(w.browser.cdpPort!, "chrome://extensions", expression);
  await w.person.closePagesMatching("chrome://extensions");
}

/** The browser instance's connection time: it changes when the extension reloads and links again. */
export async function connectedAt(w: World): Promise<string | undefined> {
  return (await w.bsk(["browsers", "--json"])).json?.result?.browsers?.[0]?.connected_at;
}

/** Runs `reload` (anything that reloads bsk); resolves once the new instance has linked. */
export async function relinkedAfter(w: World, reload: () => Promise<unknown>): Promise<void> {
  const linked = await connectedAt(w);
  await reload();
  await w.person.openTab(`chrome-extension://${EXTENSION_ID}/connect.html?port=${w.port}&label=e2e`);
  await until(
    "the reloaded extension to link again",
    async () => {
      const now = await connectedAt(w);
      return now !== undefined && now !== linked;
    },
    20_000,
  );
}
