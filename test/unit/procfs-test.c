/* procfs-test.c — the agent's /proc and ELF readers against the kernel's
 * own view of this very process. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pl-test.h"
#include "procfs.h"

static long status_field(const char *name)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)))
			v = atol(line + strlen(name));
	if (f)
		fclose(f);
	return v;
}

static void *idle_thread(void *arg)
{
	pause();
	return arg;
}

struct found {
	int self;
	struct pl_msg_proc me;
	char comm[64], cmdline[256];
};

static int on_proc(const struct pl_msg_proc *p, void *user)
{
	struct found *f = user;
	if (p->pid != (uint32_t)getpid())
		return 0;
	f->self = 1;
	f->me = *p;
	snprintf(f->comm, sizeof(f->comm), "%.*s", (int)p->comm.len, p->comm.p);
	snprintf(f->cmdline, sizeof(f->cmdline), "%.*s", (int)p->cmdline.len, p->cmdline.p);
	return 1;
}

static void test_process_list_entry_matches_status(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, idle_thread, NULL);
	volatile char *touch = malloc(8 << 20);
	for (int i = 0; i < (8 << 20); i += 4096)
		touch[i] = 1; /* 8 MiB resident: RSS must show it */
	struct found f = { 0 };
	PL_CHECK(pla_proc_each(on_proc, &f) == 0);
	PL_CHECK(f.self);
	PL_CHECKF(f.me.threads == (uint32_t)status_field("Threads:"), "threads %u want %ld",
		  f.me.threads, status_field("Threads:"));
	PL_CHECK(f.me.ppid == (uint32_t)getppid());
	long rss = status_field("VmRSS:");
	PL_CHECKF(f.me.rss_kb > 8000 && (long)f.me.rss_kb <= rss + 1024 && (long)f.me.rss_kb > rss / 2,
		  "rss %llu kB, status says %ld", (unsigned long long)f.me.rss_kb, rss);
	PL_CHECK(f.me.uid == getuid());
	PL_CHECK(!strcmp(f.comm, "procfs-test"));
	PL_CHECKF(strstr(f.cmdline, "procfs-test") != NULL, "%s", f.cmdline);
	/* threads are listed by id */
	pid_t tids[16];
	PL_CHECK(pla_proc_threads(getpid(), tids, 16) == 4);
	char comm[64];
	PL_CHECK(pla_proc_comm(getpid(), getpid(), comm, sizeof(comm)) == 0);
	PL_CHECK(!strcmp(comm, "procfs-test"));
	free((void *)touch);
}

struct maps {
	int exec_self, vdso, total;
	uint64_t self_start, self_pgoff;
	char exe[4096];
};

static int on_map(const struct pla_map *m, void *user)
{
	struct maps *x = user;
	x->total++;
	if (!strcmp(m->path, x->exe) && (m->prot & PROT_EXEC)) {
		x->exec_self = 1;
		x->self_start = m->start;
		x->self_pgoff = m->pgoff;
	}
	if (!strcmp(m->path, "[vdso]"))
		x->vdso = 1;
	return 0;
}

static void test_maps_parse_finds_own_code(void)
{
	struct maps x = { 0 };
	ssize_t n = readlink("/proc/self/exe", x.exe, sizeof(x.exe) - 1);
	PL_CHECK(n > 0);
	x.exe[n] = 0;
	PL_CHECK(pla_proc_maps_each(getpid(), on_map, &x) == 0);
	PL_CHECK(x.exec_self && x.vdso && x.total > 5);
	/* this function's address lies in the executable mapping found */
	uint64_t here = (uint64_t)(uintptr_t)&test_maps_parse_finds_own_code;
	PL_CHECK(here >= x.self_start);
	PL_CHECK(pla_proc_maps_each(0x7ffffff0, on_map, &x) < 0); /* no such process */
}

static void test_build_id_matches_readelf(void)
{
	char exe[4096], cmd[4200], line[512], want[64] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n %s", exe);
	FILE *p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		if (b)
			sscanf(b + 10, "%63s", want);
	}
	if (p)
		pclose(p);
	PL_CHECKF(want[0], "readelf shows no build-id for %s", exe);
	uint8_t id[PL_MAX_BUILD_ID];
	int len = pla_elf_build_id(exe, id);
	PL_CHECK(len == 20);
	char got[64];
	for (int i = 0; i < len; i++)
		snprintf(got + 2 * i, 3, "%02x", id[i]);
	PL_CHECKF(!strcmp(got, want), "%s != %s", got, want);
	PL_CHECK(pla_elf_build_id("/proc/self/status", id) < 0); /* not an ELF */
	PL_CHECK(pla_elf_build_id("/nonexistent", id) == -ENOENT);
}

static void test_health_is_plausible(void)
{
	struct pla_health_state st = { 0 };
	struct pl_msg_health h = { 0 };
	pla_health_read(&st, &h);
	usleep(100000);
	pla_health_read(&st, &h);
	PL_CHECK(h.ncpus == (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	PL_CHECK(h.mem_total_kb > 100000 && h.mem_available_kb <= h.mem_total_kb);
	PL_CHECK(h.cpu_busy_permille <= 1000);
	PL_CHECK(h.agent_rss_kb > 0 && h.agent_cpu_ns > 0);
	const uint8_t *img;
	size_t vlen = pla_vdso_image(&img);
	PL_CHECK(vlen > 1000 && vlen < 65536 && !memcmp(img, "\177ELF", 4));
}

PL_TEST_MAIN(PL_CASE(test_process_list_entry_matches_status), PL_CASE(test_maps_parse_finds_own_code),
	     PL_CASE(test_build_id_matches_readelf), PL_CASE(test_health_is_plausible))
