#!/bin/sh
# What the platform lane needs to run linux-arm64 bsk on an x86-64 Debian/Ubuntu machine, installed with apt when
# missing: qemu-aarch64 (qemu-user) and an arm64 glibc to load Bun's dynamically linked binary with
# (libc6-arm64-cross: an architecture-independent package, so no dpkg multiarch; it lives in /usr/aarch64-linux-gnu,
# passed to qemu with -L). Needs root or sudo.
set -eu
need=""
command -v qemu-aarch64 >/dev/null 2>&1 || need="$need qemu-user"
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || need="$need libc6-arm64-cross"
[ -z "$need" ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
apt_install() { $sudo apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 $need >/dev/null; }
apt_install || { $sudo apt-get update -qq && apt_install; }
