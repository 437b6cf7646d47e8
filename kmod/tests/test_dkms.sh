#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The powertcp-dkms package in a booted kernel: install it, DKMS builds the
# modules for the running kernel, the sysctl autoloads them, the opt-in
# boot files work when copied into place, a second kernel's headers
# arriving get a build too, and removing the package leaves nothing of ours
# in /lib/modules. Runs as root inside scripts/vm-run.sh, whose root is a
# tmpfs overlay of the host's: what dpkg and DKMS write here is lost at
# poweroff and never reaches the host.
#
#   kmod/tests/test_dkms.sh DEB [OTHER_KERNEL_RELEASE]
#
# OTHER_KERNEL_RELEASE: a kernel with headers installed; its headers are
# hidden while the package is installed, then "appear" through the headers
# package's own postinst (the hooks dpkg runs when they are installed).
# Prints KTAP (scripts/tap.sh).
set -u

DEB=${1:?usage: test_dkms.sh DEB [OTHER_KERNEL_RELEASE]}
OTHER=${2:-}
KREL=$(uname -r)
PKG=powertcp-dkms
export DEBIAN_FRONTEND=noninteractive
EX=/usr/share/doc/$PKG/examples

# shellcheck source=scripts/tap.sh
. "$(dirname "$0")/../../scripts/tap.sh"

ours() { find /lib/modules/ -name 'tcp_theta_powertcp.ko*' -o -name 'tcp_powertcp_evo.ko*'; }
version=$(dpkg-deb -f "$DEB" Version)

# built_for KREL: both modules in updates/dkms of KREL, built for KREL.
built_for() {
	local m f v
	for m in tcp_theta_powertcp tcp_powertcp_evo; do
		f=$(ls /lib/modules/"$1"/updates/dkms/$m.ko* 2>/dev/null | head -n1)
		[ -n "$f" ] || { echo "no $m in /lib/modules/$1/updates/dkms"; return 1; }
		v=$(modinfo -F vermagic "$f" | cut -d' ' -f1)
		[ "$v" = "$1" ] || { echo "$f: vermagic $v"; return 1; }
	done
	dkms status powertcp | grep -q "powertcp/$version, $1, [^:]*: installed" ||
		{ dkms status; return 1; }
}

autoloads() {
	sysctl -qw net.ipv4.tcp_congestion_control=theta_powertcp || return 1
	grep -q '^tcp_theta_powertcp ' /proc/modules || { echo "not loaded"; return 1; }
	# The loaded module is the DKMS build, not one from elsewhere.
	[ "$(cat /sys/module/tcp_theta_powertcp/srcversion)" = \
	  "$(modinfo -F srcversion /lib/modules/"$KREL"/updates/dkms/tcp_theta_powertcp.ko*)" ] ||
		{ echo "loaded module is not the DKMS one"; return 1; }
	modinfo -n tcp_theta_powertcp
}

# A connection opened now uses the default algorithm.
new_flow_uses() { # cc
	/usr/bin/python3 - "$1" <<'PY'
import socket, sys
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname())
cc = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0")
sys.exit(cc.decode() != sys.argv[1])
PY
}

unload_all() {
	sysctl -qw net.ipv4.tcp_congestion_control=cubic
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic"
	modprobe -r tcp_theta_powertcp tcp_powertcp_evo
}

opt_in_not_enabled() {
	local d
	[ -f "$EX/modules-load.d/powertcp.conf" ] && [ -f "$EX/sysctl.d/60-powertcp.conf" ] ||
		{ echo "examples missing"; return 1; }
	for d in /etc /usr/lib /lib /run; do
		if grep -ls 'powertcp' "$d"/modules-load.d/* "$d"/sysctl.d/*; then
			echo "enabled in $d"
			return 1
		fi
	done
	return 0
}

# What systemd does at boot with the files copied into place: modules-load
# first, then sysctl (systemd-sysctl.service runs after modules-load).
opt_in_works() {
	unload_all || return 1
	cp "$EX/modules-load.d/powertcp.conf" /etc/modules-load.d/ &&
	cp "$EX/sysctl.d/60-powertcp.conf" /etc/sysctl.d/ || return 1
	/lib/systemd/systemd-modules-load || return 1
	/lib/systemd/systemd-sysctl /etc/sysctl.d/60-powertcp.conf || return 1
	rm -f /etc/modules-load.d/powertcp.conf /etc/sysctl.d/60-powertcp.conf
	grep -q '^tcp_theta_powertcp ' /proc/modules &&
	grep -q '^tcp_powertcp_evo ' /proc/modules || { echo "not loaded"; return 1; }
	cat /proc/sys/net/ipv4/tcp_allowed_congestion_control
	grep -qw theta_powertcp /proc/sys/net/ipv4/tcp_allowed_congestion_control &&
	grep -qw powertcp_evo /proc/sys/net/ipv4/tcp_allowed_congestion_control
}

# The hooks dpkg runs when a linux-headers package is installed.
headers_appear() {
	mv "/lib/modules/$OTHER/build.hidden" "/lib/modules/$OTHER/build" || return 1
	if [ -x "/var/lib/dpkg/info/linux-headers-$OTHER.postinst" ]; then
		"/var/lib/dpkg/info/linux-headers-$OTHER.postinst" configure
	else
		run-parts --report --exit-on-error --arg="$OTHER" /etc/kernel/header_postinst.d
	fi
}

nothing_left() {
	local left
	left=$(ours; ls -d /usr/src/powertcp-* /var/lib/dkms/powertcp 2>/dev/null)
	[ -z "$left" ] || { echo "left: $left"; return 1; }
	! modinfo tcp_theta_powertcp >/dev/null 2>&1 || { echo "modinfo still finds it"; return 1; }
}

echo "# kernel $KREL, $DEB (version $version), second kernel ${OTHER:-none}"
command -v dkms >/dev/null || tap_bail "dkms missing on the host (apt-get install dkms)"
# A host's own make install would be in the guest's /lib/modules too.
pre=$(ours)
if [ -n "$pre" ]; then
	echo "# removing (in this guest only) copies installed before:" $pre
	rm -f $pre && depmod -a
fi
if [ -n "$OTHER" ]; then
	[ -e "/lib/modules/$OTHER/build" ] || tap_bail "no headers of $OTHER"
	mv "/lib/modules/$OTHER/build" "/lib/modules/$OTHER/build.hidden"
fi

t0=$SECONDS
check "dpkg -i installs $PKG" sh -c "dpkg -i '$DEB' > /tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }"
echo "# install and DKMS build took $((SECONDS - t0)) s"
check "DKMS built and installed both modules for the running $KREL" built_for "$KREL"
check "sysctl tcp_congestion_control=theta_powertcp autoloads the DKMS build" autoloads
check "a new connection uses theta_powertcp" new_flow_uses theta_powertcp
check "the boot-time files are shipped as examples, not enabled" opt_in_not_enabled
check "copied into place, modules-load.d loads both and sysctl.d allows them" opt_in_works
check "unloaded" unload_all
if [ -n "$OTHER" ]; then
	check "no build for $OTHER while its headers are missing" \
		sh -c "! ls /lib/modules/$OTHER/updates/dkms/tcp_*powertcp* 2>/dev/null"
	t0=$SECONDS
	check "$OTHER's headers appear: their postinst hooks run DKMS" headers_appear
	echo "# the second build took $((SECONDS - t0)) s"
	check "DKMS built and installed both modules for $OTHER" built_for "$OTHER"
fi
check "dpkg --purge $PKG" sh -c "dpkg --purge $PKG > /tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }"
check "nothing of ours left in /lib/modules, /usr/src or the DKMS tree" nothing_left

tap_done
