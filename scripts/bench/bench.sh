#!/bin/bash
# bench.sh [KVER]: measure the module's own cost in guest instructions.
# KVER is a row of scripts/kernels/kernels.tsv; MCS_FLAVOUR=F picks the row
# KVER-F (make bench FLAVOUR=F).
# Builds the QEMU plugin scripts/bench/insn-marker.c
# against qemu-plugin.h of Debian's qemu source package, the module and the
# static guest program scripts/bench/mcs-bench.c, boots Debian's stock
# kernel KVER (default 6.1) once with one vCPU under TCG with -icount and
# the plugin, runs every workload under every configuration, R rounds
# interleaved (scripts/guest/job-bench.sh), and prints the table and the
# budgets; the table also goes to build/bench/result.md. The configurations
# kprobe and bpftrace count the same kernel functions without the module,
# with tracefs kprobes + hist triggers and with Debian's bpftrace (kfunc:
# probes + count() maps); for bpftrace, /usr/bin/bpftrace and its libraries
# (LLVM, clang: about 75 MB compressed) go into the initramfs.
# Knobs (environment): MCS_BENCH_ROUNDS (3), MCS_BENCH_K (measured batches
# per run, 15), MCS_BENCH_WARMUP (1), MCS_BENCH_N_PAGE_FAULT (4096 pages),
# MCS_BENCH_N_SLAB (2000 files), MCS_BENCH_N_STAT_READER (400 reads),
# MCS_BENCH_CONFIGS (absent off stock flush update default optin attr kprobe bpftrace bpfshare;
# empty, the control module, on request),
# MCS_BENCH_DIR (build/bench).
# Exit: 0 measured and every budget met, 1 a budget missed or the run
# failed.
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}" "${MCS_FLAVOUR:-}")
B=${MCS_BENCH_DIR:-$MCS_BUILD/bench}
mkdir -p "$B"
start=$(date +%s)

rounds=${MCS_BENCH_ROUNDS:-3}
configs=${MCS_BENCH_CONFIGS:-absent off stock flush update default optin attr kprobe bpftrace bpfshare}
workloads="page-fault slab stat-reader"

# 1. The QEMU plugin that counts guest instructions between markers.
plugin=$("$MCS_ROOT/scripts/bench/plugin-build.sh")

# 2. The guest program, the module.
gcc -O2 -Wall -Wextra -Werror -static \
	-o "$B/mcs-bench" "$MCS_ROOT/scripts/bench/mcs-bench.c"
"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver"
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
ko=$("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver")
flush_hooks=0
modinfo -F parm "$ko" | grep -q '^flush_hooks:' && flush_hooks=1
log "module $ko (flush_hooks parameter: $([ $flush_hooks = 1 ] && echo yes || echo no))"
# The control module of the `empty` configuration: nothing but as many
# bytes as memcg_statctl.ko's text, data and bss (scripts/bench/control).
files=()
if [[ " $configs " == *" empty "* ]]; then
	pad=$(size "$ko" | awk 'NR == 2 { print $4 }')
	rm -rf "$B/control"
	cp -r "$MCS_ROOT/scripts/bench/control" "$B/control"
	echo "#define MCS_PAD_BYTES $pad" >"$B/control/pad.h"
	control=$("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver" "$B/control")
	log "control module $control ($pad bytes of padding)"
	files+=("$control=/lib/mcs_control.ko")
fi

# 3. The guest.
cat >"$B/params" <<EOT
ROUNDS=$rounds
CONFIGS="$configs"
WORKLOADS="$workloads"
N_page_fault=${MCS_BENCH_N_PAGE_FAULT:-4096}
N_slab=${MCS_BENCH_N_SLAB:-2000}
N_stat_reader=${MCS_BENCH_N_STAT_READER:-400}
K=${MCS_BENCH_K:-15}
WARMUP=${MCS_BENCH_WARMUP:-1}
FLUSH_HOOKS=$flush_hooks
EOT
files+=("$ko=/lib/memcg_statctl.ko" "$B/mcs-bench=/usr/bin/mcs-bench"
	"$B/params=/bench/params")
# bpftrace with the libraries ldd names (initramfs.sh); it needs nothing
# else from the root: BTF, tracefs and a /tmp come from the guest's kernel
# and /init. Left out when no configuration uses it (a smaller initramfs).
if [[ " $configs " == *" bpftrace "* || " $configs " == *" bpfshare "* ]]; then
	command -v bpftrace >/dev/null ||
		die "bpftrace is not installed (make deps), needed by the bpftrace configuration"
	files+=("$(command -v bpftrace)=/usr/bin/bpftrace")
fi
MCS_GUEST_KMODS="" "$MCS_ROOT/scripts/vm/initramfs.sh" "$B/initramfs.cpio.gz" \
	"$MCS_ROOT/scripts/guest/job-bench.sh" "$kver" "${files[@]}"

# One vCPU; -icount ties the guest's clocks (timer ticks, the 2 s periodic
# flush) to instructions, so a batch sees the same number of ticks whatever
# the host's speed. -icount needs single-threaded TCG.
rm -f "$B/marks.txt"
MCS_VM_SMP=1 MCS_VM_MEM=${MCS_VM_MEM:-1024} MCS_VM_TIMEOUT=${MCS_VM_TIMEOUT:-1200} \
	MCS_VM_ACCEL=$MCS_TCG_ACCEL \
	MCS_VM_QEMU_EXTRA="-icount shift=0,sleep=off -plugin $plugin,out=$B/marks.txt" \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$B/initramfs.cpio.gz" "$B/console.log" |
	grep --line-buffered -E '^(BENCH-|BENCHRUN|# )' >&2 ||
	die "the guest did not finish; console log in $B/console.log"
grep -q '^BENCH-END' "$B/console.log" ||
	die "the benchmark job failed; console log in $B/console.log"

# 4. The table and the budgets.
rc=0
"$MCS_ROOT/scripts/bench/report.sh" "$B/console.log" "$B/marks.txt" \
	"$KREL" "$flush_hooks" "$B/result.md" || rc=$?
log "bench $kver: $(($(date +%s) - start))s in all; console log $B/console.log, marks $B/marks.txt, table $B/result.md"
exit "$rc"
