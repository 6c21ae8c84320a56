# viewer/formats/formats.mk — perf.data reader and writer, and the export
# formats (no GTK).
#
# Included by viewer/viewer.mk; until that exists, build with
#   make -f Makefile -f viewer/formats/formats.mk viewer
# Defines FORMATS_OBJS (link them with $(BUILD)/libplcommon.a $(ZSTD_LIBS)
# $(FORMATS_LIBS)), FORMATS_CFLAGS and FORMATS_LIBS, and the test programs
# $(BUILD)/test/viewer-formats-*-test plus the debugging dump
# $(BUILD)/test/perfdata-dump.

# The exporters (pl-export-*.c) read the session model, so they are not in
# FORMATS_OBJS (the perf.data codec and its tests stay free of the model):
# viewer.mk links FORMATS_EXPORT_OBJS into the viewer library.
FORMATS_EXPORT_SRCS := $(wildcard viewer/formats/pl-export-*.c)
FORMATS_EXPORT_OBJS := $(FORMATS_EXPORT_SRCS:%.c=$(BUILD)/%.o)
FORMATS_SRCS := $(filter-out $(FORMATS_EXPORT_SRCS),$(wildcard viewer/formats/*.c))
FORMATS_OBJS := $(FORMATS_SRCS:%.c=$(BUILD)/%.o)
FORMATS_CFLAGS := $(call pkgconf,--cflags gio-2.0)
FORMATS_LIBS := $(call pkgconf,--libs gio-2.0)
FORMATS_TESTS := $(patsubst viewer/formats/tests/%-test.c,$(BUILD)/test/viewer-formats-%-test,\
	$(wildcard viewer/formats/tests/*-test.c))

# The perf.data reader is four files (perf-data-private.h says which part
# each holds); a program linked with "the reader alone" needs them all.
PERFDATA_READER_SRCS := $(addprefix viewer/formats/perf-data-,file.c header.c records.c reader.c)
PERFDATA_READER_OBJS := $(PERFDATA_READER_SRCS:%.c=$(BUILD)/%.o)

$(FORMATS_OBJS) $(FORMATS_EXPORT_OBJS): ALL_CFLAGS += $(FORMATS_CFLAGS)

# Static pattern rules: they win over the top Makefile's test/unit rule.
$(FORMATS_TESTS): $(BUILD)/test/viewer-formats-%-test: viewer/formats/tests/%-test.c \
		$(FORMATS_OBJS) $(BUILD)/libplcommon.a | $(BUILD)/workloads/burn
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FORMATS_CFLAGS) -Itest -Iviewer/formats -MF $@.d $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(FORMATS_LIBS) $(ZSTD_LIBS)

$(BUILD)/test/perfdata-dump: viewer/formats/tests/perfdata-dump.c $(FORMATS_OBJS) \
		$(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FORMATS_CFLAGS) -Iviewer/formats -MF $@.d $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(FORMATS_LIBS) $(ZSTD_LIBS)

viewer:: $(FORMATS_OBJS) $(FORMATS_TESTS) $(BUILD)/test/perfdata-dump

-include $(FORMATS_OBJS:.o=.d) $(FORMATS_EXPORT_OBJS:.o=.d) $(FORMATS_TESTS:=.d) $(BUILD)/test/perfdata-dump.d

# The perf.data reader's libFuzzer harness is fuzz/fuzz-perfdata.c (fuzz/fuzz.mk).
