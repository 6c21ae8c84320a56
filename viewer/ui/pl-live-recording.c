/* pl-live-recording.c — a live session's file (see pl-live-recording.h). */
#include "pl-live-recording.h"

#include <glib/gstdio.h>

#include "pl-session-writer.h"
#include "pl-ssh.h"

struct _PlLiveRecording {
	PlSessionWriter *writer;
	PlClient *client; /* borrowed: it holds the writer */
};

PlLiveRecording *pl_live_recording_new(const char *label, GError **error)
{
	g_autofree char *path = pl_session_default_path(label);
	PlSessionWriter *w = pl_session_writer_new_unique(path, error);
	if (!w)
		return NULL;
	PlLiveRecording *self = g_new0(PlLiveRecording, 1);
	self->writer = w;
	return self;
}

gboolean pl_live_recording_attach(PlLiveRecording *self, PlClient *client, GError **error)
{
	self->client = client;
	return pl_client_set_writer(client, self->writer, error) &&
	       pl_ssh_note_session(client, self->writer, error);
}

const char *pl_live_recording_get_path(PlLiveRecording *self)
{
	return pl_session_writer_get_path(self->writer);
}

/* (Safe inside the client's handler: the client saves a block before it
 * decodes the messages in it, so END's block is already in the file.) */
char *pl_live_recording_finish(PlLiveRecording *self, GError **error)
{
	char *path = g_strdup(pl_session_writer_get_path(self->writer));
	if (self->client)
		pl_client_set_writer(self->client, NULL, NULL);
	pl_session_writer_close(self->writer, error);
	pl_session_writer_free(self->writer);
	g_free(self);
	return path;
}

void pl_live_recording_discard(PlLiveRecording *self)
{
	g_autofree char *path = pl_live_recording_finish(self, NULL);
	g_unlink(path);
}
