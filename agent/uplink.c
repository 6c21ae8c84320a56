/* uplink.c — fleet reporting to a collector; see uplink.h. */
#include "uplink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "block.h"
#include "wire.h"

static int key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

int pla_uplink_add_label(struct pla_uplink *u, const char *kv, size_t len, const char *what,
			 char *err, size_t errlen)
{
	const char *eq = memchr(kv, '=', len);
	size_t klen = eq ? (size_t)(eq - kv) : 0;
	int ok = eq && klen > 0 && eq + 1 < kv + len && len <= PL_MAX_LABEL;
	for (size_t i = 0; ok && i < klen; i++)
		ok = key_char(kv[i]);
	for (size_t i = klen + 1; ok && i < len; i++)
		ok = (unsigned char)kv[i] >= 0x20 && kv[i] != 0x7f;
	if (!ok) {
		/* the label itself is not secret, but may be long: show its start */
		snprintf(err, errlen,
			 "%s: a label is KEY=VALUE (KEY of letters, digits, '_', '.', '-'; VALUE "
			 "printable; at most %u bytes), not '%.*s'",
			 what, PL_MAX_LABEL, (int)(len < 60 ? len : 60), kv);
		return -EINVAL;
	}
	uint32_t slot = u->nlabels;
	for (uint32_t i = 0; i < u->nlabels; i++)
		if (!strncmp(u->label[i], kv, klen + 1))
			slot = i; /* the same key: the last value given wins */
	if (slot == PL_MAX_LABELS || u->used + len + 1 > sizeof(u->buf)) {
		snprintf(err, errlen, "%s: too many labels (at most %u, %u bytes in all)", what,
			 PL_MAX_LABELS, PLA_UPLINK_LABEL_BYTES);
		return -E2BIG;
	}
	char *d = u->buf + u->used;
	memcpy(d, kv, len);
	d[len] = 0;
	u->used += (uint32_t)len + 1;
	u->label[slot] = d;
	if (slot == u->nlabels)
		u->nlabels++;
	return 0;
}

int pla_uplink_read_labels(struct pla_uplink *u, const char *path, char *err, size_t errlen)
{
	static char text[PLA_UPLINK_LABEL_BYTES + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read the labels file %s: %s", path, strerror(errno));
		return -errno;
	}
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(text) - 1 && (r = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)r;
	int rerr = r < 0 ? errno : 0;
	close(fd);
	if (rerr || n == sizeof(text) - 1) {
		snprintf(err, errlen, "cannot read the labels file %s: %s", path,
			 rerr ? strerror(rerr) : "larger than 4 KiB");
		return rerr ? -rerr : -E2BIG;
	}
	char what[300];
	int line = 0;
	for (size_t at = 0; at < n;) {
		const char *l = text + at, *nl = memchr(l, '\n', n - at);
		size_t len = nl ? (size_t)(nl - l) : n - at;
		at += len + 1;
		line++;
		if (len && l[len - 1] == '\r')
			len--;
		if (!len || l[0] == '#')
			continue;
		snprintf(what, sizeof(what), "%s line %d", path, line);
		int rc = pla_uplink_add_label(u, l, len, what, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pla_uplink_greet(const struct pla_uplink *u, int fd, const char *token)
{
	static uint8_t buf[PL_BLOCK_HEADER_SIZE + PL_FRAME_HEADER_SIZE + PLA_UPLINK_LABEL_BYTES +
			   PL_MAX_LABELS * 5 + 512];
	static struct pl_msg m;
	m.type = PL_MSG_REPORT;
	m.u.report.token = pl_str_c(token);
	m.u.report.nlabels = u->nlabels;
	for (uint32_t i = 0; i < u->nlabels; i++)
		m.u.report.labels[i] = pl_str_c(u->label[i]);
	m.u.report.session_period_ms = u->period_ms;
	struct pl_writer w;
	pl_w_init(&w, buf + PL_BLOCK_HEADER_SIZE, sizeof(buf) - PL_BLOCK_HEADER_SIZE);
	int rc = pl_msg_encode(&w, &m);
	if (rc < 0)
		return rc;
	size_t n = pl_w_len(&w);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n,
				     pl_crc32(0, buf + PL_BLOCK_HEADER_SIZE, n) };
	pl_block_header_put(buf, &h);
	n += PL_BLOCK_HEADER_SIZE;
	/* a fresh connection's send buffer takes a few KiB at once */
	ssize_t s = send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	return s == (ssize_t)n ? 0 : s < 0 ? -errno : -EAGAIN;
}

int pla_uplink_start(const struct pla_uplink *u, const struct pla_collect_config *own,
		     uint8_t callgraph, struct pla_collector *c, struct pla_stream *out, char *err,
		     size_t errlen)
{
	struct pla_collect_config cfg = *own;
	cfg.callgraph = callgraph;
	/* the session period is the collection's duration: the agent ends it
	 * (END, "duration reached") and the collector starts the next */
	if (!cfg.duration_ms || cfg.duration_ms > u->period_ms)
		cfg.duration_ms = u->period_ms;
	return pla_collect_start(c, &cfg, out, err, errlen);
}
