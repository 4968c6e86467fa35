/**
 * The release key: `bsk update` installs only what a manifest signed with its private half names.
 * The private key never enters the repository; a maintainer passes it to `npm run release` (BSK_RELEASE_KEY_FILE).
 *
 * Tests build binaries that trust a test key: `bun build --define BUILD_RELEASE_PUBKEY='"<spki base64>"'`.
 * There is deliberately no run-time way (env var, flag, file) to change the trusted key.
 */
declare const BUILD_RELEASE_PUBKEY: string | undefined;

/** Base64 of the Ed25519 public key in SubjectPublicKeyInfo DER (the body of its PEM); install.sh carries the same. */
export const RELEASE_PUBLIC_KEY: string =
  typeof BUILD_RELEASE_PUBKEY !== "undefined" ? BUILD_RELEASE_PUBKEY : "MCowBQYDK2VwAyEA+qTS3xWX934bbrnUuFMoifItj+m0WgNK4TPKiLtpEvc=";
