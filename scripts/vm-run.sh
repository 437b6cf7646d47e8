#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run COMMAND as root in a throw-away QEMU (TCG) guest on a Debian or a
# self-built kernel. The guest's root is the host's own "/" (9p, read-only)
# under a tmpfs overlay, so every host program is there and the guest can
# write anywhere without touching the host; this repo is mounted read-write
# at its own path, so whatever the command writes in it lands on the host.
#
# Usage: scripts/vm-run.sh [--kernel VER|6.1|6.12|/path/to/bzImage]
#		[--modules DIR] [--mem 2G] [--timeout SEC] [--icount] [--smp N]
#		[--share DIR]... [--nic MBPS]... [--allow-taint MASK]
#		[--keep-log FILE]
#		-- COMMAND [ARGS...]
#
#   --kernel	6.1 / 6.12: the Debian kernels named in build/kernels.env
#		(default 6.1); VER: /boot/vmlinuz-VER with /lib/modules/VER;
#		a path: your own bzImage (see --modules).
#   --modules	DIR holding lib/modules/<kver> (make modules_install
#		INSTALL_MOD_PATH=DIR); shown at /lib/modules/<kver> in the guest.
#		Not needed if 9p, virtio-pci and overlayfs are built in.
#   --mem	guest RAM (default 2G); --smp N: vCPUs (default 1)
#   --timeout	kill QEMU after SEC seconds (default 1200)
#   --icount	deterministic guest time (-icount shift=0,sleep=off, 1 CPU)
#   --share	also mount host directory DIR (created if missing; relative
#		to the current directory) read-write at the same path in the
#		guest, after its tmpfs /tmp and /run, so that what the command
#		writes there lands on the host wherever DIR is. Outside the
#		repo and the shares, writes go to the guest's tmpfs and are
#		lost. Repeatable; no spaces, ':' or ',' in the path.
#   --nic	a virtio-net NIC that reports MBPS Mbit/s as its link speed
#		(0: none, SPEED_UNKNOWN). Repeatable: NIC i (from 1) has MAC
#		52:54:00:12:00:0i; all are on one QEMU hub, so they reach
#		each other and nothing else. The guest loads virtio_net.
#   --allow-taint  taint bits tolerated (default 0x3000: O and E)
#   --keep-log	copy the guest kernel log to FILE
#
# COMMAND runs under bash in the repo directory with stdin from /dev/null;
# its stdout and stderr stream to this script's stdout. Messages of this
# script go to stderr. Exit status: COMMAND's; 90 if the guest kernel log
# shows a warning/BUG/oops or the kernel is tainted beyond the mask; 91 if
# the guest never reported a status (panic, crash, --timeout); 1 setup
# error; 2 usage error. The kernel and initramfs are cached in
# build/vm/<kver>/; each run has its own build/vm/run.XXXXXX (console.log,
# dmesg, output.log...), kept only when the run fails.

# The braces make bash read the whole script before running any of it, so
# that editing this file cannot derail runs already in flight.
{
set -euo pipefail
trap 'echo "not ok vm-run: internal error at line $LINENO" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
VMDIR=$ROOT/build/vm
KERNEL=6.1 MODULES='' MEM=2G TIMEOUT=1200 ICOUNT=0 SMP=1 KEEP_LOG=''
SHARES=() NICS=()
ALLOW_TAINT=$((4096 | 8192))
# Guest kernel log lines that fail the run.
BAD_LOG='WARNING:|BUG:|Oops|sleeping function called from invalid context|Call Trace|general protection|KASAN|UBSAN'

log() { echo "# vm-run: $*" >&2; }
die() { echo "not ok vm-run: $*" >&2; exit 1; }
usage() {
	awk 'NR > 1 && !/^#/ { exit } /^# Usage:/ { p = 1 }
	     p { sub(/^# ?/, ""); print }' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	KERNEL=${2:?}; shift 2 ;;
	--modules)	MODULES=${2:?}; shift 2 ;;
	--mem)		MEM=${2:?}; shift 2 ;;
	--timeout)	TIMEOUT=${2:?}; shift 2 ;;
	--icount)	ICOUNT=1; shift ;;
	--smp)		SMP=${2:?}; shift 2 ;;
	--allow-taint)	[[ ${2:-} =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || usage
			ALLOW_TAINT=$(($2)); shift 2 ;;
	--keep-log)	KEEP_LOG=${2:?}; shift 2 ;;
	--share)	[ -n "${2:-}" ] || usage; SHARES+=("$2"); shift 2 ;;
	--nic)		[[ ${2:-} =~ ^[0-9]+$ && ${#NICS[@]} -lt 9 ]] || usage
			NICS+=("$2"); shift 2 ;;
	--)		shift; break ;;
	-h|--help)	usage ;;
	*)		echo "vm-run: unknown option '$1'" >&2; usage ;;
	esac
done
[ $# -gt 0 ] || usage
[[ $TIMEOUT =~ ^[0-9]+$ && $SMP =~ ^[1-9][0-9]*$ ]] || usage
if [ "$ICOUNT" = 1 ] && [ "$SMP" != 1 ]; then
	log "--icount forces --smp 1"
	SMP=1
fi
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[ -x /bin/busybox ] || die "/bin/busybox missing (apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio missing (apt-get install cpio)"

# Kernel release of a bzImage: the setup header holds, at 0x20e, the offset
# (minus 0x200) of the version string, which starts with the release.
bzimage_release() {
	local off
	[ "$(dd if="$1" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ] || return 0
	off=$(od -An -tu2 -j526 -N2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 512)) count=256 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# Resolve --kernel/--modules into KIMG (bzImage), KVER (release) and MODDIR
# (the guest's /lib/modules/KVER on the host; empty: all built in).
case $KERNEL in
*/*)
	KIMG=$KERNEL
	[ -f "$KIMG" ] || die "kernel image $KIMG missing"
	KVER=$(bzimage_release "$KIMG")
	if [ -z "$KVER" ] && [ -n "$MODULES" ]; then
		KVER=$(find "$MODULES/lib/modules" -mindepth 1 -maxdepth 1 \
			-printf '%f\n' 2>/dev/null | head -n1 || true)
	fi
	[ -n "$KVER" ] || die "cannot tell the kernel release of $KIMG"
	MODDIR= ;;
*)
	if [ "$KERNEL" = 6.1 ] || [ "$KERNEL" = 6.12 ]; then
		[ -f "$ROOT/build/kernels.env" ] ||
			die "build/kernels.env missing (run scripts/setup.sh)"
		# shellcheck disable=SC1091
		. "$ROOT/build/kernels.env"
		KVER=$([ "$KERNEL" = 6.1 ] && echo "${KVER_61:-}" || echo "${KVER_612:-}")
		[ -n "$KVER" ] || die "no $KERNEL kernel in build/kernels.env (run scripts/setup.sh)"
	else
		KVER=$KERNEL
	fi
	KIMG=/boot/vmlinuz-$KVER
	MODDIR=/lib/modules/$KVER
	[ -f "$KIMG" ] || die "$KIMG missing (apt-get install linux-image-$KVER)"
	[ -n "$MODULES" ] || [ -d "$MODDIR" ] ||
		die "$MODDIR missing (apt-get install linux-image-$KVER)" ;;
esac
if [ -n "$MODULES" ]; then
	MODDIR=$(cd "$MODULES" 2>/dev/null && pwd -P)/lib/modules/$KVER
	[ -d "$MODDIR" ] || die "$MODULES/lib/modules/$KVER missing (make modules_install INSTALL_MOD_PATH=$MODULES)"
fi
# Paths travel on the kernel command line, which splits at whitespace.
[[ "$ROOT$MODDIR" != *[[:space:]]* ]] || die "paths with whitespace are not supported: $ROOT $MODDIR"

# --share: absolute, physical, existing directories outside the repo (it is
# mounted anyway), parents before children; on the kernel command line as
# vmrun_shares=DIR:DIR..., mounted from 9p tags share0, share1, ...
SHARED=()
for d in "${SHARES[@]}"; do
	[[ $d == /* ]] || d=$PWD/$d
	[[ $d != *[[:space:]:,]* ]] ||
		die "--share: '$d' has a space, ':' or ',': share another directory"
	err=$(mkdir -p "$d" 2>&1) ||
		die "--share: cannot create $d (${err##*: }): share an existing directory or one you can create"
	[ -w "$d" ] || die "--share: $d is not writable: share a directory you can write"
	d=$(cd "$d" && pwd -P)
	[[ $d != *[[:space:]:,]* ]] ||
		die "--share: '$d' has a space, ':' or ',': share another directory"
	[[ $d/ == "$ROOT"/* ]] && continue
	SHARED+=("$d")
done
# Parents first; a directory inside another shared one is shared already.
if [ ${#SHARED[@]} -gt 0 ]; then
	mapfile -t SHARED < <(printf '%s\n' "${SHARED[@]}" |
		awk '{ print length($0), $0 }' | sort -n | cut -d' ' -f2- |
		awk '{ for (i = 1; i <= n; i++) if (index($0 "/", s[i] "/") == 1) next
		       s[++n] = $0; print }')
fi

# Modules the initramfs must load to mount 9p and overlayfs, in load order
# (dependencies first, per modules.dep), minus those built in.
boot_modules() {
	[ -n "$MODDIR" ] || return 0
	[ -f "$MODDIR/modules.dep" ] || die "$MODDIR/modules.dep missing (run depmod)"
	awk -v want="virtio_pci 9pnet_virtio 9p overlay" '
	function name(p) {
		sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?:?$/, "", p)
		gsub(/-/, "_", p); return p
	}
	function load(m,	i, n, d) {
		if (m in done) return
		done[m] = 1
		if (m in builtin) return
		if (!(m in path)) { missing = missing " " m; return }
		n = split(deps[m], d, " ")
		for (i = 1; i <= n; i++) load(d[i])
		print path[m]
	}
	FILENAME ~ /builtin$/ { builtin[name($1)] = 1; next }
	{
		m = name($1); path[m] = substr($1, 1, length($1) - 1); deps[m] = ""
		for (i = 2; i <= NF; i++) deps[m] = deps[m] " " name($i)
	}
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) load(w[i])
		if (missing) { print "missing:" missing > "/dev/stderr"; exit 1 }
	}' "$MODDIR/modules.builtin" "$MODDIR/modules.dep" ||
		die "kernel $KVER lacks modules for 9p/virtio/overlayfs"
}

# /init of the initramfs (busybox sh). Run parameters come from the kernel
# command line, which passes unknown key=value words to init as variables.
# shellcheck disable=SC2016
INIT='#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
die() { echo "vm-run init: $*"; reboot -f; }
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in /modules/*.ko; do
	[ -e "$m" ] || continue
	insmod "$m" || die "insmod $m failed"
done
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "ro,$o,cache=loose" hostroot /lower ||
	die "cannot mount the host root over 9p"
mount -t tmpfs -o mode=755 tmpfs /upper
mkdir /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work \
	overlay /newroot || die "cannot mount the overlay"
if [ -n "$vmrun_mods" ]; then	# --modules DIR: show it at /lib/modules/KVER
	mkdir -p "/newroot$vmrun_modto" &&
	mount --bind "/newroot$vmrun_mods" "/newroot$vmrun_modto" ||
		die "cannot bind $vmrun_mods to $vmrun_modto"
fi
for d in proc sys dev; do mount --move /$d /newroot/$d; done
cd /newroot
mkdir -p dev/pts dev/shm
# What udev would make: process substitution needs /dev/fd.
ln -sf /proc/self/fd dev/fd
ln -sf /proc/self/fd/0 dev/stdin
ln -sf /proc/self/fd/1 dev/stdout
ln -sf /proc/self/fd/2 dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts dev/pts
mount -t tmpfs -o mode=1777 tmpfs dev/shm
mount -t tmpfs -o mode=1777 tmpfs tmp
mount -t tmpfs -o mode=755 tmpfs run
# After the tmpfs mounts, which would hide a repo under /tmp or /run.
mkdir -p "/newroot$vmrun_repo" &&
mount -t 9p -o "$o,cache=mmap" repo "/newroot$vmrun_repo" ||
	die "cannot mount the repo over 9p"
i=0	# --share directories, likewise after the tmpfs mounts
for d in $(echo "$vmrun_shares" | tr : " "); do
	mkdir -p "/newroot$d" &&
	mount -t 9p -o "$o,cache=mmap" "share$i" "/newroot$d" ||
		die "cannot mount the shared $d over 9p"
	i=$((i + 1))
done
mount -t tracefs tracefs sys/kernel/tracing
mount -t debugfs debugfs sys/kernel/debug
mount -t cgroup2 cgroup2 sys/fs/cgroup
ip link set lo up
exec switch_root /newroot /bin/bash "$vmrun_dir/stage2.sh" "$vmrun_repo"
'

# Stage 2, PID 1 in the switched root (the host's own bash): run COMMAND
# with its output on a virtio serial port (50x faster than a 16550 under
# TCG, and not a tty) or else on ttyS1, then save the kernel log, taint and
# exit status into the run dir and reboot, which with -no-reboot ends QEMU.
# shellcheck disable=SC2016
STAGE2='export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
run=$(dirname "$0")
out=
# What udev/systemd would link in /dev: bash process substitution <(...)
# needs /dev/fd (dkms uses it).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e /dev/${i#*:} ] || ln -s /proc/self/fd/${i%%:*} /dev/${i#*:}
done
modprobe -q virtio_console
# --nic: virtio device id 1 is a network card
grep -qsx 0x0001 /sys/bus/virtio/devices/*/device && modprobe -q virtio_net
# no udev: find the port by name in sysfs; ports appear asynchronously
for i in $(seq 100); do
	[ -d /sys/bus/virtio/drivers/virtio_console ] || break
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = vmrun.out ] && out=/dev/${p##*/}
	done
	[ -z "$out" ] || break
	sleep 0.02
done
if [ -z "$out" ]; then
	out=/dev/ttyS1
	stty -F $out raw -echo
fi
echo 5 >/proc/sys/kernel/printk	# from now on warnings reach console.log
cd "$1"
env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
	LANG=C.UTF-8 PATH="$PATH" \
	/bin/bash "$run/cmd.sh" </dev/null >$out 2>&1
rc=$?
dmesg >"$run/dmesg"
cat /proc/sys/kernel/tainted >"$run/tainted"
echo $rc >"$run/status"
sync
/bin/busybox reboot -f
echo b >/proc/sysrq-trigger
'

# Build the initramfs into build/vm/KVER/, named after a hash of its inputs
# so that concurrent runs never see a half-written or stale one.
build_initramfs() {
	local mods key tmp m i=10
	mods=$(boot_modules) || exit 1
	key=$({ echo "$INIT"; stat -L -c '%n %s %Y' /bin/busybox
		for m in $mods; do stat -L -c '%n %s %Y' "$MODDIR/$m"; done
	      } | sha256sum | cut -c1-16)
	INITRD=$VMDIR/$KVER/initramfs-$key.cpio
	[ -f "$INITRD" ] && return
	log "building ${INITRD#"$ROOT"/}"
	mkdir -p "$VMDIR/$KVER"
	tmp=$(mktemp -d "$VMDIR/$KVER/tmp.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,lower,upper,newroot,modules}
	cp /bin/busybox "$tmp/bin/"
	printf '%s' "$INIT" >"$tmp/init"
	chmod 755 "$tmp/init"
	# busybox insmod cannot read compressed modules; the number keeps order
	for m in $mods; do
		case $m in
		*.xz)	xz -dc "$MODDIR/$m" ;;
		*.zst)	zstd -qdc "$MODDIR/$m" ;;
		*.gz)	gzip -dc "$MODDIR/$m" ;;
		*)	cat "$MODDIR/$m" ;;
		esac >"$tmp/modules/$i-$(basename "${m%.ko*}").ko"
		i=$((i + 1))
	done
	(cd "$tmp" && find . | cpio -o -H newc -R 0:0 --quiet) >"$tmp.cpio"
	mv "$tmp.cpio" "$INITRD"
	rm -rf "$tmp"
	find "$VMDIR/$KVER" -maxdepth 1 -name 'initramfs-*.cpio' ! -path "$INITRD" -mmin +60 -delete
}

# Under TCG the bzImage decompressor alone takes 1-3 s, so boot the
# uncompressed vmlinux through its PVH entry point (CONFIG_PVH) instead:
# extract it once into build/vm/KVER/. Falls back to the bzImage.
pvh_kernel() {
	local out magic tool off tmp
	out=$VMDIR/$KVER/vmlinux-$(stat -L -c '%s-%Y' "$KIMG")
	[ -f "$out" ] && { KIMG=$out; return; }
	mkdir -p "$VMDIR/$KVER"
	tmp=$(mktemp "$out.XXXXXX")
	for magic in '\xfd7zXZ\x00:xz' '\x28\xb5\x2f\xfd:zstd' '\x1f\x8b\x08:gzip'; do
		tool=${magic##*:}
		off=$(LC_ALL=C grep -obUaP "${magic%:*}" "$KIMG" | head -n1 | cut -d: -f1 || true)
		if [ -z "$off" ] || ! command -v "$tool" >/dev/null; then continue; fi
		# the payload has trailing bytes, so the decompressor "fails"
		tail -c +$((off + 1)) "$KIMG" | "$tool" -dcq >"$tmp" 2>/dev/null || true
		# ELF with a Xen note of type 18 (XEN_ELFNOTE_PHYS32_ENTRY)?
		[ "$(head -c4 "$tmp")" = $'\x7fELF' ] &&
		LC_ALL=C grep -qUaP '\x04\0\0\0[\x04\x08]\0\0\0\x12\0\0\0Xen\0' "$tmp" &&
			break
		: >"$tmp"
	done
	if [ -s "$tmp" ]; then
		find "$VMDIR/$KVER" -maxdepth 1 -name 'vmlinux-*' ! -name '*.*' ! -path "$out" -mmin +60 -delete
		mv "$tmp" "$out"
		KIMG=$out
	else
		rm -f "$tmp"
	fi
}

# QEMU option values escape commas by doubling them.
qesc() { printf '%s' "${1//,/,,}"; }

build_initramfs
BZIMAGE=$KIMG
pvh_kernel
RUN=$(mktemp -d "$VMDIR/run.XXXXXX")
{ printf '#!/bin/bash\nexec'; printf ' %q' "$@"; echo; } >"$RUN/cmd.sh"
printf '%s' "$STAGE2" >"$RUN/stage2.sh"
: >"$RUN/output.log"
: >"$RUN/output-tty.log"

# An oops ends the guest (oops=panic, panic=-1 reboots, -no-reboot stops
# QEMU): an oops in process context only kills the task, and the guest
# would idle to --timeout with the command's process gone.
APPEND="console=ttyS0 panic=-1 oops=panic quiet"
APPEND+=" vmrun_repo=$ROOT vmrun_dir=$RUN vmrun_mods=${MODULES:+$MODDIR}"
APPEND+=" vmrun_shares=$(IFS=:; echo "${SHARED[*]}")"
# /lib/modules/KVER with symlinks resolved (/lib -> usr/lib), as in the guest
APPEND+=" vmrun_modto=$(readlink -f /lib/modules)/$KVER"
# -icount with sleep=off skips idle guest time: while the guest waits for
# the host (9p), its clock runs ahead, so a few seconds of a busy host's
# I/O are minutes of guest time, and the hung-task detector reported a
# git blocked in v9fs_evict_inode "for more than 120 seconds" after a few
# host seconds. It measures nothing under -icount: off there.
[ "$ICOUNT" = 0 ] || APPEND+=" sysctl.kernel.hung_task_timeout_secs=0"
# shellcheck disable=SC2054 # commas are part of QEMU option values
QEMU=(qemu-system-x86_64 -accel tcg -cpu max -m "$MEM" -smp "$SMP"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$KIMG" -initrd "$INITRD" -append "$APPEND"
	-chardev "file,id=con,path=$(qesc "$RUN/console.log")" -serial chardev:con
	-chardev "file,id=tty,path=$(qesc "$RUN/output-tty.log")" -serial chardev:tty
	-device virtio-serial-pci
	-chardev "file,id=out,path=$(qesc "$RUN/output.log")"
	-device virtserialport,chardev=out,name=vmrun.out
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=repo,path=$(qesc "$ROOT"),security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo)
for i in "${!SHARED[@]}"; do
	QEMU+=(-fsdev "local,id=share$i,path=$(qesc "${SHARED[$i]}"),security_model=none,multidevs=remap"
	       -device "virtio-9p-pci,fsdev=share$i,mount_tag=share$i")
done
for i in "${!NICS[@]}"; do
	QEMU+=(-netdev "hubport,id=nic$i,hubid=0"
	       -device "virtio-net-pci,netdev=nic$i,mac=52:54:00:12:00:0$((i + 1))$(
		[ "${NICS[$i]}" = 0 ] || echo ",speed=${NICS[$i]},duplex=full")")
done
[ "$ICOUNT" = 0 ] || QEMU+=(-icount "shift=0,sleep=off")

log "kernel $KVER ($BZIMAGE), smp $SMP, mem $MEM$([ "$ICOUNT" = 0 ] || echo ", icount"), run dir ${RUN#"$ROOT"/}${SHARED[*]:+, shared ${SHARED[*]}}"
start=$SECONDS
# QEMU must never touch a TTY: no stdio chardev, stdin from /dev/null.
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$RUN/qemu.log" 2>&1 &
QPID=$!
# Stream the command's output while QEMU runs; tail exits after QEMU does.
tail -q -n +1 -s 0.2 -f --pid=$QPID "$RUN/output.log" "$RUN/output-tty.log" &
TPID=$!
trap 'kill $QPID $TPID 2>/dev/null || true' EXIT
trap 'echo "not ok vm-run: interrupted" >&2; exit 130' INT TERM
qrc=0
wait $QPID || qrc=$?
wait $TPID || true
trap - EXIT
elapsed=$((SECONDS - start))

klog=$RUN/dmesg
[ -s "$klog" ] || klog=$RUN/console.log
[ -z "$KEEP_LOG" ] || cp "$klog" "$KEEP_LOG"
show_log() {
	log "$1"
	tail -n 200 "$klog" | sed 's/^/# /' >&2
	sed 's/^/# qemu: /' "$RUN/qemu.log" >&2
	log "logs kept in ${RUN#"$ROOT"/}"
}
status=$(cat "$RUN/status" 2>/dev/null || true)
if ! [[ $status =~ ^[0-9]+$ ]]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		why="timed out after ${TIMEOUT}s"
	else
		why="guest died without an exit status (qemu exit $qrc)"
		if grep -q 'Kernel panic' "$RUN/console.log"; then why="guest kernel panic"; fi
	fi
	show_log "console log:"
	echo "not ok vm-run $KVER: $why" >&2
	exit 91
fi
tainted=$(cat "$RUN/tainted" 2>/dev/null || echo 0)
bad=$(cat "$RUN/dmesg" "$RUN/console.log" 2>/dev/null | tr -d '\r' | grep -E "$BAD_LOG" |
	awk '!seen[$0]++' | head -n 5 || true)
if [ -n "$bad" ] || (( tainted & ~ALLOW_TAINT )); then
	show_log "guest kernel log (last 200 lines):"
	if [ -n "$bad" ]; then
		log "bad kernel log lines:"
		echo "#   ${bad//$'\n'/$'\n'#   }" >&2
	fi
	(( tainted & ~ALLOW_TAINT )) &&
		log "kernel tainted $tainted, allowed mask $ALLOW_TAINT"
	echo "not ok vm-run $KVER: kernel log/taint check failed (command exit $status, ${elapsed}s)" >&2
	exit 90
fi
log "ok: command exit $status, kernel log clean, taint $tainted, ${elapsed}s"
rm -rf "$RUN"
exit "$status"
}
