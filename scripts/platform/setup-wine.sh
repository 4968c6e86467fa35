#!/usr/bin/env bash
# Make Wine run Bun's windows-x64 executables on a bare Debian 12, headless, for the windows-x64 lane
# (scripts/platform/windows-x64.ts). Installs what is missing with apt (wine64, a mingw C compiler), builds the
# stand-in bcryptprimitives.dll (wine/bcryptprimitives.c: Wine 8 lacks ProcessPrng, which every Bun exe imports),
# and creates a Wine prefix with it under $BSK_WINE_DIR (default ${XDG_CACHE_HOME:-~/.cache}/bsk-wine).
# Idempotent: a second run reuses the prefix. Prints the prefix's path as its last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${BSK_WINE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/bsk-wine}"
prefix="$dir/prefix"
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/lib/wine/$1" ]; }
if ! have wine64 || ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends wine64 gcc-mingw-w64-x86-64-win32 >/dev/null
fi
wine="$(command -v wine64 || echo /usr/lib/wine/wine64)"

mkdir -p "$dir"
dll="$dir/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$here/wine/bcryptprimitives.c" -nt "$dll" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$dll.tmp" "$here/wine/bcryptprimitives.c" -ladvapi32
  mv "$dll.tmp" "$dll"
fi

if [ ! -f "$prefix/system.reg" ]; then
  "$wine" wineboot --init >/dev/null 2>&1
  "$(dirname "$wine")/wineserver" -w
fi
cp "$dll" "$prefix/drive_c/windows/system32/bcryptprimitives.dll"
echo "$prefix"
