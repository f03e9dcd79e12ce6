"""Checks that the measurement worker takes the GPU lock before touching the
GPU: with the lock held exclusively by someone else (here, this script, the
way a timing worker holds it), the worker waits, shows its wait flag, and
only goes on once the lock is free. Without a GPU it then stops at cuInit;
the result file still records how long it waited.
usage: gpu_lock_wait.py WORKER WORKDIR"""
import fcntl
import json
import os
import subprocess
import sys
import time

worker, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
flag = os.path.join(work, "wait-flag")
job = {"device": 0,
       "variants": [{"id": "v0", "module": "none.cubin", "entry": "k"}],
       "args": [],
       "gpu_lock": {"dir": work, "wait_flag": flag}}
with open(os.path.join(work, "job.json"), "w") as f:
    json.dump(job, f)

# Exclusive, by the protocol of runtime/common/GpuLockFiles.h.
main = open(os.path.join(work, "cuda-opt-gpu0.lock"), "w")
gate = open(os.path.join(work, "cuda-opt-gpu0.gate"), "w")
fcntl.flock(gate, fcntl.LOCK_EX)
fcntl.flock(main, fcntl.LOCK_EX)
fcntl.flock(gate, fcntl.LOCK_UN)

# Without a driver (CI), the toolkit's stub libcuda lets the worker start.
env = dict(os.environ)
stub = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"),
                    "lib64", "stubs", "libcuda.so")
if os.path.exists(stub) and not any(
        os.path.exists(os.path.join(d, "libcuda.so.1"))
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")):
    os.symlink(stub, os.path.join(work, "libcuda.so.1"))
    env["LD_LIBRARY_PATH"] = work + ":" + env.get("LD_LIBRARY_PATH", "")

result = os.path.join(work, "result.json")
proc = subprocess.Popen([worker, os.path.join(work, "job.json"), result],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        env=env)
time.sleep(1.5)
print("running while locked:", proc.poll() is None)
print("wait flag while locked:", os.path.exists(flag))
fcntl.flock(main, fcntl.LOCK_UN)
proc.wait(timeout=60)
print("wait flag after:", os.path.exists(flag))
with open(result) as f:
    waited = json.load(f).get("lock_wait_s", 0)
print("waited at least 1 s:", waited >= 1.0)
