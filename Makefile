# PerfLens — top-level build.
#
#   make            build the host agent and the viewer (build/)
#   make check      install what is missing, build, run every test
#   make check-fresh   make check of HEAD in a fresh Debian 12 root (root)
#   make demo       install what is missing, build, profile a sample workload
#   make clickhouse start a ClickHouse server for the fleet store (loopback)
#   make agents     static musl agents for the six targets (dist/)
#   make fuzz       long fuzzing runs;  make bench   benchmarks
#   make check-irq  interrupt, block and wake-up counts (they need samples from idle CPUs)
#
# Variables: BUILD (output dir), SAN=1 (ASan+UBSan build into build-san/).

BUILD ?= build
ifeq ($(SAN),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

# pkg-config at parse time, quiet: `make check` and `make demo` read these
# files before check-deps has installed the packages (their sub-makes read
# them again after).  What is missing is said once, below, with the fix.
pkgconf = $(shell pkg-config $(1) 2>/dev/null)
ifeq ($(filter check check-deps check-fresh demo clean,$(MAKECMDGOALS)),)
MISSING_PKGS := $(shell for p in glib-2.0 gio-2.0 libdw libelf libcurl libzstd; do \
	pkg-config --exists $$p 2>/dev/null || echo $$p; done)
ifneq ($(MISSING_PKGS),)
$(warning development files missing for $(MISSING_PKGS): run `make check-deps` (ci/deps.sh, as root) first)
endif
endif

CC ?= gcc
WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wmissing-prototypes -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE -MMD -MP -Icommon
LDFLAGS += $(SANFLAGS)
ZSTD_LIBS := -lzstd

COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/%.o)
AGENT_SRCS := $(wildcard agent/*.c)
AGENT_OBJS := $(AGENT_SRCS:%.c=$(BUILD)/%.o)
AGENT_LIB_OBJS := $(filter-out $(BUILD)/agent/main.o,$(AGENT_OBJS))
AGENT_OBJS_ALL := $(AGENT_OBJS) $(BUILD)/agent/common-block.o

UNIT_TESTS := $(patsubst test/unit/%.c,$(BUILD)/test/%,$(wildcard test/unit/*-test.c)) \
	$(patsubst test/integration/%.c,$(BUILD)/test/%,$(wildcard test/integration/*-test.c))
TOOLS := $(BUILD)/tools/pl-dump
WORKLOADS := $(patsubst test/workloads/%.c,$(BUILD)/workloads/%,$(wildcard test/workloads/*.c))

.PHONY: all check check-fresh check-deps demo agents dist fuzz bench bench-deps check-irq clean install reliability clickhouse clickhouse-stop
all: $(BUILD)/perflens-agent $(UNIT_TESTS) $(WORKLOADS) $(TOOLS) viewer

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The agent keeps frame pointers: its probe samples its own busy child to
# learn whether fp call graphs work, and the agent is cheap to profile.
$(BUILD)/agent/%.o: ALL_CFLAGS += -fno-omit-frame-pointer

$(BUILD)/libplcommon.a: $(COMMON_OBJS)
	ar rcs $@ $^

# The agent's copy of block.c has no decompressor (see common/block.c); it
# comes before the library so the library's block.o is never pulled in.
$(BUILD)/agent/common-block.o: common/block.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DPL_BLOCK_NO_DECOMPRESS -c $< -o $@

$(BUILD)/perflens-agent: $(AGENT_OBJS) $(BUILD)/agent/common-block.o $(BUILD)/libplcommon.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

# Unit tests: test/unit/NAME-test.c links the common library and the agent's
# objects (everything but main.c), so agent internals are testable.
$(BUILD)/test/%-test: test/unit/%-test.c $(AGENT_LIB_OBJS) $(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Itest -Iagent $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(ZSTD_LIBS) -lpthread

# The wire tests (messages, blocks, compaction) share their examples: a
# header-only fixture, listed so that changing it rebuilds them.
$(patsubst test/unit/%.c,$(BUILD)/test/%,$(wildcard test/unit/wire-*-test.c)): \
	test/unit/wire-examples.h
$(BUILD)/test/lbr-test $(BUILD)/test/ring-drain-test: test/unit/perf-record-buf.h

# The static agent's printf (agent/static/, linked only by ci/agents.sh):
# its test compiles printf.c in under other names, so that glibc's printf
# stays the oracle, and needs none of the agent's objects.
$(BUILD)/test/fmt-test: test/unit/fmt-test.c agent/static/printf.c agent/static/fmt.h \
		test/pl-test.h $(BUILD)/agent/static/fmt.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Itest -Iagent $(LDFLAGS) -o $@ $(filter %-test.c %.o,$^)

# Integration tests drive the real agent binary over its real interfaces.
$(BUILD)/test/%-test: test/integration/%-test.c test/pl-test-agent.h test/pl-test-nm.h \
		$(BUILD)/libplcommon.a | $(BUILD)/perflens-agent $(WORKLOADS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Itest $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(ZSTD_LIBS) -lpthread

$(BUILD)/tools/%: test/tools/%.c $(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

# Workloads are built as a user's program would be: -g, frame pointers
# kept, plus a variant without them for DWARF unwinding.  (GCC sets up no
# frame in a leaf function that needs none, so fp stacks skip the caller of
# such a leaf: a real limitation of fp mode that the tests account for.)
$(BUILD)/workloads/%: test/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once -pthread -o $@ $<
	$(CC) -O1 -g -fomit-frame-pointer -fno-inline-functions-called-once -pthread -o $@-nofp $<

-include viewer/viewer.mk
-include viewer/ui/ui.mk
-include fuzz/fuzz.mk
viewer::

check-deps:
	@ci/deps.sh

# Everything twice (plain and ASan+UBSan), the six static agents, then one
# run of the whole suite over both builds, ending in "N passed, N failed".
# The builds use every core (JOBS); the tests run one program at a time.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: check-deps
	$(MAKE) -j$(JOBS) all
	$(MAKE) -j$(JOBS) SAN=1 all
	ci/agents.sh
	test/run.sh build build-san

# make check of a clean clone of HEAD in a fresh Debian 12 root, as a new
# machine runs it (ci/fresh.sh; FRESH_FLAGS=--keep / --shell)
check-fresh:
	ci/fresh.sh $(FRESH_FLAGS)

demo: check-deps all
	ci/demo.sh $(BUILD)

# A ClickHouse server for the fleet store, as a user process on loopback
# (ci/clickhouse/): data under $(BUILD)/clickhouse, ports found free, the
# password in $(BUILD)/clickhouse/credentials (0600); CLICKHOUSE_SERVERS=2
# starts two shards of one cluster.  `make clickhouse-stop` stops them.
CLICKHOUSE_SERVERS ?= 1
clickhouse: check-deps
	ci/clickhouse/server.sh start $(BUILD)/clickhouse $(CLICKHOUSE_SERVERS)
	@cat $(BUILD)/clickhouse/env
clickhouse-stop:
	ci/clickhouse/server.sh stop $(BUILD)/clickhouse

agents:
	ci/agents.sh

# Long fuzzing (make check replays the corpora and fuzzes briefly);
# FUZZ_SECONDS per target, results in fuzz/results.md.
FUZZ_SECONDS ?= 300
fuzz:
	fuzz/run.sh long $(FUZZ_SECONDS)

# docs/RELIABILITY.md from the fuzz results, fault tests and sanitizer runs
reliability: all
	$(MAKE) SAN=1 all
	ci/reliability.sh

# bench/deps.sh: what the benchmarks need beyond ci/deps.sh (hotspot's
# parser's Qt libraries, the zstd workload's source tools)
bench: bench-deps all agents
	bench/run-all.sh
bench-deps:
	@bench/deps.sh

# Interrupts and block requests against /proc and perf stat (viewer/tests/
# irq-block-check.sh).  Kept out of `make check`: an interrupt taken while
# its CPU idles gives no tracepoint sample on this machine's kernel (6.18,
# a VM), to the agent as to `perf record -a` (a quiet run: 15 of 208 disk
# interrupts recorded, perf 131 samples of all IRQs where /proc counted 167
# of that one IRQ, none in pid 0), while counting (perf stat) sees them all;
# so the counts match /proc only when load keeps the CPUs busy.  The
# product now says what idle hides: report --irq holds the recorded runs
# to /proc's counts the agent reads at the session's start and end,
# checked in `make check` by viewer/tests/viewer-irq-proc-test.sh.
check-irq: all
	PL_BUILD=$(BUILD) bash viewer/tests/irq-block-check.sh
	PL_BUILD=$(BUILD) PL_IDLE_SAMPLES=1 bash viewer/tests/viewer-periods-test.sh

dist: agents all $(BUILD)/man/.stamp
	ci/dist.sh

# Man pages and shell completions, written from the option tables the
# programs parse with (man/gen.sh runs their --dump-options), so that they
# cannot drift from them.  (A sanitizer build's leak check is no business
# of the generator's.)
MAN_STAMP := $(BUILD)/man/.stamp
$(MAN_STAMP): man/gen.sh $(BUILD)/perflens $(BUILD)/perflens-agent
	ASAN_OPTIONS=detect_leaks=0 man/gen.sh $(BUILD)/man $(BUILD)/perflens $(BUILD)/perflens-agent
	@touch $@
all: $(MAN_STAMP)

PREFIX ?= /usr/local
# perflens, and (ui-install, viewer/ui/ui.mk) the app's module in
# PREFIX/lib/perflens/, the desktop file and the icon; the static agents
# made by `make agents`, if any, in PREFIX/lib/perflens/agents/, where
# perflens record ssh://… finds the one to copy to a board; the man pages
# in PREFIX/share/man/man1, the completions where bash-completion and zsh
# look for them
install: all ui-install
	install -Dm755 $(BUILD)/perflens-agent $(DESTDIR)$(PREFIX)/bin/perflens-agent
	install -Dm755 $(BUILD)/perflens $(DESTDIR)$(PREFIX)/bin/perflens
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m644 $(BUILD)/man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -Dm644 $(BUILD)/man/bash/perflens \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/perflens
	install -Dm644 $(BUILD)/man/bash/perflens-agent \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/perflens-agent
	install -Dm644 $(BUILD)/man/zsh/_perflens $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_perflens
	install -Dm644 $(BUILD)/man/zsh/_perflens-agent \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_perflens-agent
	for a in dist/perflens-agent-*; do case $$a in *.tar.gz|*.md|*.map) continue ;; esac; \
		[ -f "$$a" ] && install -Dm755 "$$a" $(DESTDIR)$(PREFIX)/lib/perflens/agents/$${a##*/}; \
	done; true

clean:
	rm -rf build build-san dist

-include $(COMMON_OBJS:.o=.d) $(AGENT_OBJS:.o=.d) $(BUILD)/agent/static/fmt.d
