#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end check of the incast pipeline on a short timeline, inside a
# booted kernel: topology, module load, traffic, sampling, analysis. Checks
# that the pipeline works and is self-consistent, not the paper's numbers.
#
#   testbed/tests/test_incast.sh KMOD_DIR
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_incast.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-incast/$(uname -r)
PRE=100000
POST=200000

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

# All 11 flows connected on time: the long one at 0, the rest at PRE.
flows_started() { # dir
	awk -F, -v pre=$PRE 'NR > 1 {
		n++; want = $1 == 0 ? 0 : pre
		if ($10 < want || $10 > want + 5000 || $6 < 0 || $8 <= 0) bad++
	} END { printf "%d flows", n; exit !(n == 11 && !bad) }' "$1/flows.csv"
}

# Incast senders got nothing before PRE, something after.
incast_on_time() { # dir
	awk -F, -v pre=$PRE 'NR > 1 && $2 > 0 {
		if ($1 < pre && $3 > 0) early++
		if ($1 > pre + 20000 && $3 > 0) late++
	} END { exit !(!early && late) }' "$1/goodput.csv"
}

# Samples at the configured interval, time increasing, covering the run.
samples_land() { # dir
	local iv
	iv=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sample_us"])' \
		"$1/params.json")
	awk -F, -v iv="$iv" -v end=$((PRE + POST)) 'NR > 1 {
		if (n && $1 <= t) back++
		t = $1; n++
	} END { printf "%d samples, every %d us", n, iv
		exit !(!back && n >= 0.9 * end / iv && t >= end) }' "$1/qdisc.csv"
}

# The analyzer's figures agree with the raw series, recomputed here.
analyzer_consistent() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
t0, t1 = s["window_start_us"], s["window_end_us"]
rows = [r for r in csv.DictReader(open(d + "/qdisc.csv"))
        if t0 <= int(r["time_us"]) <= t1]
q = [int(r["backlog_bytes"]) for r in rows]
# the bytes waiting: without the head packet, of the backlog's mean size
wq = [b - (b + n // 2) // n if n > 1 else 0
      for b, n in ((int(r["backlog_bytes"]), int(r["backlog_pkts"]))
                   for r in rows)]
thr = ((int(rows[-1]["sent_bytes"]) - int(rows[0]["sent_bytes"])) * 8 /
       (int(rows[-1]["time_us"]) - int(rows[0]["time_us"])))
errs = []
if abs(sum(q) / len(q) - s["avg_queue_bytes"]) > 0.01 * max(1, s["avg_queue_bytes"]) + 1:
    errs.append("avg queue %s vs %s" % (sum(q) / len(q), s["avg_queue_bytes"]))
if max(q) != s["peak_queue_bytes"]:
    errs.append("peak %s vs %s" % (max(q), s["peak_queue_bytes"]))
if abs(sum(wq) / len(wq) - s["avg_waiting_bytes"]) > 0.01 * max(1, s["avg_waiting_bytes"]) + 1:
    errs.append("avg waiting %s vs %s" % (sum(wq) / len(wq), s["avg_waiting_bytes"]))
if not s["avg_waiting_bytes"] <= s["avg_queue_bytes"]:
    errs.append("more waiting than backlog")
if abs(thr - s["avg_throughput_mbps"]) > 0.01 * thr:
    errs.append("throughput %s vs %s" % (thr, s["avg_throughput_mbps"]))
if not 0 < s["avg_throughput_mbps"] <= 1.02 * s["link_rate_mbps"]:
    errs.append("throughput %s outside (0, link]" % s["avg_throughput_mbps"])
print("avg queue %.0f B (waiting %.0f B), %.1f Mbit/s"
      % (s["avg_queue_bytes"], s["avg_waiting_bytes"], thr))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# The star left idle for 2 s sends nothing through its bottleneck: no
# IPv6 autoconf (router solicitations, MLD reports at random times).
idle_bottleneck_silent() {
	(
		# shellcheck source=testbed/lib/topology.sh
		. "$ROOT/testbed/lib/topology.sh"
		TB_RATE_MBPS=100 TB_RTT_US=1160 TB_BUFFER_BYTES=4000000 \
			TB_CC=cubic tb_star 2 || exit 1
		sleep 2
		pkts=$(tc -s -n "$TB_SW" qdisc show dev "$TB_BOTTLENECK_DEV" |
			sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' |
			head -n1)
		tb_destroy
		echo "$pkts packets"
		[ "$pkts" = 0 ]
	)
}

check "the idle star sends nothing through the bottleneck" \
	idle_bottleneck_silent

# The empty path's RTT, the least of 10 pings of full frames 50 ms apart
# from a sender to the receiver: with --serial-link the base RTT (the
# bottleneck serializes the lone packet too), by default about one
# frame's time less (the bucket of two frames passes it at once).
isolated_rtt() { # SERIAL_LINK(0|1)
	(
		# shellcheck source=testbed/lib/topology.sh
		. "$ROOT/testbed/lib/topology.sh"
		SERIAL_LINK=$1
		TB_RATE_MBPS=100 TB_RTT_US=1160 TB_BUFFER_BYTES=4000000 \
			TB_CC=cubic tb_star 1 || exit 1
		min=$(ip netns exec "$(tb_host 1)" ping -n -q -c 10 -i 0.05 \
			-s 1472 -M "do" "$TB_RCV_ADDR" |
			sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/.*|\1|p')
		tb_destroy
		min=$(awk -v m="${min:-0}" 'BEGIN { printf "%d", m * 1000 }')
		echo "the least RTT $min us (base 1160 us, a frame 121 us)"
		if [ "$1" = 1 ]; then
			[ "$min" -ge 1160 ] && [ "$min" -lt 1220 ]
		else
			[ "$min" -gt 0 ] && [ "$min" -lt 1100 ]
		fi
	)
}
check "--serial-link: a lone packet's RTT is the base RTT" isolated_rtt 1
check "the default bottleneck passes a lone packet at once" isolated_rtt 0

# --host-stack's hosts: a packet socket on the receiver's eth0 sees skbs
# after GRO, so a frame longer than the MTU is segments GRO merged. One
# CUBIC flow for 1 s through the star; prints frames, merged, segments.
gro_frames() { # HOST_STACK(0|1)
	local out=$OUT/gro-$1
	(
		# shellcheck source=testbed/lib/topology.sh
		. "$ROOT/testbed/lib/topology.sh"
		HOST_STACK=$1 TIME_SCALE=$(tb_time_scale 100)
		tb_host_stack_setup	# the experiments' own: --rx-usecs 1
		TB_RATE_MBPS=100 TB_RTT_US=1160 TB_BUFFER_BYTES=4000000 \
			TB_CC=cubic tb_star 1 || exit 1
		ip netns exec "$TB_RCV" /usr/bin/python3 - eth0 1.6 <<'PY' &
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(0.1)
end = time.monotonic() + float(sys.argv[2])
frames = merged = segs = 0
while time.monotonic() < end:
    try:
        f = s.recv(1 << 17)
    except socket.timeout:
        continue
    ip_len = struct.unpack("!H", f[16:18])[0]   # 14 B Ethernet first
    ihl = (f[14] & 15) * 4
    data = ip_len - ihl - (f[14 + ihl + 12] >> 4) * 4
    if f[23] != 6 or data <= 0:                 # TCP with data only
        continue
    frames += 1
    segs += (data + 1447) // 1448
    merged += len(f) > 1514
print(frames, merged, segs)
PY
		local sniff=$!
		sleep 0.3
		"$ROOT/userspace-tools/bin/tcpflows" --out-dir "$out" \
			--duration-us 1000000 --interval-us 0 --quiet \
			--listen "$TB_RCV,$TB_RCV_ADDR,5001" \
			--flow "0,$(tb_host 1),$TB_RCV_ADDR,5001,0,0,0" > /dev/null
		wait "$sniff"
		tb_destroy
	)
}
gro_merges() { # HOST_STACK(0|1)
	local r
	r=$(gro_frames "$1" 2> "$OUT/gro-$1.err" | tail -n 1)
	# shellcheck disable=SC2086 # its three numbers
	set -- "$1" $r
	echo "$2 frames, $3 of them merged, $4 segments"
	[ "${2:-0}" -gt 100 ] || { cat "$OUT/gro-$1.err"; return 1; }
	if [ "$1" = 1 ]; then [ "$3" -ge $(($2 / 10)) ]; else [ "$3" = 0 ]; fi
}
mkdir -p "$OUT"
check "--host-stack: GRO merges segments at the receiver" gro_merges 1
check "the paper's hosts: the receiver sees one segment a frame" \
	gro_merges 0

# Each run in OUT/ALG/seed-1, as testbed/run.sh lays them out (seed 1,
# the default).
rm -rf "$OUT"
for cc in theta_powertcp cubic; do
	d=$OUT/$cc/seed-1
	check "$cc: short incast runs" bash "$ROOT/testbed/incast/run.sh" --cc "$cc" \
		--out "$d" --pre-us $PRE --post-us $POST \
		--kmod-dir "$KMOD_DIR"
	check "$cc: CPU headroom measured and sufficient" \
		headroom_ok "$d/headroom.json"
	check "$cc: params.json has the common schema" \
		params_common "$d/params.json" incast "$cc"
	check "$cc: all 11 flows start on time" flows_started "$d"
	check "$cc: incast senders start at the incast" incast_on_time "$d"
	check "$cc: queue samples land at the interval" samples_land "$d"
done
# --start together and --queries: the incast senders connect at 0 and
# write from PRE (plus jitter; within 20 ms: 30 first writes take a TCG
# guest's loop up to 8 ms); 20 queries of 2800 B come with them, on the
# senders' hosts, and all finish.
rm -rf "$OUT.together"
d=$OUT.together/theta_powertcp/seed-1
check "theta_powertcp: short incast, --start together --queries 20 --serial-link" \
	bash "$ROOT/testbed/incast/run.sh" --cc theta_powertcp --out "$d" \
	--pre-us $PRE --post-us $POST --kmod-dir "$KMOD_DIR" --start together \
	--queries 20 --serial-link
check "together: params.json records --serial-link" \
	/usr/bin/python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["serial_link"] is not True)' \
	"$d/params.json"
check "together: connected before the incast, writing from it" \
	awk -F, -v pre=$PRE 'NR > 1 && $1 > 0 {
		n++; if ($9 < 0 || $9 >= pre || $10 < $4 || $10 > $4 + 20000) bad++
	} END { printf "%d senders and queries", n; exit !(n == 30 && !bad) }' \
	"$d/flows.csv"
check "together: 20 queries of 2800 B, all done, completion times summarized" \
	/usr/bin/python3 - "$ROOT" "$d" <<'PY'
import csv, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "testbed", "incast"))
import summarize  # noqa: E402
rows = [r for r in csv.DictReader(open(sys.argv[2] + "/flows.csv"))
        if int(r["id"]) >= 1000]
s = summarize.analyze(sys.argv[2])
print("%d queries, %d done, p99 %d us" % (s["queries"], s["queries_done"],
                                          s["query_fct_p99_us"]))
ok = (len(rows) == 20 and all(r["status"] == "done" and
                              int(r["bytes_received"]) == 2800 for r in rows)
      and s["queries"] == 20 and s["queries_done"] == 20 and
      0 < s["query_fct_p50_us"] <= s["query_fct_p99_us"] <=
      s["query_fct_max_us"])
sys.exit(0 if ok else 1)
PY
check "summary table written for both" sh -c "/usr/bin/python3 '$ROOT/testbed/incast/summarize.py' \
	'$OUT' > '$OUT/table.txt' && grep -c . '$OUT/table.txt'"
for cc in theta_powertcp cubic; do
	check "$cc: analyzer agrees with the raw series" analyzer_consistent \
		"$OUT/$cc/seed-1"
done
check "summary.json: every run has every required field" summary_fields \
	--rows runs "$OUT/summary.json" 2 algorithm seed avg_throughput_mbps \
	link_rate_mbps avg_queue_bytes p99_queue_bytes peak_queue_bytes \
	avg_waiting_bytes p99_waiting_bytes drain_time_us combined_score \
	waiting_score
check "summary.json: every algorithm has the spread of each figure" \
	summary_fields --rows algorithms "$OUT/summary.json" 2 algorithm seeds \
	n_seeds avg_throughput_mbps avg_queue_bytes p99_queue_bytes \
	peak_queue_bytes avg_waiting_bytes drain_time_us combined_score
check "a bad argument exits 2 with a one-line reason" bad_arg \
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x --rate-mbps abc
check "--rx-usecs without --host-stack: exit 2, one line" bad_arg \
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x --rx-usecs 2
check "--host-stack with the Mininet backend: exit 2, one line" bad_arg \
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x \
	--host-stack --backend mininet --check-args

tap_done
