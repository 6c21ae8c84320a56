/* io.h — writing a whole buffer to a file descriptor.
 *
 * The agent's --output and the viewer's session writer both append whole
 * blocks to a file; a short write (a signal, a pipe, a nearly full disk)
 * must continue where it stopped, and a failure must reach the caller,
 * never be dropped.  Sockets are not for this: a peer that went away must
 * not raise SIGPIPE, so they use send(MSG_NOSIGNAL) where they are written.
 */
#ifndef PL_IO_H
#define PL_IO_H

#include <stddef.h>

/* Writes all n bytes of p to fd, retrying short writes and EINTR.
 * Returns 0, or -errno of the write that failed (bytes before it are
 * written). */
int pl_write_all(int fd, const void *p, size_t n);

#endif
