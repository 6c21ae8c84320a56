# viewer/symbols/symbols.mk — the symbolization/unwinding library and its tests.
# Included by viewer/viewer.mk (after the top Makefile's variables are set).
#
#   SYMBOLS_OBJS    objects of the library, built by the generic $(BUILD)/%.o rule
#   SYMBOLS_CFLAGS  / SYMBOLS_LIBS: glib-2.0 libdw libelf (+ libstdc++ for
#                   __cxa_demangle, see pl-demangle.c)
#   $(BUILD)/test/viewer-symbols-*-test   one per viewer/symbols/tests/*-test.c

SYMBOLS_SRCS := $(wildcard viewer/symbols/*.c)
SYMBOLS_OBJS := $(SYMBOLS_SRCS:%.c=$(BUILD)/%.o)
# One header per file, and pl-symbols-types.h the types they share; the
# tests include the headers of what they test.
SYMBOLS_HDRS := $(wildcard viewer/symbols/*.h)
SYMBOLS_CFLAGS := $(call pkgconf,--cflags glib-2.0 libdw libelf)
SYMBOLS_LIBS := $(call pkgconf,--libs glib-2.0 libdw libelf) -lstdc++
SYMBOLS_TESTS := $(patsubst viewer/symbols/tests/%-test.c,$(BUILD)/test/viewer-symbols-%-test,\
	$(wildcard viewer/symbols/tests/*-test.c))

$(BUILD)/viewer/symbols/%.o: ALL_CFLAGS += $(SYMBOLS_CFLAGS)

# Tests find the workloads and compile small programs at run time; they get
# the build dir through PL_BUILD (test/run.sh) or this default.
$(BUILD)/test/viewer-symbols-%-test: viewer/symbols/tests/%-test.c $(SYMBOLS_OBJS) \
		$(BUILD)/libplcommon.a viewer/symbols/tests/sym-test-util.h \
		viewer/symbols/tests/snap-test-util.h $(SYMBOLS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SYMBOLS_CFLAGS) -Itest -Iviewer/symbols \
		-DPL_DEFAULT_BUILD='"$(abspath $(BUILD))"' -DPL_TOP='"$(abspath .)"' \
		$(LDFLAGS) -o $@ $< $(SYMBOLS_OBJS) $(BUILD)/libplcommon.a $(SYMBOLS_LIBS) $(ZSTD_LIBS)

# The perf.data reader's mapped read (viewer/formats/perf-data-reader.c,
# part of the ingest work) is tested here, linked with the reader alone:
# its four files, $(PERFDATA_READER_OBJS) (viewer/formats/formats.mk, read
# before this file).
$(BUILD)/test/viewer-symbols-perfdata-mmap-test: viewer/symbols/tests/perfdata-mmap-test.c \
		$(PERFDATA_READER_OBJS) $(BUILD)/libplcommon.a \
		viewer/symbols/tests/sym-test-util.h test/pl-test-perf.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SYMBOLS_CFLAGS) $(call pkgconf,--cflags gio-2.0) -Itest \
		-Iviewer/symbols -Iviewer/formats \
		-DPL_DEFAULT_BUILD='"$(abspath $(BUILD))"' -DPL_TOP='"$(abspath .)"' \
		$(LDFLAGS) -o $@ $< $(PERFDATA_READER_OBJS) $(BUILD)/libplcommon.a \
		$(call pkgconf,--libs gio-2.0) $(SYMBOLS_LIBS) $(ZSTD_LIBS)

# Shell tests: viewer/symbols/tests/NAME-test.sh → $(BUILD)/test/viewer-symbols-NAME-test
SYMBOLS_SH_TESTS := $(patsubst viewer/symbols/tests/%-test.sh,$(BUILD)/test/viewer-symbols-%-test,\
	$(wildcard viewer/symbols/tests/*-test.sh))
$(SYMBOLS_SH_TESTS): $(BUILD)/test/viewer-symbols-%-test: viewer/symbols/tests/%-test.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

viewer:: $(SYMBOLS_OBJS) $(SYMBOLS_TESTS) $(SYMBOLS_SH_TESTS)

-include $(SYMBOLS_OBJS:.o=.d)
