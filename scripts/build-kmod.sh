#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules against one kernel tree into a private output directory,
# so several kernels can be built side by side, and fail on any warning.
#
#   scripts/build-kmod.sh KDIR OUTDIR [extra make args, e.g. C=1]
#
# Prints the build log; exits non-zero if the build fails or the compiler or
# sparse printed a warning.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=${1:?usage: build-kmod.sh KDIR OUTDIR [make args]}
OUT=${2:?usage: build-kmod.sh KDIR OUTDIR [make args]}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
shift 2

[ -f "$KDIR/Makefile" ] || {
	echo "build-kmod: $KDIR is not a kernel build tree (install linux-headers-<version>)" >&2
	exit 1
}
mkdir -p "$OUT"
# One build of OUT at a time (runs side by side share it), and none at all
# when OUT holds the build of these very sources, tree and arguments: a
# run's guests may be loading its modules.
exec {lock}> "$OUT/.build.lock"
flock "$lock"
stamp=$( { echo "$KDIR $*"; cd "$ROOT" && find kmod Kbuild -type f \
	! -name '*.o' ! -name '*.ko' -print0 | sort -z | xargs -0 sha256sum; } |
	sha256sum)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ] &&
   [ -f "$OUT/kmod/tcp_theta_powertcp.ko" ] && [ -f "$OUT/build.log" ]; then
	cat "$OUT/build.log"
	exit 0
fi
rm -f "$OUT/.stamp"
# Kbuild writes objects beside the sources: give it a copy of them.
rm -rf "$OUT/kmod"
cp -r "$ROOT/kmod" "$ROOT/Kbuild" "$OUT/"
rm -f "$OUT"/kmod/*.o "$OUT"/kmod/*.ko

log="$OUT/build.log"
if ! make -C "$KDIR" M="$OUT" W=1 "$@" modules >"$log" 2>&1; then
	cat "$log"
	echo "build-kmod: build against $KDIR failed" >&2
	exit 1
fi
cat "$log"
# Only our own sources count; "Skipping BTF" is a note, not a warning.
if grep -E '(warning|error):' "$log" | grep -q .; then
	echo "build-kmod: warnings building against $KDIR" >&2
	exit 1
fi
echo "$stamp" > "$OUT/.stamp"
