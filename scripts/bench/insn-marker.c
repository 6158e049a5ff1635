// SPDX-License-Identifier: GPL-2.0
/*
 * insn-marker: a QEMU TCG plugin that counts guest instructions between
 * markers the guest executes. The marker is the no-op `xchg %bx,%bx`
 * (bytes 66 87 db); nothing in a Linux guest executes it except the
 * benchmark program (scripts/bench/mcs-bench.c).
 *
 * Every instruction adds 1 to a counter through an inline op (exact even
 * when a translation block is left mid-way by a fault). Each marker writes
 * one line "mark SEQ DELTA", DELTA being the instructions executed since the
 * previous marker (for the first marker: since the plugin started), in all
 * vCPUs together: run the guest with one vCPU.
 *
 * Arguments: out=FILE (default: qemu_plugin_outs, i.e. QEMU's log) and
 * reply=FIFO: each mark line is also written to FIFO, the input of a
 * `-serial pipe:` port of the guest, so that the program that executed the
 * marker reads its count back from that serial port (memcg-statctl's
 * MEMCG_STATCTL_INSN_TTY, used by `make experiment`). The FIFO is opened
 * read-write (an open for writing alone would wait for QEMU, which opens its
 * end later) and written without blocking: a line nobody reads is dropped
 * and counted, never a stalled vCPU.
 * Built against include/qemu/qemu-plugin.h of Debian's qemu source package
 * (scripts/bench/plugin-build.sh); QEMU_PLUGIN_VERSION of that header is
 * what the loading QEMU checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char marker[] = { 0x66, 0x87, 0xdb };

static uint64_t insns;		/* updated inline by the translated code */
static uint64_t last;
static uint64_t seq;
static FILE *out;
static int reply_fd = -1;
static uint64_t reply_dropped;

static void emit(const char *line)
{
	if (out) {
		fputs(line, out);
		fflush(out);
	} else {
		qemu_plugin_outs(line);
	}
}

static void on_marker(unsigned int vcpu, void *udata)
{
	char line[96];
	uint64_t now = insns;

	(void)vcpu;
	(void)udata;
	int len;

	len = snprintf(line, sizeof(line), "mark %" PRIu64 " %" PRIu64 "\n",
		       seq++, now - last);
	last = now;
	emit(line);
	if (reply_fd >= 0 && write(reply_fd, line, len) != len)
		reply_dropped++;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	char line[96];

	(void)id;
	(void)udata;
	snprintf(line, sizeof(line),
		 "total %" PRIu64 " marks %" PRIu64 " reply_dropped %" PRIu64 "\n",
		 insns, seq, reply_dropped);
	emit(line);
	if (out)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "w");
			if (!out) {
				perror(argv[i] + 4);
				return -1;
			}
		} else if (!strncmp(argv[i], "reply=", 6)) {
			reply_fd = open(argv[i] + 6, O_RDWR | O_NONBLOCK);
			if (reply_fd < 0) {
				fprintf(stderr, "insn-marker: %s: %s\n",
					argv[i] + 6, strerror(errno));
				return -1;
			}
		} else {
			fprintf(stderr, "insn-marker: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
