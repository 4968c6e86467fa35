/**
 * One call to the daemon with the files it moves, for both front ends (main.ts for the CLI, mcp/server.ts for MCP):
 * reach the daemon → stage uploads and check destinations → the request → read a download back → write a file
 * result → write a JSON document. Each front end turns the stage it ended at into its own output (an Outcome, an MCP
 * tool result). The file steps' modules load only for methods that have such a step.
 */
import type { HomePaths } from "../shared/home.ts";
import type { MethodDef } from "../protocol/define.ts";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import type { Connection, Reply } from "./daemon-client.ts";
import { reachDaemon } from "./reach-daemon.ts";

type Env = Record<string, string | undefined>;

/** What the pipeline reads of a method: its file specs, as a CLI command and an MCP tool both carry them. */
export type CallSpec = Pick<MethodDef, "transfer" | "fileResult" | "jsonFile">;

export interface PipelineOptions {
  paths: HomePaths;
  env: Env;
  /**
   * always (the CLI): a file result or JSON document is written even when no path was given (a new file in the temp
   * directory), and a file result's bytes leave the output for its path. asked (the MCP server): only to a path the
   * caller gave, and the bytes stay in the result (they become image content).
   */
  save: "always" | "asked";
  /** The request itself, on the open connection, with the params as staged. */
  send: (conn: Connection) => Promise<Reply>;
}

type Answered = Extract<Reply, { ok: true }>;

export type Piped =
  /** Nothing was sent: a file step before the call refused. */
  | { stage: "before"; error: BskError }
  /** The daemon answered with an error. */
  | { stage: "reply"; reply: Extract<Reply, { ok: false }> }
  /** The call ran, but what it returned could not be written. */
  | { stage: "after"; reply: Answered; error: BskError }
  | { stage: "done"; reply: Answered; result: unknown };

export function asBskError(e: unknown): BskError {
  return e instanceof BskError ? e : BskError.from(toErrorBody(e));
}

/** The params key naming the local file a call writes (a file result, a download, a JSON document), if any. */
export function outParam(spec: CallSpec): string | undefined {
  return spec.fileResult?.pathParam ?? spec.transfer?.download?.pathParam ?? spec.jsonFile?.pathParam;
}

const asked = (params: Record<string, unknown>, key: string) => typeof params[key] === "string";

/** Runs the call; reaching the daemon throws (a front end reports that as it reports any failure before a call). */
export async function callThrough(spec: CallSpec, params: Record<string, unknown>, opts: PipelineOptions): Promise<Piped> {
  const conn = await reachDaemon(opts.paths, opts.env);
  try {
    // Files first: an upload's sources are staged in the daemon, a download's destination is checked before the click.
    const files = spec.transfer ? await import("./transfers.ts") : undefined;
    const jsonSpec = spec.jsonFile && (opts.save === "always" || asked(params, spec.jsonFile.pathParam)) ? spec.jsonFile : undefined;
    const jsonFile = jsonSpec ? await import("./json-file.ts") : undefined;
    const fileSpec = spec.fileResult && asked(params, spec.fileResult.pathParam) ? spec.fileResult : undefined;
    const fileResult = fileSpec ? await import("./file-result.ts") : undefined;
    try {
      await files?.beforeCall(conn, spec.transfer!, params);
      jsonFile?.checkJsonOut(jsonSpec!, params);
      fileResult?.checkFileOut(fileSpec!, params);
    } catch (e) {
      return { stage: "before", error: asBskError(e) };
    }
    const reply = await opts.send(conn);
    if (!reply.ok) return { stage: "reply", reply };
    try {
      return { stage: "done", reply, result: await afterCall(conn, spec, params, reply.result, opts, files, jsonFile) };
    } catch (e) {
      return { stage: "after", reply, error: asBskError(e) };
    }
  } finally {
    conn.close();
  }
}

async function afterCall(
  conn: Connection,
  spec: CallSpec,
  params: Record<string, unknown>,
  answer: unknown,
  opts: PipelineOptions,
  files: typeof import("./transfers.ts") | undefined,
  jsonFile: typeof import("./json-file.ts") | undefined,
): Promise<unknown> {
  if (!answer || typeof answer !== "object") return answer;
  let result = answer as Record<string, unknown>;
  if (files) result = await files.afterCall(conn, spec.transfer!, params, result, opts.env);
  const fileSpec = spec.fileResult;
  if (fileSpec && (opts.save === "always" || asked(params, fileSpec.pathParam))) {
    const { saveFileResult } = await import("./file-result.ts");
    const saved = saveFileResult(result, fileSpec, params, opts.env);
    result = opts.save === "always" ? saved : { ...saved, [fileSpec.data]: result[fileSpec.data] };
  }
  if (jsonFile) result = jsonFile.saveJsonFile(result, spec.jsonFile!, params, opts.env);
  return result;
}
