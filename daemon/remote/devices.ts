/**
 * The devices a server-mode daemon has paired (state/devices.json, 0600): who they are, when they were last seen,
 * when their grant ends. No credential is stored: a device's secret is derived from this install's secret, its id and
 * its generation (HMAC), so the file and the logs hold nothing that lets anyone connect. Renewal moves to the next
 * generation; the previous one keeps working until the device first uses the new one, or for ROTATION_GRACE_MS (a
 * renewal whose answer was lost does not lock the device out).
 */
import { createHmac, randomBytes } from "node:crypto";
import { REMOTE_LABELS } from "../../protocol/remote.ts";
import { readJsonFile, writeFileAtomic } from "../../shared/fs-util.ts";

export const ROTATION_GRACE_MS = 10 * 60_000;
/** last_seen is saved at most this often per device (a link that reconnects often does not rewrite the file). */
const SEEN_SAVE_MS = 60_000;

export interface DeviceRecord {
  device_id: string;
  label: string;
  browser: { name: string; version: string };
  extension_id: string;
  created_at: string;
  last_seen_at: string | null;
  expires_at: string;
  renew_after: string;
  generation: number;
  /** The generation before the last renewal, accepted until this time (ms since the epoch) or its successor's first use. */
  previous?: { generation: number; until: number };
}

export interface DeviceTimes {
  grantMs: number;
  renewMs: number;
  now?: () => number;
}

export class DeviceStore {
  private readonly devices = new Map<string, DeviceRecord>();
  private readonly savedSeen = new Map<string, number>();
  private readonly now: () => number;

  constructor(
    private readonly file: string,
    private readonly installSecret: Uint8Array,
    private readonly times: DeviceTimes,
  ) {
    this.now = times.now ?? Date.now;
    const raw = readJsonFile(file) as { devices?: DeviceRecord[] } | null;
    for (const d of raw?.devices ?? []) if (d && typeof d.device_id === "string") this.devices.set(d.device_id, d);
  }

  /** The device's secret at a generation (never stored, never logged). */
  secretOf(deviceId: string, generation: number): Uint8Array {
    return new Uint8Array(
      createHmac("sha256", this.installSecret).update(`${REMOTE_LABELS.deviceSecret}\n${deviceId}\n${generation}`).digest(),
    );
  }

  list(): DeviceRecord[] {
    return [...this.devices.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  get(deviceId: string): DeviceRecord | undefined {
    return this.devices.get(deviceId);
  }

  expired(d: DeviceRecord): boolean {
    return Date.parse(d.expires_at) <= this.now();
  }

  /** The generations a proof may be keyed by now, newest first. */
  acceptedGenerations(d: DeviceRecord): number[] {
    const out = [d.generation];
    if (d.previous && d.previous.until > this.now()) out.push(d.previous.generation);
    return out;
  }

  create(who: { label: string; browser: { name: string; version: string }; extensionId: string }): {
    record: DeviceRecord;
    secret: Uint8Array;
  } {
    const now = this.now();
    const record: DeviceRecord = {
      device_id: `dev_${randomBytes(8).toString("hex")}`,
      label: who.label.slice(0, 64),
      browser: { name: who.browser.name.slice(0, 64), version: who.browser.version.slice(0, 64) },
      extension_id: who.extensionId,
      created_at: new Date(now).toISOString(),
      last_seen_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.times.grantMs).toISOString(),
      renew_after: new Date(now + this.times.renewMs).toISOString(),
      generation: 1,
    };
    this.devices.set(record.device_id, record);
    this.save();
    return { record, secret: this.secretOf(record.device_id, 1) };
  }

  /** The next generation and a fresh grant; the previous generation keeps working for a short grace. */
  renew(deviceId: string): { record: DeviceRecord; secret: Uint8Array } | null {
    const d = this.devices.get(deviceId);
    if (!d) return null;
    const now = this.now();
    d.previous = { generation: d.generation, until: now + ROTATION_GRACE_MS };
    d.generation += 1;
    d.expires_at = new Date(now + this.times.grantMs).toISOString();
    d.renew_after = new Date(now + this.times.renewMs).toISOString();
    d.last_seen_at = new Date(now).toISOString();
    this.save();
    return { record: d, secret: this.secretOf(deviceId, d.generation) };
  }

  /** A proof keyed by `generation` checked out: the device is seen, and a used new generation retires the old one. */
  seen(deviceId: string, generation: number): void {
    const d = this.devices.get(deviceId);
    if (!d) return;
    const now = this.now();
    d.last_seen_at = new Date(now).toISOString();
    let dirty = false;
    if (generation === d.generation && d.previous) {
      d.previous = undefined;
      dirty = true;
    }
    if (dirty || now - (this.savedSeen.get(deviceId) ?? 0) >= SEEN_SAVE_MS) {
      this.savedSeen.set(deviceId, now);
      this.save();
    }
  }

  /** Removes the device (or every device); returns the ids removed. */
  revoke(deviceId: string | "all"): string[] {
    const ids = deviceId === "all" ? [...this.devices.keys()] : this.devices.has(deviceId) ? [deviceId] : [];
    for (const id of ids) this.devices.delete(id);
    if (ids.length) this.save();
    return ids;
  }

  private save(): void {
    writeFileAtomic(this.file, `${JSON.stringify({ devices: this.list() }, null, 2)}\n`);
  }
}
