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
BUILD := $(CURDIR)/build
USERSPACE_BUILD := $(BUILD)/userspace
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl
# Version tests are confined to module/compat.h, where they are the point;
# checkpatch's CONSTANT_COMPARISON misreads KERNEL_VERSION() comparisons.
CHECKPATCH_IGNORE := LINUX_VERSION_CODE,CONSTANT_COMPARISON

.PHONY: all module userspace unit deps vmtest kselftest-package check-kselftest readme-check check \
	checkpatch demo bench experiment clean help

all: module

help:
	@echo "make [module] [KDIR=...]   build memcg_statctl.ko (default: running kernel)"
	@echo "make userspace             build the memcg-statctl tool and its unit tests"
	@echo "make unit                  run the unit tests (no root, no module)"
	@echo "make deps                  install build and test dependencies (Debian 12, apt)"
	@echo "make vmtest [KVER=6.1]     run the kernel-side tests in a QEMU guest;"
	@echo "                           TESTS=\"NAME...\" runs only those selftest programs;"
	@echo "                           FLAVOUR=F boots the row KVER-F (vmtest, demo, bench, experiment)"
	@echo "                           kernels (scripts/kernels/kernels.tsv): $(KERNELS)"
	@echo "make kselftest-package [KVER=6.1]  the selftests as a kselftest package (a kernel tree's"
	@echo "                           gen_tar, module inside): build/ksft-pkg-KVER/"
	@echo "make check-kselftest [KVER=6.1] [TESTS=\"NAME...\"]  that package's run_kselftest.sh in a"
	@echo "                           guest, without the module (all skip) and with it (all pass)"
	@echo "make readme-check          follow the README's install section word for word in a 6.1 guest"
	@echo "make checkpatch            the kernel's checkpatch.pl on module/"
	@echo "make check                 deps, unit, cited paths, checkpatch, check-kselftest 6.1, vmtest 6.12 7.3,"
	@echo "                           DKMS and install checks, a short experiment in guest"
	@echo "                           instructions, readme-check (about 55 minutes)"
	@echo "make demo                  boot the 6.1 guest and show the tool at work"
	@echo "make bench [KVER=6.1]      module cost in guest instructions (QEMU plugin, 1 vCPU)"
	@echo "make experiment NAME=...   a seed experiment in the guest (update-flush, reader-flush,"
	@echo "                           flush-threshold, objstock, readtwice, staleness); results in"
	@echo "                           build/experiments/NAME/"
	@$(MAKE) -s help-install

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	cmake -S userspace -B $(USERSPACE_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(USERSPACE_BUILD) -j$(shell nproc)

unit: userspace
	ctest --test-dir $(USERSPACE_BUILD) --output-on-failure

deps:
	scripts/deps.sh

checkpatch:
	scripts/kernels/ksft-headers.sh
	$(CHECKPATCH) --no-tree --strict --quiet --ignore $(CHECKPATCH_IGNORE) \
		-f module/*.c module/*.h module/*.S

# The module build of `check` is against the guest kernel's Debian headers
# (the host's own kernel may have none); vmtest does it before booting.
vmtest:
	MCS_TESTS="$(TESTS)" MCS_FLAVOUR="$(FLAVOUR)" scripts/vm/vmtest.sh $(KVER)

# The selftests as a kselftest TARGET of a kernel tree (Debian's
# linux-source): the package gen_tar makes, with the module for KVER.
kselftest-package:
	scripts/kernels/ksft-package.sh $(KVER)

# That package's run_kselftest.sh in a KVER guest (tool_test.sh needs the tool).
check-kselftest: userspace
	MCS_TESTS="$(TESTS)" scripts/checks/kselftest-check.sh $(KVER)

# The README's "Installing on a test machine", word for word, in a guest
# booting a Debian 12 root (DKMS, make install, modprobe, signing, removal).
readme-check: userspace
	scripts/checks/readme-check.sh 6.1

# On 6.1 the selftests run from the kselftest package (check-kselftest):
# the same programs and kernel-log check as vmtest 6.1, through kselftest's
# runner, plus a run without the module; vmtest 6.1 in addition would put
# check over its hour.
check:
	$(MAKE) deps
	$(MAKE) unit
	scripts/checks/doc-paths-check.sh
	$(MAKE) checkpatch
	$(MAKE) check-kselftest KVER=6.1
	$(MAKE) vmtest KVER=6.12
	$(MAKE) vmtest KVER=7.3
	scripts/checks/dkms-check.sh 6.1
	scripts/checks/dkms-check.sh 6.12
	scripts/checks/install-check.sh 6.1
	scripts/checks/experiment-check.sh 6.1
	$(MAKE) readme-check

demo: deps
	$(MAKE) userspace
	MCS_FLAVOUR="$(FLAVOUR)" scripts/demo.sh $(KVER)

# A seed experiment in the guest: make experiment NAME=update-flush [KVER=6.1]
experiment: deps
	$(MAKE) userspace
	MCS_FLAVOUR="$(FLAVOUR)" scripts/experiment.sh $(NAME) $(KVER)

# The module's own cost in guest instructions (QEMU TCG plugin, 1 vCPU).
bench: deps
	MCS_FLAVOUR="$(FLAVOUR)" scripts/bench/bench.sh $(KVER)

clean:
	rm -rf $(BUILD)
	rm -f module/*.o module/.*.cmd *.o *.ko *.mod *.mod.c .*.cmd \
		Module.symvers modules.order
	rm -rf .tmp_versions

# Installation, DKMS and signing targets: install like any out-of-tree module.
-include scripts/install.mk
