#!/bin/bash
# report.sh CONSOLE MARKS KREL FLUSH_HOOKS OUT.md: pair the guest's BENCHRUN
# lines with the plugin's marker counts, print the table of instructions per
# operation (median of the rounds, run-to-run spread, change against
# "absent") and the budgets; write the same as Markdown to OUT.md. Exit 0 when every budget is met, 1 otherwise.
set -euo pipefail
console=$1 marks=$2 krel=$3 flush_hooks=$4 out=$5

tr -d '\r' <"$console" | awk -v marksfile="$marks" -v krel="$krel" \
	-v flush_hooks="$flush_hooks" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v qemu="$(qemu-system-x86_64 --version | head -n1)" -v out="$out" '
function sort(a, n,   i, j, t) { # insertion sort of a[1..n]
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}
function median(a, n) {
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function field(line, key,   m) {
	if (match(line, " " key "=[^ ]*")) {
		m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
		return m
	}
	return ""
}
function pct(x, base) { return base ? 100 * (x - base) / base : 0 }
function emit(s) { print s; print s >out }
BEGIN {
	nm = 0
	while ((getline line <marksfile) > 0) {
		split(line, f, " ")
		if (f[1] == "mark")
			mark[++nm] = f[3]
	}
	pos = 0
}
/^# kprobes:/ { if (probes == "") probes = substr($0, 11) }
/^BENCHHITS / {
	cfg = field($0, "cfg"); wl = field($0, "wl")
	hitsline[wl, cfg] = hitsline[wl, cfg] " " $4 "=" $5
	hitsum[wl, cfg] += $5
}
/^BENCHRUN / {
	cfg = field($0, "cfg"); rep = field($0, "rep") + 0; wl = field($0, "wl")
	n = field($0, "n") + 0; k = field($0, "k") + 0; m = field($0, "marks") + 0
	if (pos + m > nm) { bad = "fewer plugin marks than the guest executed"; exit }
	pos++ # the first marker closes whatever ran before the run
	for (i = 1; i <= k; i++)
		b[i] = mark[++pos] / n
	v = median(b, k)
	if (cfg == "check") { check = v; checkhi = b[k]; checklo = b[1]; next }
	if (cfg == "warmup") next
	within = (b[k] - b[1]) / v
	if (within > maxwithin[wl]) maxwithin[wl] = within
	runs[wl, cfg]++
	val[wl, cfg, runs[wl, cfg]] = v
	if (!(cfg in seencfg)) { seencfg[cfg] = 1; cfgs[++ncfg] = cfg }
	if (!(wl in seenwl)) { seenwl[wl] = 1; wls[++nwl] = wl; nops[wl] = n }
}
END {
	if (bad != "") { print "report: " bad; exit 1 }
	if (pos != nm) printf "note: %d plugin marks not paired with a run\n", nm - pos
	for (w = 1; w <= nwl; w++) for (c = 1; c <= ncfg; c++) {
		wl = wls[w]; cfg = cfgs[c]; r = runs[wl, cfg]
		for (i = 1; i <= r; i++) a[i] = val[wl, cfg, i]
		med[wl, cfg] = median(a, r)
		lo[wl, cfg] = a[1]; hi[wl, cfg] = a[r]; nr[wl, cfg] = r
	}
	desc["absent"] = "module not loaded"
	desc["off"] = flush_hooks ? "loaded, stock_hooks=0 flush_hooks=0 (every hook off)" : "loaded, stock_hooks=0 (flush redirect still attached)"
	desc["stock"] = flush_hooks ? "stock counters on (stock_hooks=1 flush_hooks=0)" : "stock counters on (+ flush redirect)"
	desc["flush"] = "flush control, kernel mode (stock_hooks=0)"
	desc["update"] = "flush control + update-side hooks (flush_mode=threshold, stock_hooks=0)"
	desc["default"] = "loaded with defaults (flush control kernel mode + stock counters)"
	desc["empty"] = "a control module that does nothing, as large as memcg_statctl"
	desc["optin"] = "defaults + the opt-in objcg_vmstat.flushes (objcg_flush_hooks=1)"
	desc["attr"] = "defaults + per-cgroup stock attribution (stock_attribution=1)"
	desc["kprobe"] = "no module; tracefs kprobes + hist:keys=common_pid on" probes
	desc["bpftrace"] = "no module; bpftrace kfunc: probes with per-cpu count() maps on" probes
	desc["bpfshare"] = "bpftrace as in `bpftrace`, and the module with its defaults beside it (the shared functions counted through an ftrace_ops)"

	emit("## Module cost in guest instructions (`make bench`)")
	emit("")
	emit("Kernel " krel ", measured " date ", " qemu " TCG, 1 vCPU, -icount shift=0,sleep=off, plugin scripts/bench/insn-marker.c.")
	emit("Each cell: median over " nr[wls[1], cfgs[1]] " interleaved rounds of (median over the batches of one run of instructions per operation); spread = (max - min) / median over the rounds.")
	emit("")
	line = "| workload (ops/batch) | config | insns/op | spread | vs absent |"
	emit(line)
	emit("|---|---|---:|---:|---:|")
	for (w = 1; w <= nwl; w++) for (c = 1; c <= ncfg; c++) {
		wl = wls[w]; cfg = cfgs[c]; base = med[wl, "absent"]
		emit(sprintf("| %s (%d) | %s | %.1f | %.3f%% | %s |", wl, nops[wl], cfg, med[wl, cfg],
			100 * (hi[wl, cfg] - lo[wl, cfg]) / med[wl, cfg],
			cfg == "absent" ? "-" : sprintf("%+.3f%%", pct(med[wl, cfg], base))))
	}
	emit("")
	emit("Configurations:")
	for (c = 1; c <= ncfg; c++)
		emit("- `" cfgs[c] "`: " (cfgs[c] in desc ? desc[cfgs[c]] : "kprobes + hist:keys=common_pid on " substr(cfgs[c], 4)))
	for (w = 1; w <= nwl; w++)
		emit(sprintf("- largest spread between the batches of one run, %s: %.3f%%", wls[w], 100 * maxwithin[wls[w]]))
	if (check != "")
		emit(sprintf("- plugin check: a loop of 2 instructions per iteration measured %.6f insns/iteration (batches %.6f..%.6f; the excess is the timer interrupts and the call)", check, checklo, checkhi))
	emit("")
	emit("Events per operation (round 1; module: hook hits from `hooks`, kprobes: hist `Hits:`, bpftrace: its count() maps), and the added instructions per event:")
	emit("")
	emit("| workload | config | events/op | added insns/event | events (per op) |")
	emit("|---|---|---:|---:|---|")
	for (w = 1; w <= nwl; w++) for (c = 1; c <= ncfg; c++) {
		wl = wls[w]; cfg = cfgs[c]
		if (!((wl, cfg) in hitsline)) continue
		d = med[wl, cfg] - med[wl, "absent"]
		emit(sprintf("| %s | %s | %.3f | %s | %s |", wl, cfg, hitsum[wl, cfg],
			hitsum[wl, cfg] > 0.01 ? sprintf("%.0f", d / hitsum[wl, cfg]) : "-",
			substr(hitsline[wl, cfg], 2)))
	}
	emit("")
	emit("Budgets:")
	fails = 0
	# 1. per page fault: stock counters and defaults <= 0.25%, the opt-in
	# objcg_vmstat.flushes on top <= 1%, update side <= 1.5%
	split("stock default optin update", bcfg, " ")
	blim["stock"] = 0.25; blim["default"] = 0.25; blim["optin"] = 1; blim["update"] = 1.5
	bname["stock"] = "stock counters"; bname["default"] = "defaults (flush control + stock counters)"
	bname["optin"] = "defaults + objcg_flush_hooks=1"
	bname["update"] = "update-side hooks (threshold mode)"
	for (i = 1; i <= 4; i++) {
		c = bcfg[i]
		if (!(("page-fault", c) in med)) continue
		x = pct(med["page-fault", c], med["page-fault", "absent"])
		ok = x <= blim[c]
		fails += !ok
		emit(sprintf("- %s %s per page fault: %+.3f%% (budget <= %.2f%%%s)", ok ? "PASS" : "FAIL", bname[c], x, blim[c],
			ok ? "" : sprintf("; missed by %.3f percentage points", x - blim[c])))
	}
	# 1b. threshold mode costs at most 1.5% on the other workloads too
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		if (wl == "page-fault" || !((wl, "update") in med)) continue
		x = pct(med[wl, "update"], med[wl, "absent"])
		ok = x <= blim["update"]
		fails += !ok
		emit(sprintf("- %s %s, %s: %+.3f%% (budget <= %.2f%%%s)", ok ? "PASS" : "FAIL", bname["update"], wl, x,
			blim["update"], ok ? "" : sprintf("; missed by %.3f percentage points", x - blim["update"])))
	}
	# 2. everything off: within the run-to-run spread of absent
	if (("page-fault", "off") in med) {
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]; base = med[wl, "absent"]
			d = med[wl, "off"] - base
			sp = hi[wl, "absent"] - lo[wl, "absent"]
			if (hi[wl, "off"] - lo[wl, "off"] > sp) sp = hi[wl, "off"] - lo[wl, "off"]
			ok = (d < 0 ? -d : d) <= sp
			fails += !ok
			emit(sprintf("- %s everything off, %s: %+.3f%% against a run-to-run spread of %.3f%% (budget: within the spread)%s",
				ok ? "PASS" : "FAIL", wl, pct(med[wl, "off"], base), 100 * sp / base,
				flush_hooks ? "" : "; the flush redirect stays attached in this configuration"))
		}
	}
	# 2b. with the control module measured, for information (not a
	# budget: two configurations of three rounds each, noisier than 2):
	# what loading a module that does nothing moves, and how far every
	# hook off is from that
	if (("page-fault", "empty") in med && ("page-fault", "off") in med) {
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]; base = med[wl, "absent"]; ctl = med[wl, "empty"]
			sp = hi[wl, "absent"] - lo[wl, "absent"]
			rs = ""
			for (c = 1; c <= 3; c++) {
				cf = c == 1 ? "absent" : c == 2 ? "empty" : "off"
				rs = rs sprintf("%s%s", c > 1 ? "; " : "", cf)
				for (i = 1; i <= nr[wl, cf]; i++) rs = rs sprintf(" %.1f", val[wl, cf, i])
			}
			emit(sprintf("- info control module (does nothing), %s: %+.3f%% against absent, whose own rounds spread %.3f%%; everything off: %+.3f%% against the control (insns/op by round: %s)",
				wl, pct(ctl, base), 100 * sp / base, pct(med[wl, "off"], ctl), rs))
		}
	}
	# 3. our counting <= 1/3 of tracefs kprobes + hist, and below bpftrace
	tool["kprobe"] = "kprobe+hist"; tool["bpftrace"] = "bpftrace kfunc+count()"
	tlim["kprobe"] = 1 / 3; tlim["bpftrace"] = 1
	tlimtext["kprobe"] = "<= 0.333"; tlimtext["bpftrace"] = "< 1"
	split("kprobe bpftrace", tcfg, " ")
	for (t = 1; t <= 2; t++) {
		tc = tcfg[t]
		if (!(("page-fault", tc) in med) || !(("page-fault", "stock") in med)) continue
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]; base = med[wl, "absent"]
			ours = med[wl, "stock"] - base; theirs = med[wl, tc] - base
			sp = hi[wl, "absent"] - lo[wl, "absent"]
			if (theirs <= sp) {
				emit(sprintf("- n/a  counting vs %s, %s: its overhead %+.1f insns/op is within the spread of absent (%.1f): no events to compare", tool[tc], wl, theirs, sp))
				continue
			}
			ok = tc == "kprobe" ? ours <= theirs * tlim[tc] : ours < theirs
			fails += !ok
			emit(sprintf("- %s counting vs %s, %s: ours %+.1f insns/op (%+.3f%%), %s %+.1f (%+.3f%%), ratio %.3f (budget %s)",
				ok ? "PASS" : "FAIL", tool[tc], wl, ours, pct(med[wl, "stock"], base), tool[tc], theirs, pct(med[wl, tc], base), ours / theirs,
				tlimtext[tc]))
		}
	}
	# 4. stock attribution on: <= 3% per page fault and on slab, and
	# below bpftrace (which counts only totals) on every workload
	if (("page-fault", "attr") in med) {
		split("page-fault slab", awl, " ")
		for (i = 1; i <= 2; i++) {
			wl = awl[i]
			if (!((wl, "attr") in med)) continue
			x = pct(med[wl, "attr"], med[wl, "absent"])
			ok = x <= 3
			fails += !ok
			emit(sprintf("- %s stock attribution on, %s: %+.3f%% (budget <= 3.00%%)", ok ? "PASS" : "FAIL", wl, x))
		}
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]
			if (!((wl, "bpftrace") in med)) continue
			ok = med[wl, "attr"] < med[wl, "bpftrace"]
			fails += !ok
			emit(sprintf("- %s stock attribution on vs bpftrace, %s: %+.3f%% against %+.3f%% (budget: below)", ok ? "PASS" : "FAIL", wl,
				pct(med[wl, "attr"], med[wl, "absent"]), pct(med[wl, "bpftrace"], med[wl, "absent"])))
		}
	}
	# 5. what the module adds while BPF trampolines share its functions
	# (information: the ftrace_ops path, no budget)
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		if (!((wl, "bpfshare") in med) || !((wl, "bpftrace") in med)) continue
		emit(sprintf("- info module beside bpftrace, %s: %+.1f insns/op (%+.3f%% of absent) over bpftrace alone; the defaults without bpftrace: %+.1f (%+.3f%%)", wl,
			med[wl, "bpfshare"] - med[wl, "bpftrace"], 100 * (med[wl, "bpfshare"] - med[wl, "bpftrace"]) / med[wl, "absent"],
			med[wl, "default"] - med[wl, "absent"], pct(med[wl, "default"], med[wl, "absent"])))
	}
	emit("")
	emit("Rerun: `make bench` (or `scripts/bench/bench.sh 6.1`).")
	exit fails ? 1 : 0
}'
