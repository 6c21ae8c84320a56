/* viewer-model-names-test.c — short C++ names (pl-name-shorten.h): the
 * folding rules on a table of real demangled shapes (templates, operators,
 * lambdas, anonymous namespaces), and the profile's labels following the
 * switch while names stay whole, on a capture whose functions are named by
 * a perf map (a JIT's C++-style names; the symbolizer reads the map). */
#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-capture.h"
#include "pl-name-shorten.h"
#include "pl-profile.h"

#define PID 5252
#define T0 1000000000ull
#define JIT 0x7f3a00000000ull

static void rules(void)
{
	static const char *const cases[][2] = {
		{ "hot_leaf", "hot_leaf" },
		{ "std::vector<std::pair<int, std::string>, std::allocator<std::pair<int, std::string> > "
		  ">::_M_realloc_insert<int&>(__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int&)",
		  "std::vector<…>::_M_realloc_insert<…>(…)" },
		{ "std::less<int>::operator()(int const&, int const&) const",
		  "std::less<…>::operator()(…) const" },
		{ "operator<<(std::ostream&, Foo const&)", "operator<<(…)" },
		{ "operator<=>(A const&, A const&)", "operator<=>(…)" },
		{ "x::operator->() const", "x::operator->() const" },
		{ "std::map<int, int>::operator[](int const&)", "std::map<…>::operator[](…)" },
		{ "(anonymous namespace)::helper(int)", "(anonymous namespace)::helper(…)" },
		{ "main::{lambda(int)#1}::operator()(int) const", "main::{lambda()#1}::operator()(…) const" },
		{ "Foo<(anonymous namespace)::Bar>::f()", "Foo<…>::f()" },
		{ "a<b", "a<b" },
		{ "f(", "f(" },
		{ "", "" },
	};
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *s = pl_name_shorten(cases[i][0]);
		PL_CHECKF(!strcmp(s, cases[i][1]), "'%s' -> '%s', want '%s'", cases[i][0], s,
			  cases[i][1]);
	}
	PL_CHECK(pl_name_shorten(NULL) == NULL);
}

static void profile_labels(void)
{
	g_autofree char *path = vt_tmp("names.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "app", T0);
	vt_mmap(c, PID, JIT, 0x10000, JIT, "//anon");
	const char *map = "7f3a00001000 80 std::vector<int, std::allocator<int> >::push_back(int const&)\n"
			  "7f3a00002000 80 run(std::map<int, int>&)\n";
	uint64_t chain[] = { T_CTX_USER, JIT + 0x1010, JIT + 0x2031 };
	for (guint i = 0; i < 4; i++)
		vt_sample(c, 0, PID, PID, T0 + i * 1000000, 1000, chain, G_N_ELEMENTS(chain));
	vt_capture_flush(c);
	struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
	m.u.chunk.kind = PL_CHUNK_PERF_MAP;
	m.u.chunk.pid = PID;
	m.u.chunk.total = strlen(map);
	m.u.chunk.name = pl_str_c("/tmp/perf-5252.map");
	m.u.chunk.len = (uint32_t)strlen(map);
	m.u.chunk.data = (const uint8_t *)map;
	PL_CHECK(vt_capture_add(c, &m) == 0);
	vt_capture_close(c);
	g_autoptr(PlProfile) p = vt_profile_load(path);
	const char *whole = "std::vector<int, std::allocator<int> >::push_back(int const&)";
	guint32 f = pl_profile_find_function(p, whole);
	PL_CHECKF(f != PL_NO_ID, "no function %s", whole);
	PL_CHECK(!pl_profile_get_short_names(p));
	PL_CHECK(!strcmp(pl_profile_get_function_label(p, f), whole));
	pl_profile_set_short_names(p, TRUE);
	PL_CHECKF(!strcmp(pl_profile_get_function_label(p, f), "std::vector<…>::push_back(…)"), "%s",
		  pl_profile_get_function_label(p, f));
	guint32 r = pl_profile_find_function(p, "run(std::map<int, int>&)");
	PL_CHECK(r != PL_NO_ID && !strcmp(pl_profile_get_function_label(p, r), "run(…)"));
	/* names stay whole: lookups by name still work */
	PL_CHECK(pl_profile_find_function(p, whole) == f);
	PL_CHECK(!strcmp(pl_profile_get_function(p, f)->name, whole));
	pl_profile_set_short_names(p, FALSE);
	PL_CHECK(!strcmp(pl_profile_get_function_label(p, f), whole));
}

PL_TEST_MAIN(PL_CASE(rules), PL_CASE(profile_labels))
