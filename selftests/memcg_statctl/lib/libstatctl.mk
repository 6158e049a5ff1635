# SPDX-License-Identifier: GPL-2.0
#
# The helpers in lib/, for the selftest Makefile in both of its modes,
# included after its first rule: objects in $(OUTPUT)/lib/, linked into
# every test (TEST_GEN_PROGS); bpf_fentry.o only into the tests that name
# it. Their headers are in the Makefile's LOCAL_HDRS.

LIBSTATCTL_C := lib/util.c lib/statctl.c lib/cgroup.c lib/child.c \
		lib/module.c lib/kmsg.c lib/tracefs.c lib/harness.c \
		lib/turns.c
LIBSTATCTL_O := $(patsubst %.c,$(OUTPUT)/%.o,$(LIBSTATCTL_C))
BPF_FENTRY_O := $(OUTPUT)/lib/bpf_fentry.o

$(OUTPUT)/lib:
	mkdir -p $@

$(OUTPUT)/lib/%.o: lib/%.c $(LOCAL_HDRS) | $(OUTPUT)/lib
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@
