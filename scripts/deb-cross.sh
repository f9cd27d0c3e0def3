#!/usr/bin/env bash
# make deb ARCH=arm64: the Debian package for another architecture, cross-built with a Swift SDK
# (docs/deployment.md "arm64"). Without a matching SDK: one line saying so, exit 69.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:?usage: deb-cross.sh DEBIAN_ARCH}
SWIFT=${SWIFT:-swift}
case "$arch" in
    arm64) triple=aarch64 ;;
    amd64) triple=x86_64 ;;
    armhf) triple=armv7 ;;
    *) echo "make deb ARCH=$arch: unsupported architecture (arm64, armhf, amd64)" >&2; exit 64 ;;
esac
# A Swift SDK for static Linux (swift.org's static-linux SDK: aarch64-swift-linux-musl) or a Debian-sysroot SDK
# made by swift-sdk-generator for this triple.
sdk=$("$SWIFT" sdk list 2>/dev/null | grep -E "^$triple|[_-]$triple" | head -1 || true)
if [ -z "$sdk" ]; then
    # swift sdk list shows bundles; the static SDK's target triple is what --swift-sdk takes.
    if "$SWIFT" sdk list 2>/dev/null | grep -q static-linux; then sdk="$triple-swift-linux-musl"; fi
fi
if [ -z "$sdk" ]; then
    echo "make deb ARCH=$arch: no Swift SDK for $triple is installed ('swift sdk list' has none); install the static Linux SDK (docs/deployment.md \"arm64\") and run again" >&2
    exit 69
fi
echo "Cross-building for $arch with Swift SDK $sdk"
"$SWIFT" build -c release --swift-sdk "$sdk" --product lodestar
"$SWIFT" build -c release --swift-sdk "$sdk" --product lodestar-fleet
bin=$("$SWIFT" build -c release --swift-sdk "$sdk" --show-bin-path)
# debian/rules installs from LODESTAR_BIN_DIR instead of building; dpkg-buildpackage -a sets DEB_HOST_ARCH, and
# the cross binutils (binutils-aarch64-linux-gnu) strip the binaries.
export LODESTAR_BIN_DIR="$bin"
eval "$(dpkg-architecture -a"$arch" -s)"   # DEB_HOST_ARCH for debhelper; a cross dpkg-buildpackage -a without .changes
debian/rules clean && debian/rules build && fakeroot debian/rules binary
lintian --fail-on error .build/lodestar*_"$arch".deb
ls -l .build/*_"$arch".deb
