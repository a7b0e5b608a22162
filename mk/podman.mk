# podman with --cpu-burst: Debian's podman 4.3.1 with podman-patches/, as a
# .deb installed into the e2e image in place of Debian's (docs/podman.md).
# Included by the top Makefile after B is defined.
#
#   make deps-podman   podman's build-dependencies and a deb-src source (root)
#   make podman        build/podman/podman.deb (from the cache when nothing changed)

PODMAN_OUT := $(B)/podman
PODMAN_DEB := $(PODMAN_OUT)/podman.deb

.PHONY: deps-podman podman podman-force

deps-podman:
	@scripts/build-deps.sh podman

# Always asks scripts/podman-build.sh: it rebuilds only when its cache key
# (the Debian source version, podman-patches/, itself) changes, and touches
# its outputs only when they change.
$(PODMAN_DEB): podman-force | deps-podman
	@scripts/podman-build.sh $(PODMAN_OUT)

podman-force:

podman: $(PODMAN_DEB)
