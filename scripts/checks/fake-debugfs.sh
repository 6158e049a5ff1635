#!/bin/bash
# A stand-in for the module's debugfs directory (module/ABI.md), for host
# checks that drive the tool with --debugfs DIR: version, hooks, stats,
# flush_latency, flush_reasons, reset and the knobs, as userspace/tests/fake_debugfs.cpp makes them for
# the unit tests. Source it; fake_debugfs_make DIR creates DIR,
# fake_debugfs_feed DIR & keeps its counters growing until killed.
# shellcheck disable=SC2034  # used by the scripts sourcing this

# fake_debugfs_stats DIR N: the counters after N steps, written whole
# (a rename), as the module's file always reads whole.
fake_debugfs_stats() {
	local dir=$1 n=$2
	cat >"$dir/.stats" <<EOS
flush.requests $((n * 40))
flush.performed $((n * 30))
flush.skipped $((n * 10))
flush.periodic $n
flush.ns_total $((n * 30 * 2500))
flush.ns_max $((4000 + n % 7 * 100))
charge_stock.attempts $((n * 1000))
charge_stock.misses $((n * 50))
EOS
	chmod 0400 "$dir/.stats"
	mv -f "$dir/.stats" "$dir/stats"
	fake_debugfs_latency "$dir" "$n"
	fake_debugfs_reasons "$dir" "$n"
}

# fake_debugfs_reasons DIR N: flush_reasons after N steps, its classes
# summing to flush.requests (40 N) and flush.performed (30 N).
fake_debugfs_reasons() {
	local dir=$1 n=$2
	cat >"$dir/.flush_reasons" <<EOS
class reader $((n * 36)) $((n * 26)) $((n * 10))
class reclaim 0 0 0
class refault $((n * 3)) $((n * 3)) 0
class periodic $n $n 0
class async 0 0 0
class forced 0 0 0
class unattributed 0 0 0
caller memory_stat_format.constprop.0 reader $((n * 36)) $((n * 26)) $((n * 10))
caller workingset_refault refault $((n * 3)) $((n * 3)) 0
EOS
	chmod 0400 "$dir/.flush_reasons"
	mv -f "$dir/.flush_reasons" "$dir/flush_reasons"
}

# fake_debugfs_latency DIR N: flush_latency after N steps, its 41 log2
# buckets summing to flush.performed (30 N): 12 N in [1K,2K), 15 N in
# [2K,4K), 3 N in [4K,8K), as flush.ns_total's 2500 ns mean suggests.
fake_debugfs_latency() {
	local dir=$1 n=$2 k lo hi count
	for ((k = 0; k <= 40; k++)); do
		lo=$((k == 0 ? 0 : 1 << (k - 1)))
		hi=$((1 << k))
		((k == 40)) && hi=inf
		case $k in
		11) count=$((n * 12)) ;;
		12) count=$((n * 15)) ;;
		13) count=$((n * 3)) ;;
		*) count=0 ;;
		esac
		echo "$lo $hi $count"
	done >"$dir/.flush_latency"
	chmod 0400 "$dir/.flush_latency"
	mv -f "$dir/.flush_latency" "$dir/flush_latency"
}

# fake_debugfs_make DIR: a healthy 6.1 module with the default knobs.
fake_debugfs_make() {
	local dir=$1 knob
	mkdir -p "$dir"
	cat >"$dir/version" <<EOS
module 0.1.0
abi 1
kernel 6.1.0-57-amd64
generation 6.1
flush_model global
stock_model single
flush_control available
lockdown none
EOS
	cat >"$dir/hooks" <<EOS
flush __mem_cgroup_flush_stats - redirect attached 0
charge_stock.attempts try_charge_memcg - direct attached 0
charge_stock.misses page_counter_try_charge try_charge_memcg direct attached 0
EOS
	chmod 0400 "$dir/version" "$dir/hooks"
	: >"$dir/reset"
	chmod 0200 "$dir/reset"
	for knob in flush_mode:kernel flush_threshold:128 flush_period_ms:2000 \
		update_flush_every:0 stock_hooks:1 objcg_flush_hooks:0; do
		echo "${knob#*:}" >"$dir/${knob%%:*}"
		chmod 0600 "$dir/${knob%%:*}"
	done
	fake_debugfs_stats "$dir" 0
}

# fake_debugfs_feed DIR: one step every 0.1 s, until killed.
fake_debugfs_feed() {
	local n=0
	while sleep 0.1; do
		n=$((n + 1))
		fake_debugfs_stats "$1" "$n"
	done
}
