#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build, the QEMU kernel CI and the testbed need on a
# Debian 12 host, idempotently:
#   - toolchain, sparse, QEMU (TCG), busybox, iperf3, iproute2, plotting;
#   - bpftool, libbpf-dev and llvm (llvm-strip) for the BPF build (make bpf);
#   - dkms, dh-dkms, debhelper and lintian for make dkms-install / make deb
#     (the guests see the host's root, so the DKMS test uses these too);
#   - mininet and iputils-ping (mn's pingall) for the Mininet backend
#     (routers, no switch, no Open vSwitch: --no-install-recommends);
#   - shellcheck and pyflakes3 for make quick's lints;
#   - postgresql and python3-psycopg2 for the search's shared study
#     (scripts/pg-private.sh runs a server of its own; Debian's package
#     also sets up a system cluster, which nothing here uses);
#   - Debian's 6.1 (bookworm) kernel image + headers;
#   - Debian's 6.12 (bookworm-backports) kernel image + headers, adding the
#     backports suite from the machine's own Debian mirror entry if missing;
#   - linux-source-6.1 for checkpatch.pl (scripts/lint.sh extracts it) and,
#     with libelf-dev and
#     libssl-dev, the debug kernel (scripts/build-debug-kernel.sh).
#
# Writes the chosen kernel versions to build/kernels.env so that the other
# scripts know which kernels to test. Must run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
STAMP="$ROOT/build/kernels.env"
export DEBIAN_FRONTEND=noninteractive

die() { echo "setup: $*" >&2; exit 1; }
log() { echo "setup: $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root (apt-get install is needed)"
command -v apt-get >/dev/null || die "needs a Debian system with apt-get"

# Find the Debian mirror URI the machine already uses for bookworm, from
# either deb822 (*.sources) or one-line (*.list) apt sources.
mirror_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN{RS="";FS="\n"}
		     /Suites:[^\n]*bookworm( |$|\n|-updates)/ && !/security/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i);
						     split($i, u, " "); print u[1]; exit }
		     }' "$f"
	done | head -n1
	grep -hE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://[^ ]+[[:space:]]+bookworm[[:space:]]' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' | awk '{print $1}' | head -n1
	return 0
}

have_backports() {
	grep -rqsE 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

# Fast path: a previous run chose the kernels and everything is installed.
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
if [ -f "$STAMP" ]; then
	# shellcheck disable=SC1090
	. "$STAMP"
	all=1
	for p in qemu-system-x86 sparse iperf3 ethtool busybox-static clang \
		 libclang-rt-14-dev python3-matplotlib python3-optuna \
		 bpftool libbpf-dev llvm dkms dh-dkms debhelper lintian \
		 mininet iputils-ping shellcheck pyflakes3 linux-source-6.1 \
		 postgresql python3-psycopg2 \
		 "linux-image-${KVER_61:-none}" "linux-headers-${KVER_61:-none}" \
		 "linux-image-${KVER_612:-none}" "linux-headers-${KVER_612:-none}"; do
		installed "$p" || { all=0; break; }
	done
	if [ "$all" = 1 ]; then
		log "up to date: kernels $KVER_61 and $KVER_612"
		exit 0
	fi
fi

if ! have_backports; then
	uri=$(mirror_uri | head -n1 || true)
	[ -n "$uri" ] || die "no bookworm entry in the apt sources to derive a backports mirror from"
	log "adding bookworm-backports from the existing mirror entry"
	cat > /etc/apt/sources.list.d/powertcp-backports.sources <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	rm -f /var/lib/apt/lists/.powertcp-updated
fi

# apt-get update at most once per setup run, and only if lists look stale.
if [ ! -e /var/lib/apt/lists/.powertcp-updated ] ||
   ! ls /var/lib/apt/lists/*bookworm-backports*Packages* >/dev/null 2>&1; then
	log "apt-get update"
	apt-get update -qq || die "apt-get update failed"
	touch /var/lib/apt/lists/.powertcp-updated
fi

# The versioned kernel package that a metapackage points at in a suite.
kpkg() { # $1 = metapackage, $2 = target release or ""
	local t=()
	[ -n "$2" ] && t=(-t "$2")
	apt-cache "${t[@]}" depends "$1" 2>/dev/null |
		awk '/Depends: linux-(image|headers)-[0-9]/ {print $2; exit}'
}
kver_of() { echo "$1" | sed -E 's/^linux-(image|headers)-//'; }

# Pin 6.1 to the bookworm suite's own metapackage version.
img61=$(apt-cache show linux-image-amd64 2>/dev/null | awk '
	/^Version:/ {v=$2} /^Depends:/ && v !~ /bpo/ {print $2; exit}' | tr -d ',')
img612=$(kpkg linux-image-amd64 bookworm-backports)
[ -n "$img61" ] || die "cannot find Debian's 6.1 kernel package (linux-image-amd64)"
[ -n "$img612" ] || die "cannot find the bookworm-backports kernel package (linux-image-amd64)"
v61=$(kver_of "$img61")
v612=$(kver_of "$img612")

pkgs=(build-essential bc flex bison kmod cpio xz-utils zstd busybox-static
      libelf-dev libssl-dev
      qemu-system-x86 sparse iperf3 iproute2 ethtool iptables python3
      python3-matplotlib
      python3-numpy python3-optuna linux-source-6.1 clang libclang-rt-14-dev
      bpftool libbpf-dev llvm dkms dh-dkms debhelper lintian
      mininet iputils-ping shellcheck pyflakes3 postgresql python3-psycopg2
      "linux-image-$v61" "linux-headers-$v61"
      "linux-image-$v612" "linux-headers-$v612")
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed for: ${missing[*]}"
fi

mkdir -p "$(dirname "$STAMP")"
cat > "$STAMP" <<ENV
KVER_61=$v61
KVER_612=$v612
ENV
log "kernels: 6.1 = $v61, 6.12 = $v612"
