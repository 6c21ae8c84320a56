# viewer/viewer.mk — the viewer: io (captures, live client, session
# writer, loader), model, core (the headless application layer under the
# command line and the app: live session, load job, sessions index, target
# settings, view state), command line, tests.  Included by the top
# Makefile; everything hangs off the double-colon target `viewer::`.
#
# viewer/symbols and viewer/formats are separate modules with their own .mk
# fragments (SYMBOLS_OBJS, FORMATS_OBJS).  formats.mk comes first: a
# symbols test links the perf.data reader ($(PERFDATA_READER_OBJS)), and
# make expands a rule's prerequisites when it reads the rule.

include viewer/formats/formats.mk
include viewer/symbols/symbols.mk

VIEWER_PKGS := glib-2.0 gio-2.0 libdw libelf
VIEWER_CFLAGS := $(call pkgconf,--cflags $(VIEWER_PKGS)) \
	-Iviewer/io -Iviewer/model -Iviewer/symbols -Iviewer/formats -Iviewer/core
VIEWER_LIBS := $(call pkgconf,--libs $(VIEWER_PKGS)) $(ZSTD_LIBS) -lpthread -lm

$(BUILD)/viewer/%.o: ALL_CFLAGS += $(VIEWER_CFLAGS)

VIEWER_IO_OBJS := $(BUILD)/viewer/io/pl-capture.o $(BUILD)/viewer/io/pl-capture-error.o \
	$(BUILD)/viewer/io/pl-session-writer.o $(BUILD)/viewer/io/pl-client.o \
	$(BUILD)/viewer/io/pl-loader.o $(BUILD)/viewer/io/pl-ssh.o
VIEWER_MODEL_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard viewer/model/*.c))
# The painters: cairo and Pango, no GTK, so they draw headless (an image
# surface, a PDF or SVG one) as well as in a widget.  Kept out of
# libplviewer.a, which perflens carries whole: the command line links no
# cairo; what draws (the app module, its tests) links these objects
# (-fPIC: they go into the module).
VIEWER_PAINT_SRCS := viewer/core/pl-flame-draw.c
VIEWER_PAINT_OBJS := $(VIEWER_PAINT_SRCS:%.c=$(BUILD)/%.o)
$(VIEWER_PAINT_OBJS): ALL_CFLAGS += $(call pkgconf,--cflags pangocairo) -fPIC
# no GTK here (GLib, GIO): what cli/ and the app module share
VIEWER_CORE_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(VIEWER_PAINT_SRCS), \
	$(wildcard viewer/core/*.c)))

# system call names of the boards' architectures, from the kernel's headers
$(BUILD)/viewer/pl-syscall-names.h: viewer/model/gen-syscall-names.sh
	@mkdir -p $(dir $@)
	viewer/model/gen-syscall-names.sh $@
$(BUILD)/viewer/model/pl-syscalls.o: $(BUILD)/viewer/pl-syscall-names.h
$(BUILD)/viewer/model/pl-syscalls.o: ALL_CFLAGS += -I$(BUILD)/viewer

VIEWER_SYM_OBJS := $(SYMBOLS_OBJS)
VIEWER_LIBS += $(SYMBOLS_LIBS)

VIEWER_FMT_OBJS := $(FORMATS_OBJS) $(FORMATS_EXPORT_OBJS) $(BUILD)/viewer/io/pl-capture-perf.o
VIEWER_LIBS += $(FORMATS_LIBS)

VIEWER_LIB_OBJS := $(VIEWER_IO_OBJS) $(VIEWER_MODEL_OBJS) $(VIEWER_SYM_OBJS) $(VIEWER_FMT_OBJS) \
	$(VIEWER_CORE_OBJS)
VIEWER_CLI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard viewer/cli/*.c))

$(BUILD)/libplviewer.a: $(VIEWER_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# perflens links no GTK: the app is the module perflens-ui.so
# (viewer/ui/ui.mk), loaded by viewer/cli/app.c only when the app opens.
# The module calls the viewer library, so perflens carries all of it
# (--whole-archive) and exports it (-rdynamic) for the module to bind to.
$(BUILD)/viewer/cli/%.o: ALL_CFLAGS += -Iviewer/ui -I$(BUILD)/viewer

# The module binds to structs and functions of the viewer library in this
# executable: a key of the headers they are declared in, compiled into
# both (pl-abi.h), lets perflens refuse a module from another build
# (viewer/cli/app.c) instead of crashing in it.
PL_ABI_HEADERS := $(sort $(wildcard common/*.h viewer/io/*.h viewer/model/*.h \
	viewer/symbols/*.h viewer/formats/*.h viewer/core/*.h viewer/fleet/*.h)) viewer/ui/pl-ui.h
$(BUILD)/viewer/pl-abi.h: $(PL_ABI_HEADERS) viewer/viewer.mk
	@mkdir -p $(dir $@)
	printf '#define PL_VIEWER_ABI "%s"\n' "$$(cat $(PL_ABI_HEADERS) | sha256sum | cut -c1-16)" >$@
$(BUILD)/viewer/cli/app.o: $(BUILD)/viewer/pl-abi.h
$(BUILD)/perflens: $(VIEWER_CLI_OBJS) $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(filter %.o,$^) -Wl,--whole-archive $(filter %.a,$^) \
		-Wl,--no-whole-archive $(VIEWER_LIBS)

# Tests: viewer/tests/viewer-NAME-test.c → $(BUILD)/test/viewer-NAME-test;
# viewer/tests/viewer-NAME-test.sh is copied there (test/run.sh runs every
# $(BUILD)/test/*-test executable).  Static pattern rules, so the top
# Makefile's test/unit rule never competes.
VIEWER_C_TESTS := $(patsubst viewer/tests/%.c,$(BUILD)/test/%,$(wildcard viewer/tests/viewer-*-test.c))
VIEWER_SH_TESTS := $(patsubst viewer/tests/%.sh,$(BUILD)/test/%,$(wildcard viewer/tests/viewer-*-test.sh))

$(VIEWER_C_TESTS): $(BUILD)/test/%: viewer/tests/%.c $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(VIEWER_CFLAGS) -Itest -Iviewer/tests -Iviewer/cli -MF $@.d $(LDFLAGS) \
		-o $@ $(filter %.c,$^) $(filter %.o,$^) $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a \
		$(VIEWER_LIBS)
# the loader test compares the command line's entry (pl_cli_load) with the app's
$(BUILD)/test/viewer-loader-test: $(BUILD)/viewer/cli/pl-cli-common.o $(BUILD)/viewer/cli/pl-cli-expr.o \
	$(BUILD)/viewer/cli/pl-cli-options.o $(BUILD)/viewer/cli/pl-cli-fail.o

$(VIEWER_SH_TESTS): $(BUILD)/test/%: viewer/tests/%.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

include viewer/fleet/fleet.mk

# The tests use the workloads and the binary itself.
viewer:: $(BUILD)/perflens $(VIEWER_C_TESTS) $(VIEWER_SH_TESTS) $(WORKLOADS)

-include $(VIEWER_LIB_OBJS:.o=.d) $(VIEWER_CLI_OBJS:.o=.d) $(VIEWER_C_TESTS:=.d)
