/* pl-clickhouse.c — see pl-clickhouse.h.  The HTTP interface is the one
 * ClickHouse documents for programs (POST, the query in the URL when a body
 * carries data, errors as "Code: N, e.displayText() = …" with a 4xx/5xx
 * status); libcurl speaks HTTP for us, so nothing here parses a response
 * beyond the body ClickHouse writes. */
#include "pl-clickhouse.h"
#include "pl-curl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK(pl-clickhouse-error-quark, pl_clickhouse_error)

/* The longest credentials file read: a user and a password fit many times. */
#define CREDENTIALS_MAX 4096

struct _PlClickhouse {
	char *url;
	char *user;
	char *password;
	const PlCurl *lc; /* libcurl, loaded at the first PlClickhouse */
	CURL *curl;
	struct curl_slist *headers;
};

static gboolean read_credentials(const char *path, char **user, char **password, GError **error)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS,
			    "cannot read the ClickHouse credentials file %s: %s", path, g_strerror(errno));
		return FALSE;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		close(fd);
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS,
			    "the ClickHouse credentials file %s must be a regular file readable by its "
			    "owner only: chmod 600 %s",
			    path, path);
		return FALSE;
	}
	char buf[CREDENTIALS_MAX + 1];
	gsize n = 0;
	while (n < sizeof buf - 1) {
		ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS,
				    "cannot read the ClickHouse credentials file %s: %s", path, g_strerror(e));
			return FALSE;
		}
		if (r == 0)
			break;
		n += (gsize)r;
	}
	close(fd);
	buf[n] = 0;
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	char *colon = strchr(buf, ':');
	if (n >= CREDENTIALS_MAX || !colon || colon == buf || !colon[1] || (nl && nl[1] && nl[1] != '\n')) {
		explicit_bzero(buf, sizeof buf);
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS,
			    "the ClickHouse credentials file %s must hold one line USER:PASSWORD, "
			    "neither empty",
			    path);
		return FALSE;
	}
	*colon = 0;
	*user = g_strdup(buf);
	*password = g_strdup(colon + 1);
	explicit_bzero(buf, sizeof buf);
	return TRUE;
}

PlClickhouse *pl_clickhouse_new(const char *url, const char *credentials_file, GError **error)
{
	if (!g_str_has_prefix(url, "http://") && !g_str_has_prefix(url, "https://")) {
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_REFUSED,
			    "%s is not a ClickHouse HTTP address: write http://HOST:PORT (8123 by default)",
			    url);
		return NULL;
	}
	const char *host = strstr(url, "://") + 3;
	const char *at = strchr(host, '@'), *slash = strchr(host, '/');
	if (at && (!slash || at < slash)) {
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS,
			    "put no user or password in the ClickHouse address %s (it shows in ps and "
			    "logs): they go in the credentials file",
			    url);
		return NULL;
	}
	g_autofree char *why = NULL;
	const PlCurl *lc = pl_curl_get(&why);
	if (!lc) {
		g_set_error_literal(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_UNREACHABLE, why);
		return NULL;
	}
	PlClickhouse *self = g_new0(PlClickhouse, 1);
	self->lc = lc;
	if (!read_credentials(credentials_file, &self->user, &self->password, error)) {
		g_free(self);
		return NULL;
	}
	self->url = g_strdup(url);
	while (g_str_has_suffix(self->url, "/"))
		self->url[strlen(self->url) - 1] = 0;
	self->curl = lc->easy_init();
	/* no "Expect: 100-continue" before a large INSERT's body: ClickHouse
	 * takes it at once, the wait for its go-ahead is a round trip an insert */
	self->headers = lc->slist_append(NULL, "Expect:");
	if (!self->curl || !self->headers) {
		pl_clickhouse_free(self);
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_UNREACHABLE,
			    "libcurl could not start (out of memory?)");
		return NULL;
	}
	return self;
}

void pl_clickhouse_free(PlClickhouse *self)
{
	if (!self)
		return;
	if (self->curl)
		self->lc->easy_cleanup(self->curl);
	if (self->headers)
		self->lc->slist_free_all(self->headers);
	if (self->password) {
		explicit_bzero(self->password, strlen(self->password));
		g_free(self->password);
	}
	g_free(self->user);
	g_free(self->url);
	g_free(self);
}

const char *pl_clickhouse_get_url(PlClickhouse *self)
{
	return self->url;
}

static size_t collect(char *p, size_t size, size_t n, void *data)
{
	g_byte_array_append(data, (const guint8 *)p, (guint)(size * n));
	return size * n;
}

/* ClickHouse's codes for "not now" (ErrorCodes.cpp): the statement did not
 * run, and the same one may succeed later. */
static gboolean busy_code(int code)
{
	switch (code) {
	case 159: /* TIMEOUT_EXCEEDED */
	case 202: /* TOO_MANY_SIMULTANEOUS_QUERIES */
	case 209: /* SOCKET_TIMEOUT */
	case 210: /* NETWORK_ERROR */
	case 252: /* TOO_MANY_PARTS */
	case 279: /* ALL_CONNECTION_TRIES_FAILED: a shard is down */
		return TRUE;
	default:
		return FALSE;
	}
}

gboolean pl_clickhouse_run(PlClickhouse *self, const char *query, const void *data, gsize len,
			   GByteArray **out, GError **error)
{
	const PlCurl *lc = self->lc;
	CURL *c = self->curl;
	lc->easy_reset(c);
	g_autoptr(GByteArray) body = g_byte_array_new();
	g_autofree char *target = NULL;
	if (data) {
		char *q = lc->easy_escape(c, query, 0);
		target = g_strdup_printf("%s/?query=%s", self->url, q);
		lc->free(q);
		lc->easy_setopt(c, CURLOPT_POSTFIELDS, data);
		lc->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	} else {
		target = g_strdup_printf("%s/", self->url);
		lc->easy_setopt(c, CURLOPT_POSTFIELDS, query);
		lc->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(query));
	}
	lc->easy_setopt(c, CURLOPT_URL, target);
	lc->easy_setopt(c, CURLOPT_HTTPHEADER, self->headers);
	lc->easy_setopt(c, CURLOPT_USERNAME, self->user);
	lc->easy_setopt(c, CURLOPT_PASSWORD, self->password);
	lc->easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	lc->easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	lc->easy_setopt(c, CURLOPT_WRITEDATA, body);
	lc->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	lc->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* a statement that makes no progress for 60 s is given up */
	lc->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	lc->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	char curl_err[CURL_ERROR_SIZE] = "";
	lc->easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	CURLcode rc = lc->easy_perform(c);
	if (rc != CURLE_OK) {
		g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_UNREACHABLE,
			    "ClickHouse at %s did not answer: %s", self->url,
			    *curl_err ? curl_err : lc->easy_strerror(rc));
		return FALSE;
	}
	long status = 0;
	lc->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		g_autofree char *text = g_strndup((const char *)body->data, MIN(body->len, 600));
		g_strstrip(text);
		int code = 0;
		if (g_str_has_prefix(text, "Code: "))
			code = atoi(text + 6);
		PlClickhouseError kind = PL_CLICKHOUSE_ERROR_REFUSED;
		if (status == 401 || status == 403 || code == 192 || code == 193 || code == 516)
			kind = PL_CLICKHOUSE_ERROR_AUTH;
		else if (busy_code(code) || status == 503)
			kind = PL_CLICKHOUSE_ERROR_BUSY;
		g_set_error(error, PL_CLICKHOUSE_ERROR, kind, "ClickHouse at %s refused (HTTP %ld): %s%s",
			    self->url, status, text,
			    kind == PL_CLICKHOUSE_ERROR_AUTH ? " (check the credentials file)" : "");
		return FALSE;
	}
	if (out)
		*out = g_steal_pointer(&body);
	return TRUE;
}

char *pl_clickhouse_query_value(PlClickhouse *self, const char *query, GError **error)
{
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(self, query, NULL, 0, &out, error))
		return NULL;
	char *s = g_strndup((const char *)out->data, out->len);
	char *nl = strchr(s, '\n');
	if (nl)
		*nl = 0;
	return g_strstrip(s);
}

char *pl_clickhouse_quote(const char *s)
{
	GString *g = g_string_new("'");
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			g_string_append_c(g, '\\');
		g_string_append_c(g, *s);
	}
	g_string_append_c(g, '\'');
	return g_string_free(g, FALSE);
}
