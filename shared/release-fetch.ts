/**
 * The signed release manifest from the network: `version.json` and `version.json.sig`, each read with its cap
 * (capped-fetch.ts), the signature checked against the built-in release key before anything in it is used, then
 * its freshness: not expired, and not older than the newest manifest this install has seen (release-seen.ts),
 * whose serial it then becomes. Shared by `bsk update` and the daemon's periodic check.
 */
import {
  badSignature,
  checkFreshness,
  MANIFEST_MAX_BYTES,
  parseManifest,
  SIGNATURE_MAX_BYTES,
  verifySignature,
  type ReleaseManifest,
} from "../protocol/release.ts";
import type { BskError } from "../protocol/errors.ts";
import { fetchCapped } from "./capped-fetch.ts";
import { readSeenSerial, recordSeenSerial } from "./release-seen.ts";

/**
 * Fetch `url` and `url.sig`, verify the signature with the built-in key (or `key`), parse, and refuse an expired
 * manifest or a rollback against what `home` has seen.
 */
export async function fetchVerifiedManifest(
  url: string,
  home: string,
  opts: { timeoutMs?: number; key?: string } = {},
): Promise<ReleaseManifest> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const failReason = "manifest_unreachable";
  const [bytes, sig] = await Promise.all([
    fetchCapped(url, { what: "release manifest", maxBytes: MANIFEST_MAX_BYTES, timeoutMs, failReason }),
    fetchCapped(`${url}.sig`, { what: "release signature", maxBytes: SIGNATURE_MAX_BYTES, timeoutMs, failReason }).catch(
      (err: BskError) => {
        // A manifest without its signature is refused like a bad one.
        if (err.data?.status === 404) throw badSignature(url);
        throw err;
      },
    ),
  ]);
  if (!(await verifySignature(bytes, new TextDecoder().decode(sig), opts.key))) throw badSignature(url);
  const manifest = parseManifest(bytes);
  checkFreshness(manifest, url, readSeenSerial(home));
  recordSeenSerial(home, manifest.serial);
  return manifest;
}
