/* pl-curl.c — libcurl opened at first use (contract in pl-curl.h). */
#include <dlfcn.h>

#include "pl-curl.h"

/* libcurl's ABI name since 7.16 (Debian's libcurl4 and libcurl3-gnutls
 * both ship it under this soname, the first as libcurl.so.4) */
#define PL_CURL_SONAME "libcurl.so.4"

static PlCurl table;
static char *load_error;

static gboolean load(void)
{
	void *so = dlopen(PL_CURL_SONAME, RTLD_LAZY | RTLD_LOCAL);
	if (!so) {
		const char *why = dlerror();
		load_error = g_strdup_printf("libcurl could not be loaded (%s): the fleet store "
					     "needs it; install it (apt install libcurl4)",
					     why ? why : PL_CURL_SONAME);
		return FALSE;
	}
	void *global_init = dlsym(so, "curl_global_init");
#define SYM(field, name)                                                                         \
	do {                                                                                     \
		*(void **)(&table.field) = dlsym(so, name);                                      \
		if (!table.field)                                                                \
			goto missing;                                                            \
	} while (0)
	SYM(easy_init, "curl_easy_init");
	SYM(easy_cleanup, "curl_easy_cleanup");
	SYM(easy_reset, "curl_easy_reset");
	SYM(easy_setopt, "curl_easy_setopt");
	SYM(easy_perform, "curl_easy_perform");
	SYM(easy_getinfo, "curl_easy_getinfo");
	SYM(easy_strerror, "curl_easy_strerror");
	SYM(easy_escape, "curl_easy_escape");
	SYM(free, "curl_free");
	SYM(slist_append, "curl_slist_append");
	SYM(slist_free_all, "curl_slist_free_all");
#undef SYM
	if (!global_init)
		goto missing;
	((CURLcode(*)(long))global_init)(CURL_GLOBAL_DEFAULT);
	return TRUE;
missing:
	load_error = g_strdup_printf("%s lacks functions the fleet store calls: install "
				     "libcurl 7.17 or later (apt install libcurl4)",
				     PL_CURL_SONAME);
	return FALSE; /* left loaded: unloading libcurl is not safe */
}

const PlCurl *pl_curl_get(char **error)
{
	static gsize done;
	static gboolean ok;
	if (g_once_init_enter(&done)) {
		ok = load();
		g_once_init_leave(&done, 1);
	}
	if (!ok && error)
		*error = g_strdup(load_error);
	return ok ? &table : NULL;
}
