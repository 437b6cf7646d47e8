# SPDX-License-Identifier: GPL-2.0
#
# θ-PowerTCP and PowerTCP-evo for Linux.
#
#   make                 build the modules for the running kernel (or KDIR=)
#   make install         install them (updates/) and run depmod
#   make dkms-install    install the sources into DKMS (/usr/src/powertcp-
#                        VERSION), which builds them for the running kernel
#                        (or KVER=) and every kernel installed later
#   make dkms-uninstall  remove them from DKMS and every kernel
#   make deb             build/deb/powertcp-dkms_VERSION_all.deb (dh-dkms),
#                        lintian-checked; install it with apt install ./FILE
#   make quick           the fast tests, no root, no QEMU, under a
#                        minute: unit tests of the control law, a 3 s fuzz
#                        (FUZZ_SECONDS=), the tools' unit tests, tcpflows on
#                        loopback, the analyzers on fixed inputs (KTAP)
#   make check           the whole test suite (root): setup, builds against
#                        6.1 and 6.12 with sparse, checkpatch, make quick
#                        with a 20 s fuzz, make deb, kernel tests (with
#                        line_rate_auto), the tools' namespace test and
#                        the testbed pipelines booted under QEMU
#   make check-dkms      the package in a guest (root, long: DKMS compiles
#                        under TCG, about 1000 s a kernel on a loaded
#                        host): DKMS builds for 6.12, then for 6.1 when its
#                        headers appear; autoload, opt-in files, purge
#   make incast          the 10:1 incast reproduction (results/incast/,
#                        docs/RESULTS.md), every algorithm with SEEDS seeds
#                        (default 3: seeds 1..3; or a list, SEEDS=4,7)
#   make fairness        four flows arriving and leaving (results/fairness/),
#                        SEEDS as for incast
#   make websearch       web-search FCT slowdowns (results/websearch/)
#   make reproduce       all three, and docs/RESULTS.md
#   make evolve          the evolution search of powertcp_evo (results/evolve/;
#                        resumes; TRIALS=N more trials, default 40)
#   make evolve-rankcheck  short windows vs full-length runs on a sample
#   make evolve-heldout  fairness (3 seeds) and a 20:1 incast, theta vs evo
#   make idle-probe      one flow on an idle 50 Mbit/s path, automatic tau:
#                        what evo moves at each IDLE_SETS parameter set
#                        against theta, 6.1 and 6.12 guests side by side
#   make evolve-websearch  web search, theta vs evo, 2000 flows (about 1080
#                        under 100 KB) at 50% and 80% load: p99.9 of the
#                        short flows is a real percentile (about 47 min on
#                        an idle two-core host)
#   make bpf             the BPF struct_ops builds (kmod/bpf/) and their
#                        loader, userspace-tools/bin/powertcp-bpf, for hosts
#                        without module support; vmlinux.h from the running
#                        kernel's BTF, or BTF=FILE (a vmlinux or raw BTF)
#   make bench-ack       the per-ACK cost benchmark: instructions per call of
#                        the ACK path of theta_powertcp, powertcp_evo, bbr,
#                        dctcp and cubic, the CPU headroom and the CPU per
#                        byte at 100 Mbit/s, on 6.1 and
#                        6.12 under -icount (results/bench-ack/; a
#                        benchmark, asserts nothing; BENCH_ARGS= passes
#                        options to scripts/bench-ack.sh)
#   make tools           the userspace tools (userspace-tools/bin/)
#   make unit            only the unit tests of the control law
#   make faults          the fault matrix (testbed/faults/run.sh) for the
#                        algorithms of testbed/algorithms.tsv in the 6.1
#                        and 6.12 guests -> results/faults/, its table in
#                        docs/RELIABILITY.md (CASES=a,b or smoke: a subset;
#                        FAULTS_KERNELS="6.1 6.12")
#   make fuzz-long       10^8 executions of the control law's fuzz harness
#                        and the branch coverage of pt_on_rtt
#                        (build/fuzz-long/; RUNS=, FUZZ_SECONDS=)

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	@test -f $(KDIR)/Makefile || { echo "make: no kernel build tree at" \
		"$(KDIR): install linux-headers-$$(uname -r) or pass KDIR=" >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h)

# DKMS without the package; refused while powertcp-dkms is installed,
# which owns the same /usr/src directory.
DKMS_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || \
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
DKMS_SRC = /usr/src/powertcp-$(DKMS_VERSION)

dkms-install:
	@command -v dkms >/dev/null || { echo "make: dkms missing" \
		"(apt-get install dkms)" >&2; exit 1; }
	@! dpkg-query -W -f='$${Status}' powertcp-dkms 2>/dev/null | \
		grep -q 'ok installed' || { echo "make: the powertcp-dkms" \
		"package is installed: apt remove powertcp-dkms first" >&2; \
		exit 1; }
	-dkms remove powertcp/$(DKMS_VERSION) --all >/dev/null 2>&1
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod
	install -m 644 Kbuild $(DKMS_SRC)/
	install -m 644 kmod/Kbuild kmod/*.c kmod/*.h $(DKMS_SRC)/kmod/
	sed 's/#MODULE_VERSION#/$(DKMS_VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	dkms install powertcp/$(DKMS_VERSION) $(if $(KVER),-k $(KVER))

dkms-uninstall:
	-dkms remove powertcp/$(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

deb:
	bash scripts/build-deb.sh

clean:
	@if [ -f $(KDIR)/Makefile ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C kmod/bpf clean
	$(MAKE) -C userspace-tools clean
	rm -rf build/kmod-* build/tests build/quick build/check

# Also the VM caches, the chosen kernels and the extracted checkpatch.
distclean: clean
	rm -rf build

tools:
	$(MAKE) -C userspace-tools

bpf:
	$(MAKE) -C kmod/bpf $(if $(BTF),BTF=$(BTF))
	$(MAKE) -C userspace-tools bpf
.PHONY: bpf

unit:
	$(MAKE) -C kmod/tests test

quick:
	bash scripts/quick.sh

check:
	bash scripts/check.sh

check-dkms:
	bash scripts/check-dkms.sh

# The modules under a debug kernel (lockdep, KASAN, UBSAN, DEBUG_OBJECTS,
# DEBUG_ATOMIC_SLEEP), built once from Debian's 6.1 source: the kernel
# tests, then the fault matrix (DEBUG_ARGS=--no-faults: the tests only).
check-debug:
	bash scripts/check-debug.sh $(DEBUG_ARGS)

SEEDS ?= 3

incast:
	bash testbed/run.sh incast --seeds $(SEEDS)
	python3 testbed/report.py --keep

fairness:
	bash testbed/run.sh fairness --seeds $(SEEDS)
	python3 testbed/report.py --keep

websearch:
	bash testbed/run.sh websearch
	python3 testbed/report.py --keep

reproduce:
	bash testbed/run.sh incast --seeds $(SEEDS)
	bash testbed/run.sh fairness --seeds $(SEEDS)
	bash testbed/run.sh websearch
	python3 testbed/report.py

FAULTS_KERNELS ?= 6.1 6.12
faults:
	bash testbed/run_faults.sh --kernels "$(FAULTS_KERNELS)" \
		$(if $(CASES),-- --cases $(CASES))

# The Mininet backend against netns (testbed/tests/test_mininet.sh, the
# whole test; make check runs its smoke): one 6.1 guest under -icount.
mininet: tools
	@[ -f build/kernels.env ] || bash scripts/setup.sh
	. build/kernels.env && scripts/build-kmod.sh \
		"/usr/src/linux-headers-$$KVER_61" "build/kmod-$$KVER_61" > /dev/null && \
	scripts/vm-run.sh --kernel 6.1 --icount --timeout 3600 -- \
		bash testbed/tests/test_mininet.sh "build/kmod-$$KVER_61/kmod"

# kmod/tests/idle_probe.sh in both kernels, one guest each, side by side:
# the floor of the search's target (docs/EVOLUTION.md).
IDLE_SETS ?= $(foreach t,1010 1020 1030 1040,variant=0,target_permille=$(t))
idle-probe:
	@[ -f build/kernels.env ] || bash scripts/setup.sh
	. build/kernels.env && for r in $$KVER_61 $$KVER_612; do \
		scripts/build-kmod.sh "/usr/src/linux-headers-$$r" \
			"build/kmod-$$r" > /dev/null || exit 1; done && \
	for k in 6.1:$$KVER_61 6.12:$$KVER_612; do \
		scripts/vm-run.sh --kernel $${k%%:*} --icount -- \
			bash kmod/tests/idle_probe.sh "build/kmod-$${k#*:}/kmod" \
			--reps 2 $(IDLE_SETS) > "build/idle-probe-$${k%%:*}.log" & \
	done; wait; for f in build/idle-probe-6.1.log build/idle-probe-6.12.log; do \
		grep '^idle-probe' "$$f" || { tail -n 5 "$$f"; exit 1; }; done

RUNS ?= 100000000
fuzz-long:
	bash scripts/fuzz-long.sh $(RUNS)

bench-ack:
	bash scripts/bench-ack.sh $(BENCH_ARGS)
	python3 testbed/report.py --keep

TRIALS ?= 40
evolve:
	bash scripts/setup.sh
	/usr/bin/python3 testbed/evolve/search.py --trials $(TRIALS)

evolve-rankcheck:
	/usr/bin/python3 testbed/evolve/rankcheck.py

# The checks the search never sees: fairness over 3 seeds, a 20:1 incast.
evolve-heldout:
	bash testbed/run.sh fairness --algorithms theta_powertcp,powertcp_evo \
		--seeds 3 --out results/heldout/fairness
	bash testbed/run.sh incast --algorithms theta_powertcp,powertcp_evo \
		--seeds 2 --out results/heldout/incast20 -- --senders 20

# One guest per algorithm and load, two at a time.
evolve-websearch:
	for l in 50 80; do \
		bash testbed/run.sh websearch --timeout 20000 \
			--algorithms theta_powertcp,powertcp_evo \
			--out results/heldout/websearch-$$l -- --loads $$l \
			--flows 2000 || exit 1; \
	done

.PHONY: faults fuzz-long mininet
.PHONY: all modules install dkms-install dkms-uninstall deb clean distclean \
	tools unit quick check check-dkms check-debug incast fairness websearch reproduce \
	evolve evolve-rankcheck evolve-heldout evolve-websearch idle-probe bench-ack
