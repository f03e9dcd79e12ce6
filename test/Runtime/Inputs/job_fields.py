"""Checks the worker's reading of the job fields of the fp-model checks
before it touches the GPU (runs without one: parseJob comes before cuInit):
orig_runs must be 1 to 16.
usage: job_fields.py WORKER WORKDIR"""
import json
import os
import subprocess
import sys

worker, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)

# Without a driver (CI), the toolkit's stub libcuda lets the worker start.
env = dict(os.environ)
stub = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"),
                    "lib64", "stubs", "libcuda.so")
if os.path.exists(stub) and not any(
        os.path.exists(os.path.join(d, "libcuda.so.1"))
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")):
    link = os.path.join(work, "libcuda.so.1")
    if not os.path.exists(link):
        os.symlink(stub, link)
    env["LD_LIBRARY_PATH"] = work + ":" + env.get("LD_LIBRARY_PATH", "")

for runs in (0, 17):
    job = {"variants": [{"id": "v0", "module": "none.cubin", "entry": "k"}],
           "args": [], "fp_model": "reassoc", "orig_runs": runs}
    jpath = os.path.join(work, "job%d.json" % runs)
    rpath = os.path.join(work, "result%d.json" % runs)
    with open(jpath, "w") as f:
        json.dump(job, f)
    p = subprocess.run([worker, jpath, rpath], env=env, capture_output=True,
                       text=True)
    r = json.load(open(rpath)) if os.path.exists(rpath) else {}
    print("orig_runs %d: exit %d: %s" % (runs, p.returncode, r.get("error")))
