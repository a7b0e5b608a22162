# Which kernel a Debian node boots, decided by Debian's own code (sourced;
# bash): GRUB's default entry is grub-mkconfig's version_find_latest
# (grub-common's grub-mkconfig_lib), linux-base's linux-version sorts kernels
# for the /vmlinuz symlinks. Both packages are fetched by name from the
# archive and unpacked, never installed.
#   debian_boot_fetch DIR          unpack grub-common and linux-base into DIR
#   grub_default DIR RELEASE...    the release GRUB boots by default
#   linux_version_newest DIR RELEASE...  the newest by linux-version
# shellcheck shell=bash

debian_boot_fetch() {
	local dir=$1 deb
	mkdir -p "$dir/debs"
	(cd "$dir/debs" && apt-get download -q grub-common linux-base >/dev/null 2>&1) ||
		{ echo "debian-boot: apt-get download grub-common linux-base failed" >&2; return 1; }
	for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/x"; done
	(cd "$dir/debs" && ls ./*.deb | sed 's,^\./,,' | paste -sd' ')
}

grub_default() {
	local dir=$1
	shift
	(set +u
	 # shellcheck disable=SC1091
	 . "$dir/x/usr/share/grub/grub-mkconfig_lib"
	 version_find_latest "${@/#//boot/vmlinuz-}") | sed 's,^/boot/vmlinuz-,,'
}

linux_version_newest() {
	local dir=$1
	shift
	printf '%s\n' "$@" | PERL5LIB=$dir/x/usr/share/perl5 perl "$dir/x/usr/bin/linux-version" sort | tail -1
}
