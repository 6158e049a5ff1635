#!/bin/sh
# /job.sh of the kselftest check's guest: unpack the kselftest package
# (/kselftest.tar.gz, from gen_tar) and run its run_kselftest.sh twice.
# First a copy without the modules it carries: this guest has no DKMS
# either, so every test must skip (exit 4), and one program is run on its
# own to show its exit status. Then the package as built: the first test
# loads the module from beside itself. Nothing is loaded by this job.
# /ksft-args, when present, holds run_kselftest.sh's arguments (-t ...);
# /ksft-runs the runs to make (default both: "nomod full").
set -u
args=$(cat /ksft-args 2>/dev/null)
runs=$(cat /ksft-runs 2>/dev/null)
runs=${runs:-nomod full}
# The runner writes the tests' output to /dev/stdout, which devtmpfs does
# not make (udev does): without the link it would fill a file of that name.
for fd in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${fd#*:}" ] || ln -s "/proc/self/fd/${fd%%:*}" "/dev/${fd#*:}"
done
for run in $runs; do
	dir=/ksft-$run
	mkdir -p "$dir"
	tar -xzf /kselftest.tar.gz -C "$dir" || echo "# cannot unpack the package"
done
case " $runs " in *" nomod "*)
	rm -f /ksft-nomod/memcg_statctl/*.ko
	echo "=== KSFT-RUN-BEGIN nomod ==="
	# shellcheck disable=SC2086  # the arguments are words
	/ksft-nomod/run_kselftest.sh $args
	echo "=== KSFT-RUN-END nomod rc=$? ==="
	/ksft-nomod/memcg_statctl/debugfs_test >/dev/null 2>&1
	echo "=== KSFT-PROGRAM debugfs_test without the module rc=$? ==="
	;;
esac

case " $runs " in *" full "*)
	echo "=== KSFT-RUN-BEGIN full ==="
	# shellcheck disable=SC2086
	/ksft-full/run_kselftest.sh $args
	echo "=== KSFT-RUN-END full rc=$? ==="
	;;
esac
