#!/usr/bin/env python3
"""Write tuning-database rows as JSON Lines for the lit tests.

  rows.py HASHES KERNEL [--count N] [--host H] [--signature S] [--gpu G]
          [--start K]

HASHES is the output of `cuda-opt db hash FILE` ("kernel hash" per line).
Without --count: three rows of KERNEL (the original, a verified
restrict-const,vectorize{width=4} at twice its speed, and a rejected unroll)
on the default signature. With --count N: N verified rows, pipelines
unroll{factor=K} for K from --start, for the crash and concurrency tests.
"""
import argparse
import json

SIGNATURE = ("grid=65536x1x1;block=256x1x1;shmem=0;int:n=16777216;"
             "buf:x=16777216;buf:y=16777216")

p = argparse.ArgumentParser()
p.add_argument("hashes")
p.add_argument("kernel")
p.add_argument("--count", type=int, default=0)
p.add_argument("--start", type=int, default=0)
p.add_argument("--host", default="gpu-node-1")
p.add_argument("--gpu", default="NVIDIA H200")
p.add_argument("--signature", default=SIGNATURE)
a = p.parse_args()
hashes = dict(line.split() for line in open(a.hashes) if line.strip())


def row(pipeline, median, verdict="verified", failure="", second=0):
    """One row; \p second is the measurement time in ms after 10:00."""
    return {"gpu": a.gpu, "sm_count": 132, "driver": "12.8", "cuda": "13.0.1",
            "cuda_opt": "0.1", "kernel_hash": hashes[a.kernel],
            "kernel": a.kernel, "signature": a.signature,
            "fp_model": "reassoc", "pipeline": pipeline, "median_ms": median,
            "p10_ms": median * 0.98, "p90_ms": median * 1.02, "runs": 20,
            "verdict": verdict, "failure": failure, "host": a.host,
            "measured_at": "2026-12-01T10:%02d:%02d.%03dZ" % (
                second // 60000 % 60, second // 1000 % 60, second % 1000),
            "source": "saxpy.cu"}


if a.count:
    rows = [row("unroll{factor=%d}" % (a.start + i), 1.0, second=a.start + i)
            for i in range(a.count)]
else:
    rows = [row("", 0.2, second=0),
            row("restrict-const,vectorize{width=4}", 0.1, second=1000),
            row("unroll{factor=4}", 0.05, "rejected", "output y differs",
                second=2000)]
for r in rows:
    print(json.dumps(r))
