#!/bin/bash
# guest-stage.sh KVER JOB OUT.cpio.gz [SRC=DEST...]: build everything a guest
# run needs for kernel KVER (fetch the kernel, build the module and the
# selftests) and pack the initramfs with JOB as /job.sh, and each SRC (a
# file of the job's, e.g. its arguments) as DEST. Used by vmtest.sh, demo
# and experiments.
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: guest-stage.sh KVER JOB OUT [SRC=DEST...]}
job=$2
out=$3
shift 3
# One staging per kernel at a time: the module is built in one folder per
# kernel release (module-build.sh) and must not change before it is packed.
hold_lock "$MCS_BUILD/.stage-$kver.lock" "staging for kernel $kver" wait
# jq: tool_test.sh checks the tool's JSON documents with it. A guest without
# it would only skip those tests ("ok # SKIP"), so refuse to build one.
jq=$(command -v jq) || die "jq is not installed: the guest's tool_test.sh needs it (make deps installs it)"

"$MCS_ROOT/scripts/vm/guest-prep.sh" "$kver"
ko=$("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver")

files=("$ko=/lib/memcg_statctl.ko" "$MCS_BUILD/selftests=/selftests")
# The guest shares no file system with the host: a job sends files back over
# the console with mcs-send-files (console_receive_files in lib.sh on the host).
files+=("$MCS_ROOT/scripts/guest/send-files.sh=/usr/bin/mcs-send-files")
# The selftests' helper modules, in /lib beside the module.
for peer in $("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver" "$MCS_ROOT/selftests/memcg_statctl/peer"); do
	files+=("$peer=/lib/$(basename "$peer")")
done
tool=$MCS_BUILD/userspace/memcg-statctl
[ -x "$tool" ] && files+=("$tool=/usr/bin/memcg-statctl")
files+=("$jq=/usr/bin/jq")
# bpftrace (with the libraries ldd names, some 75 MB packed), for the
# selftests' guests (MCS_GUEST_BPFTRACE=1, set by vmtest.sh): bpf_share_test's
# bpftrace cases, which skip in a guest without it.
if [ "${MCS_GUEST_BPFTRACE:-0}" = 1 ] && command -v bpftrace >/dev/null; then
	files+=("$(command -v bpftrace)=/usr/bin/bpftrace")
fi
files+=("$@")
# gnuplot is an alternatives symlink: copy what it points to.
command -v gnuplot >/dev/null &&
	files+=("$(readlink -f "$(command -v gnuplot)")=/usr/bin/gnuplot")
# ext4 needs crc32c through a soft dependency modprobe does not follow.
MCS_GUEST_KMODS=${MCS_GUEST_KMODS-$MCS_GUEST_KMODS_DEFAULT} \
	"$MCS_ROOT/scripts/vm/initramfs.sh" "$out" "$job" "$kver" "${files[@]}"
