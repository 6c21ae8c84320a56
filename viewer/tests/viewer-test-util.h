/* viewer-test-util.h — helpers for the viewer tests: building real
 * captures with the common/ encoder, nm as the oracle for symbol addresses,
 * running the perflens binary.  Header-only: each test is one .c file.
 *
 * Build dir: $PL_BUILD (test/run.sh sets it), else "build"; the agent under
 * test: $PL_AGENT, else the build's perflens-agent. */
#ifndef VIEWER_TEST_UTIL_H
#define VIEWER_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "block.h"
#include "msg.h"
#include "pl-client.h"
#include "pl-test-perf.h"
#include "pl-test.h"

#define T_CTX_KERNEL ((uint64_t)-128)
#define T_CTX_USER ((uint64_t)-512)

static inline const char *vt_build(void)
{
	const char *b = getenv("PL_BUILD");
	return b && *b ? b : "build";
}

static inline char *vt_build_path(const char *rel)
{
	return g_build_filename(vt_build(), rel, NULL);
}

/* The agent binary under test (owned by the caller). */
static inline char *vt_agent(void)
{
	const char *a = getenv("PL_AGENT");
	return a && *a ? g_strdup(a) : vt_build_path("perflens-agent");
}

static char *vt_tmpdir;
static inline void vt_rm_tmp(void)
{
	if (vt_tmpdir && !getenv("PL_KEEP_TMP")) {
		char *argv[] = { (char *)"rm", (char *)"-rf", vt_tmpdir, NULL };
		g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
			     NULL);
	}
}
static inline char *vt_tmp(const char *name)
{
	if (!vt_tmpdir) {
		vt_tmpdir = g_dir_make_tmp("plview-XXXXXX", NULL);
		atexit(vt_rm_tmp);
	}
	return g_build_filename(vt_tmpdir, name, NULL);
}

/* ─── writing captures with the real encoder ─────────────────────────── */

typedef struct {
	FILE *f;
	struct pl_block_enc enc;
	unsigned blocks;
	GArray *block_ends; /* file offset after each block */
	long offset;
} VtCapture;

static int vt_zstd_level = 3; /* 0: raw blocks (tests that mutate payloads) */

static inline VtCapture *vt_capture_new(const char *path)
{
	VtCapture *c = g_new0(VtCapture, 1);
	c->f = fopen(path, "wb");
	if (!c->f || pl_block_enc_init(&c->enc, 256 * 1024, vt_zstd_level) < 0)
		return NULL;
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_CAPTURE | PL_STREAM_FROM_AGENT);
	fwrite(hdr, 1, sizeof(hdr), c->f);
	c->offset = sizeof(hdr);
	c->block_ends = g_array_new(FALSE, FALSE, sizeof(long));
	return c;
}

/* Ends the current block (each call = one block in the file). */
static inline void vt_capture_flush(VtCapture *c)
{
	if (pl_block_enc_empty(&c->enc))
		return;
	const uint8_t *out;
	size_t n;
	pl_block_enc_finish(&c->enc, &out, &n);
	fwrite(out, 1, n, c->f);
	c->offset += (long)n;
	g_array_append_val(c->block_ends, c->offset);
	c->blocks++;
}

static inline int vt_capture_add(VtCapture *c, const struct pl_msg *m)
{
	int rc = pl_msg_encode(&c->enc.w, m);
	if (rc == -ENOBUFS) {
		vt_capture_flush(c);
		rc = pl_msg_encode(&c->enc.w, m);
	}
	return rc;
}

static inline void vt_capture_close(VtCapture *c)
{
	vt_capture_flush(c);
	fclose(c->f);
	pl_block_enc_free(&c->enc);
	g_array_free(c->block_ends, TRUE);
	g_free(c);
}

/* ─── message builders ───────────────────────────────────────────────── */

static inline void vt_hello(VtCapture *c)
{
	struct pl_msg m = { .type = PL_MSG_HELLO };
	struct pl_msg_hello *h = &m.u.hello;
	h->protocol_version = PL_PROTOCOL_VERSION;
	h->agent_version = pl_str_c("test");
	h->machine = pl_str_c("x86_64");
	h->e_machine = 62;
	h->byte_order = PL_LITTLE_ENDIAN;
	h->word_size = 8;
	h->page_size = 4096;
	h->kernel_release = pl_str_c("6.0-test");
	h->hostname = pl_str_c("testhost");
	h->ncpus = 2;
	h->flags = PL_HELLO_PERF_AVAILABLE | PL_HELLO_CG_FP;
	vt_capture_add(c, &m);
}

static inline void vt_event(VtCapture *c, uint32_t index, uint8_t role, const char *name)
{
	struct pl_msg m = { .type = PL_MSG_EVENT_DESC };
	m.u.event_desc.index = index;
	m.u.event_desc.role = role;
	m.u.event_desc.name = pl_str_c(name);
	m.u.event_desc.type = 1;
	m.u.event_desc.freq = 1;
	m.u.event_desc.period_or_freq = 1000;
	vt_capture_add(c, &m);
}

static inline void vt_comm(VtCapture *c, uint32_t pid, uint32_t tid, const char *name,
			   uint64_t time)
{
	struct pl_msg m = { .type = PL_MSG_COMM };
	m.u.comm.pid = pid;
	m.u.comm.tid = tid;
	m.u.comm.time = time;
	m.u.comm.snapshot = 1;
	m.u.comm.comm = pl_str_c(name);
	vt_capture_add(c, &m);
}

static inline void vt_mmap(VtCapture *c, uint32_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, const char *file)
{
	struct pl_msg m = { .type = PL_MSG_MMAP };
	struct pl_msg_mmap *mm = &m.u.mmap;
	mm->pid = mm->tid = pid;
	mm->start = start;
	mm->len = len;
	mm->pgoff = pgoff;
	mm->prot = 5; /* r-x */
	mm->flags = 2;
	mm->cpumode = 2; /* user */
	mm->snapshot = 1;
	mm->filename = pl_str_c(file);
	vt_capture_add(c, &m);
}

/* chain: as the kernel gives it (markers included), n entries */
static inline void vt_sample(VtCapture *c, uint32_t event, uint32_t pid, uint32_t tid,
			     uint64_t time, uint64_t period, const uint64_t *chain, uint32_t n)
{
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m->u.sample;
	s->event = event;
	s->pid = pid;
	s->tid = tid;
	s->time = time;
	s->period = period;
	s->cpumode = 2;
	for (uint32_t i = 0; i < n; i++)
		if (chain[i] < (uint64_t)-4095) {
			s->ip = chain[i];
			break;
		}
	s->nr_callchain = n;
	memcpy(s->callchain, chain, n * sizeof(uint64_t));
	vt_capture_add(c, m);
	g_free(m);
}

/* ─── the workload as seen by nm and its program headers ─────────────── */

typedef struct {
	char *path;
	uint64_t base;       /* where we pretend ld.so put it */
	uint64_t map_start;  /* the executable PT_LOAD, page aligned */
	uint64_t map_len;
	uint64_t map_pgoff;
	GHashTable *syms; /* name → address (link-time vaddr) as GUINT64 in a pointer */
} VtElf;

/* NULL with why set when the workload is not built or nm is missing. */
static inline VtElf *vt_elf_open(const char *rel, char **why)
{
	VtElf *e = g_new0(VtElf, 1);
	e->path = vt_build_path(rel);
	if (!g_file_test(e->path, G_FILE_TEST_IS_REGULAR)) {
		*why = g_strdup_printf("%s not built (make %s)", e->path, e->path);
		return NULL;
	}
	char *argv[] = { (char *)"nm", e->path, NULL };
	char *out = NULL;
	gint status;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
			  NULL, &out, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		*why = g_strdup("nm not available");
		return NULL;
	}
	e->syms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char **lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		char name[256];
		unsigned long long a;
		char t;
		if (sscanf(*l, "%llx %c %255s", &a, &t, name) == 3 && (t == 'T' || t == 't'))
			g_hash_table_insert(e->syms, g_strdup(name), (gpointer)(uintptr_t)a);
	}
	g_strfreev(lines);
	g_free(out);
	/* the executable segment, mapped as the kernel reports it */
	elf_version(EV_CURRENT);
	int fd = open(e->path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	elf_getphdrnum(elf, &nph);
	e->base = 0x555555554000ull;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			e->map_start = e->base + (ph.p_vaddr & ~0xfffull);
			e->map_pgoff = ph.p_offset & ~0xfffull;
			e->map_len = ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffull) -
				     (ph.p_vaddr & ~0xfffull);
		}
	}
	elf_end(elf);
	close(fd);
	if (!e->map_len) {
		*why = g_strdup_printf("%s has no executable segment?", e->path);
		return NULL;
	}
	return e;
}

/* Runtime address of a symbol (+ off). */
static inline uint64_t vt_sym(VtElf *e, const char *name, uint64_t off)
{
	gpointer v;
	if (!g_hash_table_lookup_extended(e->syms, name, NULL, &v)) {
		fprintf(stderr, "symbol %s not in %s\n", name, e->path);
		abort();
	}
	return e->base + (uint64_t)(uintptr_t)v + off;
}

/* ─── running perflens ───────────────────────────────────────────────── */

/* Runs perflens with args; returns exit status, stdout/stderr owned. */
static inline int vt_perflens(char **out, char **err, const char *a1, ...)
{
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, vt_build_path("perflens"));
	va_list ap;
	va_start(ap, a1);
	for (const char *a = a1; a; a = va_arg(ap, const char *))
		g_ptr_array_add(argv, g_strdup(a));
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	gint status = -1;
	char *o = NULL, *e = NULL;
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, 0, NULL, NULL, &o, &e, &status, NULL))
		status = -1;
	g_ptr_array_free(argv, TRUE);
	if (out)
		*out = o;
	else
		g_free(o);
	if (err)
		*err = e;
	else
		g_free(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ─── agents on loopback ─────────────────────────────────────────────── */

/* A loopback port free now (the kernel's choice), or -1. */
static inline int vt_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return ntohs(a.sin_port);
}

/* Whether something accepts connections on loopback port within 10 s (the
 * agent probes the board before it listens; a refused connection is final
 * for pl_client_connect). */
static inline gboolean vt_wait_listening(int port)
{
	for (int i = 0; i < 200; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int rc = fd >= 0 ? connect(fd, (struct sockaddr *)&a, sizeof a) : -1;
		if (fd >= 0)
			close(fd);
		if (rc == 0)
			return TRUE;
		g_usleep(50 * 1000);
	}
	return FALSE;
}

/* An agent (perflens-agent --listen, token "t0ken") on a free loopback
 * port, its pid in *pid (0 when it could not start): the port, or 0 with
 * *error set. */
static inline int vt_agent_listen(GPid *pid, GError **error)
{
	g_autofree char *agent = vt_agent();
	*pid = 0;
	int port = vt_free_port();
	if (port <= 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "no free loopback port");
		return 0;
	}
	g_autofree char *port_s = g_strdup_printf("%d", port);
	char *argv[] = { agent, (char *)"--listen", (char *)"--bind", (char *)"127.0.0.1",
			 (char *)"--port", port_s, (char *)"--token", (char *)"t0ken", NULL };
	if (!g_spawn_async(NULL, argv, NULL,
			   G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
				   G_SPAWN_STDERR_TO_DEV_NULL,
			   NULL, NULL, pid, error))
		return 0;
	if (!vt_wait_listening(port)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "the agent does not listen on %d",
			    port);
		return 0;
	}
	return port;
}

/* vt_agent_listen, then connected and authenticated: the client (owned),
 * or NULL with *error set. */
static inline PlClient *vt_agent_client(GPid *pid, GError **error)
{
	int port = vt_agent_listen(pid, error);
	if (!port)
		return NULL;
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", port);
	PlClient *cl = pl_client_connect(addr, 5000, error);
	if (cl && !pl_client_authenticate(cl, "t0ken", 5000, error))
		g_clear_pointer(&cl, pl_client_free);
	return cl;
}

/* Ends the n agents of pids that were started (SIGTERM, reaped); each
 * becomes 0. */
static inline void vt_stop_agents(GPid *pids, guint n)
{
	for (guint i = 0; i < n; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGTERM);
			waitpid(pids[i], NULL, 0);
			g_spawn_close_pid(pids[i]);
			pids[i] = 0;
		}
}

#endif
