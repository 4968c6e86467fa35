/**
 * upload: files staged in the daemon go into the page. Input mode finds the one file input the action activates —
 * the target itself, or the input whose chooser the click opened (native chooser interception) or that the click
 * reached (a label, a button calling input.click()) — and fills it; drop mode drops the files on the target.
 * The files are built in the page from the staged bytes (read from the daemon in chunks), or, when the extension
 * may read local files and the daemon is on this machine, set from the staged paths by the browser itself.
 */
import { browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { TRANSFER_CHUNK_BYTES } from "../../../../protocol/methods/files.ts";
import { actedOn, actionable } from "../../page/actionability.ts";
import { sendTo } from "../../cdp/debugger.ts";
import { call } from "../../ports/to-daemon.ts";
import { withEffect, type ActionEffect } from "../../page/effects.ts";
import { worldOf } from "../../cdp/frames.ts";
import { click } from "../../page/input/mouse.ts";
import { callOn } from "../../cdp/page-call.ts";
import { resolveTarget } from "../../cdp/refs/resolve.ts";
import type { CdpTarget, ResolvedTarget } from "../../cdp/refs/target.ts";
import { getSession, resolveTab } from "../../session/sessions.ts";
import { onTabEvent } from "./cdp-events.ts";
import {
  ARM_INPUT_PROBE_FN,
  CLEAR_CHUNKS_FN,
  DROP_FILES_FN,
  FILE_INPUT_FN,
  PUT_CHUNK_FN,
  READ_INPUT_PROBE_FN,
  SET_INPUT_FILES_FN,
} from "./page-files.ts";

type UploadParams = ParsedParams<"upload">;
type Staged = UploadParams["files"][number];

/** After the click's settle, a chooser event may still be on its way from the renderer. */
const CHOOSER_WAIT_MS = 1000;
const READ_TIMEOUT_MS = 30_000;

interface FileInputFacts {
  file: boolean;
  disabled: boolean;
  multiple: boolean;
}

function notActivated(detail: string, data: Record<string, unknown> = {}): BskError {
  return new BskError("unsupported", `no file input: ${detail}; nothing was attached`, {
    data: { reason: "file_input_not_activated", ...data },
  });
}

async function activeTab(p: { session_id: string; tab_id?: number }): Promise<number> {
  const r = await resolveTab(p);
  if (!r.tab.active) await browser.tabs.update(r.tabId, { active: true });
  return r.tabId;
}

/** A node found by backend id, as a ResolvedTarget in bsk's world of its frame. */
async function targetFromNode(
  base: ResolvedTarget,
  cdp: CdpTarget,
  frameId: string,
  backendNodeId: number,
  signal: AbortSignal,
): Promise<ResolvedTarget> {
  const world = await worldOf(cdp, frameId, signal);
  const r = await sendTo<{ object: { objectId: string } }>(
    cdp,
    "DOM.resolveNode",
    { backendNodeId, executionContextId: world.contextId },
    signal,
  );
  const [role, name] = JSON.parse(
    await callOn<string>(
      { cdp, objectId: r.object.objectId },
      `function () { return JSON.stringify(globalThis.__bsk.describe(this)); }`,
      [],
      signal,
    ),
  ) as [string, string];
  return { ...base, cdp, frameId, objectId: r.object.objectId, backendNodeId, role, name, ref: undefined };
}

/**
 * Clicks `rt` with the native chooser intercepted and a probe for clicked file inputs in its frame; exactly one
 * input must come out of it.
 */
async function clickForInput(rt: ResolvedTarget, signal: AbortSignal): Promise<ResolvedTarget> {
  const choosers: { source: CdpTarget; frameId: string; backendNodeId?: number; mode: string }[] = [];
  const off = onTabEvent(rt.tabId, "Page.fileChooserOpened", (source, p) =>
    choosers.push({ source, frameId: String(p.frameId), backendNodeId: p.backendNodeId, mode: String(p.mode) }),
  );
  const sessions: CdpTarget[] = [{ tabId: rt.tabId }, ...(rt.cdp.sessionId ? [rt.cdp] : [])];
  let probed: { objectId?: string; count: number } = { count: 0 };
  try {
    await Promise.all(sessions.map((s) => sendTo(s, "Page.setInterceptFileChooserDialog", { enabled: true }, signal)));
    await callOn(rt, ARM_INPUT_PROBE_FN, [], signal);
    const at = await actionable(rt, { hitTest: true, enabled: true, probe: true }, signal);
    const effect = await withEffect(rt.tabId, { target: rt.cdp, objectId: rt.objectId }, signal, () =>
      click(rt.tabId, at.x, at.y, { button: "left", count: 1, modifiers: [] }, signal),
    );
    const r = await sendTo<{ result: { subtype?: string; objectId?: string; value?: unknown } }>(
      rt.cdp,
      "Runtime.callFunctionOn",
      { objectId: rt.objectId, functionDeclaration: READ_INPUT_PROBE_FN },
      signal,
    ).catch(() => null);
    if (r?.result.subtype === "node" && r.result.objectId) probed = { objectId: r.result.objectId, count: 1 };
    else probed = { count: typeof r?.result.value === "number" ? r.result.value : 0 };
    if (choosers.length === 0 && probed.count === 0 && effect.kind !== "navigated" && effect.kind !== "dialog") {
      await waitFor(() => choosers.length > 0, CHOOSER_WAIT_MS, signal);
    }
    return await pickInput(rt, choosers, probed, effect, signal);
  } finally {
    off();
    await Promise.all(sessions.map((s) => sendTo(s, "Page.setInterceptFileChooserDialog", { enabled: false }).catch(() => undefined)));
  }
}

async function pickInput(
  rt: ResolvedTarget,
  choosers: { source: CdpTarget; frameId: string; backendNodeId?: number; mode: string }[],
  probed: { objectId?: string; count: number },
  effect: ActionEffect,
  signal: AbortSignal,
): Promise<ResolvedTarget> {
  const found = new Map<string, () => Promise<ResolvedTarget>>();
  for (const c of choosers) {
    if (c.backendNodeId === undefined) continue;
    found.set(`${c.source.sessionId ?? ""}|${c.backendNodeId}`, () => targetFromNode(rt, c.source, c.frameId, c.backendNodeId!, signal));
  }
  if (probed.objectId) {
    const d = await sendTo<{ node: { backendNodeId: number } }>(rt.cdp, "DOM.describeNode", { objectId: probed.objectId }, signal);
    const k = `${rt.cdp.sessionId ?? ""}|${d.node.backendNodeId}`;
    if (!found.has(k)) found.set(k, () => targetFromNode(rt, rt.cdp, rt.frameId, d.node.backendNodeId, signal));
  }
  if (found.size === 1) return [...found.values()][0]!();
  const what = `${rt.ref ? `${rt.ref} ` : ""}${rt.role} "${rt.name}"`;
  if (found.size === 0) {
    const picker = choosers.length > 0;
    throw notActivated(
      picker ? `clicking ${what} opened a file picker that belongs to no file input` : `clicking ${what} opened no file chooser`,
      { effect, choosers: choosers.length },
    );
  }
  throw notActivated(`clicking ${what} activated ${found.size} file inputs`, { effect, inputs: found.size });
}

async function waitFor(done: () => boolean, ms: number, signal: AbortSignal): Promise<void> {
  const until = performance.now() + ms;
  while (!done() && performance.now() < until && !signal.aborted) await new Promise((r) => setTimeout(r, 25));
}

/** Staged bytes → chunks in the element's world (no decoding in the worker: base64 goes through as is). */
async function sendBytes(sessionId: string, el: ResolvedTarget, files: Staged[], signal: AbortSignal): Promise<void> {
  for (const f of files) {
    for (let offset = 0; offset < f.size; ) {
      const r = await call(
        "transfer.read",
        { session_id: sessionId, transfer_id: f.transfer_id, offset, length: TRANSFER_CHUNK_BYTES },
        READ_TIMEOUT_MS,
        signal,
      );
      if (!r.data) throw new BskError("cdp_failed", `staged file ${f.name} ended early`, { data: { reason: "transfer_short" } });
      await callOn(el, PUT_CHUNK_FN, [f.transfer_id, r.data], signal);
      offset += (r.data.length / 4) * 3 - (r.data.endsWith("==") ? 2 : r.data.endsWith("=") ? 1 : 0);
    }
  }
}

/**
 * Local paths of the staged files, when this extension may read local files (the browser then reads them). Never for
 * a remote agent's session: its daemon's paths name files on another machine, and a path it sent would attach
 * whatever this machine holds there.
 */
async function stagedPaths(sessionId: string, files: Staged[], signal: AbortSignal): Promise<string[] | null> {
  if (getSession(sessionId)?.remote_host !== undefined) return null;
  const allowed = await browser.extension.isAllowedFileSchemeAccess().catch(() => false);
  if (!allowed) return null;
  const paths: string[] = [];
  for (const f of files) {
    const r = await call("transfer.read", { session_id: sessionId, transfer_id: f.transfer_id, length: 0 }, READ_TIMEOUT_MS, signal);
    paths.push(r.path);
  }
  return paths;
}

function pageFiles(files: Staged[]): { key: string; name: string; mime: string; size: number }[] {
  return files.map((f) => ({ key: f.transfer_id, name: f.name, mime: f.mime, size: f.size }));
}

async function clearChunks(el: ResolvedTarget, files: Staged[]): Promise<void> {
  await callOn(el, CLEAR_CHUNKS_FN, [files.map((f) => f.transfer_id)]).catch(() => undefined);
}

function builtOrThrow(r: { ok?: true; error?: string; name?: string; size?: number }, what: string): void {
  if (r.ok) return;
  if (r.error === "drop_refused") {
    throw new BskError("unsupported", `${what} does not accept dropped files (it did not cancel dragover); nothing was dropped`, {
      hint: "Find the element that accepts drops (often the whole drop area), or use --mode input on its file input.",
      data: { reason: "drop_refused" },
    });
  }
  if (r.error === "not_kept") {
    throw new BskError("cdp_failed", `${what} did not take the files`, { data: { reason: "files_not_kept" } });
  }
  throw new BskError("cdp_failed", `the page received ${r.name} with ${r.size} bytes, not what was staged`, {
    data: { reason: "size_mismatch" },
  });
}

async function fillInput(
  p: UploadParams,
  input: ResolvedTarget,
  signal: AbortSignal,
): Promise<{ effect: ActionEffect; via: "page" | "path" }> {
  const facts = await callOn<FileInputFacts>(input, FILE_INPUT_FN, [], signal);
  const what = `${input.ref ? `${input.ref} ` : ""}${input.role} "${input.name}"`;
  if (!facts.file) throw notActivated(`${what} is not a file input`);
  if (facts.disabled) {
    throw new BskError("unsupported", `the file input ${what} is disabled; nothing was attached`, { data: { reason: "element_disabled" } });
  }
  if (p.files.length > 1 && !facts.multiple) {
    throw new BskError("invalid_params", `the file input ${what} takes one file, ${p.files.length} were given; nothing was attached`, {
      hint: "Give one --file, or target an input that takes several (multiple).",
      data: { reason: "not_multiple" },
    });
  }
  const paths = await stagedPaths(p.session_id, p.files, signal);
  if (paths) {
    const effect = await withEffect(input.tabId, { target: input.cdp, objectId: input.objectId }, signal, () =>
      sendTo(input.cdp, "DOM.setFileInputFiles", { files: paths, objectId: input.objectId }, signal),
    );
    return { effect, via: "path" };
  }
  try {
    await sendBytes(p.session_id, input, p.files, signal);
    let built: { ok?: true; error?: string } = {};
    const effect = await withEffect(input.tabId, { target: input.cdp, objectId: input.objectId }, signal, async () => {
      built = await callOn(input, SET_INPUT_FILES_FN, [pageFiles(p.files)], signal);
    });
    builtOrThrow(built, what);
    return { effect, via: "page" };
  } finally {
    await clearChunks(input, p.files);
  }
}

async function dropOn(p: UploadParams, zone: ResolvedTarget, signal: AbortSignal): Promise<ActionEffect> {
  const at = await actionable(zone, { hitTest: true, probe: true }, signal);
  const x = at.x - zone.frameOffset.x;
  const y = at.y - zone.frameOffset.y;
  try {
    await sendBytes(p.session_id, zone, p.files, signal);
    let built: { ok?: true; error?: string } = {};
    const effect = await withEffect(zone.tabId, { target: zone.cdp, objectId: zone.objectId }, signal, async () => {
      built = await callOn(zone, DROP_FILES_FN, [pageFiles(p.files), x, y], signal);
    });
    builtOrThrow(built, `${zone.ref ? `${zone.ref} ` : ""}${zone.role} "${zone.name}"`);
    return effect;
  } finally {
    await clearChunks(zone, p.files);
  }
}

export async function upload(p: UploadParams, signal: AbortSignal): Promise<Result<"upload">> {
  const tabId = await activeTab(p);
  const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
  const files = p.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256 }));
  const base = { tab_id: tabId, target: actedOn(rt), mode: p.mode, files, effect_state: "committed" as const };
  if (p.mode === "drop") {
    const effect = await dropOn(p, rt, signal);
    return { ...base, input: null, via: "page", effect };
  }
  const facts = await callOn<FileInputFacts>(rt, FILE_INPUT_FN, [], signal);
  const input = facts.file ? rt : await clickForInput(rt, signal);
  const { effect, via } = await fillInput(p, input, signal);
  return { ...base, input: actedOn(input), via, effect };
}
