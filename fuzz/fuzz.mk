# fuzz/fuzz.mk — libFuzzer harnesses (issue 6, "Fuzzing").
#
# Included by the top Makefile (-include fuzz/fuzz.mk); until then
#   make -f Makefile -f fuzz/fuzz.mk fuzz-all
# builds every harness into $(BUILD)/fuzz/, and fuzz/run.sh check|long runs
# them.  Harnesses are built with clang, never $(CC): libFuzzer is clang's.
# Every source they link is compiled again here with the same sanitizer and
# coverage flags into $(BUILD)/fuzz/obj/ (gcc objects carry no coverage
# counters, so the fuzzer would be blind inside them).
#
#   fuzz-wire       common/reader.h over arbitrary bytes + pl_msg_decode per type
#   fuzz-commands   the agent's command path: 64 KiB reader, viewer→agent decoders,
#                   the agent's event-spec parser (what START validation runs)
#   fuzz-capture    viewer/io pl_capture_load (.plens and perf.data) into the
#                   model (pl_profile_ingest), symbolized against the burn ELFs
#   fuzz-perfdata   viewer/formats pl_perf_data_read over arbitrary files
#   fuzz-ehabi      viewer/symbols/pl-ehabi.h: ARM ELF tables and the opcode
#                   interpreter
#   fuzz-mapfile    viewer/symbols/pl-ldmap.h: GNU ld map files
#   fuzz-expr       viewer/model/pl-expr.h: --fail-if gates (round trip through
#                   their canonical form), filter rules, transforms, --pair

# Include it after BUILD is set; it must never become the default goal.
BUILD ?= build
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

FUZZ_CC := clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_OBJDIR := $(FUZZ_DIR)/obj
# -fno-sanitize-recover: a UBSan report must stop the run, or libFuzzer
# would count it as a pass.  No ignore list: a report is a bug until it is
# fixed.  fuzzer-no-link on objects, fuzzer on the link (libFuzzer's main).
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Wall -Wno-unused-parameter $(FUZZ_SAN) \
	-fsanitize=fuzzer-no-link -MMD -MP -Icommon
FUZZ_LDFLAGS := $(FUZZ_SAN) -fsanitize=fuzzer

FUZZ_VIEWER_PKGS := glib-2.0 gio-2.0 libdw libelf
FUZZ_VIEWER_CFLAGS := $(call pkgconf,--cflags $(FUZZ_VIEWER_PKGS)) \
	-Iviewer/io -Iviewer/model -Iviewer/symbols -Iviewer/formats -Iagent
FUZZ_VIEWER_LIBS := $(call pkgconf,--libs $(FUZZ_VIEWER_PKGS)) -lstdc++ -lzstd -lpthread

fuzz_objs = $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(1))

FUZZ_COMMON_OBJS := $(call fuzz_objs,$(wildcard common/*.c))
# The agent without its main(): pla_event_parse and what it needs.
FUZZ_AGENT_OBJS := $(call fuzz_objs,$(filter-out agent/main.c,$(wildcard agent/*.c)))
# Only the reader (its four files, PERFDATA_READER_SRCS from
# viewer/formats/formats.mk, which the top Makefile reads first): the rest
# of viewer/formats (writers, exporters) needs the model.
FUZZ_FORMATS_OBJS := $(call fuzz_objs,$(PERFDATA_READER_SRCS))
# The viewer core as viewer/viewer.mk links it: the real symbolizer and
# perf.data reader.
FUZZ_SYM_SRCS := $(wildcard viewer/symbols/*.c)
FUZZ_FMT_SRCS := $(PERFDATA_READER_SRCS) viewer/io/pl-capture-perf.c
FUZZ_VIEWER_OBJS := $(call fuzz_objs,viewer/io/pl-capture.c viewer/io/pl-capture-error.c \
	$(wildcard viewer/model/*.c) \
	$(FUZZ_SYM_SRCS) $(FUZZ_FMT_SRCS))

FUZZ_TARGETS := $(FUZZ_DIR)/fuzz-wire $(FUZZ_DIR)/fuzz-commands $(FUZZ_DIR)/fuzz-capture \
	$(FUZZ_DIR)/fuzz-perfdata $(FUZZ_DIR)/fuzz-ehabi $(FUZZ_DIR)/fuzz-mapfile \
	$(FUZZ_DIR)/fuzz-expr
FUZZ_TOOLS := $(FUZZ_DIR)/plens-seed

# the system-call names are generated from the kernel headers (viewer.mk)
$(FUZZ_OBJDIR)/viewer/model/pl-syscalls.o: $(BUILD)/viewer/pl-syscall-names.h
$(FUZZ_OBJDIR)/viewer/model/pl-syscalls.o: FUZZ_VIEWER_CFLAGS += -I$(BUILD)/viewer

$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_VIEWER_CFLAGS) -Ifuzz -c $< -o $@

$(FUZZ_DIR)/fuzz-wire: $(FUZZ_OBJDIR)/fuzz/fuzz-wire.o $(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ -lzstd

$(FUZZ_DIR)/fuzz-commands: $(FUZZ_OBJDIR)/fuzz/fuzz-commands.o $(FUZZ_AGENT_OBJS) \
		$(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ -lzstd -lpthread

# The capture harness symbolizes against the workload ELFs of this build.
$(FUZZ_OBJDIR)/fuzz/fuzz-capture.o: FUZZ_CFLAGS += -DPL_FUZZ_BUILD='"$(abspath $(BUILD))"'

$(FUZZ_DIR)/fuzz-capture: $(FUZZ_OBJDIR)/fuzz/fuzz-capture.o $(FUZZ_VIEWER_OBJS) \
		$(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_VIEWER_LIBS)

$(FUZZ_DIR)/fuzz-perfdata: $(FUZZ_OBJDIR)/fuzz/fuzz-perfdata.o $(FUZZ_FORMATS_OBJS) \
		$(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_VIEWER_LIBS)

$(FUZZ_DIR)/fuzz-ehabi: $(FUZZ_OBJDIR)/fuzz/fuzz-ehabi.o \
		$(call fuzz_objs,$(wildcard viewer/symbols/*.c)) $(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_VIEWER_LIBS)

$(FUZZ_DIR)/fuzz-mapfile: $(FUZZ_OBJDIR)/fuzz/fuzz-mapfile.o \
		$(call fuzz_objs,$(wildcard viewer/symbols/*.c)) $(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_VIEWER_LIBS)

# The expression readers and the model they feed (stack filters, transforms,
# marker pairs).
$(FUZZ_DIR)/fuzz-expr: $(FUZZ_OBJDIR)/fuzz/fuzz-expr.o $(FUZZ_VIEWER_OBJS) $(FUZZ_COMMON_OBJS)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_VIEWER_LIBS)

# Seed maker (fuzz/plens-seed.c): re-blocks real captures into small raw
# blocks and encodes command streams with the real encoder.  No libFuzzer.
$(FUZZ_DIR)/plens-seed: fuzz/plens-seed.c $(wildcard common/*.c)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 -D_GNU_SOURCE -Wall -Icommon -o $@ $^ -lzstd

.PHONY: fuzz-all
fuzz-all: $(FUZZ_TARGETS) $(FUZZ_TOOLS)

-include $(shell find $(FUZZ_OBJDIR) -name '*.d' 2>/dev/null)
