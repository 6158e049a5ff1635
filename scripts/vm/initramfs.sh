#!/bin/bash
# initramfs.sh OUT.cpio.gz JOB.sh KVER FILE...: build the guest's initramfs:
# busybox-static, /init (scripts/guest/init.sh), /job.sh, and each FILE (as
# SRC=DEST, DEST absolute in the guest) with the shared libraries it needs.
# Kernel modules named in $MCS_GUEST_KMODS come from the image package,
# with their dependencies, for modprobe in the guest.
source "$(dirname "$0")/../lib.sh"

out=${1:?usage: initramfs.sh OUT JOB KVER FILE...}
job=$2
kver=$3
shift 3
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,lib,lib64,proc,sys,dev,tmp,run,etc}
# busybox-static's /bin/busybox: no libraries needed.
cp /bin/busybox "$stage/bin/busybox"
install -m 0755 "$MCS_ROOT/scripts/guest/init.sh" "$stage/init"
install -m 0755 "$job" "$stage/job.sh"

# Copy a file and, for a dynamic ELF, the libraries ldd names.
add_file() {
	local src=$1 dest=$2 lib
	mkdir -p "$stage$(dirname "$dest")"
	cp -a "$src" "$stage$dest"
	[ -f "$src" ] && [ -x "$src" ] || return 0
	# A static binary or a script has none (ldd fails on it).
	{ ldd "$src" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } |
		while read -r lib; do
			[ -e "$stage$lib" ] && continue
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
}

for spec in "$@"; do
	src=${spec%%=*}
	dest=${spec#*=}
	if [ -d "$src" ]; then
		find "$src" -type f | while read -r f; do
			add_file "$f" "$dest/${f#"$src"/}"
		done
	else
		add_file "$src" "$dest"
	fi
done

# Modules of the guest kernel (loop, ext4, ...) with their dependencies.
if [ -n "${MCS_GUEST_KMODS:-}" ]; then
	mdir=/lib/modules/$KREL
	mkdir -p "$stage$mdir"
	for m in $MCS_GUEST_KMODS; do
		# A module this kernel lacks (or has built in) is left out.
		{ modprobe -d "${KMODDIR%/lib/modules/*}" -S "$KREL" \
			--show-depends "$m" 2>/dev/null || log "no module $m in $KREL"; } |
			awk '$1 == "insmod" { print $2 }'
	done | sort -u | while read -r ko; do
		rel=${ko#"$KMODDIR"/}
		mkdir -p "$stage$mdir/$(dirname "$rel")"
		cp "$ko" "$stage$mdir/$rel"
	done
	cp "$KMODDIR"/modules.{order,builtin,builtin.modinfo} "$stage$mdir/" 2>/dev/null || true
	depmod -b "$stage" "$KREL"
fi

(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
log "initramfs: $out ($(du -h "$out" | cut -f1))"
