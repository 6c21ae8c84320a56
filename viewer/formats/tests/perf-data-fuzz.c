/* perf-data-fuzz.c — libFuzzer harness for the perf.data reader.
 *
 *   make build/fuzz/perf-data-fuzz && build/fuzz/perf-data-fuzz -max_len=200000 CORPUS
 *
 * Seed the corpus with small real files (perf record -F 99 -g -o seed.data
 * -- sleep 0.1).  The reader opens files by path, so each input goes into a
 * memfd read through /proc/self/fd; messages are touched so that ASan sees
 * every borrowed pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf-data-reader.h"

static gboolean sink(const struct pl_msg *m, gpointer user, GError **error)
{
	volatile unsigned sum = 0;
	if (m->type == PL_MSG_SAMPLE) {
		for (uint32_t i = 0; i < m->u.sample.stack_size; i++)
			sum += m->u.sample.stack[i];
		for (uint32_t i = 0; i < m->u.sample.nr_callchain; i++)
			sum += (unsigned)m->u.sample.callchain[i];
	} else if (m->type == PL_MSG_MMAP) {
		for (uint32_t i = 0; i < m->u.mmap.filename.len; i++)
			sum += (unsigned char)m->u.mmap.filename.p[i];
	} else if (m->type == PL_MSG_COMM) {
		for (uint32_t i = 0; i < m->u.comm.comm.len; i++)
			sum += (unsigned char)m->u.comm.comm.p[i];
	}
	(void)sum;
	return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("perf-data-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	for (int reorder = 0; reorder < 2; reorder++) {
		PlPerfDataReadOptions o = { .reorder = reorder };
		GError *error = NULL;
		if (!pl_perf_data_read(path, &o, sink, NULL, NULL, &error))
			g_error_free(error);
	}
	return 0;
}
