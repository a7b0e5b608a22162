# image_root_offset IMAGE: the byte offset of the root partition
# (root-x86-64, mkosi.conf's root=PARTLABEL=) in a disk image made by
# mkosi, for debugfs's IMAGE?offset=N. Sourced by scripts/image-build.sh
# and tests/node/run-install.sh.
# shellcheck shell=bash

image_root_offset() {
	sfdisk -J "$1" | python3 -c '
import json, sys
t = json.load(sys.stdin)["partitiontable"]
print(next(p["start"] for p in t["partitions"] if p.get("name") == "root-x86-64") * t.get("sectorsize", 512))'
}
