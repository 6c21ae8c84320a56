/* viewer-test-profile.h — a capture read into a finished session model, as
 * the model tests check it (the load's error fails the case). */
#ifndef VIEWER_TEST_PROFILE_H
#define VIEWER_TEST_PROFILE_H

#include "pl-capture.h"
#include "pl-profile.h"
#include "pl-test.h"

static inline PlProfile *vt_profile_load(const char *path)
{
	PlProfile *p = pl_profile_new(NULL);
	GError *error = NULL;
	PL_CHECKF(pl_capture_load(path, pl_profile_ingest, p, NULL, &error), "%s: %s", path,
		  error ? error->message : "?");
	pl_profile_finish(p);
	return p;
}

#endif
