#!/bin/sh
# mcs-send-files LABEL FILE...: send FILEs from the guest to the host over
# the console. guest-stage.sh installs this file in every initramfs as
# /usr/bin/mcs-send-files; the host side is console_receive_files in
# scripts/lib.sh.
#
# Why the console: the guest has no file system shared with the host. Its
# only disk is the initramfs, unpacked into RAM and gone at power-off, and
# QEMU is given no disk, 9p or network; the serial console, which QEMU
# writes to the console log on the host, is the one thing that outlives
# the guest.
#
# What is printed, all on stdout:
#   === MCS-FILES-BEGIN LABEL files=N bytes=SIZE sha256=HEX ===
#   base64 of a gzip-compressed tar of the FILEs, 76 characters a line
#   === MCS-FILES-END LABEL ===
# The FILEs are stored under their base names (a later one with the same
# base name replaces an earlier one); a FILE that does not exist (e.g. an
# unmatched glob) is skipped with a note. SIZE and HEX describe the
# compressed tar, before base64, so the host can tell a damaged transfer.
# The block is printed even when no FILE exists (an empty archive), so the
# host can tell "nothing to send" from "never sent". LABEL is one word
# that tells one block from another in the same log.
# Exit: 0 the block was printed, 1 otherwise.
label=${1:?usage: mcs-send-files LABEL FILE...}
shift
case "$label" in
*[!A-Za-z0-9._-]* | "") echo "mcs-send-files: bad label '$label'" >&2; exit 1 ;;
esac

stage=$(mktemp -d) || exit 1
tgz=$stage.tar.gz
n=0
for f in "$@"; do
	if [ -f "$f" ]; then
		cp "$f" "$stage/" || exit 1
		n=$((n + 1))
	else
		echo "mcs-send-files: no file $f, skipped" >&2
	fi
done
tar -czf "$tgz" -C "$stage" . || exit 1
bytes=$(wc -c <"$tgz")
sum=$(sha256sum "$tgz") || exit 1
sum=${sum%% *}

# Kernel messages go to the same console and could land inside the block,
# corrupting it: only emergencies reach the console while it is printed.
level=$(cut -f1 /proc/sys/kernel/printk 2>/dev/null)
echo 1 >/proc/sys/kernel/printk 2>/dev/null
echo "=== MCS-FILES-BEGIN $label files=$n bytes=$bytes sha256=$sum ==="
base64 "$tgz"
echo "=== MCS-FILES-END $label ==="
[ -n "$level" ] && echo "$level" >/proc/sys/kernel/printk 2>/dev/null
rm -rf "$stage" "$tgz"
exit 0
