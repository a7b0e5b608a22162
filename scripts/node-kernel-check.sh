#!/bin/bash
# Is a kernel configuration fit for a container node? Runs moby's
# contrib/check-config.sh, as Debian's docker.io package ships it (fetched
# by name from the archive, unpacked, never installed), on CONFIG, and then
# the options kube-proxy, common CNIs, volumes and pods need that
# check-config.sh does not name. Fails naming every option that is
# missing; prints check-config.sh's report and a summary line.
# Usage: scripts/node-kernel-check.sh CONFIG
set -euo pipefail

config=$(realpath "$1")
cache=${BURST_CACHE:-/var/cache/burst-cfs}

# check-config.sh's "missing" lines that a node may have, each with why.
declare -A may_miss=(
	# Merged into CONFIG_MEMCG in 5.8; check-config.sh then reads the
	# running kernel's swap accounting instead.
	[CONFIG_MEMCG_SWAP]="part of CONFIG_MEMCG since 5.8"
	# Off in Debian's kernels: with it on, every cgroup needs a real-time
	# budget before a real-time task can run in it (systemd, runc).
	[CONFIG_RT_GROUP_SCHED]="off in Debian's kernels"
	[CONFIG_AUFS_FS]="not in mainline; overlay is the storage driver"
	[/dev/zfs]="out of tree (zfs-dkms)"
	["zfs command"]="out of tree (zfsutils-linux)"
	["zpool command"]="out of tree (zfsutils-linux)"
)

# What check-config.sh does not ask for, by who needs it. y or m.
required=(
	# kube-proxy, iptables mode: Service load balancing and its rules
	NETFILTER_XT_MATCH_STATISTIC NETFILTER_XT_MATCH_COMMENT NETFILTER_XT_MATCH_MULTIPORT
	NETFILTER_XT_MATCH_MARK NETFILTER_XT_MATCH_RECENT NETFILTER_XT_TARGET_CT
	IP_NF_TARGET_REJECT IP6_NF_FILTER IP6_NF_NAT IP6_NF_TARGET_MASQUERADE
	NF_CONNTRACK NF_CT_NETLINK NETFILTER_NETLINK_QUEUE
	# kube-proxy, IPVS mode: its schedulers and ipsets
	IP_VS_WRR IP_VS_SH IP_VS_LC IP_SET IP_SET_HASH_IP IP_SET_HASH_IPPORT
	IP_SET_HASH_IPPORTIP IP_SET_HASH_IPPORTNET IP_SET_HASH_NET IP_SET_BITMAP_PORT
	NETFILTER_XT_SET
	# kube-proxy, nftables mode
	NF_TABLES NF_TABLES_INET NFT_CT NFT_NAT NFT_MASQ NFT_NUMGEN NFT_REJECT NFT_FIB_INET
	# CNIs: flannel (VXLAN), Calico (IPIP, ipsets, eBPF), Cilium (eBPF,
	# VXLAN or Geneve), WireGuard encryption (Calico, Cilium, flannel)
	NET_IPIP GENEVE WIREGUARD TUN BPF_SYSCALL BPF_JIT CGROUP_BPF NET_CLS_BPF NET_ACT_BPF
	NET_SCH_INGRESS NET_CLS_ACT
	# Volumes: NFS and iSCSI persistent volumes, XFS (common on node disks)
	NFS_FS NFS_V4 ISCSI_TCP XFS_FS
	# A KVM node: its disks and network
	VIRTIO_BLK SCSI_VIRTIO VIRTIO_NET BLK_DEV_NVME
	# Debian has each of these on; named so that a fragment merged over
	# Debian's configuration cannot take one away unnoticed.
	# BTF of the kernel and its modules (/sys/kernel/btf): BPF CO-RE
	# programs (Cilium, bpftrace, Tetragon) read kernel types from it
	DEBUG_INFO_BTF DEBUG_INFO_BTF_MODULES
	# Pressure stall information: the kubelet's and systemd-oomd's
	# pressure metrics, cgroup v2's *.pressure files
	PSI
	# Cilium: TPROXY and the socket match redirect traffic to its L7 proxy;
	# the fq qdisc paces its bandwidth manager's egress
	NETFILTER_XT_TARGET_TPROXY NETFILTER_XT_MATCH_SOCKET NET_SCH_FQ
	# Calico: the rpfilter match is its strict reverse-path check
	IP_NF_MATCH_RPFILTER IP6_NF_MATCH_RPFILTER
	# FUSE: rootless podman's fuse-overlayfs, CSI drivers mounting object
	# stores (s3fs, gcsfuse, blobfuse)
	FUSE_FS
	# Volumes on Ceph (Rook, ceph-csi): RBD block devices and CephFS
	BLK_DEV_RBD CEPH_FS
	# NVMe over TCP volumes (NVMe-oF CSI drivers)
	NVME_TCP
	# Huge pages for pods that request hugepages-2Mi/1Gi (databases, DPDK)
	HUGETLBFS
	# Devices passed through to pods or to KubeVirt's virtual machines
	VFIO_PCI
)

# docker.io's check-config.sh, by the archive's candidate version.
version=$(apt-cache policy docker.io | sed -n 's/^ *Candidate: //p')
[[ -n $version && $version != "(none)" ]] || { echo "node-kernel-check: the archive has no docker.io" >&2; exit 1; }
dir=$cache/node/docker.io-${version//:/%3a}
script=$dir/usr/share/docker.io/contrib/check-config.sh
if [[ ! -x $script ]]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get download -q "docker.io=$version" >/dev/null)
	dpkg-deb -x "$dir.tmp"/docker.io_*.deb "$dir.tmp"
	rm -f "$dir.tmp"/docker.io_*.deb
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
[[ -x $script ]] || { echo "node-kernel-check: docker.io $version has no $script" >&2; exit 1; }

# It exits 1 whenever anything is missing, optional or not: judged below.
report=$({ NO_COLOR=1 "$script" "$config" 2>&1 || true; } | sed 's/\x1b\[[0-9;]*m//g')
echo "$report"
problems=()
section=
while IFS= read -r line; do
	case $line in
	"Generally Necessary:") section=necessary ;;
	"Optional Features:") section=optional ;;
	"Limits:") section= ;;
	*": missing"*)
		item=${line%%: missing*}
		item=${item#"${item%%[! -]*}"}
		if [[ $section == necessary || -z ${may_miss[$item]+x} ]]; then
			problems+=("$item ($section): missing")
		fi
		;;
	esac
done <<<"$report"
# check-config.sh checks the running system's cgroup mount too; only the
# CONFIG lines are about this configuration.
for opt in "${required[@]}"; do
	grep -qE "^CONFIG_$opt=(y|m)$" "$config" || problems+=("CONFIG_$opt (a node needs it y or m): $(grep -E "^(# )?CONFIG_$opt[= ]" "$config" || echo unset)")
done

necessary=$(sed -n '/^Generally Necessary:/,/^Optional Features:/p' <<<"$report" | grep -c ': enabled' || true)
optional=$(sed -n '/^Optional Features:/,/^Limits:/p' <<<"$report" | grep -c ': enabled' || true)
echo
echo "may be missing:"
for item in "${!may_miss[@]}"; do echo "  $item: ${may_miss[$item]}"; done | sort
if ((${#problems[@]})); then
	echo "node-kernel-check: $config is not fit for a node:"
	printf '  %s\n' "${problems[@]}"
	exit 1
fi
echo "node-kernel-check: check-config.sh (docker.io $version): $necessary generally necessary and $optional optional enabled, none missing that a node needs; ${#required[@]} more for kube-proxy, CNIs, volumes, KVM, BPF and pods: all y or m"
