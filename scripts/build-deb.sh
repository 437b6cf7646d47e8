#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build build/deb/powertcp-dkms_VERSION_all.deb with Debian's own
# tooling (dpkg-buildpackage, debhelper, dh-dkms) from a copy of the files
# the package ships, then run lintian on it. Fails on any lintian error or
# warning that debian/powertcp-dkms.lintian-overrides does not explain.
#
#   scripts/build-deb.sh [OUTDIR]        (default build/deb)
#
# Prints the path of the .deb last. Needs dpkg-dev, debhelper, dh-dkms and
# lintian (scripts/setup.sh installs them); no root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/build/deb}
die() { echo "build-deb: $*" >&2; exit 1; }

for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${t%%:*}" >/dev/null ||
		die "${t%%:*} missing (apt-get install ${t#*:})"
done
[ -f /usr/share/perl5/Debian/Debhelper/Sequence/dkms.pm ] ||
	die "dh_dkms missing (apt-get install dh-dkms)"

cd "$ROOT"
version=$(dpkg-parsechangelog -S Version)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
src=$OUT/powertcp-$version
rm -rf "$src" "$OUT"/powertcp*_"$version"_*.* "$OUT"/powertcp*_"$version".*
mkdir -p "$src/kmod"
# Only what the package ships: a copy, so the build cannot touch the tree.
cp -r debian dist dkms.conf Kbuild "$src/"
cp kmod/Kbuild kmod/*.c kmod/*.h "$src/kmod/"
(cd "$src" && dpkg-buildpackage -b -us -uc --no-sign) >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "dpkg-buildpackage failed (log: $OUT/build.log)"; }
deb=$OUT/powertcp-dkms_${version}_all.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
rm -rf "$src"
echo "# lintian $(lintian --version | awk '{print $2}'):"
lintian --fail-on error,warning --display-level '>=info' --show-overrides \
	"$deb" || die "lintian: errors or warnings not explained in debian/powertcp-dkms.lintian-overrides"
echo "$deb"
