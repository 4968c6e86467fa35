/**
 * Which extension ids may connect: our pinned id plus `allowed_extensions` in $BSK_HOME/config.json.
 * A config file that cannot be read adds nothing (fail closed); writes keep its other keys.
 */
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { readJsonFile, writeFileAtomic } from "./fs-util.ts";

const ID_SHAPE = /^[a-p]{32}$/;

export class AllowList {
  private extra: string[] = [];

  constructor(private readonly configPath: string) {
    this.extra = readExtra(readJsonFile(configPath));
  }

  has(id: string): boolean {
    return id === EXTENSION_ID || this.extra.includes(id);
  }

  all(): string[] {
    return [EXTENSION_ID, ...this.extra];
  }

  /** Add an id and persist it atomically; returns the whole list. */
  add(id: string): string[] {
    if (!ID_SHAPE.test(id)) throw new Error(`not an extension id: ${id}`);
    if (!this.has(id)) {
      const raw = readJsonFile(this.configPath);
      const config = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
      const extra = [...new Set([...readExtra(config), ...this.extra, id])].filter((x) => x !== EXTENSION_ID);
      writeFileAtomic(this.configPath, `${JSON.stringify({ ...config, allowed_extensions: extra }, null, 2)}\n`);
      this.extra = extra;
    }
    return this.all();
  }
}

function readExtra(config: unknown): string[] {
  if (!config || typeof config !== "object") return [];
  const list = (config as Record<string, unknown>).allowed_extensions;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string" && ID_SHAPE.test(x)) : [];
}
