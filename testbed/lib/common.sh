# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What every experiment (testbed/EXP/run.sh) shares: the common options
# and their help, the paper's scaling rule, the algorithm registry
# (testbed/algorithms.tsv), congestion control specs and module loading,
# the run's own namespaces, cleanup on any exit, tracing, and the one
# params.json writer. testbed/run.sh sources it for the spec parser and
# the registry.
#
# An experiment sets its own defaults (RATE_MBPS at least), defines usage()
# (calling tb_usage_common) and a handler for its own options, then calls
#   tb_parse_args HANDLER "$@"   the options; HANDLER ARGS... consumes its
#                                own (TB_SHIFT=1 or 2) or returns 1
#   tb_setup                     checks, scaled defaults, the cleanup trap
#   tb_prelude TOOL...           the work directory and the congestion
#                                control, ready to use (--check-args: the
#                                check ends here, before anything is done)
# and at the end tb_param KEY VALUE... and tb_write_params FILE.

# "A && B || die" throughout: die if any of the steps fails, as meant.
# shellcheck disable=SC2015

[ -z "${TB_COMMON_LOADED:-}" ] || return 0
TB_COMMON_LOADED=1

TB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TB_PROG=${TB_PROG:-testbed}
TB_REGISTRY=$TB_ROOT/testbed/algorithms.tsv
# The topologies' settings in many namespaces at once (topology.sh).
# shellcheck disable=SC2034 # topology.sh's
TB_NSCONF=$TB_ROOT/userspace-tools/bin/nsconf
TB_TRACEFS=/sys/kernel/tracing

tb_die() {
	echo "$TB_PROG: $*" >&2
	exit 2
}

# tb_num OPTION VALUE: die unless VALUE is a positive integer.
tb_num() {
	[[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] ||
		tb_die "$1: '$2' is not a positive integer"
}

# tb_num0 OPTION VALUE: die unless VALUE is a non-negative integer.
tb_num0() {
	[[ $2 =~ ^[0-9]+$ ]] || tb_die "$1: '$2' is not a non-negative integer"
}

# tb_val OPTION VALUE: die if VALUE is empty.
tb_val() {
	[ -n "$2" ] || tb_die "$1 needs a value"
}

# --- the registry ----------------------------------------------------------

# tb_reg NAME FIELD: FIELD (label, colour, marker, qdisc, load, experiments)
# of algorithm NAME; empty if NAME is not in the registry.
tb_reg() {
	awk -F'\t' -v n="$1" -v f="$2" '
		/^#/ || NF < 7 { next }
		!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
		$1 == n { print $col[f]; exit }' "$TB_REGISTRY"
}

# tb_reg_names [EXPERIMENT]: the registry's names, in order; with
# EXPERIMENT, only those run by default in it.
tb_reg_names() {
	awk -F'\t' -v e="${1:-}" '
		/^#/ || NF < 7 { next }
		!hdr { hdr = 1; next }
		e == "" || ("," $7 ",") ~ ("," e ",") { print $1 }' "$TB_REGISTRY"
}

# tb_ecn_k CC K: the ECN marking threshold of CC's queue: K if the registry
# gives it the ecn queue (DCTCP), else 0 (a plain FIFO).
tb_ecn_k() {
	if [ "$(tb_reg "$1" qdisc)" = ecn ]; then echo "$2"; else echo 0; fi
}

# --- the scaling rule ------------------------------------------------------

# The paper's testbed runs at 25 Gb/s with a 4.64 us in-rack base RTT. At R
# Mbit/s, time stretches by 25000/R: the same flows, the same BDP in bytes
# and packets, the same buffer in BDPs, the same timeline in base RTTs
# (docs/TESTBED.md).
tb_scaled_rtt_us() { # rate_mbps
	echo $((464 * 25000 / $1 / 100))
}

tb_time_scale() { # rate_mbps
	echo $((25000 / $1))
}

# --- congestion control specs ----------------------------------------------

# tb_cc_parse SPEC: split a congestion control spec into TB_CC (the name
# the kernel registers), TB_CC_KO (a module file, or empty) and
# TB_CC_PARAMS (NAME=INTEGER module parameters). SPEC is one of
#   NAME                       from the registry, or any the kernel has
#   NAME=/path/to/tcp_x.ko     a module of your own that registers NAME
#   NAME=[KO]:P=V[:P=V...]     the same with module parameters; with no KO,
#                              parameters of NAME's own module
# A bad spec dies with a one-line reason.
tb_cc_parse() {
	local spec=$1 rest p seen=' ' o=${TB_CC_OPT:---cc}
	TB_CC=${spec%%=*} TB_CC_KO='' TB_CC_PARAMS=()
	[[ $TB_CC =~ ^[a-z0-9_]{1,15}$ ]] ||
		tb_die "$o: '$TB_CC' is not a congestion control name ([a-z0-9_], at most 15)"
	[ "$spec" != "$TB_CC" ] || return 0
	rest=${spec#*=}
	TB_CC_KO=${rest%%:*}
	if [ -n "$TB_CC_KO" ]; then
		[[ $TB_CC_KO == *.ko ]] ||
			tb_die "$o: '$TB_CC_KO' is not a module file (NAME=PATH.ko[:P=V...])"
		[[ $TB_CC_KO != *[[:space:],]* ]] ||
			tb_die "$o: module paths with spaces or commas are not supported: '$TB_CC_KO'"
	fi
	[ "$rest" != "$TB_CC_KO" ] || return 0
	rest=${rest#*:}
	[ -n "$rest" ] || tb_die "$o: '$spec': no parameter after ':'"
	IFS=: read -r -a TB_CC_PARAMS <<< "$rest"
	for p in "${TB_CC_PARAMS[@]}"; do
		[[ $p =~ ^[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+$ ]] ||
			tb_die "$o: '$p' in '$spec' is not PARAM=INTEGER"
		[[ $seen != *" ${p%%=*} "* ]] ||
			tb_die "$o: parameter ${p%%=*} given twice in '$spec'"
		seen+="${p%%=*} "
	done
}

# --- loading ---------------------------------------------------------------

tb_cc_available() {
	grep -qw "$1" /proc/sys/net/ipv4/tcp_available_congestion_control
}

# tb_module_build_id MODULE: the GNU build id of a loaded module (from
# /sys/module/MODULE/notes), or of a .ko file; empty if it has none.
tb_module_build_id() {
	/usr/bin/python3 "$TB_ROOT/testbed/lib/params.py" build-id "$1" 2>/dev/null || true
}

# tb_same VALUE READBACK: a parameter reads back as written (integers
# compare as numbers, 1/0 as a bool's Y/N).
tb_same() {
	case $2 in
	Y) [ "$1" = 1 ] ;;
	N) [ "$1" = 0 ] ;;
	*) [[ $2 =~ ^-?[0-9]+$ ]] && [ "$1" -eq "$2" ] ;;
	esac
}

# tb_set_param MODULE NAME VALUE: write a parameter of a loaded module;
# a refusal dies with a one-line reason.
tb_set_param() {
	local f=/sys/module/$1/parameters/$2 err
	[ -e "$f" ] || tb_die "$TB_CC: module $1 has no parameter $2" \
		"(has: $(cd "/sys/module/$1/parameters" 2>/dev/null && echo *))"
	if ! err=$( { printf '%s\n' "$3" > "$f"; } 2>&1 ); then
		tb_die "$TB_CC: module $1 refused $2=$3 (${err##*: })"
	fi
	tb_same "$3" "$(cat "$f")" ||
		tb_die "$TB_CC: module $1 took $2=$3 but reads back $(cat "$f")"
}

# tb_params_known MODULE|KO: die unless every TB_CC_PARAMS is one of its
# parameters (modinfo), as insmod and modprobe only warn about unknown ones.
tb_params_known() {
	local have p
	have=" $(modinfo -p "$1" 2>/dev/null | cut -d: -f1 | sort -u | tr '\n' ' ')"
	for p in "${TB_CC_PARAMS[@]}"; do
		[[ $have == *" ${p%%=*} "* ]] ||
			tb_die "$TB_CC: module ${1##*/} has no parameter ${p%%=*} (has:${have% })"
	done
	TB_HAVE_PARAMS=$have
}

# tb_load_error MODULE DMESG_LINES ERROR: the one-line reason of a failed
# insmod/modprobe: the kernel's complaint about a parameter if it logged
# one since DMESG_LINES, else the tool's message.
tb_load_error() {
	local why
	why=$(dmesg | tail -n +$(($2 + 1)) | grep -F "$1: " |
		sed -n 's/^\[[^]]*\] *//; /invalid for parameter\|Unknown parameter/p' |
		tail -n 1)
	echo "${why:-${3//$'\n'/ }}"
}

# tb_load_cc: make TB_CC (tb_cc_parse) available with its parameters, from
#   - TB_CC_KO if given: insmod it (its parameters, and base_rtt_us and
#     line_rate_mbps = TAU_US and RATE_MBPS if it has those and they are not
#     given); if its module is loaded already, write the parameters instead;
#   - the kmod directory for the registry's kmod algorithms (our modules),
#     the same way;
#   - else the kernel's own: modprobe tcp_NAME, or already there.
# Sets TB_CC_MODULE (the module's name, empty if none) and TB_CC_FILE (the
# .ko loaded, or empty). Dies with a one-line reason if anything is refused
# or NAME does not appear in tcp_available_congestion_control.
tb_load_cc() {
	local ko=$TB_CC_KO mod='' p n args=() id1 id2 err n0

	TB_CC_BPF=''
	if [ "$TB_BPF" = 1 ] && [ -z "$ko" ] &&
	   [ "$(tb_reg "$TB_CC" load)" = kmod ]; then
		tb_load_bpf
		return
	fi
	if [ -z "$ko" ] && [ "$(tb_reg "$TB_CC" load)" = kmod ]; then
		ko=$KMOD_DIR/tcp_$TB_CC.ko
		[ -f "$ko" ] || tb_die "$ko missing (scripts/build-kmod.sh)"
	fi
	TB_CC_FILE=''
	if [ -n "$ko" ]; then
		[ -f "$ko" ] && [ -r "$ko" ] || tb_die "$TB_CC: no module file '$ko'"
		ko=$(cd "$(dirname "$ko")" && pwd)/$(basename "$ko")
		mod=$(modinfo -F name "$ko" 2>/dev/null || true)
		[ -n "$mod" ] || mod=$(basename "$ko" .ko | tr - _)
		tb_params_known "$ko"
		# The testbed's tau and rate, unless given.
		for n in base_rtt_us="$TAU_US" line_rate_mbps="$RATE_MBPS"; do
			[[ $TB_HAVE_PARAMS == *" ${n%%=*} "* ]] || continue
			[[ " ${TB_CC_PARAMS[*]} " == *" ${n%%=*}="* ]] || args+=("$n")
		done
		args+=("${TB_CC_PARAMS[@]}")
		if [ -d "/sys/module/$mod" ]; then
			id1=$(tb_module_build_id "$mod")
			id2=$(tb_module_build_id "$ko")
			[ "$id1" = "$id2" ] || tb_die "$TB_CC: $mod is loaded from" \
				"another build (build id ${id1:-none}, $ko has" \
				"${id2:-none}): rmmod $mod first"
			for p in "${args[@]}"; do
				tb_set_param "$mod" "${p%%=*}" "${p#*=}"
			done
		else
			n0=$(dmesg | wc -l)
			err=$(insmod "$ko" "${args[@]}" 2>&1) ||
				tb_die "$TB_CC: cannot load $ko ${args[*]}:" \
					"$(tb_load_error "$mod" "$n0" "$err")"
		fi
		TB_CC_FILE=$ko
	elif ! tb_cc_available "$TB_CC"; then
		mod=tcp_$TB_CC
		modinfo "$mod" > /dev/null 2>&1 || tb_die "congestion" \
			"control '$TB_CC' not available (no module $mod)"
		tb_params_known "$mod"
		n0=$(dmesg | wc -l)
		err=$(modprobe "$mod" "${TB_CC_PARAMS[@]}" 2>&1) ||
			tb_die "congestion control '$TB_CC' not available" \
				"(modprobe $mod: $(tb_load_error "$mod" "$n0" "$err"))"
	else
		# Built in, or its module loaded already.
		mod=tcp_$TB_CC
		for p in "${TB_CC_PARAMS[@]}"; do
			[ -d "/sys/module/$mod" ] || tb_die "$TB_CC is built" \
				"into the kernel without a module $mod: no parameters"
			tb_set_param "$mod" "${p%%=*}" "${p#*=}"
		done
	fi
	[ -n "$mod" ] && [ -d "/sys/module/$mod" ] || mod=''
	tb_cc_available "$TB_CC" || tb_die "$TB_CC: ${mod:-the kernel} registers" \
		"no congestion control '$TB_CC' (available:" \
		"$(cat /proc/sys/net/ipv4/tcp_available_congestion_control))"
	# What is in force is what was asked for.
	for p in "${TB_CC_PARAMS[@]}"; do
		n=/sys/module/$mod/parameters/${p%%=*}
		[ -n "$mod" ] && [ -r "$n" ] || continue
		tb_same "${p#*=}" "$(cat "$n")" || tb_die "$TB_CC: $mod has" \
			"${p%%=*}=$(cat "$n"), not ${p#*=}"
	done
	TB_CC_MODULE=$mod
}

# tb_load_bpf: with --bpf, TB_CC (one of our algorithms) from the BPF
# struct_ops build instead of the module: registered by the loader
# (userspace-tools/bin/powertcp-bpf, make bpf) if it is not yet, its
# parameters set as tb_load_cc sets a module's, and read back. Sets
# TB_CC_BPF (the loader) and clears TB_CC_MODULE and TB_CC_FILE.
tb_load_bpf() {
	local bin=$TB_ROOT/userspace-tools/bin/powertcp-bpf n p args=() err

	[ -x "$bin" ] || tb_die "--bpf: no loader $bin (make bpf)"
	[ ! -d "/sys/module/tcp_$TB_CC" ] || tb_die "--bpf: the module" \
		"tcp_$TB_CC is loaded and registers $TB_CC: rmmod tcp_$TB_CC first"
	for n in base_rtt_us="$TAU_US" line_rate_mbps="$RATE_MBPS"; do
		[[ " ${TB_CC_PARAMS[*]} " == *" ${n%%=*}="* ]] || args+=("$n")
	done
	args+=("${TB_CC_PARAMS[@]}")
	if "$bin" get "$TB_CC" gamma >/dev/null 2>&1; then
		err=$("$bin" set "$TB_CC" "${args[@]}" 2>&1) ||
			tb_die "--bpf: ${err//$'\n'/ }"
	else
		err=$("$bin" load "$TB_CC" "${args[@]}" 2>&1) ||
			tb_die "--bpf: ${err//$'\n'/ }"
	fi
	tb_cc_available "$TB_CC" || tb_die "--bpf: $TB_CC is not registered" \
		"after 'powertcp-bpf load'"
	for p in "${args[@]}"; do
		tb_same "${p#*=}" "$("$bin" get "$TB_CC" "${p%%=*}")" ||
			tb_die "--bpf: $TB_CC has ${p%%=*}=$("$bin" get "$TB_CC" \
				"${p%%=*}"), not ${p#*=}"
	done
	TB_CC_BPF=$bin TB_CC_MODULE='' TB_CC_FILE=''
}

# --- the common options ----------------------------------------------------

CC='' CC_SPEC='' OUT='' RTT_US='' TAU_US='' BUFFER_BYTES=4000000 MTU=1500
SEED=1 ECN_K_BYTES=30000 SAMPLE=1 HEADROOM=1 KMOD_DIR='' TRACE=0 TRACE_FILTER='' JITTER_US=
TB_BPF=0 DELAYED_ACKS=0 TB_CHECK=0 HOST_STACK=0 RX_USECS='' SERIAL_LINK=0
TB_NO_OPTS=''	# common options an experiment does not take

# tb_usage_common: the help of the common options. Uses RATE_MBPS (the
# experiment's default rate) and TB_TAU_HELP (its default tau).
tb_usage_common() {
	local r=${RATE_MBPS:-100} tau="the base RTT; with --host-stack plus
                      the two hosts' interrupt moderation, 2 x --rx-usecs
                      scaled: the RTT a lone packet sees there"
	cat <<USAGE
  --cc SPEC           the congestion control (required): NAME from
                      testbed/algorithms.tsv or any the kernel has,
                      NAME=/path/to/tcp_x.ko for a module of your own that
                      registers NAME, and :PARAM=INTEGER... after either
                      for module parameters (NAME=:P=V for NAME's own
                      module, e.g. theta_powertcp=:gamma=800)
  --out DIR           where the raw data go (required)
  --rate-mbps R       bottleneck rate (default $r)
  --rtt-us T          base RTT (default 4.64 us x 25000/R: $(tb_scaled_rtt_us "$r") at $r)
  --tau-us T          tau, base_rtt_us of modules that have it (default:
                      ${TB_TAU_HELP:-$tau})
  --buffer-bytes B    switch buffer, tail drop (default 4000000, the
                      paper's 4 MB)
  --ecn-k-bytes K     marking threshold of the ecn queue, DCTCP's only
                      (default 30000, ~2 BDP)
  --mtu M             (default 1500)
  --seed S            seed of the payload and of the start jitter
                      (default 1)
  --start-jitter-us J each flow starts at a seeded uniform offset in
                      [0, J) after its scheduled time (default: one MTU's
                      serialization at R, 120 us at 100 Mbit/s), so that
                      seeds differ in how the flows' packets interleave
USAGE
	[[ $TB_NO_OPTS == *--no-sample* ]] || cat <<USAGE
  --no-sample         do not sample the bottleneck queue
USAGE
	cat <<USAGE
  --no-headroom       skip the CPU headroom check
  --delayed-acks      receivers delay their ACKs (Linux's default; 40 ms
                      timer) instead of ACKing every segment (quickack,
                      the paper's hosts and the default here)
USAGE
	[[ $TB_NO_OPTS == *--host-stack* ]] || cat <<USAGE
  --host-stack        hosts as a default Linux host is (docs/TESTBED.md,
                      "The host-stack profile"): receivers with GRO on and
                      delayed ACKs, senders with TSO/GSO, every host's NIC
                      moderating its receive interrupts (--rx-usecs)
                      instead of the paper's hosts (one segment an skb,
                      an ACK a segment, no GRO); netns backend
  --rx-usecs U        with --host-stack: the NICs' receive interrupt
                      moderation in real-time us (ethtool -C rx-usecs),
                      scaled by the time scale like the RTT: a host takes
                      in what arrived within U of the first packet at once
                      (default 1, two packets at 25 Gbit/s; 0: none)
USAGE
	[[ $TB_NO_OPTS == *--serial-link* ]] || cat <<USAGE
  --serial-link       the bottleneck serializes every packet as a link
                      does, an isolated one too, so that the empty path's
                      RTT is the base RTT, as in ns-3 (default: a token
                      bucket of two frames, which passes an isolated
                      packet at once: the empty path 8% under the base
                      RTT at 100 Mbit/s; docs/TESTBED.md, "The bottleneck")
USAGE
	cat <<USAGE
  --trace             record the algorithm's tracepoints (events/NAME, e.g.
                      theta_powertcp's powertcp_step) to DIR/trace.txt
  --trace-filter F    --trace, keeping only the events that match the
                      ftrace filter F (e.g. 'mode != 0': the competitive
                      mode's events outside delay), so that a long run
                      fits the trace buffer
  --kmod-dir D        where tcp_theta_powertcp.ko etc. are
                      (default build/kmod-\$(uname -r)/kmod)
  --bpf               our algorithms from the BPF struct_ops build
                      (make bpf; userspace-tools/bin/powertcp-bpf) instead
                      of the modules, for kernels that cannot load modules
  --check-args        check the options and the spec (a module file's
                      parameters against its modinfo) and exit, touching
                      nothing: testbed/run.sh does so on the host before
                      any guest boots
  -h, --help          this help
USAGE
}

# tb_parse_args HANDLER ARGS...: the common options; every other one goes
# to HANDLER first, which sets TB_SHIFT to the words it took, or returns 1.
tb_parse_args() {
	local h=$1
	shift
	while [ $# -gt 0 ]; do
		TB_SHIFT=0
		if "$h" "$@"; then
			shift "$TB_SHIFT"
			continue
		fi
		[[ " $TB_NO_OPTS " != *" $1 "* ]] ||
			tb_die "$1: not an option of $TB_PROG (see --help)"
		case $1 in
		--cc) tb_val "$1" "${2:-}"; CC_SPEC=$2; shift ;;
		--out) tb_val "$1" "${2:-}"; OUT=$2; shift ;;
		--rate-mbps) tb_num "$1" "${2:-}"; RATE_MBPS=$2; shift ;;
		--rtt-us) tb_num "$1" "${2:-}"; RTT_US=$2; shift ;;
		--tau-us) tb_num "$1" "${2:-}"; TAU_US=$2; shift ;;
		--buffer-bytes) tb_num "$1" "${2:-}"; BUFFER_BYTES=$2; shift ;;
		--ecn-k-bytes) tb_num "$1" "${2:-}"; ECN_K_BYTES=$2; shift ;;
		--mtu) tb_num "$1" "${2:-}"; MTU=$2; shift ;;
		--seed) tb_num "$1" "${2:-}"; SEED=$2; shift ;;
		--start-jitter-us) [[ ${2:-} =~ ^[0-9]+$ ]] ||
			tb_die "$1: '${2:-}' is not a non-negative integer"
			JITTER_US=$2; shift ;;
		--no-sample) SAMPLE=0 ;;
		--no-headroom) HEADROOM=0 ;;
		--delayed-acks) DELAYED_ACKS=1 ;;
		--host-stack) HOST_STACK=1 ;;
		--rx-usecs) tb_num0 "$1" "${2:-}"; RX_USECS=$2; shift ;;
		--serial-link) SERIAL_LINK=1 ;;
		--trace) TRACE=1 ;;
		--trace-filter) tb_val "$1" "${2:-}"; TRACE=1
			TRACE_FILTER=$2; shift ;;
		--kmod-dir) tb_val "$1" "${2:-}"; KMOD_DIR=$2; shift ;;
		--bpf) TB_BPF=1 ;;
		--check-args) TB_CHECK=1 ;;
		-h|--help) usage; exit 0 ;;
		*) tb_die "unknown argument '$1' (see --help)" ;;
		esac
		shift
	done
}

# tb_rcv_route_opts: TB_RCV_ROUTE_OPTS, the options of a receiving host's
# route: quickack 1 (ACK every segment) unless --delayed-acks.
tb_rcv_route_opts() {
	TB_RCV_ROUTE_OPTS=(quickack 1)
	# shellcheck disable=SC2034 # for the topologies
	[ "$DELAYED_ACKS" = 0 ] || TB_RCV_ROUTE_OPTS=()
}

# tb_host_stack_setup: from --host-stack and --rx-usecs, DELAYED_ACKS,
# TB_RX_SLOT_US (the moderation in the testbed's time, 0 without) and
# TB_HOST_US (what the hosts add to a lone packet's RTT: a moderation at
# each end, the default tau's share of them).
tb_host_stack_setup() {
	[ -z "$RX_USECS" ] || [ "$HOST_STACK" = 1 ] ||
		tb_die "--rx-usecs: only with --host-stack"
	TB_RX_SLOT_US=0
	if [ "$HOST_STACK" = 1 ]; then
		DELAYED_ACKS=1
		RX_USECS=${RX_USECS:-1}
		TB_RX_SLOT_US=$((RX_USECS * TIME_SCALE))
	fi
	# shellcheck disable=SC2034 # the experiments' default tau
	TB_HOST_US=$((2 * TB_RX_SLOT_US))
}

# tb_jitter N: N seeded start offsets in [0, JITTER_US) us, one a line: the
# same seed gives the same offsets.
tb_jitter() {
	awk -v n="$1" -v s="$SEED" -v j="$JITTER_US" \
		'BEGIN { srand(s); for (i = 0; i < n; i++) print int(rand() * j) }'
}

# tb_setup: after tb_parse_args. Checks the required options, parses the
# spec into CC (and TB_CC*), fills RTT_US, BDP_BYTES, TIME_SCALE and
# KMOD_DIR, and installs the cleanup trap. TAU_US is the experiment's.
tb_setup() {
	[ -n "$CC_SPEC" ] || tb_die "--cc NAME is required"
	[ -n "$OUT" ] || tb_die "--out DIR is required"
	tb_cc_parse "$CC_SPEC"
	CC=$TB_CC
	[ "$TB_CHECK" = 1 ] || [ "$(id -u)" = 0 ] ||
		tb_die "must run as root (namespaces, modules)"
	RTT_US=${RTT_US:-$(tb_scaled_rtt_us "$RATE_MBPS")}
	BDP_BYTES=$((RATE_MBPS * RTT_US / 8))
	JITTER_US=${JITTER_US:-$((MTU * 8 / RATE_MBPS))}
	TIME_SCALE=$(tb_time_scale "$RATE_MBPS")
	tb_host_stack_setup
	KMOD_DIR=${KMOD_DIR:-$TB_ROOT/build/kmod-$(uname -r)/kmod}
	# shellcheck disable=SC2034 # for the experiments
	TB_TOOLS=$TB_ROOT/userspace-tools/bin
	[ "$TB_CHECK" = 0 ] || return 0
	trap tb_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# tb_prelude TOOL...: after tb_setup, what every experiment does before
# its first topology. The TOOLs (userspace-tools/bin) must exist, and are
# paged in now: in the guest they come over 9p from the host's root, and
# reading them while the flows run would make virtual time depend on the
# host's I/O. For the same reason the run writes to a work directory on
# the guest's tmpfs (TB_WORK, also WORK; removed on exit), copied to OUT
# at the end. Then the congestion control, loaded (tb_load_cc), and with
# --trace its events checked.
tb_prelude() {
	local t
	[ "$TB_CHECK" = 0 ] || { tb_check_cc; exit 0; }
	for t in "$@"; do
		[ -x "$TB_TOOLS/$t" ] || tb_die "$TB_TOOLS/$t missing (make tools)"
	done
	mkdir -p "$OUT" || tb_die "--out: cannot create $OUT"
	TB_WORK=$(mktemp -d "/tmp/$TB_PROG.XXXXXX") ||
		tb_die "cannot create a work directory in /tmp"
	# shellcheck disable=SC2034 # the experiments'
	WORK=$TB_WORK
	for t in "$@"; do
		cat "$TB_TOOLS/$t" > /dev/null
	done
	tb_load_cc
	tb_trace_check
}

# tb_check_cc: --check-args' check of the spec, on a host that need not be
# the guest: a module file must be there, and its parameters its own
# (modinfo). Our modules' ranges are testbed/run.sh's to check
# (userspace-tools/bin/pt-params), the kernel's own modules the guest's.
tb_check_cc() {
	[ -n "$TB_CC_KO" ] || return 0
	[ -f "$TB_CC_KO" ] && [ -r "$TB_CC_KO" ] ||
		tb_die "$TB_CC: no module file '$TB_CC_KO'"
	[ ${#TB_CC_PARAMS[@]} = 0 ] || tb_params_known "$TB_CC_KO"
}

# --- cleanup ---------------------------------------------------------------

TB_WORK=''	# a work directory to remove on exit
TB_CHILD=''	# the traffic process running, if any
TB_TRACING=0

# On any exit, including SIGINT/SIGTERM (tb_setup's traps): stop the
# traffic, tracing, remove this run's namespaces and the work directory.
tb_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$TB_CHILD" ]; then
		kill -TERM "$TB_CHILD" 2>/dev/null || true
		wait "$TB_CHILD" 2>/dev/null || true
	fi
	[ "$TB_TRACING" = 0 ] ||
		echo 0 > "$TB_TRACEFS/events/$CC/enable" 2>/dev/null || true
	tb_destroy
	[ -z "$TB_WORK" ] || rm -rf "$TB_WORK"
	exit "$rc"
}

# tb_run COMMAND...: run the traffic in the background and wait for it, so
# that a signal stops the experiment at once (bash runs traps only between
# foreground commands) and the cleanup can stop the command.
tb_run() {
	local rc=0
	"$@" &
	TB_CHILD=$!
	wait "$TB_CHILD" || rc=$?
	TB_CHILD=''
	return "$rc"
}

# --- namespaces ------------------------------------------------------------

# A run's namespaces are named TB_NS plus their role (tb_ns h1: tb-Xy3kQ9_h1,
# ...): TB_NS holds a suffix new to each run, as the kernel selftests'
# setup_ns does, and a run deletes exactly the namespaces it made
# (TB_NS_MADE), so that runs side by side, or on a host with namespaces of
# its own (--native), never touch one another's.
TB_NS=${TB_NS:-tb-$(mktemp -u XXXXXX)_}
TB_NS_MADE=()

# tb_ns ROLE: the name of this run's namespace ROLE (h1, sw, rcv, ...).
tb_ns() {
	echo "$TB_NS$1"
}

# tb_ns_add NAME [PID]: create namespace NAME, or with PID name the
# namespace of process PID so (ip netns attach); it is this run's to delete.
tb_ns_add() {
	if [ $# -gt 1 ]; then
		ip netns attach "$1" "$2" || return 1
	else
		ip netns add "$1" || return 1
	fi
	TB_NS_MADE+=("$1")
}

# Remove the namespaces this run made, after stopping a Mininet network if
# one runs (testbed/mininet/star.sh).
tb_destroy() {
	! declare -F tb_mn_stop > /dev/null || tb_mn_stop
	# One ip for all (an exec costs milliseconds in a TCG guest).
	[ ${#TB_NS_MADE[@]} = 0 ] ||
		printf 'netns del %s\n' "${TB_NS_MADE[@]}" |
		ip -force -batch - 2>/dev/null || true
	TB_NS_MADE=()
}

# --- tracing ---------------------------------------------------------------

# tb_trace_check: with --trace, die unless the loaded algorithm has events.
tb_trace_check() {
	[ "$TRACE" = 1 ] || return 0
	[ -e "$TB_TRACEFS/events/$CC/enable" ] ||
		tb_die "--trace: $CC has no tracepoints ($TB_TRACEFS/events/$CC)"
}

tb_trace_on() {
	[ "$TRACE" = 1 ] || return 0
	echo 0 > "$TB_TRACEFS/tracing_on"
	echo > "$TB_TRACEFS/trace"
	echo 16384 > "$TB_TRACEFS/buffer_size_kb"
	# Each event's own filter: the subsystem's takes a field some of its
	# events lack without a word, and then filters nothing.
	local ev
	for ev in "$TB_TRACEFS/events/$CC"/*/filter; do
		echo "${TRACE_FILTER:-0}" > "$ev" 2>/dev/null ||
			tb_die "--trace-filter: the kernel refused '$TRACE_FILTER' for $(basename "$(dirname "$ev")")"
	done
	echo 1 > "$TB_TRACEFS/events/$CC/enable"
	TB_TRACING=1
	echo 1 > "$TB_TRACEFS/tracing_on"
}

# tb_trace_off FILE: stop tracing and save the trace to FILE.
tb_trace_off() {
	[ "$TRACE" = 1 ] || return 0
	echo 0 > "$TB_TRACEFS/events/$CC/enable"
	TB_TRACING=0
	cp "$TB_TRACEFS/trace" "$1"
	# Events the ring buffer dropped when full (one "overrun:" a CPU).
	local lost
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' \
		"$TB_TRACEFS"/per_cpu/cpu*/stats)
	echo "# trace: $(grep -vc '^#' "$1") events of $CC${TRACE_FILTER:+ matching \"$TRACE_FILTER\"}, $lost lost to a full buffer"
}

# --- params.json -----------------------------------------------------------

TB_PARAMS=()

# tb_param KEY VALUE [KEY VALUE...]: experiment parameters for params.json;
# integers and decimals are numbers, anything else a string.
tb_param() {
	while [ $# -ge 2 ]; do
		TB_PARAMS+=("$1=$2")
		shift 2
	done
}

# tb_param_bool KEY 0|1 and tb_param_json KEY JSON: a boolean, raw JSON.
tb_param_bool() {
	TB_PARAMS+=("$1=bool:$2")
}
tb_param_json() {
	TB_PARAMS+=("$1=json:$2")
}

# tb_write_params FILE: FILE gets params.json, one schema for every
# experiment: experiment, algorithm, algorithm_spec, kernel, module (name,
# file, sha256, build_id, srcversion, parameters in force read back from
# /sys/module/NAME/parameters, parameters set), the common parameters and
# the experiment's own (tb_param), booleans as true/false.
tb_write_params() {
	local all=("${TB_PARAMS[@]}")
	TB_PARAMS=()
	tb_param rate_mbps "$RATE_MBPS" rtt_us "$RTT_US" tau_us "$TAU_US" \
		buffer_bytes "$BUFFER_BYTES" bdp_bytes "$BDP_BYTES" mtu "$MTU" \
		seed "$SEED" start_jitter_us "$JITTER_US" ecn_k_bytes "$(tb_ecn_k "$CC" "$ECN_K_BYTES")" \
		qdisc "$([ "$(tb_ecn_k "$CC" 1)" = 0 ] && echo fifo || echo ecn)" \
		time_scale "$TIME_SCALE"
	[[ $TB_NO_OPTS == *--no-sample* ]] || tb_param_bool sample "$SAMPLE"
	tb_param_bool headroom_check "$HEADROOM"
	tb_param_bool delayed_acks "$DELAYED_ACKS"
	tb_param_bool host_stack "$HOST_STACK"
	[ "$HOST_STACK" = 0 ] ||
		tb_param rx_usecs "$RX_USECS" rx_slot_us "$TB_RX_SLOT_US"
	[[ $TB_NO_OPTS == *--serial-link* ]] ||
		tb_param_bool serial_link "$SERIAL_LINK"
	tb_param_bool trace "$TRACE"
	[ -z "$TRACE_FILTER" ] || tb_param trace_filter "$TRACE_FILTER"
	all+=("${TB_PARAMS[@]}")
	TB_PARAMS=()
	/usr/bin/python3 "$TB_ROOT/testbed/lib/params.py" write --out "$1" \
		--experiment "$TB_PROG" --algorithm "$CC" --spec "$CC_SPEC" \
		--module "${TB_CC_MODULE:-}" --file "${TB_CC_FILE:-}" \
		--bpf "${TB_CC_BPF:-}" \
		--set "${TB_CC_PARAMS[*]}" -- "${all[@]}" ||
		tb_die "cannot write $1"
}
