"""Checks the worker's reading of job fields before it touches the GPU
(runs without one: parseJob comes before cuInit): orig_runs must be 1 to
16; the baseline may be a cudaopt_region call but not a cudaopt_gemm one,
and a region baseline has no fp64 shadow; a buffer is not both scratch and
output.
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


def run(name, job):
    jpath = os.path.join(work, "job-%s.json" % name)
    rpath = os.path.join(work, "result-%s.json" % name)
    with open(jpath, "w") as f:
        json.dump(job, f)
    p = subprocess.run([worker, jpath, rpath], env=env, capture_output=True,
                       text=True)
    r = json.load(open(rpath)) if os.path.exists(rpath) else {}
    return p.returncode, r.get("error") or ""


for runs in (0, 17):
    job = {"variants": [{"id": "v0", "module": "none.cubin", "entry": "k"}],
           "args": [], "fp_model": "reassoc", "orig_runs": runs}
    rc, error = run("orig_runs%d" % runs, job)
    print("orig_runs %d: exit %d: %s" % (runs, rc, error))


def buf(name, **kw):
    return dict({"name": name, "kind": "buffer", "dtype": "f32", "count": 4},
                **kw)


kernel = {"id": "v0", "module": "none.cubin", "entry": "k"}
region = {"id": "r0", "library": {"kind": "cudaopt_region",
                                  "path": os.path.join(work, "none.so")}}
gemm = {"id": "g0", "library": {"kind": "cudaopt_gemm",
                                "path": os.path.join(work, "none.so"),
                                "m": 2, "n": 2, "k": 2, "a": 0, "b": 1,
                                "c": 2}}
abc = [buf("a"), buf("b"), buf("c", output=True)]

rc, error = run("gemm_baseline", {"variants": [gemm, kernel], "args": abc})
print("gemm baseline: exit %d: %s" % (rc, error))
rc, error = run("region_shadow",
                {"variants": [region], "args": abc,
                 "shadow": {"module": "none.cubin", "entry": "k",
                            "promote": [True, True, True]}})
print("region baseline with a shadow: exit %d: %s" % (rc, error))
rc, error = run("scratch_output",
                {"variants": [kernel],
                 "args": [buf("a"), buf("t", output=True, scratch=True)]})
print("scratch output: exit %d: %s" % (rc, error))
# Accepted: the worker gets past the job and fails later, at cuInit without
# a GPU, or on a GPU at loading the baseline's missing library (a job error).
rc, error = run("region_baseline",
                {"variants": [region, gemm],
                 "args": [buf("a"), buf("b", scratch=True),
                          buf("c", output=True)]})
print("region baseline read: %s" % error.startswith(
    ("cuInit: ", "cuDeviceGet: ", "context: ", "baseline: cannot load ")))
