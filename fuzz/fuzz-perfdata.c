/* fuzz-perfdata.c — libFuzzer harness: the perf.data reader
 * (viewer/formats/perf-data-reader.h) over arbitrary files.
 *
 * Each input is read twice, in file order and with FINISHED_ROUND
 * reordering, as `perflens report x.data` would.  Every message the reader
 * produces must be one a PerfLens stream can carry: it is encoded with
 * pl_msg_encode (which refuses fields over the caps of common/msg.h) and
 * decoded back, byte for byte the same (fuzz-util.h).  The encoder reads
 * every borrowed string, stack copy and chunk, so ASan sees them all.
 *
 * The reader takes a path: the input is written to a memfd and opened
 * through /proc/self/fd.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-util.h"
#include "perf-data-reader.h"

static int fd = -1;
static char path[64];
static struct pl_msg *scratch;
static uint8_t *wbuf, *wbuf2;

static gboolean sink(const struct pl_msg *m, gpointer user, GError **error)
{
	fz_roundtrip(m, SIZE_MAX, wbuf, wbuf2, scratch);
	(*(guint64 *)user)++;
	return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC);
		scratch = malloc(sizeof(*scratch));
		wbuf = malloc(PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
		wbuf2 = malloc(PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
		if (fd < 0 || !scratch || !wbuf || !wbuf2)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	for (int reorder = 0; reorder < 2; reorder++) {
		PlPerfDataReadOptions o = { .reorder = reorder };
		PlPerfDataStats st;
		GError *error = NULL;
		guint64 delivered = 0;
		if (!pl_perf_data_read(path, &o, sink, &delivered, &st, &error)) {
			FZ_CHECK(error && error->message, "read failed without an error");
			g_error_free(error);
		} else {
			FZ_CHECK(st.samples <= delivered, "%" G_GUINT64_FORMAT
				 " samples counted, %" G_GUINT64_FORMAT " messages delivered",
				 st.samples, delivered);
		}
	}
	return 0;
}
