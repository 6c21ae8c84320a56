# viewer/fleet/fleet.mk — the fleet store: ClickHouse over HTTP (libcurl),
# its schema, blocks of samples and the spool, and the collector.  Headless
# (GLib, no GTK).  Included by viewer/viewer.mk; perflens (collect, fleet)
# links $(FLEET_OBJS) and $(FLEET_LIBS).
#
# libcurl is the maintained HTTP client the fleet store talks to
# ClickHouse's HTTP interface with (keep-alive, auth, timeouts, TLS for a
# remote store), rather than an HTTP stack of our own.  It is opened with
# dlopen at first use (pl-curl.c), not linked: its ~30 libraries cost
# every perflens run ~4 ms of start-up, most runs never use the store.
# Its headers are still compiled against (the cflags below).
FLEET_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard viewer/fleet/*.c))
FLEET_LIBS :=

$(BUILD)/viewer/fleet/%.o: ALL_CFLAGS += -Iviewer/fleet $(call pkgconf,--cflags libcurl)

# its test links the objects (the viewer-*-test rule passes .o prerequisites on)
$(BUILD)/test/viewer-fleet-store-test: $(FLEET_OBJS)
$(BUILD)/test/viewer-fleet-store-test: private VIEWER_CFLAGS += -Iviewer/fleet
$(BUILD)/test/viewer-fleet-store-test: private VIEWER_LIBS += $(FLEET_LIBS)
$(BUILD)/test/viewer-fleet-job-test: $(FLEET_OBJS)
$(BUILD)/test/viewer-fleet-job-test: private VIEWER_CFLAGS += -Iviewer/fleet
$(BUILD)/test/viewer-fleet-job-test: private VIEWER_LIBS += $(FLEET_LIBS)

$(BUILD)/perflens: $(FLEET_OBJS)
$(BUILD)/perflens: VIEWER_LIBS += $(FLEET_LIBS)
$(BUILD)/viewer/cli/%.o: ALL_CFLAGS += -Iviewer/fleet

viewer:: $(FLEET_OBJS)

-include $(FLEET_OBJS:.o=.d)

# 20 agents for 60 s into one collector (viewer-fleet-collect-test scaled):
# too long for make check.
.PHONY: fleet-long
fleet-long: all
	PL_BUILD=$(BUILD) PL_TOP=$(CURDIR) PL_FLEET_AGENTS=20 PL_FLEET_SECONDS=60 \
		nice -n 10 $(BUILD)/test/viewer-fleet-collect-test
