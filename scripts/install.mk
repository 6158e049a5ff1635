# Installation, DKMS and signing targets of memcg-statctl; included by the
# top-level Makefile. `make help` lists them (the `## ` lines); docs/install.md
# ("Installing on a test machine") is the user's guide. The targets are idempotent: running one twice is the same
# as running it once.
#
#   make install [KDIR=...] [DESTDIR=...] [PREFIX=/usr/local]
#   make uninstall (same variables)
#   make sign KEY=key.pem CERT=cert.der [KDIR=...]
#   make dkms-install [KERNELRELEASE=$(uname -r)]   /   make dkms-remove
#   make man                 the man page, build/man/memcg-statctl.1 (help2man)
#   make completion          the bash completion, build/completion/memcg-statctl

# The version is written once, in module/version.h. (Not called VERSION: that
# is kbuild's name for the kernel's major version.)
MCS_VERSION = $(shell sed -n 's/^\#define[[:space:]]\{1,\}MCS_VERSION[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' \
	$(CURDIR)/module/version.h)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
MAN1DIR = $(MANDIR)/man1
# Where bash-completion looks for a command's completion (it searches
# XDG_DATA_DIRS, /usr/local/share:/usr/share by default).
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# Where `make install` puts the module under /lib/modules/KREL/ (kbuild's
# default for external modules). DKMS uses updates/dkms (dkms.conf).
INSTALL_MOD_DIR ?= extra
# modules_install runs in $(KDIR): the staging path must be absolute.
MCS_DESTDIR = $(if $(DESTDIR),$(abspath $(DESTDIR)))

# The release of the kernel in $(KDIR), from UTS_RELEASE (what the module's
# vermagic carries). Not include/config/kernel.release: in Debian 12's 6.1
# headers that file holds the upstream release (6.1.x), so modules_install
# would put the module where modprobe never looks.
MCS_KREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

USERSPACE_BUILD ?= $(CURDIR)/build/userspace
BUILD ?= $(CURDIR)/build
TOOL = $(USERSPACE_BUILD)/memcg-statctl
MAN_PAGE = $(BUILD)/man/memcg-statctl.1
COMPLETION = $(BUILD)/completion/memcg-statctl
# Reproducible man page date: the last commit's.
SOURCE_DATE_EPOCH ?= $(shell git -C $(CURDIR) log -1 --format=%ct 2>/dev/null)

# DKMS. The kernel to build for defaults to the running one; DKMS itself
# never looks at it (dkms.conf uses $kernelver).
DKMS_NAME = memcg-statctl
DKMS_SOURCE_TREE ?= /usr/src
DKMS_SRC = $(DKMS_SOURCE_TREE)/$(DKMS_NAME)-$(MCS_VERSION)
KERNELRELEASE ?= $(shell uname -r)
# Headers elsewhere than /lib/modules/KERNELRELEASE/build (optional).
DKMS_KSRC ?=
# dkms runs make itself: do not hand it this make's flags and jobserver.
DKMS = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES dkms

SIGN_HASH ?= sha256
KEY ?=
CERT ?=

# $(call prune,DIR,TOP): remove DIR and then its parents while they are
# empty, stopping below TOP (TOP itself is kept).
prune = d='$(1)'; while [ "$$d" != '$(2)' ] && [ "$${d\#'$(2)'/}" != "$$d" ] && \
	rmdir "$$d" 2>/dev/null; do d=$${d%/*}; done

.PHONY: install uninstall install-module uninstall-module \
	install-tool uninstall-tool man completion sign \
	dkms-copy dkms-src dkms-add dkms-install dkms-remove

# --- make install / uninstall ------------------------------------------------

## make install [KDIR=...] [DESTDIR=...] [PREFIX=/usr/local]
##                            module (modules_install + depmod), tool, man page
install: install-module install-tool
## make uninstall             the reverse, with the same variables
uninstall: uninstall-module uninstall-tool

# The kernel's modules_install copies the module to
# $(DESTDIR)/lib/modules/KREL/$(INSTALL_MOD_DIR)/. It would also try to sign
# it with the distribution's key, which only the distribution has:
# CONFIG_MODULE_SIG_ALL= turns that off, and a signature made by `make sign`
# is kept. depmod runs on the live system; into a DESTDIR (a staging tree)
# only with DEPMOD_DESTDIR=1, as packages run depmod from their postinst.
## make install-module        the module alone (modules_install + depmod)
install-module: module
	@[ -n "$(MCS_KREL)" ] || { echo "install: no kernel release in $(KDIR)/include/generated/utsrelease.h (set KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) KERNELRELEASE=$(MCS_KREL) \
		INSTALL_MOD_PATH=$(MCS_DESTDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		CONFIG_MODULE_SIG_ALL= modules_install
	$(call mcs_depmod)

MCS_KO = $(MCS_DESTDIR)/lib/modules/$(MCS_KREL)/$(INSTALL_MOD_DIR)/memcg_statctl.ko
## make uninstall-module      the module alone
uninstall-module:
	@[ -n "$(MCS_KREL)" ] || { echo "uninstall: no kernel release in $(KDIR)/include/generated/utsrelease.h (set KDIR)" >&2; exit 1; }
	rm -f $(MCS_KO) $(MCS_KO).xz $(MCS_KO).gz $(MCS_KO).zst
	@$(call prune,$(MCS_DESTDIR)/lib/modules/$(MCS_KREL)/$(INSTALL_MOD_DIR),$(or $(MCS_DESTDIR),/lib/modules/$(MCS_KREL)))
	$(call mcs_depmod)

define mcs_depmod
@if [ -z "$(MCS_DESTDIR)" ] || [ "$(DEPMOD_DESTDIR)" = 1 ]; then \
		if [ -d "$(MCS_DESTDIR)/lib/modules/$(MCS_KREL)" ]; then \
			echo "depmod $(if $(MCS_DESTDIR),-b $(MCS_DESTDIR) )-a $(MCS_KREL)"; \
			depmod $(if $(MCS_DESTDIR),-b $(MCS_DESTDIR)) -a $(MCS_KREL); \
		fi; \
	else \
		echo "depmod: skipped for DESTDIR=$(DESTDIR) (run 'depmod -a $(MCS_KREL)' on the target)"; \
	fi
endef

# The tool is built if it is missing; if it cannot be built, the module is
# still installed and the tool and its man page are skipped, saying so.
## make install-tool          the tool and its man page alone
install-tool:
	@if [ ! -x $(TOOL) ]; then \
		echo "install: $(TOOL) missing, building it (make userspace)"; \
		$(MAKE) --no-print-directory userspace || true; \
	fi; \
	if [ ! -x $(TOOL) ]; then \
		echo "install: SKIPPED memcg-statctl and its man page: the tool does not build (see 'make userspace')"; \
		exit 0; \
	fi; \
	$(MAKE) --no-print-directory man && \
	echo "install -D -m 0755 $(TOOL) $(MCS_DESTDIR)$(BINDIR)/memcg-statctl" && \
	install -D -m 0755 $(TOOL) $(MCS_DESTDIR)$(BINDIR)/memcg-statctl && \
	echo "install -D -m 0644 $(MAN_PAGE) $(MCS_DESTDIR)$(MAN1DIR)/memcg-statctl.1" && \
	install -D -m 0644 $(MAN_PAGE) $(MCS_DESTDIR)$(MAN1DIR)/memcg-statctl.1 && \
	$(MAKE) --no-print-directory completion && \
	echo "install -D -m 0644 $(COMPLETION) $(MCS_DESTDIR)$(COMPLETIONDIR)/memcg-statctl" && \
	install -D -m 0644 $(COMPLETION) $(MCS_DESTDIR)$(COMPLETIONDIR)/memcg-statctl

# Directories are removed only inside a DESTDIR, and only when empty.
## make uninstall-tool        the tool, its man page and bash completion alone
uninstall-tool:
	rm -f $(MCS_DESTDIR)$(BINDIR)/memcg-statctl $(MCS_DESTDIR)$(MAN1DIR)/memcg-statctl.1 \
		$(MCS_DESTDIR)$(COMPLETIONDIR)/memcg-statctl
	@$(call prune,$(MCS_DESTDIR)$(BINDIR),$(or $(MCS_DESTDIR),$(BINDIR)))
	@$(call prune,$(MCS_DESTDIR)$(MAN1DIR),$(or $(MCS_DESTDIR),$(MAN1DIR)))
	@$(call prune,$(MCS_DESTDIR)$(COMPLETIONDIR),$(or $(MCS_DESTDIR),$(COMPLETIONDIR)))

# --- man page ----------------------------------------------------------------

# help2man reads `memcg-statctl --help`. Its include file, $(MAN_H2M), is made
# of a COMMANDS section (each subcommand's own --help) and a KNOBS section
# (the knob list of `set --help`) generated here, and the hand-written
# sections of userspace/man/memcg-statctl.h2m. `make userspace` makes it too.
MAN_H2M = $(BUILD)/man/memcg-statctl.h2m
MAN_H2M_SRC = $(CURDIR)/userspace/man/memcg-statctl.h2m
## make man                   build/man/memcg-statctl.1 from the tool's help (help2man)
man:
	@[ -x $(TOOL) ] || { echo "man: $(TOOL) missing: run 'make userspace' first" >&2; exit 1; }
	@command -v help2man >/dev/null || { echo "man: help2man not found: apt-get install help2man" >&2; exit 1; }
	@mkdir -p $(dir $(MAN_PAGE))
	@{ \
		echo '[COMMANDS]'; \
		for c in $$($(TOOL) --help | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $$1 }'); do \
			echo ".SS $$c"; echo '.nf'; \
			$(TOOL) $$c --help 2>&1 | sed 's/\\/\\e/g; s/^[.'"'"']/\\\&&/'; \
			echo '.fi'; \
		done; \
		echo '[KNOBS]'; \
		printf '%s\n' 'The knobs of module/ABI.md, as \fBget\fR and \fBset\fR take them, and the values each accepts:'; \
		$(TOOL) set --help | awk '/^Knobs/ { k = 1; next } k && /^  [a-z]/ { n = $$1; $$1 = ""; sub(/^ +/, ""); printf ".TP\n.B %s\n%s\n", n, $$0 }'; \
		cat $(MAN_H2M_SRC); \
	} >$(MAN_H2M)
	$(if $(SOURCE_DATE_EPOCH),SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) )help2man --no-info --no-discard-stderr \
		--version-string=$(MCS_VERSION) --section=1 \
		--name="control and measure memcg stat flushing and stock caching" \
		--include=$(MAN_H2M) --output=$(MAN_PAGE) $(TOOL)

# --- bash completion ---------------------------------------------------------

# Generated from the tool's --help (scripts/bash-completion.sh), so that it
# lists what the tool built from this tree accepts.
## make completion            build/completion/memcg-statctl, the bash completion, from the
##                            tool's --help
completion:
	@[ -x $(TOOL) ] || { echo "completion: $(TOOL) missing: run 'make userspace' first" >&2; exit 1; }
	@mkdir -p $(dir $(COMPLETION))
	$(CURDIR)/scripts/bash-completion.sh $(TOOL) >$(COMPLETION).tmp
	@mv $(COMPLETION).tmp $(COMPLETION)

# --- Secure Boot signing -----------------------------------------------------

# Signs memcg_statctl.ko in the tree with the kernel's own sign-file. The .ko
# is relinked first, so signing twice leaves one signature, not two.
## make sign KEY=... CERT=...  sign memcg_statctl.ko with KDIR's scripts/sign-file
##                            (SIGN_HASH, default sha256)
sign:
	@[ -n "$(KEY)" ] && [ -n "$(CERT)" ] || { echo "usage: make sign KEY=key.pem CERT=cert.der [KDIR=...]" >&2; exit 2; }
	@[ -r "$(KEY)" ] || { echo "sign: cannot read KEY=$(KEY)" >&2; exit 1; }
	@[ -r "$(CERT)" ] || { echo "sign: cannot read CERT=$(CERT)" >&2; exit 1; }
	@[ -x $(KDIR)/scripts/sign-file ] || { echo "sign: $(KDIR)/scripts/sign-file missing (set KDIR to the kernel's headers)" >&2; exit 1; }
	rm -f $(CURDIR)/memcg_statctl.ko
	$(MAKE) --no-print-directory module
	$(KDIR)/scripts/sign-file $(SIGN_HASH) $(abspath $(KEY)) $(abspath $(CERT)) $(CURDIR)/memcg_statctl.ko
	@echo "signed: $$(modinfo -F signer $(CURDIR)/memcg_statctl.ko) ($$(modinfo -F sig_hashalgo $(CURDIR)/memcg_statctl.ko))"

# --- DKMS --------------------------------------------------------------------

define mcs_need_dkms
@command -v dkms >/dev/null || { echo "dkms not found: apt-get install --no-install-recommends dkms" >&2; exit 1; }
@[ -n "$(MCS_VERSION)" ] || { echo "no MCS_VERSION in module/version.h" >&2; exit 1; }
endef

# The source tree DKMS builds from: dkms.conf, Kbuild and module/*.[ch]
# (dkms.conf says why nothing else is needed). It is copied fresh each time.
## make dkms-src              dkms remove this version, copy the sources afresh to
##                            DKMS_SOURCE_TREE (default /usr/src)
dkms-src:
	$(call mcs_need_dkms)
	@if [ -n "$$($(DKMS) status -m $(DKMS_NAME) -v $(MCS_VERSION))" ]; then \
		echo "$(DKMS) remove $(DKMS_NAME)/$(MCS_VERSION) --all"; \
		$(DKMS) remove $(DKMS_NAME)/$(MCS_VERSION) --all; \
	fi
	@# dkms can fail and still exit 0 (without /dev/fd, for one): check.
	@if [ -n "$$($(DKMS) status -m $(DKMS_NAME) -v $(MCS_VERSION) 2>/dev/null)" ]; then \
		echo "dkms-remove: dkms still lists $(DKMS_NAME)/$(MCS_VERSION): see dkms's messages above" >&2; \
		exit 1; \
	fi
	rm -rf $(DKMS_SRC)
	$(MAKE) --no-print-directory dkms-copy DEST=$(DKMS_SRC)

# The one list of the files DKMS builds from, for dkms-src and for the
# Debian package memcg-statctl-dkms (packaging/debian/rules).
## make dkms-copy DEST=DIR    copy dkms.conf, Kbuild and module/*.[chS] to DIR
dkms-copy:
	@[ -n "$(DEST)" ] || { echo "usage: make dkms-copy DEST=DIR" >&2; exit 2; }
	install -d $(DEST)/module
	install -m 0644 $(CURDIR)/dkms.conf $(CURDIR)/Kbuild $(DEST)/
	install -m 0644 $(CURDIR)/module/*.c $(CURDIR)/module/*.h $(CURDIR)/module/*.S $(DEST)/module/

## make dkms-add              dkms-src, then dkms add
dkms-add: dkms-src
	$(DKMS) add $(DKMS_NAME)/$(MCS_VERSION)

## make dkms-install [KERNELRELEASE=...]
##                            dkms-add, then dkms build and install
dkms-install: dkms-add
	$(DKMS) build $(DKMS_NAME)/$(MCS_VERSION) -k $(KERNELRELEASE) \
		$(if $(DKMS_KSRC),--kernelsourcedir $(DKMS_KSRC))
	$(DKMS) install $(DKMS_NAME)/$(MCS_VERSION) -k $(KERNELRELEASE)

## make dkms-remove           dkms remove --all, delete the DKMS_SOURCE_TREE copy
dkms-remove:
	$(call mcs_need_dkms)
	@if [ -n "$$($(DKMS) status -m $(DKMS_NAME) -v $(MCS_VERSION))" ]; then \
		echo "$(DKMS) remove $(DKMS_NAME)/$(MCS_VERSION) --all"; \
		$(DKMS) remove $(DKMS_NAME)/$(MCS_VERSION) --all; \
	fi
	@# dkms can fail and still exit 0 (without /dev/fd, for one): check.
	@if [ -n "$$($(DKMS) status -m $(DKMS_NAME) -v $(MCS_VERSION) 2>/dev/null)" ]; then \
		echo "dkms-remove: dkms still lists $(DKMS_NAME)/$(MCS_VERSION): see dkms's messages above" >&2; \
		exit 1; \
	fi
	rm -rf $(DKMS_SRC)
