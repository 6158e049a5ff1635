#!/bin/sh
# /job.sh of `make bench` (scripts/bench.sh): in one boot, with one vCPU,
# run every workload under every configuration, R rounds interleaved (the
# order of the configurations rotates by one each round). Each run of
# /usr/bin/mcs-bench executes K+1 markers; the host pairs the plugin's counts
# with the lines "BENCHRUN cfg=C rep=R BENCH ..." printed here, in order.
# In round 1 the events each configuration counted are printed per
# operation ("BENCHHITS cfg=C wl=W NAME PER-OP").
# Parameters come from /bench/params (written by scripts/bench.sh):
#   ROUNDS CONFIGS WORKLOADS N_<workload> K WARMUP, FLUSH_HOOKS (1: the
#   module has the flush_hooks parameter).
# Configurations: absent off stock flush update default kprobe, and for
# diagnosis kp:FUNC[,FUNC...] (kprobes + hist triggers on those functions).
# shellcheck source=/dev/null
. /bench/params
KO=/lib/memcg_statctl.ko
D=/sys/kernel/debug/memcg_statctl
T=/sys/kernel/tracing
# The stock events, counted the way a user without the module would.
KPROBES="try_charge_memcg page_counter_try_charge refill_stock drain_stock
obj_cgroup_charge refill_obj_stock drain_obj_stock mod_objcg_state"
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

setup() { # CONFIG
	# shellcheck disable=SC2046,SC2086 # word lists
	case $1 in
	absent) ;;
	off) insmod $KO stock_hooks=0 $OFF ;;
	stock) insmod $KO stock_hooks=1 $OFF ;;
	flush) insmod $KO stock_hooks=0 ;;
	update) insmod $KO stock_hooks=0 flush_mode=threshold ;;
	default) insmod $KO ;;
	kprobe) kprobes_on $KPROBES ;;
	kp:*) kprobes_on $(echo "${1#kp:}" | tr , ' ') ;;
	*) echo "# unknown config $1"; return 1 ;;
	esac
}

teardown() { # CONFIG
	case $1 in
	absent) ;;
	kprobe | kp:*) kprobes_off ;;
	*) rmmod memcg_statctl ;;
	esac
}

# "NAME HITS" of every hook or probe of CONFIG that is attached.
hits() { # CONFIG
	case $1 in
	absent) ;;
	kprobe | kp:*)
		for f in $probes; do
			echo "kprobe.$f $(sed -n 's/^ *Hits: //p' "$T/events/mcsbench/$f/hist")"
		done ;;
	*) awk '$5 == "attached" { print $1 "/" $2, $6 }' $D/hooks ;;
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
# The plugin's check: a loop of exactly 2 instructions per iteration.
out=$(/usr/bin/mcs-bench loop 1000000 5 1) && echo "BENCHRUN cfg=check rep=1 $out"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	for c in $(rotate $((r - 1)) $CONFIGS); do
		setup "$c" || exit 1
		if [ "$r" = 1 ] && [ "$c" != absent ] && [ "$c" != kprobe ] &&
			[ "${c#kp:}" = "$c" ]; then
			echo "# $c: stock_hooks=$(cat $D/stock_hooks) update_flush_every=$(cat $D/update_flush_every) flush_mode=$(cat $D/flush_mode)"
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
					FNR == NR { b[$1] = $2; next }
					{ printf "BENCHHITS cfg=%s wl=%s %s %.3f\n", c, w, $1, ($2 - b[$1]) / ops }' \
					/tmp/hits.before /tmp/hits.after
			fi
		done
		teardown "$c" || exit 1
	done
	r=$((r + 1))
done
echo "BENCH-END"
