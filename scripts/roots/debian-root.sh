#!/bin/bash
# debian_root: make a Debian root file system with mmdebstrap, once. Sourced
# (after lib.sh) by trixie-root.sh and bookworm-root.sh.
#
#   debian_root DIR WANT VARIANT SUITE PKGS SOURCES [MMDEBSTRAP-OPTION...]
#
# DIR is the root; WANT a line describing the package set, kept in a stamp
# file inside it: a root without the stamp (an interrupted run) or with
# another WANT is made again. The root is built in DIR.tmp and renamed into
# place, so a half-made root is never used. PKGS is comma-separated, SOURCES
# one apt source line per line. Package lists are kept (the roots' users
# resolve packages with the root's own apt, without a network), and so are
# man pages unless an option excludes them. Prints DIR on stdout.

debian_root() {
	local dir=$1 want=$2 variant=$3 suite=$4 pkgs=$5 sources=$6
	shift 6
	local stamp=$dir/.mcs-debian-root tmp=$dir.tmp start lines=()
	if [ -e "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		echo "$dir"
		return 0
	fi
	command -v mmdebstrap >/dev/null || {
		log "installing mmdebstrap from the host's apt"
		apt-get install -y -q --no-install-recommends mmdebstrap >&2
	}
	# mmdebstrap (root mode) mounts /dev, /proc and /sys inside the root
	# while it runs; one killed half-way can leave them mounted. Never
	# rm -rf through them.
	if grep -q -e " $tmp/" -e " $dir/" /proc/mounts; then
		die "mounts left under $dir(.tmp) (see /proc/mounts): unmount them first"
	fi
	rm -rf --one-file-system "$tmp"
	mapfile -t lines <<<"$sources"
	start=$(date +%s)
	log "making $dir (mmdebstrap $suite, $variant + $pkgs)"
	mmdebstrap --variant="$variant" --include="$pkgs" \
		--skip=cleanup/apt/lists \
		--aptopt='Acquire::Languages "none"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$@" "$suite" "$tmp" "${lines[@]}" >&2
	rm -rf --one-file-system "$dir"
	mv "$tmp" "$dir"
	echo "$want" >"$stamp"
	log "$dir made in $(($(date +%s) - start))s ($(du -sh "$dir" | cut -f1))"
	echo "$dir"
}
