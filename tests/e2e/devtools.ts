/**
 * The browser's own DevTools port, used the way a person (or the browser itself) would act outside bsk: run
 * script in a page, crash its renderer, stop the extension's service worker. Each page target is reached through
 * its own WebSocket (/json/list), so nothing here depends on a shared CDP session.
 */
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import type { Person } from "./person.ts";

interface TargetInfo {
  id: string;
  type: string;
  url: string;
  webSocketDebuggerUrl?: string;
}

async function targets(port: number): Promise<TargetInfo[]> {
  return (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
}

/**
 * Commands on a page target's own socket, one after another; resolves with the last one's result, or — when `until`
 * names an event — once that event arrives (a crashed page never answers Page.crash).
 */
async function onPage(port: number, marker: string, commands: [string, object][], until?: string, type = "page"): Promise<any> {
  const page = (await targets(port)).find((t) => t.type === type && t.url.includes(marker));
  if (!page?.webSocketDebuggerUrl) throw new Error(`no page ${marker}`);
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`could not reach page ${marker}`));
  });
  try {
    return await new Promise((resolve, reject) => {
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data));
        if (until && msg.method === until) return resolve(msg.params);
        if (msg.id === undefined) return;
        if (msg.error) return reject(new Error(msg.error.message));
        if (msg.id < commands.length)
          ws.send(JSON.stringify({ id: msg.id + 1, method: commands[msg.id]![0], params: commands[msg.id]![1] }));
        else if (!until) resolve(msg.result);
      };
      ws.send(JSON.stringify({ id: 1, method: commands[0]![0], params: commands[0]![1] }));
    });
  } finally {
    ws.close();
  }
}

/** Run `expression` in the page whose URL contains `marker`, as its own DevTools console would. */
export async function evaluateInPage(port: number, marker: string, expression: string): Promise<unknown> {
  const r = await onPage(port, marker, [["Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }]]);
  if (r?.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
  return r?.result?.value;
}

/** Run `expression` in the out-of-process frame whose URL contains `marker` (e.g. bsk's own page in a panel). */
export async function evaluateInFrame(port: number, marker: string, expression: string): Promise<unknown> {
  const r = await onPage(
    port,
    marker,
    [["Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }]],
    undefined,
    "iframe",
  );
  if (r?.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
  return r?.result?.value;
}

/**
 * Run `expression` in bsk's content-script world of the page whose URL contains `marker` (the top frame, or the frame
 * whose URL contains `frame`): what a renderer that a hostile page has taken over could run with our scripts'
 * rights. Resolves with the value, or with `{ error }` when it threw or rejected; undefined when the frame has no
 * bsk world (no content script of ours ran there).
 */
export async function evaluateInContentScript(port: number, marker: string, expression: string, frame?: string): Promise<unknown> {
  const page = (await targets(port)).find((t) => t.type === "page" && t.url.includes(marker));
  if (!page?.webSocketDebuggerUrl) throw new Error(`no page ${marker}`);
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`could not reach page ${marker}`));
  });
  const contexts: { id: number; origin: string; auxData?: { type?: string; frameId?: string } }[] = [];
  const waiting = new Map<number, (m: any) => void>();
  let next = 0;
  ws.onmessage = (ev) => {
    const m = JSON.parse(String(ev.data));
    if (m.method === "Runtime.executionContextCreated") contexts.push(m.params.context);
    else if (m.id !== undefined) waiting.get(m.id)?.(m);
  };
  const send = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    const { frameTree } = await send("Page.getFrameTree");
    const frames: { id: string; url: string }[] = [];
    const walk = (t: any) => {
      frames.push(t.frame);
      for (const c of t.childFrames ?? []) walk(c);
    };
    walk(frameTree);
    const target = frame === undefined ? frames[0] : frames.find((f) => f.url.includes(frame));
    if (!target) throw new Error(`no frame ${frame} in ${marker}`);
    // Runtime.enable reports every existing context before it answers.
    await send("Runtime.enable");
    const world = contexts.find(
      (c) => c.auxData?.type === "isolated" && c.auxData.frameId === target.id && c.origin === `chrome-extension://${EXTENSION_ID}`,
    );
    if (!world) return undefined;
    const r = await send("Runtime.evaluate", { expression, contextId: world.id, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) return { error: r.exceptionDetails.exception?.description ?? r.exceptionDetails.text };
    return r.result.value;
  } finally {
    ws.close();
  }
}

/** Run `expression` in the extension's service worker (as chrome://inspect would). */
export async function evaluateInWorker(port: number, expression: string): Promise<unknown> {
  const r = await onPage(
    port,
    `chrome-extension://${EXTENSION_ID}/`,
    [["Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }]],
    undefined,
    "service_worker",
  );
  if (r?.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
  return r?.result?.value;
}

/** Crash the renderer of the page whose URL contains `marker` (the tab stays open on the browser's error page). */
export async function crashPage(port: number, marker: string): Promise<void> {
  await onPage(
    port,
    marker,
    [
      ["Inspector.enable", {}],
      ["Page.crash", {}],
    ],
    "Inspector.targetCrashed",
  );
}

/** The extension's service worker target, if it runs. */
export async function serviceWorker(person: Person): Promise<{ targetId: string } | undefined> {
  const { targetInfos } = await person.send("Target.getTargets");
  return targetInfos.find((t: any) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${EXTENSION_ID}/`));
}

/** Stop the extension's service worker, as Chrome does to an idle one (Target.closeTarget on its target). */
export async function stopServiceWorker(person: Person): Promise<string> {
  const sw = await serviceWorker(person);
  if (!sw) throw new Error("the extension's service worker is not running");
  await person.send("Target.closeTarget", { targetId: sw.targetId });
  return sw.targetId;
}

/** Freeze the page whose URL contains `marker`, as the browser does to a background tab (it resumes when shown). */
export async function freezePage(port: number, marker: string): Promise<void> {
  await onPage(port, marker, [["Page.setWebLifecycleState", { state: "frozen" }]]);
}
