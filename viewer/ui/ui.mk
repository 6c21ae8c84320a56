# viewer/ui/ui.mk — the GTK 4 desktop viewer.  Included after
# viewer/viewer.mk (it uses VIEWER_LIBS, libplviewer.a); until the top
# Makefile includes it, build with
#   make -f Makefile -f viewer/ui/ui.mk build/perflens-gtk
#
# Defines UI_OBJS (every widget and the app: link them into perflens and
# call pl_ui_run() from viewer/ui/pl-ui.h), UI_LIBS, the standalone
# $(BUILD)/perflens-gtk, the UI tests, and ui-install (PREFIX).
# Without gtk4 development files nothing here is built and viewer:: is
# unchanged, so the rest of the tree stays buildable.

ifeq ($(shell pkg-config --exists gtk4 && echo yes),yes)

UI_SRCS := $(wildcard viewer/ui/pl-*.c)
UI_OBJS := $(UI_SRCS:%.c=$(BUILD)/%.o)
UI_CFLAGS := $(shell pkg-config --cflags gtk4) -Iviewer/core -Iviewer/model \
	-Iviewer/symbols -Iviewer/formats -Iviewer/ui
UI_LIBS := $(shell pkg-config --libs gtk4) -lm

$(BUILD)/viewer/ui/%.o: ALL_CFLAGS += $(UI_CFLAGS)

# `perflens` with no command (or a file) opens the app
$(BUILD)/perflens: $(UI_OBJS)
PERFLENS_UI_LIBS := $(UI_LIBS)
$(BUILD)/viewer/cli/main.o: ALL_CFLAGS += -DPL_HAVE_UI -Iviewer/ui
# GTK's headers trip -Wshadow-free code only in deprecated paths; nothing
# else is relaxed.

$(BUILD)/perflens-gtk: $(BUILD)/viewer/ui/main-gtk.o $(UI_OBJS) $(BUILD)/libplviewer.a \
		$(BUILD)/libplcommon.a
	$(CC) $(LDFLAGS) -o $@ $^ $(UI_LIBS) $(VIEWER_LIBS)

# Tests: viewer/ui/tests/viewer-ui-NAME-test.{c,sh} → $(BUILD)/test/…
UI_C_TESTS := $(patsubst viewer/ui/tests/%.c,$(BUILD)/test/%,$(filter-out \
	viewer/ui/tests/viewer-ui-views-test.c,$(wildcard viewer/ui/tests/viewer-ui-*-test.c)))
UI_SH_TESTS := $(patsubst viewer/ui/tests/%.sh,$(BUILD)/test/%,$(wildcard viewer/ui/tests/viewer-ui-*-test.sh))

# The layout test links the layout code alone: no display needed.
$(UI_C_TESTS): $(BUILD)/test/%: viewer/ui/tests/%.c $(BUILD)/viewer/ui/pl-flame-layout.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -Itest -MF $@.d $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(UI_LIBS)

$(UI_SH_TESTS): $(BUILD)/test/%: viewer/ui/tests/%.sh | $(BUILD)/perflens
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

# The views test program needs a display: viewer-ui-views-test.sh records
# its captures and runs it under Xvfb (so it is not named *-test itself).
$(BUILD)/test/viewer-ui-views-prog: viewer/ui/tests/viewer-ui-views-test.c $(UI_OBJS) \
		$(BUILD)/libplviewer.a $(BUILD)/libplcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(UI_CFLAGS) -Itest -MF $@.d $(LDFLAGS) -o $@ $(filter %.c,$^) \
		$(filter %.o,$^) $(filter %.a,$^) $(UI_LIBS) $(VIEWER_LIBS)
$(BUILD)/test/viewer-ui-views-test: $(BUILD)/test/viewer-ui-views-prog

viewer:: $(BUILD)/perflens-gtk $(UI_C_TESTS) $(UI_SH_TESTS) $(BUILD)/test/viewer-ui-views-prog

PREFIX ?= /usr/local
.PHONY: ui-install
ui-install: $(BUILD)/perflens
	install -Dm755 $(BUILD)/perflens $(DESTDIR)$(PREFIX)/bin/perflens
	install -Dm644 viewer/ui/data/org.perflens.Viewer.desktop \
		$(DESTDIR)$(PREFIX)/share/applications/org.perflens.Viewer.desktop
	install -Dm644 viewer/ui/data/org.perflens.Viewer.svg \
		$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/org.perflens.Viewer.svg

-include $(UI_OBJS:.o=.d) $(BUILD)/viewer/ui/main-gtk.d $(UI_C_TESTS:=.d) \
	$(BUILD)/test/viewer-ui-views-prog.d

endif
