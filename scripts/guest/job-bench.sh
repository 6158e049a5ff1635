#!/bin/sh
# /job.sh of `make bench` (scripts/bench/bench.sh): in one boot, with one vCPU,
# run every workload under every configuration, R rounds interleaved (the
# order of the configurations rotates by one each round). Each run of
# /usr/bin/mcs-bench executes K+1 markers; the host pairs the plugin's counts
# with the lines "BENCHRUN cfg=C rep=R BENCH ..." printed here, in order.
# In round 1 the events each configuration counted are printed per
# operation ("BENCHHITS cfg=C wl=W NAME PER-OP").
# Parameters come from /bench/params (written by scripts/bench/bench.sh):
#   ROUNDS CONFIGS WORKLOADS N_<workload> K WARMUP, FLUSH_HOOKS (1: the
#   module has the flush_hooks parameter).
# Configurations: absent off stock flush update default optin attr kprobe bpftrace
# bpfshare (the module's defaults beside bpftrace on the same functions: the
# module counts them through an ftrace_ops while the BPF trampolines hold
# their direct-call slots),
# empty (a module that does nothing, of memcg_statctl's size: a control),
# and for diagnosis kp:FUNC[,FUNC...] (kprobes + hist triggers on those
# functions). bpftrace counts the same functions as kprobe with Debian's
# bpftrace (kfunc: probes, i.e. fentry, and per-cpu count() maps); a function
# it cannot attach is left out, and the whole configuration is skipped (with
# "# bpftrace: REASON") when bpftrace cannot run on this kernel.
# shellcheck source=/dev/null
. /bench/params
KO=/lib/memcg_statctl.ko
D=/sys/kernel/debug/memcg_statctl
T=/sys/kernel/tracing
# The stock events, counted the way a user without the module would: the
# functions the module's stock counters hook on this kernel, read from its
# `hooks` (the same set for the module, kprobe and bpftrace configurations).
stock_functions() {
	insmod $KO stock_hooks=1 || return 1
	awk '$4 != "redirect" && $1 !~ /^update\./ && $5 == "attached" { print $2 }' \
		$D/hooks | sort -u | tr '\n' ' '
	rmmod memcg_statctl
}
KPROBES=$(stock_functions)
[ -n "$KPROBES" ] || { echo "# no stock hook attached: cannot tell which functions to probe"; exit 1; }
echo "# stock functions: $KPROBES"
OFF=""
[ "$FLUSH_HOOKS" = 1 ] && OFF="flush_hooks=0"
probes=""

kprobes_on() { # FUNC...
	probes=""
	for f in "$@"; do
		if echo "p:mcsbench/$f $f" >>$T/kprobe_events &&
			echo 'hist:keys=common_pid' >"$T/events/mcsbench/$f/trigger"; then
			probes="$probes $f"
		else
			echo "# kprobe + hist trigger on $f failed"
		fi
	done
	echo "# kprobes:$probes"
}

kprobes_off() {
	for f in $probes; do
		echo '!hist:keys=common_pid' >"$T/events/mcsbench/$f/trigger"
	done
	echo >$T/kprobe_events
}

# bpftrace: one "kfunc:FUNC { @[probe] = count(); }" per function, run in
# the background with JSON output (one line per event or printed map) in
# $BTOUT. bt_funcs: the functions still worth trying; bt_skip: why bpftrace
# cannot run at all here (then every round skips the configuration).
BTOUT=/tmp/bpftrace.out
BTERR=/tmp/bpftrace.err
bt_funcs=$KPROBES
bt_skip=""
bt_pid=""
bt_probes=""

bt_say() { # FILE: its lines as "# bpftrace: ..." comments (at most 20)
	head -n 20 "$1" | sed 's/^/# bpftrace: /'
}

bt_running() { # bpftrace has not exited (a zombie has)
	[ -n "$bt_pid" ] && kill -0 "$bt_pid" 2>/dev/null &&
		! grep -q '^State:.*Z' "/proc/$bt_pid/status" 2>/dev/null
}

bt_maps() { # the number of maps bpftrace has printed so far
	grep -c '"type": "map"' $BTOUT
}

# Stop bpftrace: SIGINT (it prints its maps and detaches), SIGKILL if it
# still runs after 60 s. Returns its exit status.
bt_stop() {
	[ -n "$bt_pid" ] || return 0
	kill -INT "$bt_pid" 2>/dev/null
	bt_i=0
	while bt_running && [ "$bt_i" -lt 60 ]; do
		sleep 1
		bt_i=$((bt_i + 1))
	done
	if bt_running; then
		echo "# bpftrace: still running 60 s after SIGINT, killed"
		kill -KILL "$bt_pid"
	fi
	bt_rc=0
	wait "$bt_pid" || bt_rc=$?
	bt_pid=""
	return "$bt_rc"
}

# Start bpftrace on FUNC... and wait until every probe is live: it reported
# how many probes it attaches, and each function has its BPF trampoline in
# enabled_functions. 0 live, 1 not (bpftrace stopped, the reason printed).
bt_give_up() { # REASON: say why, stop bpftrace, show what it printed
	echo "# bpftrace: $*"
	bt_stop
	bt_say $BTERR
}

bt_start() { # FUNC...
	# BEGIN's own count keeps @ from being empty: bpftrace prints no
	# empty map.
	echo 'BEGIN { @[probe] = count(); }' >/tmp/mcs.bt
	for f in "$@"; do
		echo "kfunc:$f { @[probe] = count(); }" >>/tmp/mcs.bt
	done
	# Emptied here, not only by the background redirection: the checks
	# below must never see the output of the previous run.
	: >$BTOUT
	: >$BTERR
	bpftrace -B none -f json /tmp/mcs.bt >$BTOUT 2>$BTERR &
	bt_pid=$!
	bt_i=0
	# The whole line: -B none writes it in pieces.
	until grep -q '"type": "attached_probes"' $BTOUT &&
		[ "$(tail -c 1 $BTOUT)" = "" ]; do
		if ! bt_running; then
			bt_rc=0
			wait "$bt_pid" || bt_rc=$?
			bt_pid=""
			echo "# bpftrace: exited with status $bt_rc before attaching:"
			bt_say $BTERR
			return 1
		fi
		if [ "$bt_i" -ge 600 ]; then
			bt_give_up "no \"Attaching\" message after 600 s"
			return 1
		fi
		sleep 1
		bt_i=$((bt_i + 1))
	done
	bt_n=$(sed -n 's/.*"attached_probes", "data": {"probes": \([0-9]*\)}.*/\1/p' $BTOUT)
	if [ "$bt_n" != $(($# + 1)) ]; then
		bt_give_up "attaches $bt_n probes, not $(($# + 1)) (BEGIN and $# functions)"
		return 1
	fi
	bt_i=0
	while :; do
		bt_missing=""
		for f in "$@"; do
			grep -q "^$f " $T/enabled_functions || bt_missing="$bt_missing $f"
		done
		[ -z "$bt_missing" ] && return 0
		if ! bt_running || [ "$bt_i" -ge 60 ]; then
			bt_give_up "not live after $bt_i s (not in enabled_functions:$bt_missing)"
			return 1
		fi
		sleep 1
		bt_i=$((bt_i + 1))
	done
}

# 0 bpftrace runs with its probes live, 2 the configuration is skipped.
bpftrace_on() {
	if [ -z "$bt_skip" ] && ! command -v bpftrace >/dev/null; then
		bt_skip="no bpftrace in the guest"
	fi
	# Once per boot: the functions bpftrace has BTF for and ftrace can
	# patch (it drops a kfunc: probe without BTF silently).
	if [ -z "$bt_skip" ] && [ ! -e /tmp/bpftrace.kfuncs ]; then
		if ! bpftrace -l 'kfunc:*' >/tmp/bpftrace.kfuncs 2>$BTERR; then
			rm -f /tmp/bpftrace.kfuncs
			bt_say $BTERR
			bt_skip="bpftrace -l 'kfunc:*' failed"
		else
			bt_keep=""
			for f in $bt_funcs; do
				if ! grep -q "^$f\$" $T/available_filter_functions; then
					echo "# bpftrace: cannot attach $f (not in available_filter_functions)"
				elif ! grep -Eq "^kfunc:(vmlinux:)?$f\$" /tmp/bpftrace.kfuncs; then
					echo "# bpftrace: cannot attach $f (bpftrace -l 'kfunc:*' does not list it: no BTF for it)"
				else
					bt_keep="$bt_keep $f"
				fi
			done
			bt_funcs=$bt_keep
		fi
	fi
	# A failed start (bpftrace's errors printed) drops the functions its
	# errors name and tries again; an error naming none skips bpftrace.
	while [ -z "$bt_skip" ]; do
		if [ -z "$bt_funcs" ]; then
			bt_skip="no function it can attach"
			break
		fi
		# shellcheck disable=SC2086 # a word list
		if bt_start $bt_funcs; then
			bt_probes=$bt_funcs
			echo "# bpftrace probes:$bt_probes"
			return 0
		fi
		bt_keep=""
		for f in $bt_funcs; do
			if grep -Eq "kfunc:(vmlinux:)?$f([^A-Za-z0-9_]|\$)" $BTERR; then
				echo "# bpftrace: cannot attach $f"
			else
				bt_keep="$bt_keep $f"
			fi
		done
		[ "$bt_keep" = "$bt_funcs" ] && bt_skip="bpftrace failed (errors above)"
		bt_funcs=$bt_keep
	done
	echo "# bpftrace: skipped: $bt_skip"
	return 2
}

bpftrace_off() {
	bt_stop || echo "# bpftrace: exited with status $?"
	[ -s $BTERR ] && bt_say $BTERR
	return 0
}

# "bpftrace.FUNC COUNT" of every probe, from the maps bpftrace prints on
# SIGUSR1 (its main loop notices the signal within 100 ms).
bpftrace_hits() {
	bt_before=$(bt_maps)
	kill -USR1 "$bt_pid"
	bt_i=0
	until [ "$(bt_maps)" -gt "$bt_before" ] && [ "$(tail -c 1 $BTOUT)" = "" ]; do
		if ! bt_running || [ "$bt_i" -ge 60 ]; then
			echo "# bpftrace: no maps printed $bt_i s after SIGUSR1" >&2
			return 1
		fi
		sleep 1
		bt_i=$((bt_i + 1))
	done
	grep '"type": "map"' $BTOUT | tail -n 1 | awk -v funcs="$bt_probes" '{
		n = split(funcs, f, " ")
		for (i = 1; i <= n; i++) {
			v = 0
			if (match($0, "\"kfunc:(vmlinux:)?" f[i] "\": [0-9]+")) {
				v = substr($0, RSTART, RLENGTH)
				sub(/.*: /, "", v)
			}
			print "bpftrace." f[i], v
		}
	}'
}

setup() { # CONFIG
	# shellcheck disable=SC2046,SC2086 # word lists
	case $1 in
	absent) ;;
	off) insmod $KO stock_hooks=0 $OFF ;;
	stock) insmod $KO stock_hooks=1 $OFF ;;
	flush) insmod $KO stock_hooks=0 ;;
	update) insmod $KO stock_hooks=0 flush_mode=threshold ;;
	default) insmod $KO ;;
	optin) insmod $KO objcg_flush_hooks=1 ;;
	attr) insmod $KO stock_attribution=1 ;;
	empty) insmod /lib/mcs_control.ko ;;
	kprobe) kprobes_on $KPROBES ;;
	bpftrace) bpftrace_on ;;
	bpfshare) bpftrace_on && insmod $KO ;;
	kp:*) kprobes_on $(echo "${1#kp:}" | tr , ' ') ;;
	*) echo "# unknown config $1"; return 1 ;;
	esac
}

teardown() { # CONFIG
	case $1 in
	absent) ;;
	kprobe | kp:*) kprobes_off ;;
	bpftrace) bpftrace_off ;;
	bpfshare) rmmod memcg_statctl; bpftrace_off ;;
	empty) rmmod mcs_control ;;
	*) rmmod memcg_statctl ;;
	esac
}

# "NAME HITS" of every hook or probe of CONFIG that is attached. A hook's
# NAME is ROW/FUNCTION, with @CALLER for a caller-filtered row: two rows of
# one counter on one function differ only by their caller.
hits() { # CONFIG
	case $1 in
	absent | empty) ;;
	kprobe | kp:*)
		for f in $probes; do
			echo "kprobe.$f $(sed -n 's/^ *Hits: //p' "$T/events/mcsbench/$f/hist")"
		done ;;
	bpftrace) bpftrace_hits ;;
	bpfshare)
		bpftrace_hits
		awk '$5 == "attached" { print $1 "/" $2 ($3 == "-" ? "" : "@" $3), $6 }' $D/hooks ;;
	*) awk '$5 == "attached" { print $1 "/" $2 ($3 == "-" ? "" : "@" $3), $6 }' $D/hooks ;;
	esac
}

rotate() { # N WORD... : the words, rotated left by N
	n=$1
	shift
	i=0
	while [ "$i" -lt $((n % $#)) ]; do
		first=$1
		shift
		set -- "$@" "$first"
		i=$((i + 1))
	done
	echo "$@"
}

echo "BENCH-START configs: $CONFIGS"
# Warm-up, not measured: the kernel finishes work it deferred after boot
# (it doubled the instructions of the first page-fault run and tripled the
# plugin check's on 6.12 and 7.3), and the workloads' first runs fault in
# what later runs reuse.
for w in $WORKLOADS; do
	eval n=\$N_"$(echo "$w" | tr - _)"
	out=$(/usr/bin/mcs-bench "$w" "$n" "$K" "$WARMUP") &&
		echo "BENCHRUN cfg=warmup rep=1 $out"
done
# The plugin's check: a loop of exactly 2 instructions per iteration.
out=$(/usr/bin/mcs-bench loop 1000000 5 1) && echo "BENCHRUN cfg=check rep=1 $out"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	for c in $(rotate $((r - 1)) $CONFIGS); do
		rc=0
		setup "$c" || rc=$?
		# 2: not available on this kernel (the reason printed)
		[ "$rc" = 2 ] && continue
		[ "$rc" = 0 ] || exit 1
		if [ "$r" = 1 ] && [ "$c" != absent ] && [ "$c" != empty ] && [ "$c" != kprobe ] &&
			[ "$c" != bpftrace ] && [ "${c#kp:}" = "$c" ]; then
			echo "# $c: stock_hooks=$(cat $D/stock_hooks) objcg_flush_hooks=$(cat $D/objcg_flush_hooks) update_flush_every=$(cat $D/update_flush_every) flush_mode=$(cat $D/flush_mode)"
			awk '{ print "# " $1, $2, $3, $5 }' $D/hooks
		fi
		for w in $WORKLOADS; do
			eval n=\$N_"$(echo "$w" | tr - _)"
			[ "$r" = 1 ] && hits "$c" >/tmp/hits.before
			out=$(/usr/bin/mcs-bench "$w" "$n" "$K" "$WARMUP") ||
				{ echo "# mcs-bench $w failed under $c"; exit 1; }
			echo "BENCHRUN cfg=$c rep=$r $out"
			if [ "$r" = 1 ]; then
				hits "$c" >/tmp/hits.after
				awk -v c="$c" -v w="$w" -v ops=$((n * (K + WARMUP))) '
					FILENAME == ARGV[1] { b[$1] = $2; next }
					{ printf "BENCHHITS cfg=%s wl=%s %s %.3f\n", c, w, $1, ($2 - b[$1]) / ops }' \
					/tmp/hits.before /tmp/hits.after
			fi
		done
		teardown "$c" || exit 1
	done
	r=$((r + 1))
done
echo "BENCH-END"
