/**
 * Evaluates script in one of the browser's pages over its own DevTools endpoint (/json/list → the page's socket),
 * as the person's DevTools would: used to read bsk's extension pages (chrome.* is at hand there), by the e2e
 * tests and the windows-x64 lane.
 */
export async function evalInPage(cdpPort: number, urlPart: string, expression: string): Promise<any> {
  const targets = (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()) as {
    type: string;
    url: string;
    webSocketDebuggerUrl?: string;
  }[];
  const page = targets.find((t) => t.type === "page" && t.url.includes(urlPart) && t.webSocketDebuggerUrl);
  if (!page) throw new Error(`no page whose URL contains ${urlPart}`);
  const ws = new WebSocket(page.webSocketDebuggerUrl!);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`could not open ${page.url}'s DevTools socket`));
    });
    const reply = await new Promise<any>((resolve) => {
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data));
        if (msg.id === 1) resolve(msg);
      };
      ws.send(
        JSON.stringify({
          id: 1,
          method: "Runtime.evaluate",
          params: { expression, awaitPromise: true, returnByValue: true, userGesture: true },
        }),
      );
    });
    const r = reply.result;
    if (reply.error || r?.exceptionDetails)
      throw new Error(reply.error?.message ?? r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r?.result?.value;
  } finally {
    ws.close();
  }
}

/** Types `code` into the extension popup's Pairing field and presses Pair, as the person does; the line it then shows. */
export function enterPairingCode(cdpPort: number, code: string): Promise<{ text: string; error: boolean }> {
  return evalInPage(
    cdpPort,
    "/popup.html",
    `new Promise((resolve) => {
      const input = document.getElementById("pairing-code");
      input.value = ${JSON.stringify(code)};
      input.form.requestSubmit();
      const look = () => {
        const out = document.querySelector(".pairing-result");
        if (!out) return void setTimeout(look, 20);
        resolve({ text: out.textContent, error: out.classList.contains("error") });
      };
      look();
    })`,
  );
}
