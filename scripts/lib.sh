#!/bin/bash
# Shared helpers of the host-side scripts: paths, logging, the kernel table.
# shellcheck disable=SC2034  # variables are used by the scripts sourcing this

set -euo pipefail

MCS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MCS_BUILD=${MCS_BUILD:-$MCS_ROOT/build}
MCS_KCACHE=$MCS_BUILD/kernels
# Kernel modules every guest loads (guest-stage.sh); the debug kernel keeps
# these and drops the others (kernels/debug-build.sh).
MCS_GUEST_KMODS_DEFAULT="loop ext4 zram crc32c_generic"

# QEMU's accelerator for single-threaded TCG: the vCPUs run in turn on one
# host thread, which QEMU's -icount and the instruction counts of the
# insn-marker plugin (scripts/bench/insn-marker.c; no plugin runs under KVM)
# need. The CPU is `max` without LA57 (see scripts/vm/vm-boot.sh).
MCS_TCG_ACCEL="-accel tcg,thread=single -cpu max,-la57"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# hold_lock FILE WHAT [wait]: hold an exclusive lock on FILE until this
# script and every process it starts have ended (a guest keeps its job's
# lock while it runs). Jobs of one build tree (MCS_BUILD) share its cached
# kernels, module builds and work folders: without wait, a second job on
# the same WHAT stops at once and says why; with wait, it waits for the
# first one's step, saying so.
hold_lock() {
	local file=$1 what=$2 mode=${3:-} fd
	mkdir -p "$(dirname "$file")"
	exec {fd}>>"$file"
	flock -n "$fd" && return 0
	[ "$mode" = wait ] ||
		die "$what: another job is using it (lock $file); wait for that job to end, or give this one its own MCS_BUILD"
	log "$what: waiting for another job (lock $file)"
	flock "$fd"
}

# copy_tree DEST: the tree's files into the folder DEST (made if missing):
# git's tracked and untracked files, ignored ones left out, when the tree is
# a git checkout; else every file but build/. What make deb packages, and
# what readme-check and bench-build start from, is so the tree as it stands,
# without its build products.
copy_tree() {
	mkdir -p "$1"
	if git -C "$MCS_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$MCS_ROOT" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			cpio -pdm0 --quiet "$1")
	else
		(cd "$MCS_ROOT" && find . -path ./build -prune -o -print0 | cpio -pdm0 --quiet "$1")
	fi
}

# selftests_env FILE: the selftests' own settings set here (MEMCG_STATCTL_STRESS_S,
# ...), as `export NAME='VALUE'` lines a guest sources before its tests
# (vmtest.sh's and deb-check.sh's guests); empty when none is set.
selftests_env() {
	env | grep '^MEMCG_STATCTL_[A-Z_]*=' | sed "s/^\([^=]*\)=\(.*\)/export \1='\2'/" >"$1" || true
}

# The kernels the guest harness knows: one row each in
# scripts/kernels/kernels.tsv (tab-separated, a header line naming the
# columns), read only through the functions below, so that a new kernel or
# flavour is a new row and no script tests a version. Columns:
#   name            what users type as KVER (6.1, 6.12, 7.3), with the
#                   flavour after a dash (6.1-rt: make vmtest KVER=6.1
#                   FLAVOUR=rt); names build/kernels/NAME.env and build dirs
#   series          the upstream series (6.1), what the image's release
#                   starts with
#   suite           the Debian suite that carries the kernel
#   image           the metapackage whose dependency names the image package
#                   (linux-image-amd64); the ABI number is resolved from the
#                   archive at run time, never written in the table. For a
#                   debug-build row, the source package it is built from
#   fetch           how the image and headers are obtained: apt (apt-get
#                   download on the host, kernel-fetch.sh), trixie-root
#                   (apt in the Debian 13 root, kernel-7x.sh) or debug-build
#                   (built here from the source package with the config of
#                   the stock row named by series, plus the kernel's debug
#                   checks: kernels/debug-build.sh)
#   build           where modules for it build: host (make -C KDIR here,
#                   module-build.sh) or trixie-root (gcc-14 in the root,
#                   kernel-7x.sh)
#   timeout_factor  how many times longer than a stock kernel the guest may
#                   take (a whole number; vm-boot.sh scales its watchdogs
#                   and the selftests' timeouts)
MCS_KERNELS=$MCS_ROOT/scripts/kernels/kernels.tsv

# kernel_names: the names of the table, one a line.
kernel_names() {
	awk -F'\t' 'NR > 1 && $1 != "" { print $1 }' "$MCS_KERNELS"
}

# kernel_row NAME: NAME's row of the table, tab-separated as in the file.
# Dies on a name the table lacks, listing the names it has, and on a row
# whose number of fields differs from the header's.
kernel_row() {
	local name=$1 row
	row=$(awk -F'\t' -v n="$name" 'NR > 1 && $1 == n { print; exit }' "$MCS_KERNELS")
	[ -n "$row" ] ||
		die "unknown kernel '$name' (known: $(kernel_names | paste -sd' ' -); $MCS_KERNELS)"
	[ "$(awk -F'\t' '{ print NF }' <<<"$row")" = "$(head -n1 "$MCS_KERNELS" | awk -F'\t' '{ print NF }')" ] ||
		die "$MCS_KERNELS: the row of $name does not have a field for every column"
	echo "$row"
}

# kernel_field NAME COLUMN: one field of NAME's row. Dies on an unknown
# column (listing the columns) and on an empty field.
kernel_field() {
	local name=$1 col=$2 row i value
	row=$(kernel_row "$name") || exit 1
	i=$(head -n1 "$MCS_KERNELS" | tr '\t' '\n' | grep -nx -- "$col" | cut -d: -f1 || true)
	[ -n "$i" ] ||
		die "no column '$col' in $MCS_KERNELS (columns: $(head -n1 "$MCS_KERNELS" | tr '\t' ' '))"
	value=$(cut -f"$i" <<<"$row")
	[ -n "$value" ] || die "$MCS_KERNELS: kernel $name has no $col"
	echo "$value"
}

# kernel_name KVER [FLAVOUR]: the table's name for KVER's FLAVOUR (empty:
# the stock kernel, named KVER; else KVER-FLAVOUR), after checking that the
# table has it.
kernel_name() {
	local name=$1
	[ -n "${2:-}" ] && name=$1-$2
	kernel_row "$name" >/dev/null || exit 1
	echo "$name"
}

# Files from a guest. The guest has no file system shared with the host: its
# only disk is the initramfs, in RAM and gone at power-off, and QEMU gives it
# no disk, 9p or network. So a guest job sends files with mcs-send-files
# (scripts/guest/send-files.sh, in every initramfs guest-stage.sh builds): a
# gzip-compressed tar in base64 between marker lines on the serial console,
# which vm-boot.sh keeps in the console log.
#
# console_receive_files LOG DIR LABEL: unpack the last block LABEL of the
# console log LOG into DIR and print the names of its files, one a line.
# DIR is emptied first, so that it holds one run's files and nothing older;
# a block without files (the guest had none to send) prints nothing and
# leaves DIR as it was, so a run that failed early does not wipe the files
# of an earlier one. Returns 1, saying why on stderr and leaving DIR alone,
# when LOG holds no complete block LABEL or the block is damaged (its size
# or sha256 differ from what the guest computed).
console_receive_files() {
	local logf=$1 dir=$2 label=$3 tmp rc=0 head bytes sum names f
	tmp=$(mktemp -d)
	# The serial console ends lines with CR LF.
	tr -d '\r' <"$logf" | awk -v label="$label" -v head="$tmp/head" -v body="$tmp/body" '
		BEGIN { b = "=== MCS-FILES-BEGIN " label " "; e = "=== MCS-FILES-END " label " ===" }
		index($0, b) == 1 { h = $0; t = ""; inb = 1; next }
		inb && $0 == e { inb = 0; got = 1; gh = h; gt = t; next }
		inb { t = t $0 "\n" }
		END {
			if (inb) exit 2
			if (!got) exit 1
			print gh > head
			printf "%s", gt > body
		}' || rc=$?
	case $rc in
	0) ;;
	2) log "the files '$label' in $logf are cut short (the guest stopped while sending them)" ;;
	*) log "no files '$label' in $logf (the guest never sent them)" ;;
	esac
	[ "$rc" -eq 0 ] || rc=1
	if [ "$rc" -eq 0 ]; then
		head=$(cat "$tmp/head")
		bytes=${head##* bytes=}
		bytes=${bytes%% *}
		sum=${head##* sha256=}
		sum=${sum%% *}
		if ! base64 -d "$tmp/body" >"$tmp/tgz" 2>/dev/null; then
			log "the files '$label' in $logf are damaged: not base64 (kernel messages inside the block?)"
			rc=1
		elif [ "$(stat -c %s "$tmp/tgz")" != "$bytes" ] ||
			[ "$(sha256sum <"$tmp/tgz" | cut -d' ' -f1)" != "$sum" ]; then
			log "the files '$label' in $logf are damaged: size or sha256 differ from the guest's"
			rc=1
		elif ! names=$(tar -tzf "$tmp/tgz"); then
			log "the files '$label' in $logf are damaged: not a gzip-compressed tar"
			rc=1
		fi
	fi
	if [ "$rc" -eq 0 ]; then
		# mcs-send-files stores base names only: refuse any other path.
		while IFS= read -r f; do
			case "$f" in
			./. | ./..) rc=1 ;;
			./ | ./[!/]*) [ "${f#./*/}" = "$f" ] || rc=1 ;;
			*) rc=1 ;;
			esac
		done <<<"$names"
		[ "$rc" -eq 0 ] || log "the files '$label' in $logf hold a path that is not a plain file name"
	fi
	if [ "$rc" -eq 0 ] && [ "$names" != ./ ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xzf "$tmp/tgz" -C "$dir" --no-same-owner --no-overwrite-dir || rc=1
		[ "$rc" -eq 0 ] && (cd "$dir" && find . -type f | sed 's|^\./||' | sort)
	fi
	rm -rf "$tmp"
	return "$rc"
}

# console_job_output LOG: what the guest job printed, from the console log
# LOG of a scripts/guest/init.sh boot: without the kernel log and without the blocks
# of files (console_receive_files reads those).
console_job_output() {
	sed -n '/=== MCS-GUEST-START/,/=== MCS-DMESG-BEGIN/p' "$1" | sed '1d;$d' |
		sed '/=== MCS-FILES-BEGIN /,/=== MCS-FILES-END /d'
}
