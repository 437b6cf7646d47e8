# SPDX-License-Identifier: GPL-2.0
#
# θ-PowerTCP and PowerTCP-evo for Linux: the modules, their tests, the
# testbed's experiments. `make help` lists the targets; each one is
# documented where it is defined (the "##" line).
#
# Three tiers of tests: make quick (no root, under a minute), make check
# (what CI runs, root, under 30 minutes from a fresh clone) and the long
# targets (faults, check-debug, check-dkms, fuzz-long, evolve, websearch,
# bench-ack, coexist) that make check covers with short smoke versions.
#
# The experiments write under results/ only, their report to
# results/RESULTS.md (testbed/report.py); the committed docs/RESULTS.md,
# docs/img/ and the fault tables change only by make update-docs.

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules ## build the modules for the running kernel (or KDIR=)

modules: ## the same as make
	@test -f $(KDIR)/Makefile || { echo "make: no kernel build tree at" \
		"$(KDIR): install linux-headers-$$(uname -r) or pass KDIR=" >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: modules ## install the modules (updates/) and run depmod
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h)

# DKMS without the package; refused while powertcp-dkms is installed,
# which owns the same /usr/src directory.
DKMS_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || \
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
DKMS_SRC = /usr/src/powertcp-$(DKMS_VERSION)

dkms-install: ## the sources into DKMS (/usr/src/powertcp-VERSION): built for this and every later kernel (KVER=)
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

dkms-uninstall: ## remove them from DKMS and every kernel
	-dkms remove powertcp/$(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

deb: ## build/deb/powertcp-dkms_VERSION_all.deb (dh-dkms, lintian-checked)
	bash scripts/build-deb.sh

clean: ## remove the builds (not the VM caches and kernels: distclean)
	@if [ -f $(KDIR)/Makefile ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C kmod/bpf clean
	$(MAKE) -C userspace-tools clean
	rm -rf build/kmod-* build/tests build/quick build/check

# Also the VM caches, the chosen kernels and the extracted checkpatch.
distclean: clean ## also the VM caches, the debug kernel and the extracted checkpatch
	rm -rf build

tools: ## the userspace tools (userspace-tools/bin/)
	$(MAKE) -C userspace-tools

bpf: ## the BPF struct_ops builds and their loader (BTF=FILE, else the running kernel's)
	$(MAKE) -C kmod/bpf $(if $(BTF),BTF=$(BTF))
	$(MAKE) -C userspace-tools bpf

unit: ## only the unit tests of the control law
	$(MAKE) -C kmod/tests test

quick: ## the fast tests and lints: no root, no QEMU, under a minute (FUZZ_SECONDS=)
	bash scripts/quick.sh

check: ## the whole test suite, what CI runs (root; installs what it needs)
	bash scripts/check.sh

check-dkms: ## the package in a guest: DKMS builds for 6.12, then 6.1 (root, long)
	bash scripts/check-dkms.sh

# The modules under a debug kernel (lockdep, KASAN, UBSAN, DEBUG_OBJECTS,
# DEBUG_ATOMIC_SLEEP), built once from Debian's 6.1 source: the kernel
# tests, then the fault matrix (DEBUG_ARGS=--no-faults: the tests only).
check-debug: ## the kernel tests and the fault matrix under a debug kernel (DEBUG_ARGS=)
	bash scripts/check-debug.sh $(DEBUG_ARGS)

SEEDS ?= 3
REPORT = /usr/bin/python3 testbed/report.py --keep

incast: ## the main job: the 10:1 incast, every algorithm, SEEDS seeds (3; or a list, SEEDS=4,7)
	bash testbed/run.sh incast --seeds $(SEEDS)
	$(REPORT)

fairness: ## four flows arriving and leaving, SEEDS as for incast
	bash testbed/run.sh fairness --seeds $(SEEDS)
	$(REPORT)

# The incast at fan-in N = 10 .. 255, each algorithm, fan-in and seed in a
# guest of its own (testbed/run.sh incast-sweep --help).
SWEEP_SEEDS ?= 2
incast-sweep: ## the incast at fan-ins 10 to 255, theta, evo, DCTCP, BBR, CUBIC (SWEEP_SEEDS, 2; FANINS=10,50)
	bash testbed/run.sh incast-sweep --seeds $(SWEEP_SEEDS) \
		$(if $(FANINS),--fanins $(FANINS))
	$(REPORT)

websearch: ## web-search FCT slowdowns at 20, 50 and 80% load
	bash testbed/run.sh websearch
	$(REPORT)

# Our algorithms against each peer, and CUBIC against BBR (the share
# CUBIC itself gets, the reference for BBR's pairs); then PowerTCP-evo
# with its competitive mode (variant 32) in the same cases, into
# results/coexist-compete. Each guest runs one algorithm's cases for one
# seed (about 25 minutes).
COEXIST_SEEDS ?= 2
coexist: ## next to CUBIC, Reno, BBR and DCTCP: shared FIFO, isolated classes, evo's competitive mode (COEXIST_SEEDS, 2)
	bash testbed/run.sh coexist --seeds $(COEXIST_SEEDS)
	bash testbed/run.sh coexist --algorithms cubic --seeds $(COEXIST_SEEDS) \
		-- --peers bbr --queues shared
	bash testbed/run.sh coexist --algorithms powertcp_evo=:variant=32 \
		--seeds $(COEXIST_SEEDS) --out results/coexist-compete
	$(REPORT)

reproduce: ## all three experiments, and one report of them
	bash testbed/run.sh incast --seeds $(SEEDS)
	bash testbed/run.sh fairness --seeds $(SEEDS)
	bash testbed/run.sh websearch
	/usr/bin/python3 testbed/report.py

FAULTS_KERNELS ?= 6.1 6.12
faults: ## the fault matrix in 6.1 and 6.12 (FAULTS_KERNELS=, CASES=a,b or smoke)
	bash testbed/run.sh faults $(foreach k,$(FAULTS_KERNELS),--kernel $(k)) \
		$(if $(CASES),-- --cases $(CASES))

# The maintainer's step: the committed docs from the results of the runs
# above (each section says which run and commit it is from).
update-docs: ## docs/RESULTS.md, docs/img/ and the fault tables from results/
	/usr/bin/python3 testbed/report.py --keep results docs
	if [ -f results/faults/summary.json ]; then \
		/usr/bin/python3 testbed/faults/summarize.py results/faults \
			--doc docs/RELIABILITY.md > /dev/null && \
		cp results/faults/faults.png docs/img/faults.png && \
		cp results/faults/summary.csv results/faults/summary.json \
			docs/faults/; fi
	if [ -f results/faults-debug/summary.json ]; then \
		/usr/bin/python3 testbed/faults/summarize.py results/faults-debug \
			--doc docs/faults/DEBUG.md > /dev/null; fi

# The Mininet backend against netns (testbed/tests/test_mininet.sh, the
# whole test; make check runs its smoke): one 6.1 guest under -icount.
mininet: tools ## the Mininet backend against netns, in a 6.1 guest
	@[ -f build/kernels.env ] || bash scripts/setup.sh
	. build/kernels.env && scripts/build-kmod.sh \
		"/usr/src/linux-headers-$$KVER_61" "build/kmod-$$KVER_61" > /dev/null && \
	scripts/vm-run.sh --kernel 6.1 --icount --timeout 3600 -- \
		bash testbed/tests/test_mininet.sh "build/kmod-$$KVER_61/kmod"

# kmod/tests/idle_probe.sh in both kernels, one guest each, side by side, on
# the kernel test's 50 and 5 Mbit/s paths:
# the floor of the search's target (docs/EVOLUTION.md).
IDLE_SETS ?= $(foreach t,1000 1010 1020 1030,variant=0,target_permille=$(t))
idle-probe: ## one flow on an idle path: what evo moves at each IDLE_SETS set, 6.1 and 6.12
	@[ -f build/kernels.env ] || bash scripts/setup.sh
	. build/kernels.env && for r in $$KVER_61 $$KVER_612; do \
		scripts/build-kmod.sh "/usr/src/linux-headers-$$r" \
			"build/kmod-$$r" > /dev/null || exit 1; done && \
	for k in 6.1:$$KVER_61 6.12:$$KVER_612; do \
		scripts/vm-run.sh --kernel $${k%%:*} --icount -- \
			bash kmod/tests/idle_probe.sh "build/kmod-$${k#*:}/kmod" \
			--reps 2 --rates 50,5 $(IDLE_SETS) \
			> "build/idle-probe-$${k%%:*}.log" & \
	done; wait; for f in build/idle-probe-6.1.log build/idle-probe-6.12.log; do \
		grep '^idle-probe' "$$f" || { tail -n 5 "$$f"; exit 1; }; done

RUNS ?= 100000000
fuzz-long: ## 10^8 executions of the law's fuzz harness and its branch coverage (RUNS=)
	bash scripts/fuzz-long.sh $(RUNS)

bench-ack: ## instructions per ACK and CPU per byte, 6.1 and 6.12 (BENCH_ARGS="run.sh options -- its own")
	bash testbed/run.sh bench-ack $(BENCH_ARGS)
	$(REPORT)

TRIALS ?= 40
evolve: ## the evolution search of powertcp_evo: three objectives, a Pareto front (resumes; TRIALS=N more, default 40)
	bash scripts/setup.sh
	/usr/bin/python3 testbed/evolve/search.py --trials $(TRIALS)

# The same search as WORKERS processes sharing one study in a private
# PostgreSQL server (results/evolve-shared/pg/), until it holds TRIALS
# trials; PG_LISTEN='*' lets workers on other machines join (the URL is
# printed). EVOLVE_ARGS: search.py's options (--stand-in 2: no guests).
WORKERS ?= 2
evolve-shared: ## the search as WORKERS workers sharing a PostgreSQL study until it holds TRIALS (PG_LISTEN=, EVOLVE_ARGS=)
	bash scripts/setup.sh
	bash testbed/evolve/shared.sh --workers $(WORKERS) --trials $(TRIALS) \
		$(if $(PG_LISTEN),--listen '$(PG_LISTEN)') -- $(EVOLVE_ARGS)

evolve-rankcheck: ## short windows against full-length runs on a sample
	/usr/bin/python3 testbed/evolve/rankcheck.py

# The checks the search never sees (testbed/evolve/heldout.py), of a
# candidate beside theta in the same runs: PARAMS=P=V:P=V.. (default: evo's
# defaults). Results in results/heldout/ (a check done for the same
# candidate is not run again), then the verdict of each of the issue's
# goals: results/heldout/heldout.md.
WS_SEEDS ?= 5
HELDOUT = /usr/bin/python3 testbed/evolve/heldout.py run $(if $(PARAMS),--params '$(PARAMS)')
evolve-heldout: ## held-out checks of a candidate (PARAMS=): incasts, fairness, BPF build (long)
	bash scripts/setup.sh
	$(HELDOUT) --checks incast,maxrtt,fanin20,burst,delack,fairness,bpf

evolve-websearch: ## its 2000-flow web search at 50% and 80% load, WS_SEEDS seeds (5; long)
	bash scripts/setup.sh
	$(HELDOUT) --checks websearch --ws-seeds $(WS_SEEDS)

help: ## this list
	@awk -F':[^#]*## ' '/^[a-z][a-z0-9-]*:.*## / { printf "  %-18s %s\n", $$1, $$2 }' \
		$(firstword $(MAKEFILE_LIST))

.PHONY: all modules install dkms-install dkms-uninstall deb clean distclean \
	tools bpf unit quick check check-dkms check-debug incast fairness \
	incast-sweep websearch reproduce faults update-docs mininet idle-probe fuzz-long \
	bench-ack evolve evolve-shared evolve-rankcheck evolve-heldout evolve-websearch help
