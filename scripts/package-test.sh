#!/usr/bin/env bash
# make package-test: install .build/lodestar_*.deb into a clean Debian 12 (debootstrap --variant=minbase bookworm,
# cached under .build/package-test) with apt, check what the package installs and that it runs, then purge it and
# check that none of its files are left. Runs as root (chroot, mount). docs/deployment.md "Debian packages".
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
arch=$(dpkg --print-architecture)
deb=$(ls -t .build/lodestar_*_"$arch".deb 2>/dev/null | head -1 || true)
[ -n "$deb" ] || { echo "package-test: no .build/lodestar_*_$arch.deb; run make deb first" >&2; exit 66; }
[ "$(id -u)" = 0 ] || { echo "package-test: needs root (debootstrap, chroot, mount)" >&2; exit 77; }

cache=$PWD/.build/package-test
base=$cache/bookworm-minbase
root=$cache/root
mkdir -p "$cache"

# The Debian mirror apt already uses (deb822 debian.sources, else sources.list), else deb.debian.org.
mirror=""
[ -f /etc/apt/sources.list.d/debian.sources ] && mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
[ -n "$mirror" ] || mirror=$(awk '$1=="deb" && $2 ~ /debian/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

unmount() { umount "$root/proc" 2>/dev/null || true; }
trap unmount EXIT

if [ ! -e "$base.ok" ]; then
    echo "== debootstrap --variant=minbase bookworm ($mirror), cached in $base"
    rm -rf --one-file-system "$base" "$base.tmp"
    debootstrap --variant=minbase bookworm "$base.tmp" "$mirror" > "$cache/debootstrap.log" 2>&1 \
        || { tail -20 "$cache/debootstrap.log"; exit 1; }
    mv "$base.tmp" "$base" && touch "$base.ok"
fi

unmount
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
# apt in the chroot uses the host's Debian sources (the same mirror and suites, security updates included).
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    : > "$root/etc/apt/sources.list"
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }

in_root apt-get update -qq
# Everything on disk except the kernel's and apt's/dpkg's bookkeeping.
snapshot() {
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./var/cache \
        -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/log \) -prune -o -print | sort)
}
snapshot > "$cache/files-before.txt"

echo "== apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root sh -c "cd /tmp && apt-get install -y -q --no-install-recommends ./$(basename "$deb")" > "$cache/install.log" 2>&1 \
    || { cat "$cache/install.log"; fail "apt-get install"; }
grep -E '^(Setting up|Unpacking) ' "$cache/install.log" | sed 's/^/   /' | head -40
echo "   Depends: $(in_root dpkg-query -W -f='${Depends}' lodestar)"

echo "== what the package installed"
in_root getent passwd lodestar >/dev/null || fail "no lodestar user"
groups=$(in_root id -nG lodestar)
echo "   user lodestar: groups $groups"
for g in dialout i2c; do echo " $groups " | grep -q " $g " || fail "lodestar is not in group $g"; done
for f in /usr/bin/lodestar /lib/systemd/system/lodestar.service /lib/systemd/system/lodestar.socket \
         /lib/udev/rules.d/60-lodestar.rules /usr/share/man/man1/lodestar.1.gz /etc/lodestar/lodestar.conf \
         /usr/lib/sysusers.d/lodestar.conf /usr/lib/tmpfiles.d/lodestar.conf /usr/share/doc/lodestar/deployment.md \
         /usr/share/doc/lodestar/copyright; do
    [ -e "$root$f" ] || fail "missing $f"
done
in_root dpkg-query -W -f='${Conffiles}\n' lodestar | grep -q ' /etc/lodestar/lodestar.conf ' || fail "lodestar.conf is not a conffile"
[ "$(in_root stat -c %U:%G:%a /run/lodestar 2>/dev/null)" = lodestar:lodestar:750 ] \
    || fail "/run/lodestar not created by tmpfiles as lodestar:lodestar 0750"
[ -L "$root/etc/systemd/system/multi-user.target.wants/lodestar.service" ] || fail "lodestar.service not enabled"
[ ! -e "$root/etc/systemd/system/sockets.target.wants/lodestar.socket" ] || fail "lodestar.socket enabled"
file "$root/usr/bin/lodestar" 2>/dev/null | grep -q 'not stripped' && fail "/usr/bin/lodestar is not stripped"
echo "   binary $(stat -c %s "$root/usr/bin/lodestar") bytes, unit, socket, udev rules, man page, conffile, sysusers,"
echo "   tmpfiles: present; user and /run/lodestar created; service enabled, not started; socket not enabled"

echo "== lodestar in the chroot"
in_root lodestar --version | head -1 | sed 's/^/   lodestar --version: /'
cp captures/simulated-drive.lcap "$root/tmp/"
in_root lodestar replay /tmp/simulated-drive.lcap > "$cache/replay.jsonl" 2> "$cache/replay.err" \
    || { cat "$cache/replay.err"; fail "replay"; }
fixes=$(grep -c '"fix"' "$cache/replay.jsonl" || true)
[ "$fixes" -gt 100 ] || fail "replay wrote $fixes fixes"
echo "   replay of captures/simulated-drive.lcap: $(wc -l < "$cache/replay.jsonl") lines, $fixes fixes"
if [ -x .build/release/lodestar ]; then
    .build/release/lodestar replay captures/simulated-drive.lcap 2>/dev/null | cmp -s - "$cache/replay.jsonl" \
        && echo "   identical to the build tree's binary" || fail "replay differs from .build/release/lodestar"
fi

echo "== systemd-analyze security --offline=yes (the installed unit)"
score=$(in_root systemd-analyze security --offline=yes /lib/systemd/system/lodestar.service 2>&1 \
    | sed -n 's/.*Overall exposure level for lodestar.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "no score from systemd-analyze security"
echo "   exposure $score"
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "exposure $score > 2.0"

echo "== apt-get purge lodestar"
in_root dpkg -L lodestar > "$cache/lodestar-files.txt"
# What the service and the admin would have added: state, a learned calibration, a second config file.
mkdir -p "$root/var/lib/lodestar" && echo '{}' > "$root/var/lib/lodestar/calibration.json"
echo '# admin' > "$root/etc/lodestar/smoothing.conf"
in_root apt-get purge -y -q lodestar > "$cache/purge.log" 2>&1 || { cat "$cache/purge.log"; fail "purge"; }
left=""
while read -r f; do
    [ -d "$root$f" ] && continue   # directories (/usr/bin, /lib -> usr/lib ...) are shared; its own ones are below
    [ -e "$root$f" ] || [ -L "$root$f" ] && left="$left $f"
done < "$cache/lodestar-files.txt"
for f in /etc/lodestar /var/lib/lodestar /run/lodestar /usr/share/doc/lodestar \
         /etc/systemd/system/multi-user.target.wants/lodestar.service; do
    [ -e "$root$f" ] || [ -L "$root$f" ] && left="$left $f"
done
[ -z "$left" ] || fail "left after purge:$left"
in_root apt-get autoremove --purge -y -q > "$cache/autoremove.log" 2>&1
snapshot > "$cache/files-after.txt"
diff "$cache/files-before.txt" "$cache/files-after.txt" > "$cache/files-diff.txt" || true
if grep -i lodestar "$cache/files-diff.txt"; then fail "files named lodestar differ before install and after purge"; fi
echo "   none of the package's $(wc -l < "$cache/lodestar-files.txt") paths left; before install vs after purge +"
echo "   autoremove: $(grep -c '^[<>]' "$cache/files-diff.txt" || true) paths differ ($cache/files-diff.txt), none of them Lodestar's"
echo "   (kept, as Debian does: the system user lodestar and the group i2c)"

unmount
echo "package-test: OK in $(( $(date +%s) - start )) s"
