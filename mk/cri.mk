# The CRI client that plays the kubelet in the e2e image's Kubernetes cases
# (tools/cri/, docs/kubernetes.md). Included by the top Makefile. The client,
# its stubs and its OCI images go into the image through
# scripts/image-build.sh (tools/cri/stage.sh); its guest cases are
# tests/e2e/cri-cases.sh, run by `make e2e`.
#
#   make check-cri   host tests: the kubelet's derivations, and the requests
#                    the client sends to a fake RuntimeService

.PHONY: check-cri

# image-deps installs python3-grpc-tools (and with it python3-grpcio).
check-cri: | image-deps
	@/usr/bin/python3 tools/cri/test-cri-client.py
