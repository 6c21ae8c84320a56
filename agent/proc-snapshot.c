/* proc-snapshot.c — what existed before the events, and the files the
 * viewer needs to name addresses: threads' names and code mappings from
 * /proc (with build-ids), the vDSO image (held back until a sample touches
 * it when that is safe), kallsyms and modules, the perf map of JIT code;
 * all of them the first messages of a session or its last. */
#include "collect-private.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "procfs.h"
#include "util.h"

/* ─── snapshot of what existed before the events ──────────────────────── */

struct snap_ctx {
	struct pla_collector *c;
	struct pla_stream *out;
	pid_t pid;
	uint64_t vdso_addr;
	uint64_t time; /* when the process's snapshot began: all its records carry it */
	pid_t *tids;   /* room for MAX_THREADS */
};

static int snap_map(const struct pla_map *m, void *user)
{
	struct snap_ctx *x = user;
	if (!(m->prot & PROT_EXEC))
		return 0; /* only code is looked up */
	struct pl_msg *msg = &x->c->msg;
	memset(&msg->u.mmap, 0, sizeof(msg->u.mmap));
	msg->type = PL_MSG_MMAP;
	struct pl_msg_mmap *mm = &msg->u.mmap;
	mm->pid = mm->tid = (uint32_t)x->pid;
	mm->time = x->time;
	mm->start = m->start;
	mm->len = m->end - m->start;
	mm->pgoff = m->pgoff;
	mm->prot = m->prot;
	mm->flags = m->flags;
	mm->maj = m->maj;
	mm->min = m->min;
	mm->ino = m->ino;
	mm->cpumode = PERF_RECORD_MISC_USER;
	mm->snapshot = 1;
	mm->filename = pl_str_c(m->path);
	if (m->path[0] == '/') {
		int n = pla_elf_build_id(m->path, mm->build_id);
		if (n > 0)
			mm->build_id_len = (uint8_t)n;
	}
	if (!strcmp(m->path, "[vdso]"))
		x->vdso_addr = m->start;
	return pla_stream_msg(x->out, msg); /* a dead stream ends the walk */
}

/* The names of pid's threads and its code mappings; tids: room for
 * MAX_THREADS.  Returns 0, or the stream's -errno (the rest not sent). */
static int snapshot_process(struct pla_collector *c, struct pla_stream *out, pid_t pid,
			    uint64_t *vdso_addr, pid_t *tids)
{
	/* One time for the whole snapshot, the moment it began: each record's
	 * own clock reading told nothing (it is what existed before), and
	 * identical headers cost the wire next to nothing (≈ 8 bytes a
	 * record otherwise) */
	struct snap_ctx x = { c, out, pid, 0, pla_now_ns(), tids };
	char comm[64];
	int n = pla_proc_threads(pid, tids, MAX_THREADS);
	for (int i = 0; i < n; i++) {
		if (pla_proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		struct pl_msg *m = &c->msg;
		m->type = PL_MSG_COMM;
		m->u.comm = (struct pl_msg_comm){ (uint32_t)pid, (uint32_t)tids[i], x.time, 0, 1,
						  pl_str_c(comm) };
		if (pla_stream_msg(out, m) < 0)
			return out->dead;
	}
	pla_proc_maps_each(pid, snap_map, &x);
	if (vdso_addr && x.vdso_addr)
		*vdso_addr = x.vdso_addr;
	return out->dead;
}

static int snap_all(const struct pl_msg_proc *p, void *user)
{
	struct snap_ctx *x = user;
	return snapshot_process(x->c, x->out, (pid_t)p->pid, &x->vdso_addr, x->tids);
}

/* One FILE_CHUNK; total 0 while more follow.  Returns pla_stream_msg's. */
static int send_chunk(struct pla_collector *c, struct pla_stream *out, uint8_t kind, pid_t pid,
		      uint64_t addr, const char *name, const uint8_t *data, size_t n, uint64_t off,
		      uint64_t total)
{
	struct pl_msg *m = &c->msg;
	m->type = PL_MSG_FILE_CHUNK;
	m->u.chunk = (struct pl_msg_file_chunk){ kind, (uint32_t)pid, addr, off, total,
						 pl_str_c(name), (uint32_t)n, data };
	return pla_stream_msg(out, m);
}

/* An image in chunks that fit a block (PLA_CHUNK_MAX), each carrying the
 * total.  Returns 0 or the stream's -errno. */
static int send_chunks(struct pla_collector *c, struct pla_stream *out, uint8_t kind,
		       pid_t pid, uint64_t addr, const char *name, const uint8_t *data,
		       size_t len)
{
	size_t off = 0;
	int rc;
	do {
		size_t n = len - off < PLA_CHUNK_MAX ? len - off : PLA_CHUNK_MAX;
		rc = send_chunk(c, out, kind, pid, addr, name, data + off, n, off, len);
		off += n;
	} while (rc == 0 && off < len);
	return rc;
}

/* The held vDSO image (collect.h), now; c->msg is overwritten. */
int pla_send_vdso(struct pla_collector *c, struct pla_stream *out, pid_t pid, uint64_t addr)
{
	const uint8_t *vdso;
	size_t vlen = pla_vdso_image(&vdso);
	c->vdso_len = 0;
	return send_chunks(c, out, PL_CHUNK_VDSO, pid, addr, "[vdso]", vdso, vlen);
}

/* Sends a text file in chunks that fit a block (PLA_CHUNK_MAX), keeping
 * only the lines keep() accepts, calling between() (if any) after each
 * chunk; the last chunk carries the total (the viewer uses the file only
 * when it is whole).  A file that cannot be read is not sent (0); returns
 * the stream's -errno. */
static int send_text_file(struct pla_collector *c, struct pla_stream *out, uint8_t kind,
			  pid_t pid, uint64_t addr, const char *path, int (*keep)(const char *line),
			  pla_between_fn *between)
{
	struct pla_lines f;
	if (pla_lines_open(&f, path) < 0)
		return 0;
	static char buf[PLA_CHUNK_MAX]; /* static: this runs at start/stop, not per sample */
	char line[512];
	size_t n = 0;
	uint64_t off = 0;
	int rc = 0, eof = 0;
	while (rc == 0 && !eof) {
		eof = !pla_lines_next(&f, line, sizeof(line));
		if (!eof && keep && !keep(line))
			continue;
		size_t l = eof ? 0 : strlen(line);
		if (eof || n + l > sizeof(buf)) {
			rc = send_chunk(c, out, kind, pid, addr, path, (const uint8_t *)buf, n, off,
					eof ? off + n : 0);
			off += n;
			n = 0;
			if (between)
				between(c, out);
		}
		memcpy(buf + n, line, l);
		n += l;
	}
	pla_lines_close(&f);
	return rc;
}

static int kallsyms_keep(const char *line)
{
	/* "ffffffff81000000 T _stext": text symbols only */
	const char *sp = strchr(line, ' ');
	return sp && (sp[1] == 't' || sp[1] == 'T' || sp[1] == 'w' || sp[1] == 'W');
}

int pla_send_perf_map(struct pla_collector *c, struct pla_stream *out)
{
	pid_t pid = c->child ? c->child : c->cfg.pid;
	char path[64];
	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	return send_text_file(c, out, PL_CHUNK_PERF_MAP, pid, 0, path, NULL, NULL);
}

/* The kernel's interrupt counts, when the session records the irq
 * tracepoints: an interrupt a CPU takes while it idles gives no
 * tracepoint sample on some kernels (6.18 in a VM), and these totals are
 * what the viewer holds the samples to (msg.h, PL_CHUNK_INTERRUPTS). */
int pla_send_irq_counts(struct pla_collector *c, struct pla_stream *out)
{
	int rc = 0;
	for (uint32_t e = 0; e < c->nevents; e++)
		if (!memcmp(c->names[e], "irq:", 4)) {
			rc = send_text_file(c, out, PL_CHUNK_INTERRUPTS, 0, pla_now_ns(),
					    "/proc/interrupts", NULL, NULL);
			return rc ? rc : send_text_file(c, out, PL_CHUNK_SOFTIRQS, 0, pla_now_ns(),
							"/proc/softirqs", NULL, NULL);
		}
	return rc;
}

/* What existed before the events (a process's threads and mappings, or
 * every process's), the vDSO image, and kallsyms when kernel stacks are
 * wanted, calling between() after each of kallsyms's chunks.  A failed
 * write is left in out->dead, for the caller's flush. */
void pla_snapshot_before(struct pla_collector *c, const struct pla_collect_config *cfg,
			 struct pla_stream *out, pid_t *tids, pla_between_fn *between)
{
	uint64_t vdso_addr = 0;
	if (cfg->target == PL_TARGET_PID) {
		snapshot_process(c, out, cfg->pid, &vdso_addr, tids);
	} else if (cfg->target == PL_TARGET_ALL) {
		struct snap_ctx x = { c, out, 0, 0, 0, tids };
		pla_proc_each(snap_all, &x);
		vdso_addr = x.vdso_addr;
	}
	const uint8_t *vdso;
	size_t vlen = pla_vdso_image(&vdso);
	/* The vDSO image (≈ 3 KB compressed, the largest start-up frame) is
	 * needed only to name vDSO frames.  With fp stacks of one process the
	 * agent sees every address a sample names, so the image goes out after
	 * the first sample that touches it (the viewer holds samples back for
	 * reordering, so it has the image before it uses the sample); dwarf
	 * unwinding may need it for any sample, other targets have many vDSO
	 * addresses: those get it now. */
	if (vlen && vdso_addr && cfg->target == PL_TARGET_PID && c->cfg.callgraph == PL_CG_FP) {
		c->vdso_lo = vdso_addr;
		c->vdso_len = vlen;
	} else if (vlen) {
		send_chunks(c, out, PL_CHUNK_VDSO, cfg->target == PL_TARGET_PID ? cfg->pid : 0,
			    vdso_addr, "[vdso]", vdso, vlen);
	}
	if (cfg->stacks & PL_STACKS_KERNEL) {
		long kptr = 0;
		pla_read_int_file("/proc/sys/kernel/kptr_restrict", &kptr);
		if (send_text_file(c, out, PL_CHUNK_KALLSYMS, 0, 0, "/proc/kallsyms",
				   kallsyms_keep, between) == 0)
			send_text_file(c, out, PL_CHUNK_MODULES, 0, 0, "/proc/modules", NULL, NULL);
		/* the kernel's build-id note: the viewer refuses a --vmlinux of
		 * another build (a few hundred bytes; binary, so not a text file) */
		static uint8_t notes[1024];
		int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, notes, sizeof(notes)) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0)
			send_chunk(c, out, PL_CHUNK_KERNEL_NOTES, 0, 0, "/sys/kernel/notes", notes,
				   (size_t)n, 0, (uint64_t)n);
		if (kptr >= 2 || (kptr == 1 && geteuid() != 0))
			pla_stream_log(out, &c->msg, PL_LOG_WARN,
				"kptr_restrict hides kernel addresses in /proc/kallsyms: kernel "
				"frames stay unnamed (sysctl kernel.kptr_restrict=0, or run as root)");
	}
}
