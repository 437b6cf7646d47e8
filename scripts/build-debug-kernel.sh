#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, the debug kernel of make check-debug: Debian's 6.1 source
# (package linux-source-6.1) on x86_64_defconfig + kvm_guest.config +
# scripts/debug-kernel.config: lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP,
# KASAN, UBSAN, DEBUG_OBJECTS and friends, which Debian's packaged kernels
# lack. Everything scripts/vm-run.sh needs to boot on the host's root is
# built in; the qdiscs, tcp_bbr and tcp_dctcp are modules, as on Debian.
#
#   scripts/build-debug-kernel.sh [--jobs N]
#   scripts/build-debug-kernel.sh --config-only
#				configure a scratch tree, build/debug-kernel-config/,
#				and check the fragment; build nothing (make check's
#				smoke of this script: a minute)
#
# Output in build/debug-kernel/: the tree (linux-source-6.1/, also the
# KDIR to build our modules against), mods/lib/modules/<release>/, and
# kernel.env (DEBUG_KIMG, DEBUG_KDIR, DEBUG_MODULES, DEBUG_KVER) for
# vm-run.sh --kernel/--modules. Cached: a second run with the same source
# package and config fragment only checks and prints kernel.env. The first
# build takes about 25 minutes of both cores of a 2-core host.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=$ROOT/build/debug-kernel
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
FRAG=$ROOT/scripts/debug-kernel.config
JOBS=$(nproc) CONFIG_ONLY=0

die() { echo "build-debug-kernel: $*" >&2; exit 1; }
log() { echo "# build-debug-kernel: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--jobs: a positive number"
		JOBS=$2; shift ;;
	--config-only) CONFIG_ONLY=1 ;;
	-h|--help) sed -n '4,22p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

[ -f "$SRC_TAR" ] || die "$SRC_TAR missing (apt-get install linux-source-6.1)"
for t in gcc make flex bison bc cpio; do
	command -v "$t" >/dev/null || die "$t missing (apt-get install build-essential flex bison bc cpio)"
done
for h in /usr/include/libelf.h /usr/include/openssl/ssl.h; do
	[ -f "$h" ] || die "$h missing (apt-get install libelf-dev libssl-dev)"
done

# unpack DIR: the source tree in DIR/linux-source-6.1, once.
unpack() {
	[ -f "$1/linux-source-6.1/Makefile" ] && return
	log "unpacking $SRC_TAR"
	mkdir -p "$1"
	tar -C "$1" -xf "$SRC_TAR"
}

# configure: the .config of the current tree, every fragment line in it.
configure() {
	local missing
	log "configuring: x86_64_defconfig + kvm_guest.config + ${FRAG#"$ROOT"/}"
	make -s x86_64_defconfig >/dev/null
	make -s kvm_guest.config >/dev/null
	scripts/kconfig/merge_config.sh -m .config "$FRAG" >/dev/null
	make -s olddefconfig >/dev/null
	# Kconfig silently drops what a dependency forbids.
	missing=$(grep -E '^(CONFIG_[A-Z0-9_]+=.*|# CONFIG_[A-Z0-9_]+ is not set)$' "$FRAG" |
		while IFS= read -r l; do grep -qxF -- "$l" .config || echo "  $l"; done)
	[ -z "$missing" ] || die "the config lost lines of ${FRAG#"$ROOT"/}:
$missing"
}

if [ "$CONFIG_ONLY" = 1 ]; then
	unpack "$OUT-config"
	cd "$OUT-config/linux-source-6.1"
	configure
	echo "every line of ${FRAG#"$ROOT"/} holds in $PWD/.config"
	exit 0
fi

# The cache key: the source package's version and our fragment.
key=$({ dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
	stat -c '%s %Y' "$SRC_TAR"; cat "$FRAG"; } | sha256sum | cut -c1-16)
TREE=$OUT/linux-source-6.1
if [ -f "$OUT/kernel.env" ] && grep -qx "DEBUG_KEY=$key" "$OUT/kernel.env"; then
	log "cached (key $key): $OUT/kernel.env"
	cat "$OUT/kernel.env"
	exit 0
fi
rm -f "$OUT/kernel.env"
unpack "$OUT"
cd "$TREE"
configure

log "building bzImage and modules with $JOBS jobs (progress: $OUT/build.log)"
t0=$SECONDS
if ! make -j"$JOBS" bzImage modules >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	die "kernel build failed (whole log: $OUT/build.log)"
fi
rel=$(make -s kernelrelease)
rm -rf "$OUT/mods"
make -s INSTALL_MOD_PATH="$OUT/mods" modules_install >/dev/null
log "built $rel in $((SECONDS - t0)) s"

cat >"$OUT/kernel.env" <<EOF
DEBUG_KEY=$key
DEBUG_KVER=$rel
DEBUG_KIMG=$TREE/arch/x86/boot/bzImage
DEBUG_KDIR=$TREE
DEBUG_MODULES=$OUT/mods
EOF
cat "$OUT/kernel.env"
