# test/realworld/dlopen.py — python3 dlopens a libbz2.so built with -g
# (ctypes) and compresses the first 4 MiB of INPUT with it ROUNDS times.
#   python3 dlopen.py LIBBZ2.SO INPUT ROUNDS
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
with open(sys.argv[2], "rb") as f:
    data = f.read(4 << 20)
out = ctypes.create_string_buffer(len(data) + len(data) // 100 + 600)
for _ in range(int(sys.argv[3])):
    n = ctypes.c_uint(len(out))
    rc = lib.BZ2_bzBuffToBuffCompress(out, ctypes.byref(n), data, len(data), 9, 0, 0)
    if rc != 0:
        sys.exit("BZ2_bzBuffToBuffCompress: %d" % rc)
