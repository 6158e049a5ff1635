# memcg-statctl top-level Makefile. `make help` lists the targets.
# The module's objects are listed in Kbuild, which kbuild reads instead of
# this file.

KVER ?= 6.1
# A flavour of KVER's kernel (rt, cloud, ...): the row KVER-FLAVOUR of
# scripts/kernels/kernels.tsv. Empty: the stock kernel, the row KVER.
FLAVOUR ?=
# The kernels the harness knows: the names of the table's rows.
KERNELS = $(shell tail -n +2 scripts/kernels/kernels.tsv 2>/dev/null | cut -f1 | paste -sd' ' -)
KDIR ?= /lib/modules/$(shell uname -r)/build
# Everything built goes under MCS_BUILD (default build/), for this Makefile
# and for the scripts it runs (scripts/lib.sh reads the same variable), so
# that a second checkout can share one tree of cached kernels and builds.
MCS_BUILD ?= $(CURDIR)/build
export MCS_BUILD
BUILD := $(MCS_BUILD)
USERSPACE_BUILD := $(BUILD)/userspace
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl
# Version tests are confined to module/compat.h, where they are the point;
# checkpatch's CONSTANT_COMPARISON misreads KERNEL_VERSION() comparisons.
CHECKPATCH_IGNORE := LINUX_VERSION_CODE,CONSTANT_COMPARISON

.PHONY: all module userspace unit deps vmtest kselftest-package check-kselftest readme-check check check-lane-a check-lane-b check-install check-install-a check-install-b check-quick check-quick-a check-quick-b check-debug \
	checkpatch demo bench bench-top bench-build experiment deb deb-check clean help

all: module

# The help of every target is the `## ` comment lines above its rule, printed
# in file order, then the kernels of the table; scripts/checks/make-help-check.sh
# (in `make check`) keeps the help lines and .PHONY in step.
## make help                  this list
help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)
	@echo "kernels (KVER, or KVER-FLAVOUR; scripts/kernels/kernels.tsv): $(KERNELS)"

# Without the kernel's build directory kbuild would only say "No such file
# or directory": say first which headers are missing and how to get them.
## make [module] [KDIR=...]   build memcg_statctl.ko (default: running kernel)
module:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		if [ "$(origin KDIR)" = file ]; then \
			echo "make module: no kernel build directory at $(KDIR): the headers of the running kernel ($$(uname -r)) are not installed." >&2; \
		else \
			echo "make module: KDIR=$(KDIR) is not a kernel build directory (no Makefile there)." >&2; \
		fi; \
		echo "  On Debian/Ubuntu: apt-get install linux-headers-$$(uname -r)" >&2; \
		echo "  Elsewhere: install the headers package of the running kernel, or pass KDIR=/path/to/kernel/build" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# One build at a time: check's two lanes both need the tool (vmtest,
# check-kselftest, readme-check), and two CMake runs in one build tree race.
## make userspace             build the memcg-statctl tool and its man page (no test program)
userspace:
	mkdir -p $(BUILD)
	flock $(BUILD)/.userspace.lock sh -c '\
		cmake -S userspace -B $(USERSPACE_BUILD) -DCMAKE_BUILD_TYPE=Release && \
		cmake --build $(USERSPACE_BUILD) -j$(shell nproc)'
	@if command -v help2man >/dev/null; then $(MAKE) --no-print-directory man; \
	else echo "userspace: no man page: help2man is not installed (apt-get install help2man)"; fi

## make unit                  build and run the tool's unit tests (no root, no module)
unit: userspace
	flock $(BUILD)/.userspace.lock \
		cmake --build $(USERSPACE_BUILD) -j$(shell nproc) --target memcg_statctl_tests
	ctest --test-dir $(USERSPACE_BUILD) --output-on-failure -j$(shell nproc)

## make deps                  install build and test dependencies (Debian 12, apt)
deps:
	scripts/deps.sh

## make checkpatch            the kernel's checkpatch.pl --strict on module/
checkpatch:
	scripts/kernels/ksft-headers.sh
	$(CHECKPATCH) --no-tree --strict --quiet --ignore $(CHECKPATCH_IGNORE) \
		-f module/*.c module/*.h module/*.S

# The module build of `check` is against the guest kernel's Debian headers
# (the host's own kernel may have none); vmtest does it before booting. It
# builds the tool first: the suite's tool_test.sh tests it (and skips
# without it).
## make vmtest [KVER=6.1]     build the tool, run the kernel-side tests in a QEMU guest;
##                            TESTS="NAME..." runs only those selftest programs;
##                            FLAVOUR=F boots the row KVER-F (vmtest, demo, bench, experiment)
vmtest: userspace
	MCS_TESTS="$(TESTS)" MCS_FLAVOUR="$(FLAVOUR)" scripts/vm/vmtest.sh $(KVER)

# The selftests as a kselftest TARGET of a kernel tree (Debian's
# linux-source): the package gen_tar makes, with the module for KVER.
## make kselftest-package [KVER=6.1]
##                            the selftests as a kselftest package (a kernel tree's gen_tar,
##                            module inside): build/ksft-pkg-KVER/
kselftest-package:
	scripts/kernels/ksft-package.sh $(KVER)

# That package's run_kselftest.sh in a KVER guest (tool_test.sh needs the tool).
## make check-kselftest [KVER=6.1] [TESTS="NAME..."]
##                            that package's run_kselftest.sh in a guest, without the module
##                            (all skip) and with it (all pass)
check-kselftest: userspace
	MCS_TESTS="$(TESTS)" scripts/checks/kselftest-check.sh $(KVER)

# docs/install.md ("Installing on a test machine"), word for word, in a guest
# booting a Debian 12 root (DKMS, make install, modprobe, signing, removal).
## make readme-check          follow docs/install.md word for word in a 6.1 guest, then type
##                            the README's quick start into bash in tmux and check its output
readme-check: userspace
	scripts/checks/readme-check.sh 6.1

# make check tests the code: the unit tests and host checks, then every
# kernel's selftest suite and what runs beside it in guests. The guest steps
# run in two lanes side by side (scripts/checks/lanes.sh): each QEMU guest
# is single-threaded, so one lane alone leaves the second core idle. The
# lanes share no kernel's build directory, and guest-prep.sh first makes
# what they do share: it runs in the background while the tool and its
# tests compile (it mostly waits on downloads and the disk), and the lanes
# start when both are done. Installing as a user does, on a Debian 12 root
# (readme-check, deb-check), is make check-install: DKMS and make module
# compile the module in the guest, about 10 minutes a build under TCG,
# three builds in all, which put check at over an hour.
## make check                 deps, unit, cited paths, make help, the mmtests and LKP adapters
##                            of contrib/, no tracked ELF file, checkpatch, build-time refusal,
##                            the kernel-log judge on made-up logs, Prometheus output with
##                            node_exporter, the bash completion, then
##                            two lanes side by side: check-lane-a and check-lane-b
check:
	@mkdir -p $(BUILD)/check && date +%s >$(BUILD)/check/started
	$(MAKE) deps
	scripts/checks/in-background.sh start guest-prep scripts/vm/guest-prep.sh 6.1 6.12 7.3
	$(MAKE) unit
	scripts/checks/doc-paths-check.sh
	scripts/checks/make-help-check.sh
	scripts/checks/contrib-check.sh
	scripts/checks/tracked-elf-check.sh
	$(MAKE) checkpatch
	scripts/checks/build-refusal-check.sh
	scripts/checks/klog-splats-check.sh
	scripts/checks/openmetrics-check.sh
	scripts/checks/completion-check.sh
	scripts/checks/in-background.sh wait guest-prep
	MCS_CHECK_STARTED=$$(cat $(BUILD)/check/started) \
		scripts/checks/lanes.sh check-lane-a check-lane-b

# 7.3's suite is split between the lanes to even them out, as lane b also
# makes, lints and installs the packages: lane b runs the programs of
# CHECK_SPLIT_B in a guest of its own (MCS_VM_PART=b), lane a the others
# (part a), so that a new program lands in lane a.
CHECK_SPLIT_KVER := 7.3
CHECK_SPLIT_B := bpf_share_test oracle_test attribution_test pending_test debugfs_test
# The suite's programs (tests.list, written by the selftests' build) other
# than those of $(1), as a shell word list for TESTS=.
suite_except = $$(sed -e '/^\#/d' -e 's/:.*//' $(BUILD)/selftests/tests.list | grep -vxF $(1:%=-e %) | paste -sd' ')

## make check-lane-a          check's lane of selftest suites: vmtest 6.1, and 7.3's but
##                            CHECK_SPLIT_B
check-lane-a: userspace
	$(CHECK_TEST_ENV) $(MAKE) vmtest KVER=6.1
	$(CHECK_TEST_ENV) MCS_VM_PART=a $(MAKE) vmtest KVER=$(CHECK_SPLIT_KVER) \
		TESTS="$(call suite_except,$(CHECK_SPLIT_B))"

# stress_test's run in check's vmtests: half its default, fault_test's:
# 24 unload/load cycles, each knob combination twice, of its 50, and
# bpf_share_test's storm: 10 program attach/detach cycles of its 100 (its
# floor; each moves a counting site twice, about 6 s under TCG) with its
# five reloads and one bpftrace start of its 3, so that check stays within
# its time budget; `make vmtest` runs the whole of them. check-install's
# deb-check takes the same (deb-check.sh passes MEMCG_STATCTL_* on to the
# guest).
CHECK_STRESS_S ?= 60
CHECK_FAULT_CYCLES ?= 24
CHECK_BPF_STORM ?= 10
CHECK_BPF_STORM_BT ?= 1
CHECK_TEST_ENV = MEMCG_STATCTL_STRESS_S=$(CHECK_STRESS_S) \
		 MEMCG_STATCTL_FAULT_CYCLES=$(CHECK_FAULT_CYCLES) \
		 MEMCG_STATCTL_BPF_STORM=$(CHECK_BPF_STORM) \
		 MEMCG_STATCTL_BPF_STORM_BT=$(CHECK_BPF_STORM_BT)
## make check-lane-b          check's other lane: the Debian packages (make deb) and lintian,
##                            the kselftest package on 6.1 without the module, vmtest 6.12,
##                            7.3's CHECK_SPLIT_B programs,
##                            DKMS checks on 6.1 and 6.12, the refusal check (6.12 booted with
##                            cgroup_disable=memory), the install check (6.1) and a short
##                            experiment in guest instructions (6.1)
check-lane-b:
	$(MAKE) deb
	scripts/checks/lintian-check.sh
	MCS_KSFT_RUNS=nomod $(MAKE) check-kselftest KVER=6.1
	$(CHECK_TEST_ENV) $(MAKE) vmtest KVER=6.12
	$(CHECK_TEST_ENV) MCS_VM_PART=b $(MAKE) vmtest KVER=$(CHECK_SPLIT_KVER) \
		TESTS="$(CHECK_SPLIT_B)"
	scripts/checks/dkms-check.sh 6.1
	scripts/checks/dkms-check.sh 6.12
	scripts/checks/refusal-check.sh 6.12
	scripts/checks/install-check.sh 6.1
	scripts/checks/experiment-check.sh 6.1

# Installing as the docs and the packages say, each in a 6.1 guest on a
# Debian 12 root (bookworm-root.sh, made first: both boot it): readme-check
# in one lane; make deb and deb-check (lintian, apt-get install with DKMS,
# the installed kselftests with check's settings, purge) in the other.
# Their guests compile the module (DKMS, make module) under TCG, so this
# takes about half an hour: run it before submitting a change to the docs,
# the install targets, the packaging or module/.
## make check-install         readme-check and deb-check 6.1 side by side (check-install-a/-b)
check-install: deps
	@mkdir -p $(BUILD)/check && date +%s >$(BUILD)/check/started
	$(MAKE) userspace
	scripts/vm/guest-prep.sh 6.1
	scripts/roots/bookworm-root.sh 6.1 >/dev/null
	MCS_CHECK_STARTED=$$(cat $(BUILD)/check/started) \
		scripts/checks/lanes.sh check-install-a check-install-b

## make check-install-a       check-install's lane a: readme-check
check-install-a: readme-check

## make check-install-b       check-install's lane b: make deb-check (make deb first) on 6.1
check-install-b:
	$(CHECK_TEST_ENV) $(MAKE) deb-check KVER=6.1

# The inner loop: what catches most mistakes in a few minutes. The guest
# suite runs in two guests side by side, each single-threaded QEMU on a
# core of its own: part a the programs of CHECK_QUICK_A, part b every other
# program of the suite (tests.list), so a new program lands in part b.
CHECK_QUICK_A := bpf_share_test reload_test stress_test oracle_test stock_test \
		 flush_test reset_test debugfs_test pending_test
## make check-quick [KVER=6.1] deps, unit, checkpatch, the module for every kernel row, then
##                            KVER's selftest suite (check's settings) in two guests side by side
check-quick: deps
	@mkdir -p $(BUILD)/check && date +%s >$(BUILD)/check/started
	$(MAKE) unit
	$(MAKE) checkpatch
	scripts/checks/module-builds.sh
	scripts/vm/guest-prep.sh $(KVER)
	MCS_CHECK_STARTED=$$(cat $(BUILD)/check/started) \
		scripts/checks/lanes.sh check-quick-a check-quick-b

## make check-quick-a         check-quick's part a of the suite: make vmtest TESTS="CHECK_QUICK_A"
check-quick-a: userspace
	$(CHECK_TEST_ENV) MCS_VM_PART=a $(MAKE) vmtest KVER=$(KVER) TESTS="$(CHECK_QUICK_A)"

## make check-quick-b         check-quick's part b: the suite's other programs
check-quick-b: userspace
	$(CHECK_TEST_ENV) MCS_VM_PART=b $(MAKE) vmtest KVER=$(KVER) \
		TESTS="$(call suite_except,$(CHECK_QUICK_A))"

# The selftests under the kernel's own debug checks (lockdep, KASAN,
# kmemleak, ...): 6.1-debug, built from Debian's 6.1 source the first time
# (scripts/kernels/debug-build.sh, cached). Not in `check`: that kernel
# build alone takes longer than all of `check`. With check's settings
# (CHECK_TEST_ENV): every path still runs under the debug checks, while the
# whole of bpf_share_test's storm would take some 50 minutes in that kernel
# (25 of its attaches took 363 s) and the whole run two hours.
## make check-debug           build (once) a 6.1 kernel with lockdep, KASAN, kmemleak and
##                            run the selftests in it (vmtest KVER=6.1-debug, check's settings);
##                            not in check: run it before submitting any change to module/
check-debug: deps
	$(MAKE) userspace
	scripts/kernels/debug-build.sh 6.1-debug
	$(CHECK_TEST_ENV) $(MAKE) vmtest KVER=6.1-debug

# Debian packages. The packaging is in packaging/debian/, not debian/ at the
# top: dpkg-buildpackage writes its build trees, logs and debian/files into
# debian/, and the changelog is generated from module/version.h, so the
# build runs in a copy of the tree under build/deb-src/ (where
# packaging/debian/ becomes debian/) and the source tree stays clean; nor
# does a top-level debian/ get in the way of a distribution's own packaging.
## make deb                   Debian packages memcg-statctl-dkms, memcg-statctl (tool, man page,
##                            bash completion) and memcg-statctl-tests (the kselftests) in
##                            build/deb/ (DEB_BUILD_OPTIONS, default "nocheck parallel=N")
deb:
	scripts/deb-build.sh

# The packages in a guest with a Debian 12 root: apt-get install, DKMS,
# modprobe, the tool, the installed kselftests, purge, and a kernel DKMS
# refuses; lintian on the host first. KVER 6.1 or 6.12. `check` makes it on
# 6.1 (its lane a); 6.12's, whose modules DKMS installs compressed, is run
# before submitting a change to the packaging.
## make deb-check [KVER=6.1] [TESTS="NAME..."]
##                            make deb, lintian, then install, use and purge the packages in a
##                            KVER guest (6.1, 6.12) on a Debian 12 root, the installed
##                            kselftests included
deb-check: deb
	MCS_TESTS="$(TESTS)" scripts/checks/deb-check.sh $(KVER)

## make demo [KVER=6.1]       boot the guest and show the tool at work
demo: deps
	$(MAKE) userspace
	MCS_FLAVOUR="$(FLAVOUR)" scripts/demo.sh $(KVER)

## make experiment NAME=... [KVER=6.1]
##                            reproduce a report of docs/background.md in the guest
##                            (update-flush, reader-flush, flush-threshold, objstock,
##                            readtwice, staleness); results in build/experiments/NAME/
experiment: deps
	$(MAKE) userspace
	MCS_FLAVOUR="$(FLAVOUR)" scripts/experiment.sh $(NAME) $(KVER)

## make bench [KVER=6.1]      module cost in guest instructions (QEMU plugin, 1 vCPU)
bench: deps
	MCS_FLAVOUR="$(FLAVOUR)" scripts/bench/bench.sh $(KVER)

## make bench-top [KVER=6.1]  what `memcg-statctl top` itself costs: CPU time of 30
##                            refreshes at 1 s over 100 cgroups on 8 vCPUs (6.12, 7.x
##                            list each cgroup; 6.1 has one global count)
bench-top: deps
	$(MAKE) userspace
	MCS_FLAVOUR="$(FLAVOUR)" scripts/bench/top-cost.sh $(KVER)

## make bench-build           CPU and wall time of `make userspace`, then `make unit`, in a
##                            fresh export of the tree (git HEAD and the work tree's changes)
bench-build:
	scripts/bench/build-time.sh

## make clean                 remove build/ (MCS_BUILD) and the module's build products
clean:
	rm -rf $(BUILD)
	rm -f module/*.o module/.*.cmd *.o *.ko *.mod *.mod.c .*.cmd \
		Module.symvers modules.order
	rm -rf .tmp_versions

# Installation, DKMS and signing targets: install like any out-of-tree module.
-include scripts/install.mk
