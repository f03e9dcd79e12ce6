"""Writes the inputs of bad-input.test into the directory given."""
import os
import random
import sys

out = sys.argv[1]
KERNEL = "__global__ void k(float *p) { p[threadIdx.x] = %s; }\n"
LAUNCH = "void run(float *p) { k<<<1, 32>>>(p); }\n"


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


write("empty.cu", "")
write("truncated.cu", KERNEL % "1.0f" + "void run(float *p) { k<<<1, 32>>>(p")
rng = random.Random(7)
write("binary.cu", bytes([0x7f, 0x45, 0x4c, 0x46, 0x00, 0xff, 0xfe]) +
      bytes(rng.randrange(256) for _ in range(4000)))
write("latin1-comment.cu", b"// caf\xe9, \xff\xfe: not UTF-8\n" +
      (KERNEL % "1.0f" + LAUNCH).encode())
write("latin1-string.cu", b'const char *name = "caf\xe9";\n' +
      (KERNEL % "1.0f" + LAUNCH).encode())
write("latin1-identifier.cu", b"int caf\xe9 = 1;\n" +
      (KERNEL % "1.0f" + LAUNCH).encode())
write("utf16.cu", (u"\ufeff" + KERNEL % "1.0f" + LAUNCH).encode("utf-16-le"))
for depth in (1000, 3000):
    write("parens%d.cu" % depth,
          KERNEL % ("(" * depth + "1.0f" + ")" * depth) + LAUNCH)
macros = ["#define M0(x) (x)"]
macros += ["#define M%d(x) M%d((x) + 1)" % (i, i - 1) for i in range(1, 1000)]
write("macros1000.cu", "\n".join(macros) + "\n" + KERNEL % "M999(0)" + LAUNCH)
helpers = "".join("static inline int f%d(int x) { return x + %d; }\n" % (i, i)
                  for i in range(100000))
write("long.cu", KERNEL % "1.0f" + helpers + LAUNCH)
