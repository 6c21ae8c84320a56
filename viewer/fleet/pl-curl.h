/* pl-curl.h — libcurl, opened with dlopen when the fleet store first
 * speaks to a server (pl-curl.c).
 *
 * perflens links no libcurl: its ~30 libraries (TLS, Kerberos, LDAP, …)
 * cost every run of the command line ~4 ms of start-up (relocations),
 * more than a whole report of a small perf.data, for a store most runs
 * never use.  The table holds the calls pl-clickhouse.c makes; it is
 * loaded once per process, never unloaded (libcurl does not like it), and
 * is thread-safe to get.
 */
#ifndef PL_CURL_H
#define PL_CURL_H

#include <curl/curl.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct {
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	const char *(*easy_strerror)(CURLcode);
	char *(*easy_escape)(CURL *, const char *, int);
	void (*free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} PlCurl;

/* The table, libcurl loaded and globally initialised at the first call;
 * NULL with the reason (and what to install) in *error when it cannot be
 * loaded. */
const PlCurl *pl_curl_get(char **error);

G_END_DECLS

#endif
