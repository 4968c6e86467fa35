/**
 * This install's secret, on the extension's side: an HMAC key imported non-extractable and kept in the extension
 * origin's IndexedDB (a CryptoKey survives structured cloning there). No page, content script or even our own code
 * can read the bytes back; the key can only MAC. chrome.storage.local would be readable by content scripts.
 */
import { importHmacKey, keyIdOf } from "../../../../protocol/trust.ts";

const DB = "bsk-trust";
const STORE = "keys";
const RECORD = "install";

export interface InstallKey {
  key: CryptoKey;
  /** Public name of the secret (the daemon's `bsk status` shows the same). */
  key_id: string;
  source: "native" | "pairing";
  since: number;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function withStore<T>(mode: IDBTransactionMode, fn: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? req.error);
    });
  } finally {
    db.close();
  }
}

let cached: InstallKey | null | undefined;

/** The stored key, or null when this browser has not been paired with a bsk install. Unreadable counts as none. */
export async function loadKey(): Promise<InstallKey | null> {
  if (cached !== undefined) return cached;
  try {
    const got = (await withStore("readonly", (s) => s.get(RECORD))) as InstallKey | undefined;
    cached = got && got.key instanceof CryptoKey ? got : null;
  } catch (err) {
    console.error("bsk: could not read the pairing key", err);
    cached = null;
  }
  return cached;
}

/** Imports and stores a secret (replacing any earlier one); the bytes are not kept anywhere else. */
export async function saveKey(secret: Uint8Array, source: InstallKey["source"]): Promise<InstallKey> {
  const key = await importHmacKey(secret);
  const record: InstallKey = { key, key_id: await keyIdOf(key), source, since: Date.now() };
  await withStore("readwrite", (s) => s.put(record, RECORD));
  cached = record;
  return record;
}

export async function clearKey(): Promise<void> {
  await withStore("readwrite", (s) => s.delete(RECORD));
  cached = null;
}
