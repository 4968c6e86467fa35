#!/bin/sh
# Install bsk: download the binary for this machine from a bsk release, verify it, put it on disk.
#
#   curl -fsSL https://github.com/bsk-dev/bsk/releases/latest/download/install.sh | sh
#
# Checks, all fail closed: the release manifest (version.json) is signed by the bsk release key (verified when
# OpenSSL 3 with Ed25519 is available), has not expired and is not older than one bsk has seen ($BSK_HOME), the
# archive's SHA-256 matches both the manifest and SHA256SUMS, and the unpacked binary runs and reports the release's
# version. Nothing is installed when any check fails.
#
# Environment:
#   BSK_INSTALL_DIR        where bsk goes (default ~/.local/bin)
#   BSK_VERSION            install this release instead of the latest (e.g. 0.2.0), even when its manifest expired
#   BSK_HOME               where bsk keeps its state (default ~/.bsk): the newest manifest serial it has seen
#   BSK_RELEASE_BASE_URL   the release host (default: the GitHub releases below; npm run release fills in its own)
set -eu

default_base_url="https://github.com/bsk-dev/bsk/releases"
# The bsk release public key (Ed25519, SubjectPublicKeyInfo, base64); the same as protocol/release-key.ts.
release_pubkey="MCowBQYDK2VwAyEA+qTS3xWX934bbrnUuFMoifItj+m0WgNK4TPKiLtpEvc="

say() { printf '%s\n' "$*"; }
fail() {
  printf 'error: %s\n' "$1" >&2
  if [ -n "${2:-}" ]; then printf 'hint: %s\n' "$2" >&2; fi
  exit 1
}

base=${BSK_RELEASE_BASE_URL:-$default_base_url}
base=${base%/}
dir=${BSK_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}

if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
else
  fail "neither curl nor wget is installed" "Install curl, then run this again."
fi
# Every body read from the network has a cap (the file size limit, in 512-byte blocks, kills a download that
# goes past it), so a huge or endless answer never fills the disk: get URL FILE MAX_BYTES WHAT.
get() {
  (ulimit -f $((($3 + 511) / 512)) && fetch "$1" "$2") && return 0
  rc=$?
  [ "$rc" -ne 153 ] || fail "the $4 at $1 is larger than $3 bytes; stopped reading it" "Nothing was installed. Check BSK_RELEASE_BASE_URL."
  return "$rc"
}

if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
elif command -v openssl >/dev/null 2>&1; then
  sha256() { openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1; }
else
  fail "no SHA-256 tool (sha256sum, shasum or openssl) found" "Install coreutils or openssl, then run this again."
fi

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "this installer supports Linux and macOS, not $(uname -s)" "On Windows, download bsk-<version>-windows-x64.zip from the release page." ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no bsk build for the $(uname -m) processor" "Builds exist for x64 and arm64." ;;
esac
# A shell running under Rosetta reports x86_64 on Apple silicon; the native build is the right one.
if [ "$os-$arch" = darwin-x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then arch=arm64; fi
platform="$os-$arch"

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t bsk-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

if [ -n "${BSK_VERSION:-}" ]; then
  rel="$base/download/v${BSK_VERSION#v}"
else
  rel="$base/latest/download"
fi
get "$rel/version.json" "$tmp/version.json" 1048576 "release manifest" || fail "could not download $rel/version.json" "Check the network, BSK_RELEASE_BASE_URL and BSK_VERSION."

# Signature: verified whenever this machine can; a bad or missing signature is never installed.
printf -- '-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n' "$release_pubkey" >"$tmp/release-key.pem"
if command -v openssl >/dev/null 2>&1 &&
  openssl pkey -pubin -in "$tmp/release-key.pem" -noout >/dev/null 2>&1 &&
  openssl pkeyutl -help 2>&1 | grep -q -- '-rawin'; then
  get "$rel/version.json.sig" "$tmp/version.json.sig" 4096 "release signature" || fail "the release has no signature (version.json.sig)" "Refusing an unsigned release."
  tr -d '\r\n' <"$tmp/version.json.sig" | openssl base64 -d -A -out "$tmp/version.json.sig.bin" 2>/dev/null ||
    fail "the release signature is not base64" "Refusing an unsigned release."
  openssl pkeyutl -verify -pubin -inkey "$tmp/release-key.pem" -rawin -in "$tmp/version.json" -sigfile "$tmp/version.json.sig.bin" >/dev/null 2>&1 ||
    fail "version.json is not signed by the bsk release key" "Refusing it: the release host or the download was tampered with."
  signed=yes
else
  say "note: signature not checked (needs OpenSSL 3 with Ed25519); relying on SHA-256 and HTTPS"
  signed=no
fi

version=$(sed -n 's/^  "version": "\([0-9A-Za-z.+-]*\)",$/\1/p' "$tmp/version.json")
[ -n "$version" ] || fail "version.json names no version" "Is BSK_RELEASE_BASE_URL a bsk release?"
if [ -n "${BSK_VERSION:-}" ] && [ "$version" != "${BSK_VERSION#v}" ]; then
  fail "asked for $BSK_VERSION, the release says $version" "Check BSK_VERSION."
fi

# Freshness: a manifest past its expiry (a mirror replaying an old release) or older than the newest one this
# install's bsk has seen (a rollback) is refused, unless BSK_VERSION asks for that very release (then it is said).
# A clock up to an hour ahead of the release host's is allowed, as bsk update allows it.
serial=$(sed -n 's/^  "serial": \([0-9]\{1,15\}\),$/\1/p' "$tmp/version.json")
expires=$(sed -n 's/^  "expires_at": "\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\)\(\.[0-9]\{3\}\)\{0,1\}Z",$/\1Z/p' "$tmp/version.json")
stale() {
  [ -n "${BSK_VERSION:-}" ] || fail "$1" "$2"
  say "note: the manifest of release $version: $1; installing it because BSK_VERSION asks for this release"
}
# Seconds since 1970 of a UTC time YYYY-MM-DDTHH:MM:SSZ (days from the civil date: no date(1) extension needed).
epoch_of() {
  set -- $(printf '%s\n' "$1" | sed 's/[-T:Z]/ /g')
  y=$1 m=${2#0} d=${3#0}
  [ "$m" -gt 2 ] || y=$((y - 1))
  era=$((y / 400)) yoe=$((y % 400))
  doy=$(((153 * ((m + 9) % 12) + 2) / 5 + d - 1))
  echo $(((era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468) * 86400 + ${4#0} * 3600 + ${5#0} * 60 + ${6#0}))
}
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
if [ -z "$serial" ] || [ -z "$expires" ]; then
  stale "version.json carries no serial or expiry" "Refusing it: a bsk release's manifest has both. Check BSK_RELEASE_BASE_URL."
elif [ $(($(epoch_of "$now") - 3600)) -gt "$(epoch_of "$expires")" ]; then
  stale "the release manifest expired at $expires (this computer's clock says $now)" \
    "Refusing it: a mirror or cache serves an old release, or this computer's clock is wrong. Check the clock and BSK_RELEASE_BASE_URL."
fi
seen_file="${BSK_HOME:-${HOME:-/nonexistent}/.bsk}/release-seen.json"
seen=$(sed -n 's/.*"serial":\([0-9]\{1,15\}\)[,}].*/\1/p' "$seen_file" 2>/dev/null | head -n 1 || true)
if [ -n "$serial" ] && [ -n "$seen" ] && [ "$serial" -lt "$seen" ]; then
  stale "the release manifest is older (serial $serial) than one bsk has already seen (serial $seen)" \
    "Refusing it: the release host went back to an older release. Check BSK_RELEASE_BASE_URL."
fi

line=$(grep "^    \"$platform\": " "$tmp/version.json" || true)
[ -n "$line" ] || fail "release $version has no build for $platform"
url=$(printf '%s\n' "$line" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
sum=$(printf '%s\n' "$line" | sed -n 's/.*"sha256":"\([0-9a-f]\{64\}\)".*/\1/p')
size=$(printf '%s\n' "$line" | sed -n 's/.*"size":\([0-9]\{1,12\}\)[,}].*/\1/p')
[ -n "$sum" ] || fail "release $version names no SHA-256 for $platform" "Refusing a binary that cannot be verified."
case $url in
  https://* | http://*) ;;
  *) fail "release $version has no usable download URL for $platform" ;;
esac
name="bsk-$version-$platform.tar.gz"

get "$base/download/v$version/SHA256SUMS" "$tmp/SHA256SUMS" 1048576 "checksum list" || fail "could not download SHA256SUMS of release $version"
listed=$(sed -n "s/^\([0-9a-f]\{64\}\)  $name\$/\1/p" "$tmp/SHA256SUMS")
[ "$listed" = "$sum" ] || fail "SHA256SUMS and version.json disagree about $name" "Refusing it: the release is inconsistent or was tampered with."

say "downloading bsk $version for $platform"
get "$url" "$tmp/$name" "${size:-268435456}" "release archive" || fail "could not download $url"
got=$(sha256 "$tmp/$name")
[ "$got" = "$sum" ] || fail "SHA-256 mismatch for $name (expected $sum, got $got)" "The download is corrupt or was tampered with; nothing was installed."

mkdir "$tmp/x"
(cd "$tmp/x" && tar -xzf "../$name" bsk) || fail "could not unpack $name"
[ -f "$tmp/x/bsk" ] && [ ! -L "$tmp/x/bsk" ] || fail "$name holds no bsk binary"
chmod 0755 "$tmp/x/bsk"
reported=$("$tmp/x/bsk" version 2>/dev/null || true)
case $reported in
  *" $version "*) ;;
  *) fail "the downloaded bsk does not run here or is not version $version (it said: ${reported:-nothing})" ;;
esac

mkdir -p "$dir"
had_bsk=no
[ -e "$dir/bsk" ] && had_bsk=yes
cp "$tmp/x/bsk" "$dir/.bsk.install.$$"
chmod 0755 "$dir/.bsk.install.$$"
mv -f "$dir/.bsk.install.$$" "$dir/bsk"

ext=$(sed -n 's/^  "extension": {"url":"\([^"]*\)".*/\1/p' "$tmp/version.json")
say "installed bsk $version to $dir/bsk (SHA-256 verified, signature $([ "$signed" = yes ] && echo verified || echo 'not checked'))"
say ""
say "Next steps:"
case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *) say "  - Put $dir on your PATH:  export PATH=\"$dir:\$PATH\"" ;;
esac
if [ "$had_bsk" = yes ]; then say "  - A daemon of the old version keeps running until it stops: bsk daemon stop (the next command starts the new one)"; fi
say "  - Install the browser extension: download ${ext:-bsk-extension-$version.zip from the release}"
say "    and unzip it into a folder you keep; open chrome://extensions, switch on Developer mode,"
say "    click Load unpacked and choose that folder (on an update: unzip over it, then click reload)."
say "  - Teach your agent:  bsk install-skill"
say "  - Check:             bsk status"
