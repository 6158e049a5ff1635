#!/bin/bash
# plugin-build.sh: build the QEMU TCG plugin scripts/bench/insn-marker.c
# (guest instructions between markers) against qemu-plugin.h of the source
# package of the installed QEMU (fetched once with apt-get source; deb-src
# lines for bookworm are added to apt when missing), and print its path.
# Used by `make bench` and `make experiment`. Output in
# $MCS_BUILD/qemu-plugin/.
source "$(dirname "$0")/../lib.sh"

B=$MCS_BUILD/qemu-plugin
mkdir -p "$B"
qemu_src=$(dpkg-query -W -f '${source:Version}' qemu-system-x86) ||
	die "qemu-system-x86 is not installed (make deps)"
qemu_upstream=${qemu_src#*:}
qemu_upstream=${qemu_upstream%-*}
hdr_dir=$B/qemu-src/include
if [ ! -e "$hdr_dir/qemu-plugin.h.$qemu_src" ]; then
	if ! apt-cache showsrc qemu 2>/dev/null | grep '^Package: qemu' >/dev/null; then
		src_list=/etc/apt/sources.list.d/memcg-statctl-bench-src.sources
		log "adding deb-src lines for bookworm to apt ($src_list)"
		cat >"$src_list" <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
		apt-get update -q >&2
	fi
	log "fetching the source of qemu $qemu_src for qemu-plugin.h"
	rm -rf "$B/qemu-src"
	mkdir -p "$B/qemu-src" "$hdr_dir"
	# The installed version; if the archive has moved on, its current 7.2.
	(
		cd "$B/qemu-src" || exit 1
		apt-get source --download-only -q "qemu=$qemu_src" ||
			apt-get source --download-only -q qemu
	) 2>&1 | { grep -v '^W: Download is performed unsandboxed' >&2 || true; }
	orig=$(find "$B/qemu-src" -maxdepth 1 -name "qemu_$qemu_upstream.orig.tar.*" | head -n1)
	[ -n "$orig" ] || die "apt-get source qemu=$qemu_src fetched no orig tarball"
	tar -xf "$orig" -C "$B/qemu-src" --wildcards '*/include/qemu/qemu-plugin.h'
	cp "$B"/qemu-src/qemu-*/include/qemu/qemu-plugin.h "$hdr_dir/qemu-plugin.h"
	touch "$hdr_dir/qemu-plugin.h.$qemu_src"
	rm -f "$B"/qemu-src/*.tar.* "$B"/qemu-src/*.dsc
fi
log "qemu-plugin.h of qemu $qemu_src: API version $(sed -n 's/^#define QEMU_PLUGIN_VERSION //p' "$hdr_dir/qemu-plugin.h")"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I "$hdr_dir" \
	-o "$B/insn-marker.so" "$MCS_ROOT/scripts/bench/insn-marker.c" >&2
echo "$B/insn-marker.so"
