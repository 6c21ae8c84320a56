/* Toolchain self-test: proves a target's static binary links and runs.
 *
 * Exercises what the agent depends on: zstd compression (one-shot and with a
 * reusable context), a loopback socket, the perf_event_open syscall with the
 * kernel's UAPI struct, and reports machine, byte order and word size so that
 * selftest.sh can check the binary runs as the intended target. Prints one
 * "key: value" line per fact and exits 0 only if every check passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#define BUF_SIZE (64 * 1024)

static unsigned char input[BUF_SIZE];
static unsigned char output[BUF_SIZE + 1024];
static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL: %s\n", what);
        failures++;
    }
}

static int frame_magic_ok(const unsigned char *p, size_t n)
{
    /* ZSTD_MAGICNUMBER 0xFD2FB528, stored little-endian on every target */
    return n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd;
}

static void test_zstd(void)
{
    size_t i, n;
    ZSTD_CCtx *cctx;

    /* compressible but not trivial: a repeating sample-like record */
    for (i = 0; i < sizeof input; i++)
        input[i] = (unsigned char)((i % 61) ^ (i / 4096));

    n = ZSTD_compress(output, sizeof output, input, sizeof input, 3);
    check(!ZSTD_isError(n), "ZSTD_compress returned an error");
    check(frame_magic_ok(output, n), "ZSTD_compress output has no frame magic");
    check(n < sizeof input / 4, "ZSTD_compress did not compress");
    printf("zstd: %u -> %u bytes (%s)\n", (unsigned)sizeof input, (unsigned)n,
           ZSTD_versionString());

    cctx = ZSTD_createCCtx();
    check(cctx != NULL, "ZSTD_createCCtx failed");
    if (cctx) {
        size_t m = ZSTD_compressCCtx(cctx, output, sizeof output, input, sizeof input, 1);
        check(!ZSTD_isError(m) && frame_magic_ok(output, m), "ZSTD_compressCCtx failed");
        printf("zstd-cctx: %u bytes\n", (unsigned)m);
        ZSTD_freeCCtx(cctx);
    }
}

static void test_socket(void)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    check(fd >= 0, "socket() failed");
    if (fd < 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    check(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind(127.0.0.1:0) failed");
    check(listen(fd, 1) == 0, "listen() failed");
    check(getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin_port != 0,
          "getsockname() gave no port");
    printf("socket: listening on 127.0.0.1:%u\n", (unsigned)ntohs(sa.sin_port));
    close(fd);
}

static void test_perf(void)
{
    struct perf_event_attr attr;
    long fd;

    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd >= 0) {
        printf("perf_event_open: ok\n");
        close((int)fd);
    } else if (errno == ENOSYS) {
        printf("perf_event_open: ENOSYS\n");
    } else {
        printf("perf_event_open: errno %d (%s)\n", errno, strerror(errno));
    }
}

int main(void)
{
    struct utsname u;
    union { uint32_t u32; unsigned char b[4]; } probe = { 0x01020304 };
    const char *order = probe.b[0] == 0x01 ? "big" : "little";

    check(uname(&u) == 0, "uname() failed");
    printf("machine: %s\n", u.machine);
    printf("byte-order: %s\n", order);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    check(order[0] == 'b', "runtime byte order differs from the compiler's");
#else
    check(order[0] == 'l', "runtime byte order differs from the compiler's");
#endif
    printf("pointer-bits: %u\n", (unsigned)(sizeof(void *) * 8));

    test_zstd();
    test_socket();
    test_perf();

    printf("result: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
