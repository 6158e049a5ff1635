#!/bin/bash
# deb-check.sh KVER: prove the Debian packages of `make deb` (build/deb/)
# end to end. On the host, lintian on the three .debs (lintian-check.sh).
# Then a QEMU guest (single-threaded TCG) booting Debian's kernel KVER
# (6.1, 6.12) on the Debian 12 root of readme-check.sh (bookworm-root.sh,
# which holds KVER's headers and everything the .debs depend on, so that
# the guest, which has no network, finds every dependency installed) runs
# scripts/guest/deb-steps.sh:
# apt-get install ./*.deb, DKMS builds the module, modprobe, memcg-statctl
# status, the adapters of contrib/ against it (contrib-check.sh with
# MCS_CONTRIB_MODULE=1), the installed kselftests (run_kselftest.sh; MCS_TESTS="NAME..."
# runs only those), apt-get purge leaving nothing, and a kernel DKMS
# refuses (BUILD_EXCLUSIVE). oracle_test's IPMODIFY peer module, a test
# fixture, is put in /lib. The guest's transcripts (apt-get install's
# output first) are kept in build/deb-check-KVER/transcripts/.
# Output: TAP 13 (lintian's, then the guest's); exit non-zero on failure.
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}")
build=$(kernel_field "$kver" build)
[ "$build" = host ] ||
	die "deb-check boots a Debian 12 root: kernel $kver is not a bookworm kernel (build kind $build in $MCS_KERNELS)"
debdir=$MCS_BUILD/deb
work=$MCS_BUILD/deb-check-$kver
hold_lock "$work.lock" "Debian package check on $kver in $work"
# A `make deb` still running (check's other lane makes the packages) is
# waited for; held, the lock keeps the next one from replacing them.
hold_lock "$MCS_BUILD/deb-src.lock" "the packages of make deb" wait
start=$(date +%s)
mapfile -t debs < <(find "$debdir" -maxdepth 1 -name '*.deb' | sort)
[ ${#debs[@]} = 3 ] || die "expected 3 packages in $debdir, found ${#debs[@]}: run 'make deb'"

# --- lintian, on the host ---------------------------------------------------
fail=0
"$MCS_ROOT/scripts/checks/lintian-check.sh" || fail=1

# --- the guest ----------------------------------------------------------------
"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver"
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
# The root: the one readme-check.sh boots (bookworm-root.sh's default set:
# what docs/install.md and the README install, and jq), made once for both
# checks. The guest has no network, so everything the packages depend on or
# recommend (first alternatives, without versions; not each other) must be
# installed in it already: checked here, with the missing ones named.
deps=$(for d in "${debs[@]}"; do
	for f in Pre-Depends Depends Recommends; do dpkg-deb -f "$d" "$f"; done
done | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' |
	grep -v -e '^$' -e '^memcg-statctl' | sort -u)
root=$("$MCS_ROOT/scripts/roots/bookworm-root.sh" "$kver")
missing=
for p in $deps "linux-headers-$KREL"; do
	dpkg --root="$root" -s "$p" >/dev/null 2>&1 || missing+=" $p"
done
[ -z "$missing" ] ||
	die "the packages need$missing, which $root lacks: add them to bookworm-root.sh's default set"

rm -rf --one-file-system "$work/stage"
mkdir -p "$work"
stage=$work/stage
cp -al "$root" "$stage"
mkdir -p "$stage/tmp/deb" "$stage/root/mcs"
cp "${debs[@]}" "$stage/tmp/deb/"
# oracle_test's IPMODIFY peer, a test fixture no package carries: where the
# test looks when there is none beside it (as scripts/vm/guest-stage.sh
# puts it), built for KVER
for peer in $("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver" "$MCS_ROOT/selftests/memcg_statctl/peer"); do
	install -m 0644 "$peer" "$stage/lib/$(basename "$peer")"
done
# (in /tmp: apt reads local packages as its _apt user, who cannot enter /root)
chmod 0755 "$stage/tmp/deb"
install -m 0755 "$MCS_ROOT/scripts/guest/deb-steps.sh" "$stage/root/mcs/"
# The contrib adapters (no package carries them), their check and the TAP
# helpers, laid out as in the tree: deb-steps.sh runs the check against the
# installed module.
for f in scripts/lib.sh scripts/checks/tap.sh scripts/checks/fake-debugfs.sh \
	scripts/checks/contrib-check.sh; do
	install -D "$MCS_ROOT/$f" "$stage/root/mcs/src/$f"
done
cp -r "$MCS_ROOT/contrib" "$stage/root/mcs/src/contrib"
# The selftests' own settings (MEMCG_STATCTL_STRESS_S, ...) set here reach
# the installed kselftests too, as vmtest.sh passes them (check sets the
# Makefile's CHECK_TEST_ENV); unset, each test takes its default.
selftests_env "$stage/root/mcs/selftests-env"
args=()
for t in ${MCS_TESTS:-}; do args+=(-t "memcg_statctl:$t"); done
[ ${#args[@]} = 0 ] || echo "${args[*]}" >"$stage/root/mcs/tests"

img=$work/root.img
size_mb=$(($(du -sm "$stage" | cut -f1) + 1024))
rm -f "$img"
truncate -s "${size_mb}M" "$img"
mkfs.ext4 -q -F -L mcs-deb -d "$stage" "$img"
rm -rf --one-file-system "$stage"
log "root image: $img (${size_mb} MiB)"

MCS_GUEST_KMODS="virtio_pci virtio_blk ext4 crc32c_generic" \
	"$MCS_ROOT/scripts/vm/initramfs.sh" "$work/initramfs.cpio.gz" \
	"$MCS_ROOT/scripts/guest/job-deb.sh" "$kver" \
	"$MCS_ROOT/scripts/guest/send-files.sh=/usr/bin/mcs-send-files" \
	"$MCS_ROOT/scripts/guest/debian-root.sh=/debian-root.sh"
gstart=$(date +%s)
MCS_VM_TIMEOUT=${MCS_VM_TIMEOUT:-3000} \
	MCS_VM_QEMU_EXTRA="-drive file=$img,format=raw,if=virtio,cache=unsafe" \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/console.log" >/dev/null || true
log "guest: $(($(date +%s) - gstart))s"
console_job_output "$work/console.log" | tr -d '\r'
"$MCS_ROOT/scripts/vm/tap-check.sh" "$work/console.log" || fail=1
if console_receive_files "$work/console.log" "$work/transcripts" deb-transcripts >/dev/null; then
	log "transcripts: $work/transcripts/ (apt-get install: $work/transcripts/apt-get-install.txt)"
else
	fail=1
fi
[ -n "${MCS_KEEP:-}" ] || rm -f "$img"
log "deb-check $kver: $(($(date +%s) - start))s in all, console log in $work/console.log"
exit "$fail"
