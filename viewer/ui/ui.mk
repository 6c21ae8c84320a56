# viewer/ui/ui.mk — the GTK 4 desktop viewer.  Included after
# viewer/viewer.mk (it uses VIEWER_LIBS, libplviewer.a).
#
# Defines UI_OBJS (every widget and the app), UI_LIBS, the app module
# $(BUILD)/perflens-ui.so (UI_OBJS linked with GTK; exports pl_ui_run from
# viewer/ui/pl-ui.h; `perflens` loads it when the app opens, see
# viewer/cli/app.c), the UI tests with their scripted driver
# $(BUILD)/test/perflens-ui-script.so (test code: never installed nor
# shipped), and ui-install (PREFIX).
# Without gtk4 development files nothing here is built (perflens then says
# the module is missing when asked for the app), so the rest of the tree
# stays buildable.

ifeq ($(shell pkg-config --exists gtk4 2>/dev/null && echo yes),yes)

UI_SRCS := $(wildcard viewer/ui/pl-*.c)
UI_OBJS := $(UI_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/viewer/ui/pl-ui-resources.o \
	$(VIEWER_PAINT_OBJS)
UI_CFLAGS := $(call pkgconf,--cflags gtk4) -Iviewer/io -Iviewer/model \
	-Iviewer/symbols -Iviewer/formats -Iviewer/core -Iviewer/ui -Iviewer/fleet
UI_LIBS := $(call pkgconf,--libs gtk4) -lm

# The composite widgets' layouts: GtkBuilder templates (viewer/ui/data/ui/
# *.ui) compiled into the module as a GResource, which registers itself
# when the module is loaded (glib-compile-resources, libglib2.0-dev-bin).
UI_GRESOURCE := viewer/ui/data/ui/pl-ui.gresource.xml
UI_TEMPLATES := $(wildcard viewer/ui/data/ui/*.ui)
$(BUILD)/viewer/ui/pl-ui-resources.c: $(UI_GRESOURCE) $(UI_TEMPLATES) viewer/ui/ui.mk
	@mkdir -p $(dir $@)
	glib-compile-resources --sourcedir=viewer/ui/data/ui --generate-source --c-name pl_ui \
		--target=$@ $(UI_GRESOURCE)
# generated code: its accessor has no prototype
$(BUILD)/viewer/ui/pl-ui-resources.o: $(BUILD)/viewer/ui/pl-ui-resources.c
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -fPIC -Wno-missing-prototypes -c $< -o $@

# -fPIC: the objects go into a shared object (and also link into the views
# test program, which -fPIC does not hinder)
$(BUILD)/viewer/ui/%.o: ALL_CFLAGS += $(UI_CFLAGS) -fPIC
$(UI_OBJS): viewer/ui/ui.mk
# the module's copy of the interface key (viewer/viewer.mk)
$(BUILD)/viewer/ui/pl-app.o: $(BUILD)/viewer/pl-abi.h
$(BUILD)/viewer/ui/pl-app.o: ALL_CFLAGS += -I$(BUILD)/viewer

# `perflens` with no command (or a file) opens the app: this module.  Its
# references to the viewer library and common/ bind to the perflens
# executable that loads it (viewer/viewer.mk); only GTK is linked here.
# Its functions keep default visibility (no version script): the UI tests'
# driver binds to them.  The soname is how that driver names it: the
# dynamic linker then finds the copy perflens has loaded, wherever it is.
$(BUILD)/perflens-ui.so: $(UI_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,perflens-ui.so -o $@ $(UI_OBJS) $(UI_LIBS)

# Tests: viewer/ui/tests/viewer-ui-NAME-test.{c,sh} → $(BUILD)/test/…
UI_C_TESTS := $(patsubst viewer/ui/tests/%.c,$(BUILD)/test/%,$(filter-out \
	viewer/ui/tests/viewer-ui-views-test.c,$(wildcard viewer/ui/tests/viewer-ui-*-test.c)))
UI_SH_TESTS := $(patsubst viewer/ui/tests/%.sh,$(BUILD)/test/%,$(wildcard viewer/ui/tests/viewer-ui-*-test.sh))

# The layout test links the layout and its drawing (viewer/core) alone, the
# sessions index test the viewer library (the index and the view state are
# in viewer/core): no display needed.
$(UI_C_TESTS): $(BUILD)/test/%: viewer/ui/tests/%.c $(BUILD)/viewer/core/pl-flame-layout.o \
		$(BUILD)/viewer/core/pl-flame-draw.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -Itest -MF $@.d $(LDFLAGS) -o $@ $(filter %.c %.o,$^) \
		$(filter %.a,$^) $(UI_LIBS) $(if $(filter %.a,$^),$(VIEWER_LIBS))
$(BUILD)/test/viewer-ui-sessions-index-test: $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a

# The scripted driver (viewer/ui/tests/pl-ui-script.h): a module the app
# loads when PERFLENS_UI_TEST_MODULE names it (viewer/ui/pl-ui-test-hook.h).
# It needs perflens-ui.so (the widgets' functions; no copy of their code,
# whose GTypes would be registered twice) and binds to the viewer library
# in the perflens executable, as the app module does.
UI_SCRIPT_MODULE := $(BUILD)/test/perflens-ui-script.so
$(UI_SCRIPT_MODULE): viewer/ui/tests/pl-ui-script.c viewer/ui/tests/pl-ui-script-transforms.c \
		viewer/ui/tests/pl-ui-script-labels.c \
		viewer/ui/tests/pl-ui-script-source.c viewer/ui/tests/pl-ui-script-io.c \
		viewer/ui/tests/pl-ui-script-sessions.c viewer/ui/tests/pl-ui-script-names.c \
		viewer/ui/tests/pl-ui-script-fleet.c viewer/ui/tests/pl-ui-script-flight.c \
		viewer/ui/tests/pl-ui-script-locks.c viewer/ui/tests/pl-ui-script-tracks.c \
		viewer/ui/tests/pl-ui-script-findings.c viewer/ui/tests/pl-ui-script-irq.c \
		viewer/ui/tests/pl-ui-script-block.c viewer/ui/tests/pl-ui-script-timing.c \
		$(BUILD)/perflens-ui.so viewer/ui/ui.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -fPIC -shared -MF $@.d $(LDFLAGS) -o $@ \
		$(filter %.c,$^) $(BUILD)/perflens-ui.so $(UI_LIBS)

$(UI_SH_TESTS): $(BUILD)/test/%: viewer/ui/tests/%.sh | $(BUILD)/perflens $(BUILD)/perflens-ui.so \
		$(UI_SCRIPT_MODULE)
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

# The board's debuginfod setting, headless: viewer/core's
# pl-target-settings.c and the window's load job, pl-load-job.c, in the
# viewer library.
$(BUILD)/test/viewer-ui-target-debuginfod-test: $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a

# The views test program needs a display: viewer-ui-views-test.sh records
# its captures and runs it under Xvfb (so it is not named *-test itself).
$(BUILD)/test/viewer-ui-views-prog: viewer/ui/tests/viewer-ui-views-test.c $(UI_OBJS) \
		$(FLEET_OBJS) $(BUILD)/libplviewer.a $(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -Itest -MF $@.d $(LDFLAGS) -o $@ $(filter %.c,$^) \
		$(filter %.o,$^) $(filter %.a,$^) $(UI_LIBS) $(VIEWER_LIBS) $(FLEET_LIBS)
$(BUILD)/test/viewer-ui-views-test: $(BUILD)/test/viewer-ui-views-prog

viewer:: $(BUILD)/perflens-ui.so $(UI_C_TESTS) $(UI_SH_TESTS) $(BUILD)/test/viewer-ui-views-prog \
	$(UI_SCRIPT_MODULE)

PREFIX ?= /usr/local
.PHONY: ui-install
# the module where viewer/cli/app.c looks from PREFIX/bin/perflens (the
# tests' perflens-ui-script.so is not installed)
ui-install: $(BUILD)/perflens-ui.so
	install -Dm644 $(BUILD)/perflens-ui.so $(DESTDIR)$(PREFIX)/lib/perflens/perflens-ui.so
	install -Dm644 viewer/ui/data/org.perflens.Viewer.desktop \
		$(DESTDIR)$(PREFIX)/share/applications/org.perflens.Viewer.desktop
	install -Dm644 viewer/ui/data/org.perflens.Viewer.svg \
		$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/org.perflens.Viewer.svg

-include $(UI_OBJS:.o=.d) $(UI_C_TESTS:=.d) $(BUILD)/test/viewer-ui-views-prog.d \
	$(UI_SCRIPT_MODULE).d

else
.PHONY: ui-install
ui-install:
	@echo "ui-install: no gtk4 development files: the desktop app is not built (the command line is)"
endif
