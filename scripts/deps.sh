#!/bin/bash
# Install every build and test dependency on Debian 12, idempotently: apt is
# only called when a package is missing.
source "$(dirname "$0")/lib.sh"

PACKAGES=(
	build-essential gcc-12 make cmake pkg-config kmod cpio gzip xz-utils
	bc flex bison libelf-dev libssl-dev dwarves
	qemu-system-x86 busybox-static
	libcgroup-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libboost-math-dev
	gnuplot-nox linux-source-6.1 dkms help2man mokutil
	debhelper dh-dkms lintian
	bpftrace jq rsync
	prometheus prometheus-node-exporter curl
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	log "deps: all ${#PACKAGES[@]} packages present"
	exit 0
fi
log "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
