#!/bin/sh
# /job.sh of `make bench-top`: what `memcg-statctl top` itself costs. TOP_CGROUPS
# leaves under one parent, each holding a task with 1 MiB of tmpfs data
# (unflushed stat updates to show), then TOP_REFRESHES refreshes of top at a
# 1 s interval in JSON lines. Prints the CPU time the tool used (user and
# system, the shell's `times` for its children; the kernel's walk behind
# `pending` is in the system time) and the rows it listed. Every flush is
# stopped meanwhile (flush_mode never, flush_period_ms 0) so the counts
# stay standing, as on a machine between flushes.
TOP_CGROUPS=${TOP_CGROUPS:-100}
TOP_REFRESHES=${TOP_REFRESHES:-30}
set -e
insmod /lib/memcg_statctl.ko
memcg-statctl set flush_mode never
memcg-statctl set flush_period_ms 0
P=/sys/fs/cgroup/mcs-top
mkdir "$P"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
echo +memory >"$P/cgroup.subtree_control"
i=0
while [ "$i" -lt "$TOP_CGROUPS" ]; do
	mkdir "$P/cg$i"
	# The task joins its cgroup, writes 1 MiB of tmpfs data, and waits.
	sh -c "echo \$\$ >$P/cg$i/cgroup.procs; head -c 1048576 /dev/zero >/tmp/top-$i; exec sleep 100000" &
	i=$((i + 1))
done
sleep 2
echo "cpus: $(nproc); cgroups: $(find "$P" -mindepth 1 -type d | wc -l) under $P"
# `times` runs in this shell, not in a subshell ($(...) or a pipeline),
# whose children would be its own: its second line ("0m1.610s 0m1.920s") is the user and
# system time of this shell's finished children. mark FILE saves it;
# spent A B prints the user and system seconds from mark A to mark B.
mark() {
	times >"$1.times"
	sed -n 2p "$1.times" >"$1"
}
spent() {
	cat "$1" "$2" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
		t[NR, 1] = u[1] * 60 + u[2]; t[NR, 2] = s[1] * 60 + s[2] }
		END { printf "%.3f %.3f\n", t[2, 1] - t[1, 1], t[2, 2] - t[1, 2] }'
}
# The user and system seconds of one `top` of $1 refreshes at 1 s.
top_cpu() {
	mark /tmp/t0
	memcg-statctl top --json --interval 1 --count "$1" --limit 1000 >/tmp/top.jsonl
	mark /tmp/t1
	spent /tmp/t0 /tmp/t1 >"/tmp/top-$1.cpu"
}
top_cpu 1
top_cpu "$TOP_REFRESHES"
one=$(cat /tmp/top-1.cpu)
many=$(cat "/tmp/top-$TOP_REFRESHES.cpu")
echo "rows in the last frame: $(tail -n 1 /tmp/top.jsonl | grep -o '"id":' | wc -l)"
echo "top --count 1 (start and one frame): user, system seconds: $one"
echo "top --count $TOP_REFRESHES at a 1 s interval: user, system seconds: $many"
echo "$one $many $TOP_REFRESHES" | awk '{ per = ($3 + $4 - $1 - $2) / ($5 - 1)
	printf "each further refresh: %.1f ms of CPU: %.2f%% of one vCPU at a 1 s interval\n",
		per * 1000, per * 100 }'
# The kernel's part, the module's walk behind `pending`: 100 cats of it
# against 100 cats of a copy in tmpfs (the same bytes, no walk).
cats() {
	mark /tmp/c0
	i=0
	while [ "$i" -lt 100 ]; do
		cat "$1" >/dev/null
		i=$((i + 1))
	done
	mark /tmp/c1
	spent /tmp/c0 /tmp/c1 >"$2"
}
cat /sys/kernel/debug/memcg_statctl/pending >/tmp/pending.copy
echo "pending: $(wc -l </tmp/pending.copy) lines"
cats /sys/kernel/debug/memcg_statctl/pending /tmp/walk.cpu
cats /tmp/pending.copy /tmp/copy.cpu
cat /tmp/walk.cpu /tmp/copy.cpu | awk '{ sys[NR] = $2 } END {
	printf "100 reads of pending: %.3f s of system time, of a copy %.3f s: %.2f ms a read for the walk\n",
		sys[1], sys[2], (sys[1] - sys[2]) * 10 }'
