# burstctl (tools/burstctl/, docs/burstctl.md) and the trace replay it
# shares with the benchmark (model/bw-replay.[ch]). Included by the top
# Makefile after its definitions of B, GUEST_CFLAGS, MODEL_SRC and
# MODEL_HDR and after mk/image.mk. Targets:
#   burstctl        build/burstctl/burstctl, static (the e2e image installs it)
#   burstctl-deb    build/burstctl/burstctl.deb, its Debian package (make repo
#                   ships it to nodes)
#   check-burstctl  host unit tests: the replay on hand-computed traces, then
#                   burstctl's values, traces, advice, cgroup lookups and binary

BURSTCTL_DIR := $(B)/burstctl
BURSTCTL := $(BURSTCTL_DIR)/burstctl
# Everything but main() and the commands that only print: what the tests link.
BURSTCTL_LIB := $(addprefix tools/burstctl/,msg.c values.c trace.c model.c advise.c mainline.c target.c check.c) \
	model/bw-replay.c $(MODEL_SRC) lib/cgroup.c lib/cgfile.c
BURSTCTL_SRCS := $(addprefix tools/burstctl/,burstctl.c simulate.c status.c record.c) $(BURSTCTL_LIB)
BURSTCTL_HDRS := tools/burstctl/bc.h model/bw-replay.h $(MODEL_HDR) lib/cgroup.h lib/cgfile.h
BURSTCTL_TEST := $(BURSTCTL_DIR)/test-burstctl
REPLAY_TEST := $(BURSTCTL_DIR)/test-bw-replay
HOST_CFLAGS := -O2 -g -Wall -Wextra -Werror

.PHONY: burstctl burstctl-deb check-burstctl

$(BURSTCTL): $(BURSTCTL_SRCS) $(BURSTCTL_HDRS) | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $(BURSTCTL_SRCS)

burstctl: $(BURSTCTL)

$(BURSTCTL_DEB): $(BURSTCTL) scripts/burstctl-deb.sh docs/burstctl.md $(wildcard tools/burstctl/node/*)
	@scripts/burstctl-deb.sh $(BURSTCTL) $@

burstctl-deb: $(BURSTCTL_DEB)

$(REPLAY_TEST): model/test-bw-replay.c model/bw-replay.c $(MODEL_SRC) model/bw-replay.h $(MODEL_HDR) \
		lib/tap.c lib/tap.h | deps-kernel
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -o $@ model/test-bw-replay.c model/bw-replay.c $(MODEL_SRC) lib/tap.c

$(BURSTCTL_TEST): $(wildcard tools/burstctl/test-*.c) tools/burstctl/test.h $(BURSTCTL_LIB) \
		$(BURSTCTL_HDRS) lib/tap.c lib/tap.h | deps-kernel
	@mkdir -p $(@D)
	gcc $(HOST_CFLAGS) -o $@ $(wildcard tools/burstctl/test-*.c) $(BURSTCTL_LIB) lib/tap.c

check-burstctl: $(REPLAY_TEST) $(BURSTCTL_TEST) $(BURSTCTL)
	@$(REPLAY_TEST)
	@$(BURSTCTL_TEST) $(BURSTCTL)

# The images carry the binary make built (scripts/image-build.sh installs
# $IMAGE_BURSTCTL in /usr/local/bin) and the e2e cases that use it.
$(IMAGE) $(IMAGE_STOCK_INITRD) $(NODE_IMAGE): $(BURSTCTL) tests/e2e/burstctl.sh tools/burstctl/node/burstctl-node-label
export IMAGE_BURSTCTL := $(abspath $(BURSTCTL))
