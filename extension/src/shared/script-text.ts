/** The text of a script built into the extension (bsk-page.js, bsk-recorder.js), fetched once; a failure is not remembered. */
import { browser } from "wxt/browser";

const texts = new Map<string, Promise<string>>();

export function scriptText(path: string): Promise<string> {
  let text = texts.get(path);
  if (!text) {
    // Typed by hand: WXT's PublicPath types exist only in the extension's own project, and tests type-check this too.
    const runtime = browser.runtime as unknown as { getURL(path: string): string };
    text = fetch(runtime.getURL(path)).then((r) => r.text());
    texts.set(path, text);
    text.catch(() => {
      if (texts.get(path) === text) texts.delete(path);
    });
  }
  return text;
}
