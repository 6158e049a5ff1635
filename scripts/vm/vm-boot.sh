#!/bin/bash
# vm-boot.sh KVER INITRAMFS LOG: boot Debian's kernel KVER with INITRAMFS
# under QEMU, stream the console to stdout and LOG, and return when the guest
# powers off. KVM is used when a short probe boot shows it works (on these
# machines /dev/kvm exists but a KVM guest hangs); otherwise TCG. A watchdog
# kills a guest that runs longer than MCS_VM_TIMEOUT seconds (default 1500),
# times the timeout_factor of KVER's row in scripts/kernels/kernels.tsv.
# A boot that never reached the job is retried once: a guest that printed
# nothing in its first MCS_VM_SILENT seconds (default 150), or one whose
# kernel died before /init started the job (under multi-threaded TCG a boot
# now and then oopses in the kernel's own early text patching, before any
# of our code is loaded; the console log of that boot is kept as LOG.1). Under TCG the CPU is `max` without LA57:
# QEMU 7.2's 5-level paging emulation double-faults 6.12 early in boot.
# Exit: 0 the guest finished (printed its DONE marker) and its kernel log
# shows no bug report (scripts/vm/klog-splats.sh), 1 otherwise.
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: vm-boot.sh KVER INITRAMFS LOG}
initrd=$2
logf=$3
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

timeout_s=${MCS_VM_TIMEOUT:-1500}
silent_s=${MCS_VM_SILENT:-150}
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "MCS_VM_TIMEOUT must be a number of seconds (got '$timeout_s')"
[[ "$silent_s" =~ ^[1-9][0-9]*$ ]] || die "MCS_VM_SILENT must be a number of seconds (got '$silent_s')"
# Both are for a stock kernel: a slower one (a debug kernel) gets its row's
# timeout_factor times as long, and so do the selftests' own timeouts
# (KSFT_TIMEOUT_SCALE: the kernel passes a parameter it does not know on to
# /init's environment).
factor=$(kernel_field "$kver" timeout_factor)
[[ "$factor" =~ ^[1-9][0-9]*$ ]] ||
	die "$MCS_KERNELS: timeout_factor of $kver must be a whole number >= 1 (got '$factor')"
timeout_s=$((timeout_s * factor))
silent_s=$((silent_s * factor))
smp=${MCS_VM_SMP:-2}
mem=${MCS_VM_MEM:-2048}
# The kernel log is judged whole at the end (klog-splats.sh): a buffer that
# a long suite cannot wrap (Debian's is 128 KiB). A KASAN kernel reports
# every bad access, not only the first.
append="console=ttyS0 panic=-1 log_buf_len=16M KSFT_TIMEOUT_SCALE=$factor"
if grep -qx 'CONFIG_KASAN=y' "$KCONFIG"; then
	append+=" kasan_multi_shot"
fi
append+=" ${MCS_VM_APPEND:-}"

qemu_cmd() { # ACCEL...
	echo qemu-system-x86_64 -M pc "$@" -smp "$smp" -m "$mem" \
		-kernel "$VMLINUZ" -initrd "$initrd" -append "'$append'" \
		-display none -monitor none -no-reboot -serial "file:$logf" \
		${MCS_VM_QEMU_EXTRA:-}
}

# A KVM guest prints its banner within a second; give it a few.
probe_kvm() {
	[ -w /dev/kvm ] || return 1
	local plog
	plog=$(mktemp)
	timeout 10 qemu-system-x86_64 -M pc -accel kvm -cpu host -m 256 \
		-kernel "$VMLINUZ" -append "console=ttyS0 panic=-1" \
		-display none -monitor none -no-reboot -serial "file:$plog" \
		</dev/null >/dev/null 2>&1 || true
	if grep -q 'Linux version' "$plog"; then
		rm -f "$plog"
		return 0
	fi
	rm -f "$plog"
	return 1
}

if [ -z "${MCS_VM_ACCEL:-}" ]; then
	if probe_kvm; then
		MCS_VM_ACCEL="-accel kvm -cpu host"
	else
		MCS_VM_ACCEL=$MCS_TCG_ACCEL
	fi
fi
log "booting $KREL with ${MCS_VM_ACCEL%% -cpu*} (smp $smp, ${mem} MiB)"

# One boot; returns 0 finished, 2 never reached the job, 1 otherwise.
boot_once() {
	local pid tailpid waited=0 ticks=0 stat
	: >"$logf"
	eval "exec $(qemu_cmd $MCS_VM_ACCEL)" </dev/null >"$logf.qemu" 2>&1 &
	pid=$!
	tail -n +1 -f --pid="$pid" "$logf" &
	tailpid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		waited=$((waited + 1))
		# QEMU's cpu time so far (utime + stime, in clock ticks)
		read -r -a stat 2>/dev/null <"/proc/$pid/stat" && ticks=$((stat[13] + stat[14]))
		if [ "$waited" -ge "$silent_s" ] && [ ! -s "$logf" ]; then
			log "guest printed nothing in ${silent_s}s"
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			wait "$tailpid" 2>/dev/null
			return 2
		fi
		if [ "$waited" -ge "$timeout_s" ]; then
			log "watchdog: guest still running after ${timeout_s}s, killed"
			kill "$pid" 2>/dev/null
			break
		fi
	done
	wait "$pid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	[ -s "$logf.qemu" ] && cat "$logf.qemu" >&2
	# How much of its time the guest kept its host core busy: whether a
	# step is short of CPU or waits (a waiting guest would leave its core
	# to another). The selftest suites keep it 87 to 89% busy.
	log "guest ran ${waited}s, QEMU busy $((ticks * 100 / $(getconf CLK_TCK) / (waited > 0 ? waited : 1)))% of it"
	grep -q '=== MCS-GUEST-DONE' "$logf" && return 0
	grep -q '=== MCS-GUEST-START' "$logf" || return 2
	return 1
}

start=$(date +%s)
rc=0
boot_once || rc=$?
if [ "$rc" -eq 2 ]; then
	log "the guest never started the job: retrying the boot once"
	cp "$logf" "$logf.1"
	rc=0
	boot_once || rc=$?
fi
log "boot+job wall time: $(($(date +%s) - start))s"
[ "$rc" -eq 0 ] || { log "guest did not finish"; exit 1; }
# The kernel's own bug reports (lockdep, KASAN, WARN, ...) fail every guest
# run, whatever its job: demo, experiment and bench judge nothing else of
# the kernel log.
if ! splats=$("$MCS_ROOT/scripts/vm/klog-splats.sh" "$logf"); then
	log "the guest's kernel log shows bug reports (see $logf):"
	while IFS= read -r line; do echo "  $line"; done <<<"$splats" >&2
	exit 1
fi
