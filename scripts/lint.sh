#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lints of make quick, one check each, all of them clean:
#   every shell file (*.sh, and the scripts without the suffix whose
#   first line runs bash or sh) through shellcheck -S warning;
#   every Python file through pyflakes;
#   the modules and the BPF programs (kmod/, kmod/bpf/) through
#   checkpatch.pl --strict, the kernel's style. In kmod/bpf/ two of its
#   rules cannot hold and are off: VOLATILE (a const volatile global is
#   how libbpf's loader sets a read-only value before load; without it
#   clang folds it to 0) and CAMELCASE (C11's _Static_assert: BPF has no
#   static_assert or BUILD_BUG_ON).
#
#   scripts/lint.sh
#
# No root: checkpatch.pl comes from Debian's linux-source-6.1 tarball,
# extracted once into build/checkpatch/ (scripts/setup.sh does the same).
# Prints KTAP (scripts/tap.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
CP=$ROOT/build/checkpatch

# shellcheck source=scripts/tap.sh
. scripts/tap.sh

command -v shellcheck > /dev/null ||
	tap_bail "needs shellcheck (apt-get install shellcheck)"
/usr/bin/python3 -m pyflakes --version > /dev/null 2>&1 ||
	tap_bail "needs pyflakes (apt-get install pyflakes3)"

# The tree's files: git's if this is a clone, else every file.
files() {
	if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		git ls-files
	else
		find . -path ./build -prune -o -type f -print | sed 's|^\./||'
	fi
}

shell_files() {
	local f
	files | while read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh) echo "$f" ;;
		*.*) ;;
		*) head -n 1 "$f" | grep -qE '^#!(/usr)?/bin/(env )?(ba)?sh' &&
			echo "$f" ;;
		esac
	done
}

# checkpatch.pl, extracted from the linux-source tarball if not yet.
checkpatch_pl() {
	local tarball
	[ -x "$CP/scripts/checkpatch.pl" ] && return 0
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1*.tar.*' | head -n 1)
	[ -n "$tarball" ] ||
		{ echo "needs linux-source-6.1 (apt-get install linux-source-6.1)"; return 1; }
	mkdir -p "$CP" &&
	tar -xf "$tarball" -C "$CP" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
}

lint_shell() {
	local f
	mapfile -t f < <(shell_files)
	# Two at a time: following every sourced file, it takes seconds a file.
	printf '%s\n' "${f[@]}" | xargs -P 2 -n 6 shellcheck -S warning -x &&
		echo "${#f[@]} files"
}

lint_python() {
	local f
	mapfile -t f < <(files | grep '\.py$')
	/usr/bin/python3 -m pyflakes "${f[@]}" && echo "${#f[@]} files"
}

lint_kernel_style() {
	local f=(kmod/*.[ch]) b=(kmod/bpf/*.[ch])
	checkpatch_pl || return 1
	perl "$CP/scripts/checkpatch.pl" --strict --no-tree --quiet -f "${f[@]}" &&
	perl "$CP/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--ignore VOLATILE,CAMELCASE -f "${b[@]}" &&
		echo "$((${#f[@]} + ${#b[@]})) files"
}

check "shellcheck -S warning: every shell file" lint_shell
check "pyflakes: every Python file" lint_python
check "checkpatch --strict: kmod/ and kmod/bpf/" lint_kernel_style
tap_done
