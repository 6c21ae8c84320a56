/* pl-profile-session.h — what a window (or a program with no window) has
 * open, apart from the widgets: the profile, how it is loading, whether a
 * live recording feeds it, and what is selected of it (thread, time range,
 * search, off-CPU, short names, the call-tree transforms), with the
 * aggregate every view draws, made from all of these.
 *
 * State is held in GObject properties, each with its notify signal, so
 * that views bind to it (g_object_bind_property, notify handlers) instead
 * of being handed each change:
 *   "profile" (gpointer PlProfile*, read-only, owned by the session): the
 *       open profile, NULL when none; notified when replaced;
 *   "path" (string, read-only): its file (a live recording's once it has
 *       one), NULL when none;
 *   "loading" (boolean, read-only), "load-progress" (guint64: records read
 *       by the running load), "load-status" (string: "Loading FILE… N
 *       records read", and what a debuginfod fetch does), "load-error"
 *       (string: why the last load failed, NULL when it did not);
 *   "live" (boolean, read-only): a recording of the followed PlLiveSession
 *       feeds the profile, from "starting" until it ended or another file
 *       was opened;
 *   "thread" (guint: tid, 0 all), "time-start", "time-end" (guint64, ns;
 *       time-end 0: no upper bound): the filter (set together with
 *       pl_profile_session_set_range, one aggregate for the three);
 *   "search" (string): the search the flame graph highlights;
 *   "offcpu" (boolean): aggregate the context-switch event, not the main one;
 *   "short-names" (boolean): C++ names folded in every label (kept for the
 *       next profile too);
 *   "aggregate" (gpointer PlAggregate*, read-only, owned): the profile
 *       under the filter and the transforms; notified after every change
 *       of the profile, the filter, the event or the transforms;
 *   "findings" (gpointer PlFindingsResult*, read-only, owned): the findings
 *       and periodic tasks of a file's profile (pl-findings-job.h), made by
 *       a worker while the views draw the profile; NULL until then, for a
 *       live profile, and without a profile.  While the worker runs the
 *       session changes nothing in the profile: a change that would (short
 *       names, a transform, a refresh) waits for it and publishes first.
 * The transforms are a PlViewState (pl_profile_session_get_view_state),
 * kept beside the session's file.
 *
 * Signals:
 *   "updated": the profile grew (a live recording, at most once a second,
 *       or pl_profile_session_refresh): what reads the profile directly
 *       reads it again; "aggregate" is notified right after;
 *   "recording-started" (const char *path): the followed recording has
 *       its file;
 *   "recording-ended" (const char *why, NULL or "" when it simply ended):
 *       the followed recording is over and the profile holds all of it;
 *   "problem" (const char *message): something the user should read (a
 *       transform that failed, the view state's file).
 *
 * A live recording: pl_profile_session_follow hands it a PlLiveSession;
 * at the live session's "starting" it makes a fresh profile with the
 * board's symbol settings (pl-target-settings.h) and HELLO, and ingests
 * the recorded messages as they arrive, on the thread of the live
 * session's context.  Nothing global: a program may hold many.  Not
 * thread-safe: one thread (main context) per session.
 */
#ifndef PL_PROFILE_SESSION_H
#define PL_PROFILE_SESSION_H

#include <glib-object.h>

#include "pl-findings-job.h"
#include "pl-live-session.h"
#include "pl-profile.h"
#include "pl-view-state.h"

G_BEGIN_DECLS

#define PL_TYPE_PROFILE_SESSION (pl_profile_session_get_type())
G_DECLARE_FINAL_TYPE(PlProfileSession, pl_profile_session, PL, PROFILE_SESSION, GObject)

PlProfileSession *pl_profile_session_new(void);

/* ─── the profile ─── */
PlProfile *pl_profile_session_get_profile(PlProfileSession *self);
const char *pl_profile_session_get_path(PlProfileSession *self);
/* Shows profile (taken; NULL: none) read from path (may be NULL): the
 * filter is cleared, the transforms become the ones kept beside path, a
 * live recording is no longer followed into it. */
void pl_profile_session_set_profile(PlProfileSession *self, PlProfile *profile, const char *path);
/* The session's file moved (renamed in the sessions list): when it is the
 * one open, "path" follows it, and so does its view state. */
void pl_profile_session_rename(PlProfileSession *self, const char *from, const char *to);

/* ─── loading a file (pl-load-job.h) ─── */
/* Loads path in a worker; the profile shown stays until it is done, then
 * the loaded one replaces it (or "load-error" says why not).  A load
 * running is cancelled. */
void pl_profile_session_open(PlProfileSession *self, const char *path);
void pl_profile_session_cancel_load(PlProfileSession *self);
gboolean pl_profile_session_is_loading(PlProfileSession *self);
const char *pl_profile_session_get_load_error(PlProfileSession *self);
const char *pl_profile_session_get_load_status(PlProfileSession *self);

/* ─── live ─── */
/* Follows live's recordings (referenced; NULL: none any more). */
void pl_profile_session_follow(PlProfileSession *self, PlLiveSession *live);
PlLiveSession *pl_profile_session_get_live_session(PlProfileSession *self);
gboolean pl_profile_session_is_live(PlProfileSession *self);
/* Now, whatever arrived: the profile finished up to its last message,
 * "updated", the aggregate made again.  No profile: nothing. */
void pl_profile_session_refresh(PlProfileSession *self);

/* ─── the selection ─── */
void pl_profile_session_set_range(PlProfileSession *self, guint32 tid, guint64 t0, guint64 t1);
/* The filter the aggregate was made with: thread, range and the event
 * (PL_NO_ID without a profile). */
PlFilter pl_profile_session_get_filter(PlProfileSession *self);
/* TRUE when a thread or a time range is selected. */
gboolean pl_profile_session_is_filtered(PlProfileSession *self);
void pl_profile_session_set_search(PlProfileSession *self, const char *search);
const char *pl_profile_session_get_search(PlProfileSession *self);
void pl_profile_session_set_offcpu(PlProfileSession *self, gboolean on);
gboolean pl_profile_session_get_offcpu(PlProfileSession *self);
/* The profile has an off-CPU (context-switch) event with samples. */
gboolean pl_profile_session_has_offcpu(PlProfileSession *self);
void pl_profile_session_set_short_names(PlProfileSession *self, gboolean on);
gboolean pl_profile_session_get_short_names(PlProfileSession *self);
/* The call-tree transforms (borrowed, one for the session's life). */
PlViewState *pl_profile_session_get_view_state(PlProfileSession *self);
/* The aggregate (borrowed until the next notify::aggregate), NULL
 * without a profile. */
PlAggregate *pl_profile_session_get_aggregate(PlProfileSession *self);
/* The findings (borrowed until the next notify::findings), NULL while
 * they are computed or when none are. */
PlFindingsResult *pl_profile_session_get_findings(PlProfileSession *self);
/* TRUE while a worker computes the findings of the profile. */
gboolean pl_profile_session_findings_pending(PlProfileSession *self);

G_END_DECLS

#endif
