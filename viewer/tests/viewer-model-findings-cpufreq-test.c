/* viewer-model-findings-cpufreq-test.c — the cpufreq finding
 * (pl-findings-cpufreq.c) at its documented thresholds, on captures
 * written with the real encoder and read by the real reader: the counter
 * tracks an agent sends for a cpufreq policy (scaling_cur_freq,
 * scaling_max_freq, cpuinfo_max_freq in kHz), a CPU's busy share (‰) and
 * a thermal zone (m°C), polled every 100 ms.  The behaviour with a real
 * agent and a real busy program is viewer-findings-cpufreq-test.sh.
 *   thresholds   more than 20 % below the maximum is low (1439 MHz of
 *                1800 fires, 1440 does not); intervals at least 90 %
 *                busy count (899 ‰ does not); low for at least 25 % of
 *                the busy time (10 of 40 polls fires, 9 does not); at
 *                least 0.2 s busy (2 polls fires, 1 does not); no
 *                cpuinfo_max_freq track, no finding
 *   numbers      busy time, time below, share, mean frequency, the
 *                stretch and its clock times, the selection it links
 *   causes       the governor (limit at the maximum), a lowered limit
 *                (scaling_max_freq at 900 MHz), thermal (the zone 45 °C
 *                hotter while low; a 4.9 °C rise is not)
 *   policy_cpus  a policy of CPUs 0 and 1: both CPUs' busy time counts */
#include <math.h>

#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-findings.h"

#define T0 5000000000ull
#define MS 1000000ull
#define POLLS 40

typedef struct {
	guint n;          /* polls, 100 ms apart, the first at T0 + 100 ms */
	int busy[POLLS];  /* ‰, every CPU of the policy */
	int cur[POLLS], limit[POLLS], temp[POLLS]; /* kHz, kHz, m°C */
	gboolean no_hw, two_cpus;
} Plan;

/* n polls at full load and the maximum, 45 °C */
static Plan plan(guint n)
{
	Plan p = { .n = n };
	for (guint i = 0; i < n; i++) {
		p.busy[i] = 1000;
		p.cur[i] = p.limit[i] = 1800000;
		p.temp[i] = 45000;
	}
	return p;
}

static void add(VtCapture *c, const struct pl_msg *m)
{
	PL_CHECK(vt_capture_add(c, m) == 0);
}

static void desc(VtCapture *c, uint32_t id, uint8_t kind, int32_t exp10, int cpu, const char *name,
		 const char *unit, const char *source)
{
	struct pl_msg m = { .type = PL_MSG_TRACK_DESC };
	m.u.track_desc = (struct pl_msg_track_desc){ id,	     kind,	      exp10,
						     0,		     cpu,	      100,
						     pl_str_c(name), pl_str_c(unit), pl_str_c(source) };
	add(c, &m);
}

#define POLICY "/sys/devices/system/cpu/cpufreq/policy0/"

static PlProfile *load(const Plan *pl)
{
	static guint seq;
	g_autofree char *name = g_strdup_printf("cpufreq%u.plens", seq++);
	g_autofree char *path = vt_tmp(name);
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	uint64_t chain[] = { 0x401000 };
	vt_sample(c, 0, 7, 7, T0, 1000000, chain, 1); /* the first record */
	const char *cpus = pl->two_cpus ? "policy0 frequency (cpus 0 1)" : "policy0 frequency (cpus 0)";
	uint32_t id = 0;
	desc(c, id++, PL_TRACK_CPU_BUSY, -1, 0, "cpu0 busy", "%", "/proc/stat");
	desc(c, id++, PL_TRACK_CPU_BUSY, -1, 1, "cpu1 busy", "%", "/proc/stat");
	desc(c, id++, PL_TRACK_CPU_FREQ, 3, 0, cpus, "Hz", POLICY "scaling_cur_freq");
	desc(c, id++, PL_TRACK_CPU_FREQ, 3, 0, "policy0 frequency limit (cpus 0)", "Hz",
	     POLICY "scaling_max_freq");
	desc(c, id++, PL_TRACK_THERMAL, -3, -1, "thermal soc", "\xc2\xb0" "C",
	     "/sys/class/thermal/thermal_zone0/temp");
	if (!pl->no_hw)
		desc(c, id++, PL_TRACK_CPU_FREQ, 3, 0, "policy0 hardware max frequency (cpus 0)", "Hz",
		     POLICY "cpuinfo_max_freq");
	static struct pl_msg m;
	for (guint i = 0; i < pl->n; i++) {
		memset(&m, 0, sizeof(m));
		m.type = PL_MSG_TRACK_VALUES;
		m.u.track_values.time = T0 + (i + 1) * 100 * MS;
		int64_t v[] = { pl->busy[i], pl->two_cpus ? pl->busy[i] : 0, pl->cur[i],
				pl->limit[i], pl->temp[i], 1800000 };
		m.u.track_values.n = id;
		for (uint32_t k = 0; k < id; k++)
			m.u.track_values.v[k] = (uint64_t)v[k];
		add(c, &m);
	}
	vt_capture_close(c);
	return vt_profile_load(path);
}

/* The cpufreq findings of the plan's recording: NULL when none, the
 * first (and only) otherwise. */
static PlFinding *judge(const Plan *pl, GPtrArray **keep)
{
	g_autoptr(PlProfile) p = load(pl);
	GPtrArray *fs = pl_findings_run(p);
	*keep = fs;
	PlFinding *found = NULL;
	guint n = 0;
	for (guint i = 0; i < fs->len; i++) {
		PlFinding *f = fs->pdata[i];
		if (!strcmp(f->rule, "cpufreq")) {
			found = f;
			n++;
		} else {
			PL_CHECKF(FALSE, "another rule fired: [%s] %s", f->rule, f->what);
		}
	}
	PL_CHECKF(n <= 1, "%u cpufreq findings for one policy", n);
	return found;
}

static gboolean fires(const Plan *pl)
{
	GPtrArray *fs;
	gboolean r = judge(pl, &fs) != NULL;
	g_ptr_array_unref(fs);
	return r;
}

/* a check in a function: the macro's text of a long literal would not fit
 * the reason's buffer */
static void has_text(const PlFinding *f, const char *s)
{
	gboolean hit = strstr(f->what, s) || (f->detail && strstr(f->detail, s));
	PL_CHECKF(hit, "no \"%s\" in: %s\n%s", s, f->what, f->detail ? f->detail : "");
}
#define HAS(f, s) has_text(f, s)

static void thresholds(void)
{
	Plan p = plan(POLLS);
	PL_CHECK(!fires(&p)); /* at the maximum */
	for (guint i = 20; i < POLLS; i++)
		p.cur[i] = 1440000;
	PL_CHECKF(!fires(&p), "1440 MHz is 80 %% of 1800: not below it");
	for (guint i = 20; i < POLLS; i++)
		p.cur[i] = 1439000;
	PL_CHECKF(fires(&p), "1439 MHz is below 80 %% of 1800");

	p = plan(POLLS);
	for (guint i = 0; i < POLLS; i++) {
		p.cur[i] = 600000;
		p.busy[i] = 899;
	}
	PL_CHECKF(!fires(&p), "a CPU 89.9 %% busy is not judged");
	for (guint i = 0; i < POLLS; i++)
		p.busy[i] = 900;
	PL_CHECKF(fires(&p), "a CPU 90 %% busy is");

	p = plan(POLLS);
	for (guint i = 0; i < 9; i++)
		p.cur[i] = 900000;
	PL_CHECKF(!fires(&p), "low 9 of 40 polls: 22.5 %%");
	p.cur[9] = 900000;
	PL_CHECKF(fires(&p), "low 10 of 40 polls: 25 %%");

	p = plan(1);
	p.cur[0] = 900000;
	PL_CHECKF(!fires(&p), "0.1 s busy is too little");
	p = plan(2);
	p.cur[0] = p.cur[1] = 900000;
	PL_CHECKF(fires(&p), "0.2 s busy is enough");
	p.no_hw = TRUE;
	PL_CHECKF(!fires(&p), "no cpuinfo_max_freq: nothing to compare with");
}

static void numbers(void)
{
	Plan p = plan(POLLS);
	for (guint i = 20; i < POLLS; i++)
		p.cur[i] = 1400000;
	for (guint i = 0; i < 20; i++)
		p.busy[i] = 950; /* 1.9 s busy at the maximum, then 2.0 s low */
	GPtrArray *fs;
	PlFinding *f = judge(&p, &fs);
	PL_CHECK(f);
	/* 2.0 of 3.9 s: 51.28 %; mean (1800 × 1.9 + 1400 × 2.0) / 3.9 = 1594.9 */
	PL_CHECKF(fabs(f->value - 100 * 2.0 / 3.9) < 1e-6, "share %g", f->value);
	HAS(f, "policy0 (CPUs 0) ran below 1440 MHz (80% of cpuinfo_max_freq 1800 MHz) for "
	       "2.000 s of its 3.900 s busy (51.3%): mean 1595 MHz while busy (88.6% of the "
	       "maximum); likely cause: the governor (scaling_max_freq not lowered below 1440 MHz)");
	HAS(f, "\n0\t3.900 s\t2.000 s\t51.3%\t1595 MHz\n");
	/* polls 21..40 read it: (T0 + 2.0 s, T0 + 4.0 s], the first record at T0 */
	HAS(f, "below 1440 MHz from 2.000 s to 4.000 s after the first record (clock 7.000000 s "
	       "to 9.000000 s; report --from 2.000 --to 4.000)");
	HAS(f, "each time is good to one poll interval: every 100 ms asked, at most 100 ms between "
	       "two polls here");
	HAS(f, "scaling_max_freq (the policy's limit) read 1800 to 1800 MHz");
	HAS(f, "thermal soc: 45.0 °C on average while below (max 45.0 °C), 45.0 °C outside");
	PL_CHECKF(f->t0 == T0 + 2000 * MS && f->t1 == T0 + 4000 * MS + 1, "selection %" G_GUINT64_FORMAT
		  " %" G_GUINT64_FORMAT, f->t0, f->t1);
	PL_CHECK(f->severity == PL_FINDING_WARNING && !strcmp(f->view, "flame") && !f->tid);
	PL_CHECK(g_str_has_prefix(f->where, "report --counters"));
	g_ptr_array_unref(fs);
}

static void causes(void)
{
	Plan p = plan(POLLS);
	for (guint i = 20; i < POLLS; i++)
		p.cur[i] = p.limit[i] = 900000;
	GPtrArray *fs;
	PlFinding *f = judge(&p, &fs);
	PL_CHECK(f);
	HAS(f, "likely cause: a lowered limit (scaling_max_freq lowered to 900 MHz)");
	HAS(f, "during 100.0% of the time below it was itself under 1440 MHz");
	g_ptr_array_unref(fs);

	for (guint i = 20; i < POLLS; i++)
		p.temp[i] = 49900;
	f = judge(&p, &fs);
	PL_CHECK(f);
	HAS(f, "likely cause: a lowered limit");
	HAS(f, "thermal soc: 49.9 °C on average while below (max 49.9 °C), 45.0 °C outside");
	g_ptr_array_unref(fs);

	for (guint i = 20; i < POLLS; i++)
		p.temp[i] = 90000;
	p.temp[POLLS - 1] = 92000;
	f = judge(&p, &fs);
	PL_CHECK(f);
	/* 19 polls at 90 °C and one at 92, each weighing 0.1 s busy */
	HAS(f, "likely cause: thermal throttling (thermal soc read 90.1 °C, 45.0 °C outside that "
	       "time; scaling_max_freq lowered to 900 MHz)");
	HAS(f, "(max 92.0 °C)");
	g_ptr_array_unref(fs);
}

static void policy_cpus(void)
{
	Plan p = plan(POLLS);
	p.two_cpus = TRUE;
	for (guint i = 20; i < POLLS; i++)
		p.cur[i] = 900000;
	GPtrArray *fs;
	PlFinding *f = judge(&p, &fs);
	PL_CHECK(f);
	HAS(f, "policy0 (CPUs 0 1) ran below 1440 MHz (80% of cpuinfo_max_freq 1800 MHz) for "
	       "4.000 s of its 8.000 s busy (50.0%)");
	HAS(f, "\n0\t4.000 s\t2.000 s\t50.0%\t1350 MHz\n1\t4.000 s\t2.000 s\t50.0%\t1350 MHz\n");
	g_ptr_array_unref(fs);
}

PL_TEST_MAIN(PL_CASE(thresholds), PL_CASE(numbers), PL_CASE(causes), PL_CASE(policy_cpus))
