#!/bin/bash
# debug-build.sh [NAME]: build the debug-build row NAME of
# scripts/kernels/kernels.tsv (default 6.1-debug): the stock kernel of its
# series (the row named so, 6.1) with the kernel's own debug checks
# (lockdep, KASAN, kmemleak, debugobjects, list debugging, sleep-in-atomic),
# for running the selftests under them. kernel-fetch.sh calls it for such a
# row. The source is the row's Debian source package (linux-source-6.1) of
# the same version as the stock kernel, and the config is that kernel's own:
# reduced with localmodconfig to the modules the guest loads, so that every
# built-in choice (mm, cgroup, ftrace, BPF, BTF) stays Debian's. BTF stays
# because the selftests attach BPF fentry programs by BTF id (the 6.1
# backend of the module itself reads none).
# Writes build/kernels/NAME.env (KREL, KDIR, VMLINUZ, KMODDIR, KCONFIG)
# like kernel-fetch.sh does; a second call finds the build done and returns.
source "$(dirname "$0")/../lib.sh"

name=${1:-6.1-debug}
[ "$(kernel_field "$name" fetch)" = debug-build ] ||
	die "kernel $name: not a debug-build row of $MCS_KERNELS"
base=$(kernel_field "$name" series)
srcpkg=$(kernel_field "$name" image)
mkdir -p "$MCS_KCACHE"
# The build takes about an hour: it is kept outside the checkout, in
# MCS_DEBUG_CACHE (default /var/cache/memcg-statctl), where a later checkout
# on the same machine finds it (`make clean` leaves it; remove the folder to
# rebuild). The .env in build/kernels points there.
cache=${MCS_DEBUG_CACHE:-/var/cache/memcg-statctl}
mkdir -p "$cache"
dir=$(cd -P "$cache" && pwd)/$name
src=$dir/src
obj=$dir/obj
root=$dir/root
env=$MCS_KCACHE/$name.env

write_env() {
	local krel
	krel=$(cat "$obj/include/config/kernel.release")
	cat >"$env" <<EOT
KREL=$krel
KDIR=$obj
VMLINUZ=$root/boot/vmlinuz-$krel
KMODDIR=$root/lib/modules/$krel
KCONFIG=$root/boot/config-$krel
EOT
}

if [ -e "$dir/.built" ]; then
	write_env
	log "kernel $name: built ($(sed -n 's/^KREL=//p' "$env"); $(cat "$dir/build-time" 2>/dev/null || echo "build time not recorded"))"
	exit 0
fi
start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg)

"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$base"
# shellcheck source=/dev/null
source "$MCS_KCACHE/$base.env"
stock_krel=${KREL:?}
stock_config=$KCONFIG
stock_moddir=$KMODDIR
# The source package of the very version the stock kernel was built from.
version=$(dpkg-deb -f "$MCS_KCACHE/$stock_krel/debs/linux-image-${stock_krel}_"*.deb Version)

if [ ! -e "$src/.unpacked" ]; then
	log "fetching $srcpkg=$version"
	rm -rf "$src" "$dir/debs" "$dir/pkg"
	mkdir -p "$dir/debs"
	(
		cd "$dir/debs" || exit 1
		apt-get download -q "$srcpkg=$version" 2>&1 |
			{ grep -v '^W: Download is performed unsandboxed' >&2 || true; }
	)
	dpkg-deb -x "$dir/debs/${srcpkg}_"*.deb "$dir/pkg"
	mkdir -p "$src"
	tar -xJf "$dir/pkg/usr/src/$srcpkg.tar.xz" -C "$src" --strip-components=1
	rm -rf "$dir/pkg"
	touch "$src/.unpacked"
fi

# The options this kernel is for, each checked in the final config.
debug_on=(PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP KASAN KASAN_GENERIC
	DEBUG_KMEMLEAK DEBUG_OBJECTS DEBUG_OBJECTS_WORK DEBUG_LIST DEBUG_INFO_BTF)
# Off: kmemleak runs from boot and scans only when a job asks (no scan
# thread: its reports would land at random points of the suite); a corrupt
# list warns instead of BUG() so the suite goes on and every report shows.
debug_off=(DEBUG_KMEMLEAK_DEFAULT_OFF DEBUG_KMEMLEAK_AUTO_SCAN
	BUG_ON_DATA_CORRUPTION PANIC_ON_OOPS)

make_k() { make -C "$src" O="$obj" "$@"; }

if [ ! -e "$obj/.configured" ]; then
	log "configuring $name from $stock_config"
	mkdir -p "$obj"
	cp "$stock_config" "$obj/.config"
	# localmodconfig keeps the modules of an lsmod listing: the ones the
	# guest harness loads (initramfs.sh) with what they depend on.
	lsmod=$obj/guest.lsmod
	echo "Module Size Used by" >"$lsmod"
	for m in $MCS_GUEST_KMODS_DEFAULT; do
		modprobe -d "${stock_moddir%/lib/modules/*}" -S "$stock_krel" \
			--show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | sed 's|.*/||; s|\.ko.*||; s|-|_|g' | sort -u |
		awk '{ print $1, 0, 0 }' >>"$lsmod"
	{ yes '' || true; } | make_k LSMOD="$lsmod" localmodconfig >"$obj/localmodconfig.log" 2>&1
	cfg=("$src/scripts/config" --file "$obj/.config")
	for o in "${debug_on[@]}"; do "${cfg[@]}" -e "$o"; done
	for o in "${debug_off[@]}"; do "${cfg[@]}" -d "$o"; done
	"${cfg[@]}" -e KASAN_INLINE -d KASAN_OUTLINE \
		--set-str LOCALVERSION -debug \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY certs/signing_key.pem
	make_k olddefconfig >/dev/null
	for o in "${debug_on[@]}"; do
		grep -qx "CONFIG_$o=y" "$obj/.config" || die "$name: CONFIG_$o did not stay on"
	done
	for o in "${debug_off[@]}"; do
		grep -qx "CONFIG_$o=y" "$obj/.config" && die "$name: CONFIG_$o did not stay off"
	done
	touch "$obj/.configured"
fi

log "building $name in $obj (nice 19, -j2; log: $obj/build.log)"
# The CPU time of the build (user and system of make and its children) says
# what the build costs whatever else the host runs; a resumed build counts
# only its last part, and the record says so.
resumed=
if [ -e "$obj/init/main.o" ]; then
	resumed=", resumed from an earlier partial build"
fi
TIMEFORMAT='%U %S'
{ time nice -n 19 make -C "$src" O="$obj" -j2 >"$obj/build.log" 2>&1; } 2>"$dir/build-cpu" ||
	die "$name: kernel build failed, see $obj/build.log"
read -r cpu_user cpu_sys <"$dir/build-cpu"
krel=$(make_k -s kernelrelease)
rm -rf "$root"
mkdir -p "$root/boot"
# Stripped, as Debian ships them: the guest copies them into its initramfs.
make_k -s INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install >>"$obj/build.log" 2>&1
cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$krel"
cp "$obj/.config" "$root/boot/config-$krel"
[ -e "$root/lib/modules/$krel/modules.dep" ] || depmod -b "$root" "$krel"
write_env
secs=$(($(date +%s) - start))
# Wall time with the load average at both ends: on a shared host the build
# competes with everything else, and the figure says little without them.
echo "${secs}s wall time, ${cpu_user%.*}s user + ${cpu_sys%.*}s system CPU," \
	"make -j2 under nice 19 on $(nproc) cpus, load average $load_start at the start," \
	"$(cut -d' ' -f1 /proc/loadavg) at the end$resumed" >"$dir/build-time"
touch "$dir/.built"
log "kernel $name: $krel built: $(cat "$dir/build-time")"
