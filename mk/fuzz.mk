# libFuzzer harnesses of crun's CPU burst parsers (tests/fuzz/, docs/fuzz.md).
# Included by the top Makefile after B and mk/crun.mk. Targets:
#   make deps-fuzz   clang 14 and its sanitizer and libFuzzer runtimes
#   make check-fuzz  replays the committed corpus (tests/fuzz/corpus/) under
#                    ASan and UBSan, one child per input; part of `make check`
#   make fuzz        runs each harness for FUZZ_SECONDS (default 60) under
#                    nice -n 19, one process each, one after the other, and
#                    prints its executions and coverage; fails on any crash,
#                    leak or broken invariant
# The harnesses compile Debian's crun with crun-patches/ on top, in a tree of
# their own (tests/fuzz/tree.sh): all of libcrun, since the update harness
# needs container.c, and libocispec's runtime-spec parser, instrumented.
# Everything goes to build/fuzz/.

FUZZ_DIR := $(B)/fuzz
FUZZ_HARNESSES := annotation value update oci
FUZZ_SECONDS ?= 60
FUZZ_TREE_STAMP := $(FUZZ_DIR)/tree.stamp
FUZZ_LIB := $(FUZZ_DIR)/libcrun-fuzz.a
FUZZ_CC := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# fuzzer-no-link: libFuzzer's coverage instrumentation without its main(),
# so that the same objects link into the fuzzers and into the replays.
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_INCLUDES := -I$(FUZZ_DIR)/tree -I$(FUZZ_DIR)/tree/src -I$(FUZZ_DIR)/tree/libocispec/src
FUZZ_HDRS := tests/fuzz/burst-spec.h
FUZZERS := $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/fuzz-%)
FUZZ_REPLAYS := $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/replay-%)
FUZZ_OBJ := $(abspath $(FUZZ_DIR))/obj

.PHONY: deps-fuzz fuzz check-fuzz fuzz-force
# The harnesses' objects link into both programs: keep them.
.SECONDARY: $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/harness-%.o)

deps: deps-fuzz

deps-fuzz:
	@scripts/deps.sh fuzz

fuzz-force:

# Always asks tests/fuzz/tree.sh, which makes the tree again, and touches
# the stamp, only when its inputs changed (as crun-build.sh does its .deb).
$(FUZZ_TREE_STAMP): fuzz-force | deps-crun deps-fuzz
	@tests/fuzz/tree.sh $(FUZZ_DIR)

# crun's and libocispec's files, as the tree lists them; -w: their warnings
# are not ours to fix.
$(FUZZ_LIB): $(FUZZ_TREE_STAMP) mk/fuzz.mk
	@echo "fuzz: compiling $$(wc -l <$(FUZZ_DIR)/sources) files of libcrun and libocispec with ASan, UBSan and coverage"
	@rm -rf $(FUZZ_OBJ) && mkdir -p $(FUZZ_OBJ)
	@cd $(FUZZ_DIR)/tree && \
		awk '{ o = $$0; gsub("/", "_", o); sub(/\.c$$/, ".o", o); print $$0, "$(FUZZ_OBJ)/" o }' $(abspath $(FUZZ_DIR))/sources | \
		nice xargs -P $$(nproc) -n 2 sh -c '$(FUZZ_CC) $(FUZZ_CFLAGS) -w -I. -Isrc -Ilibocispec/src -c "$$0" -o "$$1"'
	@rm -f $@ && ar rcs $@ $(FUZZ_OBJ)/*.o

$(FUZZ_DIR)/harness-%.o: tests/fuzz/fuzz-%.c $(FUZZ_HDRS) $(FUZZ_TREE_STAMP) mk/fuzz.mk
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wall -Wextra -Werror $(FUZZ_INCLUDES) -c -o $@ $<

$(FUZZ_DIR)/replay.o: tests/fuzz/replay.c mk/fuzz.mk | $(FUZZ_TREE_STAMP)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -Wall -Wextra -Werror -c -o $@ $<

$(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/harness-%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $$(cat $(FUZZ_DIR)/libs)

$(FUZZ_DIR)/replay-%: $(FUZZ_DIR)/harness-%.o $(FUZZ_DIR)/replay.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -o $@ $< $(FUZZ_DIR)/replay.o $(FUZZ_LIB) $$(cat $(FUZZ_DIR)/libs)

check-fuzz: $(FUZZ_REPLAYS)
	@tests/fuzz/run.sh check $(FUZZ_DIR) tests/fuzz $(FUZZ_HARNESSES)

fuzz: $(FUZZERS)
	@nice -n 19 tests/fuzz/run.sh fuzz $(FUZZ_DIR) tests/fuzz $(FUZZ_SECONDS) $(FUZZ_HARNESSES)
