#!/bin/bash
# Shared helpers of the host-side scripts: paths, logging, the kernel table.
# shellcheck disable=SC2034  # variables are used by the scripts sourcing this

set -euo pipefail

MCS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MCS_BUILD=${MCS_BUILD:-$MCS_ROOT/build}
MCS_KCACHE=$MCS_BUILD/kernels

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The kernels the guest harness knows. A name maps to the Debian suite that
# carries it and the metapackage whose dependency names the image package;
# the ABI number is resolved from the archive at run time, never written here.
kernel_suite() {
	case "$1" in
	6.1) echo bookworm ;;
	6.12) echo bookworm-backports ;;
	7.3) echo trixie-backports ;; # built in a trixie root: kernel-7x.sh
	*) die "unknown kernel '$1' (known: 6.1, 6.12, 7.3)" ;;
	esac
}

# Files from a guest. The guest has no file system shared with the host: its
# only disk is the initramfs, in RAM and gone at power-off, and QEMU gives it
# no disk, 9p or network. So a guest job sends files with mcs-send-files
# (scripts/vm/guest-send-files.sh, in every initramfs guest-stage.sh builds): a
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
# LOG of a guest-init.sh boot: without the kernel log and without the blocks
# of files (console_receive_files reads those).
console_job_output() {
	sed -n '/=== MCS-GUEST-START/,/=== MCS-DMESG-BEGIN/p' "$1" | sed '1d;$d' |
		sed '/=== MCS-FILES-BEGIN /,/=== MCS-FILES-END /d'
}
