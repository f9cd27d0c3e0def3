#!/usr/bin/env bash
# Hardware-in-the-loop on a real Linux kernel (make hil): Debian's own kernel under qemu, a busybox initramfs with
# Debian's systemd-udevd and kmod, the project's udev rules and the static release `lodestar`, and the scenarios of
# scripts/hil/scenarios.sh run inside. Results come back on the serial console as `HIL PASS|FAIL|SKIP <name> <values>`
# lines; this script exits non-zero when a scenario failed, one is missing, or the guest did not finish.
#
# Downloads: only `apt-get download` of Debian's kernel package (cached in .build-hil/debs). Everything else is taken
# from this (Debian 12) machine's installed packages: busybox-static, kmod, udev, i2c-tools' libi2c, the C libraries.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HIL=${HIL_DIR:-$ROOT/.build-hil}
BIN=${LODESTAR_BIN:-$ROOT/.build/release/lodestar}
TIMEOUT=${HIL_TIMEOUT:-540}
start=$(date +%s)
log() { echo "hil: $*" >&2; }

[ -x "$BIN" ] || { log "missing $BIN (make hil builds it)"; exit 2; }
mkdir -p "$HIL/debs"

# 1. Debian's kernel (linux-image-amd64 -> linux-image-<abi>-amd64), downloaded once.
if ! ls "$HIL"/debs/linux-image-[0-9]*.deb >/dev/null 2>&1; then
    log "downloading Debian's kernel package"
    dep=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    (cd "$HIL/debs" && apt-get download -q linux-image-amd64 "$dep" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
fi
deb=$(ls "$HIL"/debs/linux-image-[0-9]*.deb | head -1)
KROOT=$HIL/kernel
if [ ! -f "$KROOT/.from" ] || [ "$(cat "$KROOT/.from")" != "$deb" ]; then
    rm -rf "$KROOT"; mkdir -p "$KROOT"
    dpkg-deb -x "$deb" "$KROOT"
    echo "$deb" > "$KROOT/.from"
fi
KVER=$(ls "$KROOT/lib/modules" | head -1)
[ -f "$KROOT/lib/modules/$KVER/modules.dep" ] || depmod -b "$KROOT" "$KVER"
log "kernel $KVER ($(basename "$deb"))"

# 2. The initramfs.
R=$HIL/root
rm -rf "$R"; mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,run,tmp,root,hil,lib/udev/rules.d,lib/systemd,usr/local/bin,var/lock}
ln -s lib "$R/lib64" 2>/dev/null || true
cp /bin/busybox "$R/bin/busybox"
for a in $(/bin/busybox --list); do
    case $a in modprobe|insmod|rmmod|lsmod|depmod|modinfo|busybox) ;; *) ln -sf busybox "$R/bin/$a" ;; esac
done

# Copies a binary with the shared libraries it loads (ldd), at the same paths.
copy_with_libs() {
    local f=$1 dest=${2:-$1}
    mkdir -p "$R$(dirname "$dest")"; cp -L "$f" "$R$dest"
    ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
        [ -e "$R$lib" ] || { mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"; }
    done
}
copy_with_libs /bin/kmod /sbin/kmod
for t in modprobe insmod rmmod lsmod depmod modinfo; do ln -sf kmod "$R/sbin/$t"; done
copy_with_libs /bin/udevadm /bin/udevadm
ln -sf /bin/udevadm "$R/lib/systemd/systemd-udevd"
copy_with_libs "$BIN" /usr/local/bin/lodestar
# chronyd and chronyc (Debian's chrony on this machine) for the PPS scenario: the consumer of `lodestar run --pps`.
if [ -x /usr/sbin/chronyd ] && [ -x /usr/bin/chronyc ]; then
    copy_with_libs /usr/sbin/chronyd /sbin/chronyd; copy_with_libs /usr/bin/chronyc /bin/chronyc
else
    log "no chronyd/chronyc on this machine (Debian's chrony): the pps scenario will fail"
fi
cp /lib/udev/rules.d/50-udev-default.rules /lib/udev/rules.d/60-serial.rules "$R/lib/udev/rules.d/"
cp udev/60-lodestar.rules "$R/lib/udev/rules.d/"
# NMEA for the USB scenario: GGA+RMC at 48.1173 N, 11.516667 E, one pair per second from 12:00:00 (valid checksums).
python3 - > "$R/hil/nmea.txt" <<'PY'
def s(body):
    c = 0
    for ch in body: c ^= ord(ch)
    return "$%s*%02X" % (body, c)
for i in range(600):
    t = "%02d%02d%02d.00" % (12 + i // 3600, i // 60 % 60, i % 60)
    print(s("GPGGA,%s,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,," % t))
    print(s("GPRMC,%s,A,4807.038,N,01131.000,E,000.0,084.4,230326,003.1,W" % t))
PY
cp scripts/hil/init "$R/init"; cp scripts/hil/scenarios.sh "$R/hil/"; chmod +x "$R/init"
# Users and groups as sysusers.d/lodestar.conf creates them (numbers fixed here; udev resolves names through these).
cat > "$R/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/sh
lodestar:x:990:990:Lodestar:/run/lodestar:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat > "$R/etc/group" <<EOF
root:x:0:
dialout:x:20:
tty:x:5:
i2c:x:991:
lodestar:x:990:
nogroup:x:65534:
EOF
echo "hosts: files" > "$R/etc/nsswitch.conf"

# Modules and what they depend on (modprobe --show-depends over the extracted tree), then depmod for the guest.
MODULES="i2c-stub i2c-dev hmc5843_i2c st_magn_i2c st_accel_i2c bmc150_magn_i2c ak8975 mmc35240 inv_mpu6050_i2c
         dummy_hcd g_serial usb_f_acm usb_f_serial usb_f_obex cdc-acm pps-ldisc parport_pc pps_parport"
for m in $MODULES; do
    modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" 2>/dev/null | awk '$1=="insmod"{print $2}'
done | sort -u | while read -r ko; do
    rel=${ko#"$KROOT"}; mkdir -p "$R$(dirname "$rel")"; cp "$ko" "$R$rel"
done
cp "$KROOT/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} "$R/lib/modules/$KVER/"
depmod -b "$R" "$KVER"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$HIL/initrd.gz"
log "initramfs $(du -h "$HIL/initrd.gz" | cut -f1), lodestar links: $(ldd "$BIN" | awk '{print $1}' | grep -v vdso | tr '\n' ' ')"

# 3. Boot. KVM when /dev/kvm works (a 20 s probe boot that only prints its kernel version; nested KVM can hang or
# abort), TCG otherwise. HIL_ACCEL=tcg|kvm skips the probe.
boot() {  # boot TIMEOUT CMDLINE-EXTRA ACCEL...
    local t=$1 extra=$2; shift 2
    timeout "$t" qemu-system-x86_64 "$@" -m 1024 -smp 2 -nographic -no-reboot \
        -kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$HIL/initrd.gz" \
        -append "console=ttyS0 panic=-1 loglevel=3 no_timer_check $extra" -serial mon:stdio -nic none \
        -parallel null
}
ACCEL=(-accel tcg)
case ${HIL_ACCEL:-auto} in
    kvm) ACCEL=(-accel kvm) ;;
    auto) if [ -w /dev/kvm ] && boot 20 hil.probe=1 -accel kvm 2>&1 | tr -d '\r' | grep -aq 'HIL BOOT'; then
              ACCEL=(-accel kvm); fi ;;
esac
log "booting (${ACCEL[*]})"
CONSOLE=$HIL/console.log
set +e
for attempt in 1 2; do
    boot "$TIMEOUT" "hil.scenarios=${HIL_SCENARIOS:-all}" "${ACCEL[@]}" > "$CONSOLE" 2>&1
    qrc=$?
    # An overloaded host can make early timer calibration fail under TCG: one retry for a guest that never started.
    tr -d '\r' < "$CONSOLE" | grep -aq 'HIL BOOT' && break
    cp "$CONSOLE" "$HIL/console.attempt$attempt.log"
    log "the kernel did not reach /init (attempt $attempt): $(grep -m1 -a 'Kernel panic' "$CONSOLE" || echo "qemu exit $qrc")"
done
set -e
tr -d '\r' < "$CONSOLE" | grep -E '^(HIL|hil-log) ' || true
elapsed=$(( $(date +%s) - start ))

# 4. Verdict.
clean=$(tr -d '\r' < "$CONSOLE")
fails=$(grep -c '^HIL FAIL ' <<<"$clean" || true)
passes=$(grep -c '^HIL PASS ' <<<"$clean" || true)
expected=$(grep '^HIL PLAN ' <<<"$clean" | cut -d' ' -f3- | tr '\n' ' ' || true)
missing=""
for s in $expected; do grep -qE "^HIL (PASS|FAIL|SKIP) $s( |$)" <<<"$clean" || missing="$missing $s"; done
if ! grep -q '^HIL END' <<<"$clean"; then
    log "the guest did not finish (qemu exit $qrc, after ${elapsed}s); console tail:"
    tail -40 "$CONSOLE" >&2
    exit 1
fi
if [ "$fails" -gt 0 ] || [ -n "$missing" ] || [ -z "$expected" ]; then
    log "FAILED: $fails failing check(s), missing:${missing:- none} (${elapsed}s; console in $CONSOLE)"
    exit 1
fi
log "all $passes check(s) passed in ${elapsed}s (kernel $KVER, ${ACCEL[*]})"
