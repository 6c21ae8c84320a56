/* pl-client.c — the viewer's end of a live agent connection: connect or
 * accept, handshake, commands and replies, the received stream, and the saving
 * of its blocks (contract in pl-client.h). */
#include "pl-client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "block.h"
#include "reader.h"

struct _PlClient {
	int fd;
	char *peer;
	struct pl_reader reader;
	struct pl_msg *msg; /* decode target, ~75 KiB */
	struct pl_block_enc enc;
	guint32 next_id;
	PlAgentInfo agent;
	gboolean have_hello;
	gboolean got_end;
	guint64 bytes_in;
	/* Saving: the reader hands over every block it loads (save_block),
	 * also those it consumes without returning a message (STACK
	 * definitions, frames of unknown type), which later blocks depend on. */
	GByteArray *early; /* blocks received before a writer was attached */
	gboolean early_saved; /* early (HELLO among it) went into a session file */
	PlSessionWriter *writer;
	GError *write_error;
	/* the reply being waited for */
	guint32 want_id;
	gboolean got_reply;
	gint32 reply_status;
	char *reply_message;
	char *refusal; /* a REPLY to nothing before HELLO: the agent turned us away */
	PlMsgFunc handler;
	gpointer handler_data;
	/* another transport's (pl_client_new_for_fd) */
	gpointer transport;
	PlClientExplainFunc explain;
	GDestroyNotify free_transport;
	/* fleet reporting: what an agent dialling a collector said first */
	PlAgentReport *report;
};

static void report_free(PlAgentReport *r);

static char *str_dup(struct pl_str s)
{
	return g_strndup(s.p ? s.p : "", s.len);
}

/* ─── connection ─────────────────────────────────────────────────────── */

/* Splits "host", "host:port", "[v6]:port", ":port". */
static gboolean split_host_port(const char *spec, char **host, char **port, GError **error)
{
	const char *colon;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close)
			goto bad;
		*host = g_strndup(spec + 1, (gsize)(close - spec - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			goto bad_free;
	} else {
		colon = strrchr(spec, ':');
		if (colon && strchr(spec, ':') != colon) /* bare IPv6 without port */
			colon = NULL;
		*host = colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
	}
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || p == 0 || p > 65535)
			goto bad_free;
		*port = g_strdup(colon + 1);
	} else {
		*port = g_strdup_printf("%d", PL_DEFAULT_PORT);
	}
	return TRUE;
bad_free:
	g_clear_pointer(host, g_free);
bad:
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
		    "bad address '%s': use HOST, HOST:PORT or [IPv6]:PORT", spec);
	return FALSE;
}

static gint64 deadline_after(guint timeout_ms)
{
	return timeout_ms ? g_get_monotonic_time() + (gint64)timeout_ms * 1000 : G_MAXINT64;
}

static int ms_left(gint64 deadline)
{
	if (deadline == G_MAXINT64)
		return -1;
	gint64 left = (deadline - g_get_monotonic_time()) / 1000;
	return left < 0 ? 0 : (int)MIN(left, G_MAXINT);
}

static void save_block(const uint8_t *b, size_t n, void *data);

static PlClient *client_new(int fd, char *peer, GError **error)
{
	PlClient *self = g_new0(PlClient, 1);
	self->fd = fd;
	self->peer = peer;
	self->next_id = 1;
	self->early = g_byte_array_new();
	self->msg = g_new0(struct pl_msg, 1);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (pl_reader_init(&self->reader, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) < 0 ||
	    pl_block_enc_init(&self->enc, 64 * 1024, 0) < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "out of memory");
		pl_client_free(self);
		return NULL;
	}
	pl_reader_set_block_hook(&self->reader, save_block, self);
	return self;
}

/* A lost connection, worded by the transport when it knows more (why
 * ssh ended); the error of the client's own wording otherwise. */
static void set_lost(PlClient *self, GError **error, int code, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
static void set_lost(PlClient *self, GError **error, int code, const char *fmt, ...)
{
	g_autofree char *why = self->explain ? self->explain(self->transport) : NULL;
	if (why) {
		g_set_error_literal(error, G_IO_ERROR, code, why);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error_literal(error, G_IO_ERROR, code, text);
}

static gboolean send_all(PlClient *self, const guint8 *p, gsize n, GError **error)
{
	while (n > 0) {
		ssize_t w = send(self->fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;
			set_lost(self, error, g_io_error_from_errno(e),
				 "lost the connection to the agent at %s: %s", self->peer,
				 g_strerror(e));
			return FALSE;
		}
		p += w;
		n -= (gsize)w;
	}
	return TRUE;
}

/* Our direction starts with its own stream header, then reads HELLO. */
static gboolean handshake(PlClient *self, guint timeout_ms, GError **error)
{
	guint8 hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_FROM_VIEWER);
	if (!send_all(self, hdr, sizeof(hdr), error))
		return FALSE;
	gint64 deadline = deadline_after(timeout_ms);
	while (!self->have_hello) {
		int left = ms_left(deadline);
		if (left == 0) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
				    "%s accepted the connection but sent no HELLO within %u ms: "
				    "is it a perflens-agent of a matching version?",
				    self->peer, timeout_ms);
			return FALSE;
		}
		GError *local = NULL;
		if (!pl_client_poll(self, (guint)(left < 0 ? 1000 : left), &local) ||
		    self->refusal) {
			if (self->refusal) {
				/* e.g. "busy: another viewer controls this agent" */
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
					    "the agent at %s refused the connection: %s", self->peer,
					    self->refusal);
				g_clear_error(&local);
			} else {
				g_propagate_error(error, local);
			}
			return FALSE;
		}
	}
	/* a version-2 agent only lacks thread-creation stacks (role CREATE) */
	if (self->agent.protocol_version < PL_PROTOCOL_VERSION_MIN ||
	    self->agent.protocol_version > PL_PROTOCOL_VERSION) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "the agent at %s speaks protocol %u, this viewer %u to %u: use matching "
			    "agent and viewer releases",
			    self->peer, self->agent.protocol_version, PL_PROTOCOL_VERSION_MIN,
			    PL_PROTOCOL_VERSION);
		return FALSE;
	}
	return TRUE;
}

/* One attempt: connect and read HELLO.  *retry is set when trying again
 * may help: the board is not reachable yet (a network coming up), or the
 * connection was closed before HELLO (a forwarded port that accepts before
 * the guest listens, BOARDS.md).  A refused connection is final: the host
 * answered that nothing listens on the port, and waiting out the timeout
 * would only delay the same answer. */
static PlClient *connect_once(const char *host, const char *port, gint64 deadline,
			      guint timeout_ms, gboolean *retry, GError **error)
{
	*retry = FALSE;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(*host ? host : "localhost", port, &hints, &res);
	if (rc != 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND,
			    "cannot resolve '%s': %s — check the host name", host, gai_strerror(rc));
		return NULL;
	}
	int fd = -1, last_errno = 0;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		/* Non-blocking connect so an unreachable board times out
		 * instead of waiting for the kernel's minutes-long SYN retries. */
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			last_errno = errno;
			close(fd);
			fd = -1;
			continue;
		}
		struct pollfd pfd = { fd, POLLOUT, 0 };
		int err = 0;
		socklen_t len = sizeof(err);
		rc = poll(&pfd, 1, ms_left(deadline));
		if (rc <= 0)
			err = rc == 0 ? ETIMEDOUT : errno;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			last_errno = err;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	g_autofree char *peer = g_strdup_printf(strchr(host, ':') ? "[%s]:%s" : "%s:%s", host,
						port);
	if (fd < 0) {
		*retry = last_errno == EHOSTUNREACH || last_errno == ENETUNREACH;
		if (last_errno == ECONNREFUSED)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED,
				    "cannot connect to %s: nothing listens on that port (start "
				    "perflens-agent --listen there, or give the port it listens on)",
				    peer);
		else
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(last_errno),
				    "cannot connect to %s: %s (is perflens-agent running there with "
				    "--listen, and the port open?)",
				    peer, g_strerror(last_errno));
		return NULL;
	}
	/* back to blocking: poll() gives the timeouts */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	PlClient *self = client_new(fd, g_steal_pointer(&peer), error);
	if (!self)
		return NULL;
	GError *local = NULL;
	if (!handshake(self, timeout_ms ? timeout_ms : 10000, &local)) {
		*retry = !self->have_hello && !self->refusal &&
			 !g_error_matches(local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
		g_propagate_error(error, local);
		pl_client_free(self);
		return NULL;
	}
	return self;
}

PlClient *pl_client_connect(const char *host_port, guint timeout_ms, GError **error)
{
	g_autofree char *host = NULL, *port = NULL;
	if (!split_host_port(host_port, &host, &port, error))
		return NULL;
	gint64 deadline = deadline_after(timeout_ms);
	for (;;) {
		gboolean retry;
		GError *local = NULL;
		PlClient *self = connect_once(host, port, deadline, timeout_ms, &retry, &local);
		if (self)
			return self;
		/* unreachable or hung up before HELLO: the board may be starting */
		int left = ms_left(deadline); /* -1: no deadline */
		if (!retry || (left >= 0 && left < 250)) {
			g_propagate_error(error, local);
			return NULL;
		}
		g_clear_error(&local);
		g_usleep(200 * 1000);
	}
}

PlClient *pl_client_new_for_fd(int fd, const char *peer, guint timeout_ms, gpointer transport,
			       PlClientExplainFunc explain, GDestroyNotify free_transport,
			       GError **error)
{
	PlClient *self = client_new(fd, g_strdup(peer), error);
	if (!self) {
		if (free_transport)
			free_transport(transport);
		return NULL;
	}
	self->transport = transport;
	self->explain = explain;
	self->free_transport = free_transport;
	if (!handshake(self, timeout_ms ? timeout_ms : 10000, error)) {
		pl_client_free(self);
		return NULL;
	}
	return self;
}

PlClient *pl_client_accept(const char *listen_addr, guint timeout_ms, GError **error)
{
	g_autofree char *host = NULL, *port = NULL;
	const char *spec = listen_addr && *listen_addr ? listen_addr : "";
	/* a bare number is a port */
	if (*spec && strspn(spec, "0123456789") == strlen(spec)) {
		host = g_strdup("");
		port = g_strdup(spec);
	} else if (!*spec) {
		host = g_strdup("");
		port = g_strdup_printf("%d", PL_DEFAULT_PORT);
	} else if (!split_host_port(spec, &host, &port, error)) {
		return NULL;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(*host ? host : NULL, port, &hints, &res);
	if (rc != 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND,
			    "cannot listen on '%s': %s", spec, gai_strerror(rc));
		return NULL;
	}
	int lfd = -1, last_errno = 0;
	for (struct addrinfo *ai = res; ai && lfd < 0; ai = ai->ai_next) {
		lfd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (lfd < 0) {
			last_errno = errno;
			continue;
		}
		int one = 1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(lfd, 4) < 0) {
			last_errno = errno;
			close(lfd);
			lfd = -1;
		}
	}
	freeaddrinfo(res);
	if (lfd < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(last_errno),
			    "cannot listen on port %s: %s%s", port, g_strerror(last_errno),
			    last_errno == EADDRINUSE ? " — another program uses it: pick another "
						       "port"
						     : "");
		return NULL;
	}
	/* Anything may connect to a listening port (scanners, a health
	 * check): a peer that is not an agent is dropped and we keep waiting. */
	gint64 deadline = deadline_after(timeout_ms);
	g_autoptr(GError) last = NULL;
	for (;;) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		int left = ms_left(deadline);
		do
			rc = poll(&pfd, 1, left);
		while (rc < 0 && errno == EINTR);
		if (rc <= 0) {
			close(lfd);
			if (last)
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
					    "no agent dialled in on port %s within %u ms (last "
					    "attempt: %s)",
					    port, timeout_ms, last->message);
			else
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
					    "no agent dialled in on port %s within %u ms: start it "
					    "with perflens-agent --server THIS_HOST:%s",
					    port, timeout_ms, port);
			return NULL;
		}
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		int fd = accept4(lfd, (struct sockaddr *)&sa, &salen, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		char h[NI_MAXHOST] = "?", p[NI_MAXSERV] = "?";
		getnameinfo((struct sockaddr *)&sa, salen, h, sizeof(h), p, sizeof(p),
			    NI_NUMERICHOST | NI_NUMERICSERV);
		PlClient *self = client_new(fd, g_strdup_printf("%s:%s", h, p), error);
		if (!self) {
			close(lfd);
			return NULL;
		}
		g_clear_error(&last);
		if (handshake(self, 10000, &last)) {
			close(lfd);
			return self;
		}
		pl_client_free(self);
	}
}

void pl_client_free(PlClient *self)
{
	if (!self)
		return;
	if (self->fd >= 0)
		close(self->fd);
	if (self->free_transport)
		self->free_transport(self->transport); /* after close: ssh sees the end */
	pl_reader_free(&self->reader);
	pl_block_enc_free(&self->enc);
	g_free(self->msg);
	g_free(self->peer);
	g_free(self->agent.agent_version);
	g_free(self->agent.machine);
	g_free(self->agent.kernel_release);
	g_free(self->agent.hostname);
	g_free(self->reply_message);
	g_free(self->refusal);
	report_free(self->report);
	if (self->early)
		g_byte_array_unref(self->early);
	g_clear_error(&self->write_error);
	g_free(self);
}

const PlAgentInfo *pl_client_get_agent(PlClient *self)
{
	return &self->agent;
}

const char *pl_client_get_peer(PlClient *self)
{
	return self->peer;
}

gpointer pl_client_get_transport(PlClient *self, PlClientExplainFunc explain)
{
	return self->explain && self->explain == explain ? self->transport : NULL;
}

int pl_client_get_fd(PlClient *self)
{
	return self->fd;
}

guint64 pl_client_get_bytes_received(PlClient *self)
{
	return self->bytes_in;
}

gboolean pl_client_got_end(PlClient *self)
{
	return self->got_end;
}

void pl_client_set_handler(PlClient *self, PlMsgFunc func, gpointer user_data)
{
	self->handler = func;
	self->handler_data = user_data;
}

/* HELLO again, from the copy in self->agent, as one block: every session
 * file of a connection starts with it, so that each names the board and
 * its architecture (the agent sends HELLO once per connection). */
static gboolean save_hello(PlClient *self, PlSessionWriter *w, GError **error)
{
	const PlAgentInfo *a = &self->agent;
	struct pl_msg m = { .type = PL_MSG_HELLO };
	struct pl_msg_hello *h = &m.u.hello;
	h->protocol_version = a->protocol_version;
	h->agent_version = pl_str_c(a->agent_version ? a->agent_version : "");
	h->machine = pl_str_c(a->machine ? a->machine : "");
	h->e_machine = a->e_machine;
	h->byte_order = a->byte_order;
	h->word_size = a->word_size;
	h->kernel_release = pl_str_c(a->kernel_release ? a->kernel_release : "");
	h->hostname = pl_str_c(a->hostname ? a->hostname : "");
	h->ncpus = a->ncpus;
	/* The board's clock pair, both moved on by the time since it came:
	 * their difference, which puts the samples' clock on the wall (a
	 * collector's stored times), stays the board's, and the pair dates
	 * this session.  This host's time alone, with no samples' clock,
	 * put every session after a connection's first at the host's time
	 * plus the board's uptime. */
	if (a->clock_now_ns || a->wall_now_ns) {
		guint64 since = (guint64)MAX(g_get_monotonic_time() - a->hello_at_us, 0) * 1000u;
		h->clock_id = a->clock_id;
		h->clock_now_ns = a->clock_now_ns + since;
		h->wall_now_ns = a->wall_now_ns + since;
	} else {
		h->wall_now_ns = (guint64)g_get_real_time() * 1000u; /* dates this session */
	}
	h->flags = a->flags;
	h->perf_errno = a->perf_errno;
	struct pl_block_enc enc;
	if (pl_block_enc_init(&enc, 4096, 0) < 0) {
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED, "out of memory");
		return FALSE;
	}
	const guint8 *out;
	size_t n;
	gboolean ok = pl_msg_encode(&enc.w, &m) == 0 && pl_block_enc_finish(&enc, &out, &n) == 0;
	if (!ok)
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot encode HELLO");
	else
		ok = pl_session_writer_append(w, out, n, error);
	pl_block_enc_free(&enc);
	return ok;
}

gboolean pl_client_set_writer(PlClient *self, PlSessionWriter *writer, GError **error)
{
	self->writer = writer;
	if (!writer)
		return TRUE;
	if (self->early_saved)
		return !self->have_hello || save_hello(self, writer, error);
	if (self->early->len) {
		if (!pl_session_writer_append(writer, self->early->data, self->early->len, error))
			return FALSE;
		g_byte_array_set_size(self->early, 0);
	}
	self->early_saved = TRUE;
	return TRUE;
}

/* ─── receiving ──────────────────────────────────────────────────────── */

/* The reader's block hook: a block is saved before any of its messages is
 * dispatched, so a handler that closes the file on END finds END's block in
 * it.  A bad block ends the stream before it is saved: the file ends with
 * the last good block. */
static void save_block(const uint8_t *b, size_t n, void *data)
{
	PlClient *self = data;
	if (!self->writer) {
		/* HELLO and the probe: small, kept until a writer is attached */
		if (self->early->len < 16u << 20)
			g_byte_array_append(self->early, b, (guint)n);
		return;
	}
	if (!self->write_error)
		pl_session_writer_append(self->writer, b, n, &self->write_error);
}

/* ─── fleet reporting ────────────────────────────────────────────────── */

static void report_free(PlAgentReport *r)
{
	if (!r)
		return;
	if (r->token)
		explicit_bzero(r->token, strlen(r->token));
	g_free(r->token);
	g_strfreev(r->labels);
	g_free(r);
}

/* The first REPORT only, before HELLO's full form: it is the agent's
 * introduction, not something a session may change.  Its block holds the
 * token, so it never goes into a session file. */
static void keep_report(PlClient *self, const struct pl_msg_report *r)
{
	if (self->report || self->writer || self->early_saved)
		return;
	g_byte_array_set_size(self->early, 0);
	PlAgentReport *k = g_new0(PlAgentReport, 1);
	k->token = str_dup(r->token);
	k->labels = g_new0(char *, r->nlabels + 1);
	for (guint32 i = 0; i < r->nlabels; i++)
		k->labels[i] = str_dup(r->labels[i]);
	k->session_period_ms = r->session_period_ms;
	self->report = k;
}

const PlAgentReport *pl_client_get_report(PlClient *self)
{
	return self->report;
}

static void dispatch(PlClient *self, const struct pl_msg *m)
{
	switch (m->type) {
	case PL_MSG_HELLO: {
		const struct pl_msg_hello *h = &m->u.hello;
		PlAgentInfo *a = &self->agent;
		g_free(a->agent_version);
		g_free(a->machine);
		g_free(a->kernel_release);
		g_free(a->hostname);
		a->protocol_version = h->protocol_version;
		a->agent_version = str_dup(h->agent_version);
		a->machine = str_dup(h->machine);
		a->kernel_release = str_dup(h->kernel_release);
		a->hostname = str_dup(h->hostname);
		a->e_machine = h->e_machine;
		a->byte_order = h->byte_order;
		a->word_size = h->word_size;
		a->ncpus = h->ncpus;
		a->flags = h->flags;
		a->perf_errno = h->perf_errno;
		a->clock_id = h->clock_id;
		a->clock_now_ns = h->clock_now_ns;
		a->wall_now_ns = h->wall_now_ns;
		a->hello_at_us = g_get_monotonic_time();
		self->have_hello = TRUE;
		/* The greeting before AUTH names nothing (PL_HELLO_PARTIAL); the
		 * full HELLO follows AUTH and is what a session file starts
		 * with.  The partial one stands alone (a raw block; the agent's
		 * stream restarts its zstd frame after it), so it can go. */
		if ((h->flags & PL_HELLO_PARTIAL) && !self->writer && !self->early_saved)
			g_byte_array_set_size(self->early, 0);
		break;
	}
	case PL_MSG_REPLY:
		if (!self->have_hello && m->u.reply.request_id == 0 && m->u.reply.status < 0 &&
		    !self->refusal)
			self->refusal = str_dup(m->u.reply.message);
		if (self->want_id && m->u.reply.request_id == self->want_id) {
			self->got_reply = TRUE;
			self->reply_status = m->u.reply.status;
			g_free(self->reply_message);
			self->reply_message = str_dup(m->u.reply.message);
		}
		break;
	case PL_MSG_END:
		self->got_end = TRUE;
		break;
	case PL_MSG_REPORT:
		keep_report(self, &m->u.report);
		break;
	}
	if (self->handler)
		self->handler(m, self->handler_data);
}

gboolean pl_client_poll(PlClient *self, guint timeout_ms, GError **error)
{
	struct pollfd pfd = { self->fd, POLLIN, 0 };
	int rc;
	do
		rc = poll(&pfd, 1, (int)MIN(timeout_ms, (guint)G_MAXINT));
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "poll: %s",
			    g_strerror(errno));
		return FALSE;
	}
	if (rc == 0)
		return TRUE;
	guint8 buf[64 * 1024];
	ssize_t n;
	do
		n = recv(self->fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		set_lost(self, error, g_io_error_from_errno(e),
			 "lost the connection to the agent at %s: %s", self->peer, g_strerror(e));
		return FALSE;
	}
	if (n == 0) {
		set_lost(self, error, G_IO_ERROR_CLOSED, "the agent at %s closed the connection%s",
			 self->peer,
			 pl_reader_pending(&self->reader)
				 ? " in the middle of a block (agent crashed or network cut?)"
				 : "");
		return FALSE;
	}
	self->bytes_in += (guint64)n;
	if (pl_reader_feed(&self->reader, buf, (size_t)n) < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
			    pl_reader_error(&self->reader));
		return FALSE;
	}
	while ((rc = pl_reader_next(&self->reader, self->msg)) == 1)
		dispatch(self, self->msg);
	if (rc < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "bad data from %s: %s — the connection was closed; check that "
			    "agent and viewer versions match",
			    self->peer, pl_reader_error(&self->reader));
		return FALSE;
	}
	if (self->write_error) {
		g_propagate_error(error, g_steal_pointer(&self->write_error));
		return FALSE;
	}
	return TRUE;
}

/* ─── commands ───────────────────────────────────────────────────────── */

guint32 pl_client_send(PlClient *self, struct pl_msg *m, GError **error)
{
	guint32 id = self->next_id++;
	switch (m->type) {
	case PL_MSG_AUTH:
		m->u.auth.request_id = id;
		break;
	case PL_MSG_START:
		m->u.start.request_id = id;
		break;
	case PL_MSG_CONFIGURE:
		m->u.configure.request_id = id;
		break;
	case PL_MSG_LIST:
	case PL_MSG_PROBE:
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME:
	case PL_MSG_STOP:
	case PL_MSG_BYE:
	case PL_MSG_SNAPSHOT:
		m->u.request.request_id = id;
		break;
	default:
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "message type %u is not a command", m->type);
		return 0;
	}
	int rc = pl_msg_encode(&self->enc.w, m);
	if (rc < 0) {
		pl_w_init(&self->enc.w, self->enc.raw, self->enc.raw_cap);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "cannot encode the %s command (%s): an argument is over its limit",
			    pl_msg_type_name(m->type), g_strerror(-rc));
		return 0;
	}
	const uint8_t *out;
	size_t n;
	pl_block_enc_finish(&self->enc, &out, &n);
	if (!send_all(self, out, n, error))
		return 0;
	return id;
}

gboolean pl_client_request(PlClient *self, struct pl_msg *m, guint timeout_ms, GError **error)
{
	guint16 command = m->type;
	guint32 id = pl_client_send(self, m, error);
	if (!id)
		return FALSE;
	self->want_id = id;
	self->got_reply = FALSE;
	gint64 deadline = deadline_after(timeout_ms);
	while (!self->got_reply) {
		int left = ms_left(deadline);
		if (left == 0) {
			self->want_id = 0;
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
				    "the agent at %s did not answer %s within %u ms",
				    self->peer, pl_msg_type_name(command), timeout_ms);
			return FALSE;
		}
		if (!pl_client_poll(self, (guint)(left < 0 ? 1000 : left), error)) {
			self->want_id = 0;
			return FALSE;
		}
	}
	self->want_id = 0;
	if (self->reply_status < 0) {
		int e = -self->reply_status;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "the agent refused %s: %s",
			    pl_msg_type_name(command),
			    self->reply_message && *self->reply_message ? self->reply_message
									: g_strerror(e));
		return FALSE;
	}
	return TRUE;
}

gboolean pl_client_authenticate(PlClient *self, const char *token, guint timeout_ms,
				GError **error)
{
	gboolean partial = (self->agent.flags & PL_HELLO_PARTIAL) != 0;
	if (!token && !(self->agent.flags & PL_HELLO_AUTH_REQUIRED) && !partial)
		return TRUE; /* an agent before PL_HELLO_PARTIAL, with --no-auth */
	if (!token && (self->agent.flags & PL_HELLO_AUTH_REQUIRED)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "the agent at %s requires a token: pass --token (the one the agent "
			    "was started with)",
			    self->peer);
		return FALSE;
	}
	/* A --no-auth agent that greeted with a partial HELLO takes any AUTH
	 * (an empty token here) and sends the board's facts before its reply. */
	struct pl_msg m = { .type = PL_MSG_AUTH };
	m.u.auth.token = pl_str_c(token ? token : "");
	GError *local = NULL;
	if (pl_client_request(self, &m, timeout_ms, &local))
		return TRUE;
	if (g_error_matches(local, G_IO_ERROR, G_IO_ERROR_BUSY)) {
		/* an agent that holds busy peers' AUTH until it is checked:
		 * "busy: another viewer (PEER) controls this agent" */
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
			    "the agent at %s refused the connection: %s", self->peer,
			    self->reply_message ? self->reply_message : local->message);
		g_error_free(local);
		return FALSE;
	}
	if (g_error_matches(local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
	    g_error_matches(local, G_IO_ERROR, G_IO_ERROR_CLOSED)) {
		g_propagate_error(error, local);
		return FALSE;
	}
	/* The agent's own reason names its options, not the viewer's: the
	 * sentence is ours, and a refusal for another cause keeps its words. */
	if (g_error_matches(local, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "the agent at %s rejected the token: give --token or "
			    "$PERFLENS_TOKEN the token the agent was started with or wrote "
			    "to its token file",
			    self->peer);
	else
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "the agent at %s did not accept the token: %s", self->peer,
			    self->reply_message && *self->reply_message ? self->reply_message
									: local->message);
	g_error_free(local);
	return FALSE;
}
