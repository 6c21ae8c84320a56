/* qemu-agent-test.c — the four ARM agents (dist/perflens-agent-<arch>)
 * under qemu-user, talking to this x86_64 machine's viewer.
 *
 * qemu-user has no perf_event_open (ENOSYS), so this is the test of the
 * wire encoding of big-endian and 32-bit agents: handshake fields, the
 * probe's clear refusal, the process list, device health, and a START that
 * is refused with a reason — through the protocol and through the viewer's
 * own command line. */
#include <elf.h>
#include <limits.h>

#include "pl-test-agent.h"

struct target {
	const char *arch, *qemu;
	uint32_t e_machine;
	uint8_t order, word;
};

static const struct target targets[] = {
	{ "aarch64", "qemu-aarch64", EM_AARCH64, PL_LITTLE_ENDIAN, 8 },
	{ "aarch64_be", "qemu-aarch64_be", EM_AARCH64, PL_BIG_ENDIAN, 8 },
	{ "armv7l", "qemu-arm", EM_ARM, PL_LITTLE_ENDIAN, 4 },
	{ "armeb", "qemu-armeb", EM_ARM, PL_BIG_ENDIAN, 4 },
};

static char top[PATH_MAX];

static int find_qemu(const char *name, char *out, size_t len)
{
	const char *dirs[] = { "/usr/bin", "/usr/local/bin" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (access(out, X_OK) == 0)
			return 1;
	}
	return 0;
}

static void setup(const struct target *t, char *agent, size_t alen, char *qemu, size_t qlen)
{
	const char *tp = getenv("PL_TOP");
	snprintf(top, sizeof(top), "%s", tp ? tp : ".");
	/* PL_AGENTS_DIR: agents built elsewhere (ci/agents.sh PERFLENS_AGENTS_DIR) */
	const char *dir = getenv("PL_AGENTS_DIR");
	if (dir)
		snprintf(agent, alen, "%s/perflens-agent-%s", dir, t->arch);
	else
		snprintf(agent, alen, "%s/dist/perflens-agent-%s", top, t->arch);
	/* make check builds the agents (ci/agents.sh) and ci/deps.sh installs
	 * qemu-user: neither missing is a reason to skip */
	PL_CHECKF(access(agent, X_OK) == 0, "%s not built (make agents)", agent);
	PL_CHECKF(find_qemu(t->qemu, qemu, qlen), "%s not installed (qemu-user: ci/deps.sh)",
		  t->qemu);
}

static int run_capture(char *const argv[], char *out, size_t len)
{
	return pl_run_capture(argv, out, len, 30000);
}

static void check_target(const struct target *t)
{
	char agent[PATH_MAX + 64], qemu[PATH_MAX], out[16384];

	setup(t, agent, sizeof(agent), qemu, sizeof(qemu));
	/* --version and --probe run and say what is wrong */
	char *ver[] = { qemu, agent, "--version", NULL };
	PL_CHECKF(run_capture(ver, out, sizeof(out)) == 0 && strstr(out, "perflens-agent"), "%s",
		  out);
	char *probe[] = { qemu, agent, "--probe", NULL };
	int rc = run_capture(probe, out, sizeof(out));
	PL_CHECKF(rc == 1 && strstr(out, "UNAVAILABLE") && strstr(out, "ENOSYS") &&
			  strstr(out, "qemu-user"),
		  "%s --probe exit %d: %s", t->arch, rc, out);

	/* --listen serves the protocol */
	int port = pl_free_port();
	char portarg[16];
	snprintf(portarg, sizeof(portarg), "%d", port);
	char *listen[] = { qemu, agent, "--listen", "--bind", "127.0.0.1", "--port", portarg,
			   "--token", "qt", NULL };
	pid_t ag = pl_spawn(listen, "/dev/null");
	struct pl_conn c;
	PL_CHECK(pl_conn_open(&c, port, 15000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 15000) == 1);
	const struct pl_msg_hello *h = &c.m.u.hello;
	/* before AUTH: versions and that a token is needed, nothing else */
	PL_CHECK(h->protocol_version == PL_PROTOCOL_VERSION);
	PL_CHECK((h->flags & PL_HELLO_PARTIAL) && (h->flags & PL_HELLO_AUTH_REQUIRED));
	PL_CHECK(h->hostname.len == 0 && h->e_machine == 0);
	/* the board's facts (written in its byte order and word size) come
	 * with the AUTH's answer, before its REPLY */
	struct pl_msg m = { .type = PL_MSG_AUTH };
	m.u.auth.request_id = 41;
	m.u.auth.token = pl_str_c("qt");
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 15000) == 1);
	PL_CHECK(!(h->flags & PL_HELLO_PARTIAL));
	PL_CHECKF(h->e_machine == t->e_machine && h->byte_order == t->order &&
			  h->word_size == t->word,
		  "%s: e_machine %u order %u word %u", t->arch, h->e_machine, h->byte_order,
		  h->word_size);
	PL_CHECK(h->protocol_version == PL_PROTOCOL_VERSION);
	PL_CHECK(h->perf_errno == -ENOSYS && !(h->flags & PL_HELLO_PERF_AVAILABLE));
	PL_CHECK(h->flags & PL_HELLO_AUTH_REQUIRED);
	PL_CHECK(h->page_size >= 4096 && h->ncpus >= 1 && h->machine.len > 0);
	PL_CHECK(h->clock_now_ns > 0 && h->wall_now_ns > 1700000000ull * 1000000000ull);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_PROBE_SUMMARY, 5000) == 1);
	PL_CHECK(c.m.u.probe_summary.perf_errno == -ENOSYS);
	PL_CHECK(strstr(c.m.u.probe_summary.message.p, "ENOSYS") != NULL);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_REPLY, 5000) == 1);
	PL_CHECK(c.m.u.reply.request_id == 41 && c.m.u.reply.status == 0);
	/* the process list */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_LIST;
	m.u.request.request_id = 42;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	int procs = 0, ours = 0;
	for (;;) {
		PL_CHECK(pl_conn_next(&c, 15000) == 1);
		if (c.m.type == PL_MSG_PROC) {
			procs++;
			ours |= c.m.u.proc.pid == (uint32_t)getpid();
		}
		if (c.m.type == PL_MSG_REPLY && c.m.u.reply.request_id == 42)
			break;
	}
	PL_CHECKF(procs > 3 && ours, "%s: %d processes", t->arch, procs);
	/* device health, every second */
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HEALTH, 5000) == 1);
	PL_CHECK(c.m.u.health.mem_total_kb > 0 && c.m.u.health.ncpus >= 1);
	PL_CHECK(c.m.u.health.agent_rss_kb > 0);
	/* START is refused with the reason */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_START;
	m.u.start.request_id = 43;
	m.u.start.target = PL_TARGET_ALL;
	m.u.start.frequency = 99;
	m.u.start.callgraph = PL_CG_FP;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_REPLY, 5000) == 1);
	PL_CHECK(c.m.u.reply.request_id == 43 && c.m.u.reply.status == -ENOSYS);
	PL_CHECKF(strstr(c.m.u.reply.message.p, "ENOSYS") != NULL, "%.*s",
		  (int)c.m.u.reply.message.len, c.m.u.reply.message.p);
	PL_CHECK(pl_conn_request(&c, PL_MSG_BYE) == 0);
	pl_conn_close(&c);

	/* the x86_64 viewer's command line against it */
	char viewer[PATH_MAX + 32], hostport[64];
	snprintf(viewer, sizeof(viewer), "%s/perflens", pl_build_dir());
	snprintf(hostport, sizeof(hostport), "127.0.0.1:%d", port);
	PL_CHECKF(access(viewer, X_OK) == 0, "%s not built (make)", viewer);
	{
		/* the agent lists itself (the whole list: a shared machine's
		 * runs past 16 KiB); its name, not "qemu": qemu-user shows the
		 * guest's own comm and command line for its process */
		static char list[1 << 20];
		const char *base = strrchr(agent, '/') ? strrchr(agent, '/') + 1 : agent;
		char *ps[] = { viewer, "ps", hostport, "--token", "qt", NULL };
		rc = pl_run_capture(ps, list, sizeof(list), 30000);
		PL_CHECKF(rc == 0 && strstr(list, base), "perflens ps exit %d, %s not listed: %.300s",
			  rc, base, list);
		char *rec[] = { viewer, "record", hostport, "--token", "qt", "--command", "true",
				"-o", "/tmp/pl-qemu-refused.plens", NULL };
		rc = run_capture(rec, out, sizeof(out));
		PL_CHECKF(rc == 2 && strstr(out, "ENOSYS"), "perflens record exit %d: %.300s", rc,
			  out);
	}
	pl_kill(ag);
}

static void test_aarch64(void)
{
	check_target(&targets[0]);
}
static void test_aarch64_be(void)
{
	check_target(&targets[1]);
}
static void test_armv7l(void)
{
	check_target(&targets[2]);
}
static void test_armeb(void)
{
	check_target(&targets[3]);
}

PL_TEST_MAIN(PL_CASE(test_aarch64), PL_CASE(test_aarch64_be), PL_CASE(test_armv7l),
	     PL_CASE(test_armeb))
