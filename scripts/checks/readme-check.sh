#!/bin/bash
# readme-check.sh [KVER]: follow docs/install.md ("Installing on a test
# machine") word for word in a guest booting Debian's kernel KVER (default 6.1) on a
# Debian 12 root file system (bookworm-root.sh): install with DKMS and with
# make install, load through modprobe, use, uninstall. The steps and their
# checks are in scripts/guest/readme-steps.sh; this script stages the disk, boots the
# guest and judges its TAP like vmtest.sh.
#
# The root gets a copy of this repository at the same path as here, with
# the tool's build tree (build/userspace) from the host: the page's
# `make userspace` then runs in the guest and finds the build up to date
# (same sources, same Debian 12 toolchain and libraries) instead of
# compiling C++ under TCG, which would take hours. The module is compiled in
# the guest, by `make module` and by DKMS.
source "$(dirname "$0")/../lib.sh"

kver=${1:-6.1}
work=$MCS_BUILD/readme-$kver
hold_lock "$work.lock" "install doc check on $kver in $work"
start=$(date +%s)

"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver"
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
root=$("$MCS_ROOT/scripts/roots/bookworm-root.sh" "$kver")
[ -x "$MCS_BUILD/userspace/memcg-statctl" ] || make -C "$MCS_ROOT" userspace >&2

# The stage: the root (hard links: nothing below writes to its files), the
# kernel's modules (a real machine has them; `make install` runs depmod over
# them), and the repository.
rm -rf --one-file-system "$work"
mkdir -p "$work"
stage=$work/stage
cp -al "$root" "$stage"
cp -al "$KMODDIR/." "$stage/lib/modules/$KREL/"
dest=$stage$MCS_ROOT
mkdir -p "$dest/build"
copy_tree "$dest"
cp -a "$MCS_BUILD/userspace" "$dest/build/userspace"

img=$work/root.img
size_mb=$(($(du -sm "$stage" | cut -f1) + 2048))
truncate -s "${size_mb}M" "$img"
mkfs.ext4 -q -F -L mcs-readme -d "$stage" "$img"
rm -rf --one-file-system "$stage"
log "root image: $img (${size_mb} MiB)"

echo "MCS_SRC=$MCS_ROOT" >"$work/readme.env"
MCS_GUEST_KMODS="virtio_pci virtio_blk ext4 crc32c_generic" \
	"$MCS_ROOT/scripts/vm/initramfs.sh" "$work/initramfs.cpio.gz" \
	"$MCS_ROOT/scripts/guest/job-readme.sh" "$kver" "$work/readme.env=/readme.env" \
	"$MCS_ROOT/scripts/guest/debian-root.sh=/debian-root.sh"
MCS_VM_TIMEOUT=${MCS_VM_TIMEOUT:-3000} \
	MCS_VM_QEMU_EXTRA="-drive file=$img,format=raw,if=virtio,cache=unsafe" \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/console.log" || true
rc=0
"$MCS_ROOT/scripts/vm/tap-check.sh" "$work/console.log" || rc=$?
[ -n "${MCS_KEEP:-}" ] || rm -f "$img"
log "readme-check $kver: $(($(date +%s) - start))s in all, console log in $work/console.log"
exit "$rc"
