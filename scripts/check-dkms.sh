#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-dkms: the powertcp-dkms package in one booted guest
# (kmod/tests/test_dkms.sh): DKMS builds the modules for the guest's
# kernel, the sysctl autoloads them, the opt-in files work, a second
# kernel's headers appearing get a build too, and the purge leaves nothing
# of ours in /lib/modules. Long, and not part of make check: DKMS compiles
# both modules under TCG, about 1000 s a kernel on a loaded 2-core host.
#
#   scripts/check-dkms.sh [--kernel 6.12|6.1] [--timeout SEC] [--one]
#
# --kernel: the guest's kernel (default 6.12); the other Debian kernel of
# build/kernels.env is the second one, unless --one. --timeout: the
# guest's (default 3600 s, 6000 s with a second kernel: at host load 14
# one 6.12 run took 840 s to install and build, and its purge ran past
# 2100 s). The guest's root is a tmpfs overlay
# of the host's: dpkg and DKMS write nothing to the host's /lib/modules.
# Root (QEMU, the package build needs none). Prints KTAP (scripts/tap.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
KERNEL=6.12 TIMEOUT='' ONE=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=${2:?--kernel needs 6.1 or 6.12}; shift ;;
	--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
	--one) ONE=1 ;;
	-h|--help) sed -n '4,19p' "$0"; exit 0 ;;
	*) echo "check-dkms: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

# shellcheck source=scripts/tap.sh
. scripts/tap.sh
# shellcheck disable=SC1091
. build/kernels.env 2>/dev/null || tap_bail "no build/kernels.env: run scripts/setup.sh"
case $KERNEL in
6.1) rel=$KVER_61 other=$KVER_612 ;;
6.12) rel=$KVER_612 other=$KVER_61 ;;
*) echo "check-dkms: --kernel 6.1 or 6.12" >&2; exit 2 ;;
esac
[ "$ONE" = 0 ] && [ -e "/lib/modules/$other/build" ] || other=''
[ -d "/lib/modules/$rel" ] || tap_bail "kernel $rel not installed"
[ -n "$TIMEOUT" ] || { TIMEOUT=3600; [ -z "$other" ] || TIMEOUT=6000; }
START=$(date +%s)

mkdir -p build/check
deb=$(bash scripts/build-deb.sh 2>build/check/check-dkms-deb.log | tail -n1)
if [ -f "$deb" ]; then
	ok "make deb: $(basename "$deb")"
else
	not_ok "make deb (build/check/check-dkms-deb.log)"
	tap_done
fi
# One build a kernel under TCG; -icount, so in-guest timeouts follow
# guest time however loaded the host is.
tap_suite --log build/check/check-dkms.log \
	"powertcp-dkms: DKMS builds for $rel${other:+ and $other}, autoload, removal" \
	scripts/vm-run.sh --kernel "$KERNEL" --icount \
	--timeout "$TIMEOUT" \
	-- bash kmod/tests/test_dkms.sh "$deb" ${other:+"$other"}
tap_diag "check-dkms took $(($(date +%s) - START)) s"
tap_done
