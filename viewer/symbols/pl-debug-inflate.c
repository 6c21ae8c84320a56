/* pl-debug-inflate.c — a separate debug file with its DWARF decompressed,
 * on both cores, for libdw.
 *
 * Why: Debian's -dbg/-dbgsym files compress every .debug_* section
 * (SHF_COMPRESSED, zlib), and libdw 0.188 decompresses all of them, one
 * after the other, the first time a module's DWARF is opened — 10 MB for
 * libc's, about 40% of `perflens report` on a 20 s recording.  Here the
 * sections symbolization reads (.debug_info, _abbrev, _line, _str,
 * _aranges, _rnglists, …) are decompressed on two threads straight into
 * an anonymous in-memory copy of the file (memfd) whose section headers
 * now describe them uncompressed; those it never reads (location lists,
 * macros, pubnames: only debuggers evaluate them) are left compressed and
 * unnamed, so libdw neither decompresses nor sees them.  The analysis is
 * unchanged: libdw reads the same bytes.  Nothing is written to disk.
 *
 * Thread safety: each worker has its own Elf handle on its own fd and
 * writes a disjoint range of the copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-symbols-private.h"

#define PL_INFLATE_MAX_OUT (2ull << 30) /* decompressed copy of one debug file */
#define PL_INFLATE_MAX_SECTIONS 4096u

typedef struct {
	size_t idx;      /* section index */
	guint64 out_off; /* where its decompressed bytes go in the copy */
	guint64 size;    /* ch_size */
	guint64 align;   /* ch_addralign */
	int worker;      /* 0 or 1 */
} Job;

typedef struct {
	const char *path;
	guint8 *map;
	Job *jobs;
	guint njobs;
	int worker;
	gboolean ok;
} Worker;

/* Debug sections no lookup of pl-symbols.c reads (DW_AT_location lists,
 * macros, name indexes). */
static gboolean section_unused(const char *n)
{
	static const char *const unused[] = { ".debug_loc", ".debug_loclists", ".debug_macro",
					      ".debug_macinfo", ".debug_pubnames", ".debug_pubtypes",
					      ".debug_gnu_pubnames", ".debug_gnu_pubtypes" };
	for (guint i = 0; i < G_N_ELEMENTS(unused); i++)
		if (!strcmp(n, unused[i]))
			return TRUE;
	return FALSE;
}

static gpointer worker_run(gpointer p)
{
	Worker *w = p;
	w->ok = FALSE;
	int fd = open(w->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	gboolean ok = e != NULL;
	for (guint i = 0; ok && i < w->njobs; i++) {
		const Job *j = &w->jobs[i];
		if (j->worker != w->worker)
			continue;
		Elf_Scn *scn = elf_getscn(e, j->idx);
		Elf_Data *d = scn && elf_compress(scn, 0, 0) >= 0 ? elf_getdata(scn, NULL) : NULL;
		if (!d || d->d_size != j->size || (j->size && !d->d_buf)) {
			ok = FALSE;
			break;
		}
		memcpy(w->map + j->out_off, d->d_buf, d->d_size);
		/* libelf keeps the decompressed buffer until elf_end: drop it
		 * now rather than hold every section twice */
		elf_end(e);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ok = e != NULL;
	}
	if (e)
		elf_end(e);
	close(fd);
	w->ok = ok;
	return NULL;
}

static guint64 align_up(guint64 v, guint64 a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static gboolean copy_range(int fd, guint8 *map, guint64 from, guint64 to)
{
	while (from < to) {
		ssize_t k = pread(fd, map + from, (size_t)(to - from), (off_t)from);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return FALSE;
		from += (guint64)k;
	}
	return TRUE;
}

/* The decompressed copy of the debug file open as fd (e its Elf), or -1
 * when it cannot or need not be made. */
static int inflated_copy(const char *path, int fd, Elf *e, guint64 file_size)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
	size_t shnum = 0, shstrndx = 0;
	GElf_Ehdr eh;
	const guint8 host_data = G_BYTE_ORDER == G_LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
	/* the copy's section headers are written raw: host byte order only */
	if (elf_kind(e) != ELF_K_ELF || !ident || ident[EI_DATA] != host_data ||
	    !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) != 0 ||
	    elf_getshdrstrndx(e, &shstrndx) != 0 || shnum == 0 ||
	    shnum > PL_INFLATE_MAX_SECTIONS ||
	    (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32))
		return -1;
	gboolean is64 = ident[EI_CLASS] == ELFCLASS64;
	size_t shentsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (eh.e_shentsize != shentsize || eh.e_shoff > file_size ||
	    shnum * shentsize > file_size - eh.e_shoff)
		return -1;

	g_autofree Job *jobs = g_new0(Job, shnum);
	g_autofree guint8 *hide = g_new0(guint8, shnum);
	guint njobs = 0;
	guint64 out = align_up(file_size, 64);
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		const char *n = elf_strptr(e, shstrndx, sh.sh_name);
		if (!n || strncmp(n, ".debug_", 7) != 0)
			continue;
		if (section_unused(n)) {
			hide[i] = 1;
			continue;
		}
		GElf_Chdr ch;
		if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB ||
		    ch.ch_size > PL_INFLATE_MAX_OUT || (ch.ch_addralign & (ch.ch_addralign - 1)))
			return -1;
		out = align_up(out, ch.ch_addralign ? ch.ch_addralign : 1);
		jobs[njobs++] = (Job){ i, out, ch.ch_size, ch.ch_addralign, 0 };
		out += ch.ch_size;
		if (out > PL_INFLATE_MAX_OUT)
			return -1;
	}
	if (njobs == 0)
		return -1; /* nothing compressed that is read: the file as it is */
	guint64 shoff = align_up(out, 8);
	guint64 total = shoff + shnum * shentsize;
	if (!is64 && shoff > G_MAXUINT32)
		return -1;

	/* two workers: the biggest sections first, each to the less loaded */
	guint64 load[2] = { 0, 0 };
	for (guint k = 0; k < njobs; k++) {
		guint best = k;
		for (guint m = k + 1; m < njobs; m++)
			if (jobs[m].size > jobs[best].size)
				best = m;
		Job t = jobs[k];
		jobs[k] = jobs[best];
		jobs[best] = t;
		jobs[k].worker = load[1] < load[0];
		load[jobs[k].worker] += jobs[k].size;
	}

	int mfd = memfd_create("perflens-debug", MFD_CLOEXEC);
	if (mfd < 0)
		return -1;
	guint8 *map = MAP_FAILED;
	if (ftruncate(mfd, (off_t)total) == 0)
		map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (map == MAP_FAILED) {
		close(mfd);
		return -1;
	}
	/* the original bytes, but for the compressed sections (replaced or
	 * hidden), which no one reads from the copy */
	gboolean ok = TRUE;
	guint64 from = 0;
	for (size_t i = 1; ok && i <= shnum; i++) {
		guint64 skip_at = file_size, skip_end = file_size;
		if (i < shnum) {
			GElf_Shdr sh;
			gboolean replaced = hide[i];
			for (guint k = 0; k < njobs && !replaced; k++)
				replaced = jobs[k].idx == i;
			if (!replaced || !gelf_getshdr(elf_getscn(e, i), &sh) ||
			    sh.sh_offset < from || sh.sh_offset > file_size ||
			    sh.sh_size > file_size - sh.sh_offset)
				continue;
			skip_at = sh.sh_offset;
			skip_end = sh.sh_offset + sh.sh_size;
		}
		ok = copy_range(fd, map, from, skip_at);
		from = skip_end;
	}
	Worker w[2] = { { path, map, jobs, njobs, 0, FALSE }, { path, map, jobs, njobs, 1, FALSE } };
	if (ok) {
		GThread *th = load[1] ? g_thread_try_new("pl-inflate", worker_run, &w[1], NULL) : NULL;
		worker_run(&w[0]);
		if (th)
			g_thread_join(th);
		else if (load[1])
			worker_run(&w[1]); /* no thread: both halves here */
		else
			w[1].ok = TRUE;
		ok = w[0].ok && w[1].ok;
	}
	if (ok) {
		/* section headers: the decompressed ones point into the copy */
		guint8 *sh = map + shoff;
		ok = pread(fd, sh, shnum * shentsize, (off_t)eh.e_shoff) == (ssize_t)(shnum * shentsize);
		for (size_t i = 1; i < shnum; i++) {
			if (!hide[i])
				continue;
			if (is64)
				((Elf64_Shdr *)(void *)(sh + i * shentsize))->sh_name = 0;
			else
				((Elf32_Shdr *)(void *)(sh + i * shentsize))->sh_name = 0;
		}
		for (guint k = 0; k < njobs; k++) {
			const Job *j = &jobs[k];
			if (is64) {
				Elf64_Shdr *s = (Elf64_Shdr *)(void *)(sh + j->idx * shentsize);
				s->sh_offset = j->out_off;
				s->sh_size = j->size;
				s->sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
				s->sh_addralign = j->align;
			} else {
				Elf32_Shdr *s = (Elf32_Shdr *)(void *)(sh + j->idx * shentsize);
				s->sh_offset = (Elf32_Off)j->out_off;
				s->sh_size = (Elf32_Word)j->size;
				s->sh_flags &= ~(Elf32_Word)SHF_COMPRESSED;
				s->sh_addralign = (Elf32_Word)j->align;
			}
		}
		if (is64)
			((Elf64_Ehdr *)(void *)map)->e_shoff = shoff;
		else
			((Elf32_Ehdr *)(void *)map)->e_shoff = (Elf32_Off)shoff;
	}
	munmap(map, total);
	if (!ok) {
		close(mfd);
		return -1;
	}
	return mfd;
}

int pl_debug_open_inflated(const char *path, gboolean *is_copy)
{
	if (is_copy)
		*is_copy = FALSE;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	Elf *e = fstat(fd, &st) == 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	int mfd = e ? inflated_copy(path, fd, e, (guint64)st.st_size) : -1;
	if (e)
		elf_end(e);
	if (mfd >= 0) {
		close(fd);
		if (is_copy)
			*is_copy = TRUE;
		return mfd;
	}
	return fd; /* the file as it is: libdw decompresses what it needs */
}
