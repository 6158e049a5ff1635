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
