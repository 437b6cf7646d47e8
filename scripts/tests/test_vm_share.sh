#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host directories given to guest runs (issue 14), on the host: what a
# guest writes into a scripts/vm-run.sh --share directory lands on the host,
# for an absolute path under /tmp (hidden in the guest by its own tmpfs
# /tmp otherwise) and a relative path outside the repository; testbed/run.sh
# shares its --out there and resolves a relative one against the caller's
# directory; a path that cannot be shared is refused before any guest
# starts, with a one-line reason. One short guest boot.
#
#   scripts/tests/test_vm_share.sh [KERNEL]    (6.1 by default; as root,
#                                              after scripts/setup.sh)
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
KERNEL=${1:-6.1}
T=$(mktemp -d /tmp/vmshare.XXXXXX)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/cwd"
touch "$T/file"

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

# one_line_refusal COMMAND...: fails, one line on stderr (printed), and no
# guest started (no new run directory under build/vm).
one_line_refusal() {
	local err=$T/err rc=0 before after
	before=$(find "$ROOT/build/vm" -maxdepth 1 -name 'run.*' 2>/dev/null | wc -l)
	"$@" > /dev/null 2> "$err" || rc=$?
	after=$(find "$ROOT/build/vm" -maxdepth 1 -name 'run.*' 2>/dev/null | wc -l)
	if [ "$rc" -ne 0 ] && [ "$(wc -l < "$err")" -eq 1 ] &&
	   [ "$after" -le "$before" ]; then
		cat "$err"
		return 0
	fi
	echo "exit $rc, $((after - before)) guests, stderr: $(head -c 300 "$err")"
	return 1
}

# The guest writes into an absolute share under /tmp and a relative one
# outside the repository; the host sees both.
guest_writes() {
	(cd "$T/cwd" && "$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" \
		--timeout 300 --share "$T/abs" --share ../rel -- \
		sh -c "mountpoint -q /tmp && mountpoint -q '$T/abs' &&
		       mountpoint -q '$T/rel' &&
		       echo abs > '$T/abs/f' && echo rel > '$T/rel/f'" \
		> "$T/vm.log" 2>&1) || { tail -n 5 "$T/vm.log"; return 1; }
	if [ "$(cat "$T/abs/f" 2>/dev/null)" != abs ] ||
	   [ "$(cat "$T/rel/f" 2>/dev/null)" != rel ]; then
		echo "host sees: $(find "$T/abs" "$T/rel" 2>&1 | tr '\n' ' ')"
		return 1
	fi
	echo "the host sees abs/f and rel/f"
}

# run.sh --dry-run: the guest command for OUT (as given, from cwd) shares
# WANT and writes to WANT/cubic/seed-1, staged (WANT/.run-*/cubic/seed-1).
run_shares() { # cwd out want
	local cmd
	cmd=$(cd "$1" && bash "$ROOT/testbed/run.sh" incast --dry-run \
		--algorithms cubic --out "$2") || return 1
	if ! echo "$cmd" | grep -q -- "--share $3 " ||
	   ! echo "$cmd" | grep -q -- "--out $3/.run-STAGING/cubic/seed-1 "; then
		echo "$cmd"
		return 1
	fi
	echo "shared: $3"
}

# Inside the repository nothing is shared: the repo is mounted anyway.
run_in_repo() {
	local cmd
	cmd=$(cd "$ROOT" && bash testbed/run.sh incast --dry-run \
		--algorithms cubic --out build/test-vm-share) || return 1
	rm -rf "$ROOT/build/test-vm-share"
	! echo "$cmd" | grep -q -- "--share" || { echo "$cmd"; return 1; }
	echo "no share"
}

check "a guest writes into --share dirs: absolute under /tmp, relative outside the repo" \
	guest_writes
check "vm-run: a share that cannot be created is refused, no guest" \
	one_line_refusal "$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" \
	--share "$T/file/sub" -- true
check "vm-run: a share path with a space is refused, no guest" \
	one_line_refusal "$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" \
	--share "$T/a b" -- true
check "run.sh: an absolute --out under /tmp is shared" \
	run_shares "$T/cwd" "$T/out" "$T/out"
check "run.sh: a relative --out resolves against the caller's directory" \
	run_shares "$T/cwd" ../relout "$T/relout"
check "run.sh: an --out inside the repository is not shared" run_in_repo
check "run.sh: an absolute --out that cannot be made is refused, no guest" \
	one_line_refusal bash "$ROOT/testbed/run.sh" incast --algorithms cubic \
	--out "$T/file/sub"
check "run.sh: a relative --out that cannot be made is refused, no guest" \
	one_line_refusal sh -c "cd '$T/cwd' && exec bash '$ROOT/testbed/run.sh' \
	incast --algorithms cubic --out ../file/sub"
check "run.sh: an --out with a space is refused, no guest" \
	one_line_refusal bash "$ROOT/testbed/run.sh" incast --algorithms cubic \
	--out "$T/a b"

check "nothing was created for the refused paths with a space" \
	test ! -e "$T/a b"

tap_done
