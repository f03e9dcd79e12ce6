# -*- Python -*-
# lit configuration for cuda-opt. Features:
#   cuda-device  a CUDA GPU is visible (nvidia-smi lists one); GPU-only tests
#   cuda-multi-device  two or more GPUs are visible (one worker per GPU)
#   nvcc         nvcc is installed (compile checks of rewritten output)
#   root         the tests run as root, whom file permissions do not stop
#   postgres-server  cuda-opt has libpq and Debian's PostgreSQL server is
#                installed: test/Cluster starts one on loopback
#   slurm-cluster  Slurm's daemons and client commands are installed:
#                test/Cluster starts a one-node cluster
#   cmake-clang-cuda  a CMake that accepts clang as the CUDA compiler
#                (test/CMake/example-clang.test)
import glob
import os
import pwd
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "cuda-opt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test", ".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cuda_opt_obj_root, "test")

llvm_config.with_system_environment(["HOME", "PATH", "CUDA_PATH", "CUDNN_ROOT"])
# tune records into a tuning database by default (docs/tuning-database.md);
# tests that share a kernel and problem would reuse each other's results.
# Only the tests that name one with --db use one.
config.environment["CUDA_OPT_TUNING_DB"] = "off"

tool_dirs = [config.cuda_opt_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["cuda-opt", ToolSubst("cuda-opt-mlir", unresolved="ignore")], tool_dirs)
# The LLVM test tools are absent on the GPU machine, where only the GPU subset
# (which needs none of them) runs; tests needing them are CPU tests.
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore")
     for t in ["FileCheck", "not", "count", "split-file", "mlir-opt"]],
    [config.llvm_tools_dir])

cuda_path = os.environ.get("CUDA_PATH", "/usr/local/cuda")
config.substitutions.append(("%cuda_path", cuda_path))
# Compile-check a rewritten file for the device, the way the issue asks.
clangxx = os.path.join(config.llvm_tools_dir, "clang++")
config.substitutions.append(
    ("%cuda_compile",
     f"{clangxx} -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 "
     f"--cuda-path={cuda_path} -nocudalib -Wno-unknown-cuda-version "
     f"-std=c++17 -fsyntax-only -Xclang -target-sdk-version=12.9"
     # CUDA 13 keeps CUB and libcu++ under include/cccl (nvcc adds it).
     + (f" -isystem {cuda_path}/include/cccl"
        if os.path.isdir(os.path.join(cuda_path, "include", "cccl")) else "")))

# The clang plugin (tools/cuda-opt-plugin), when this build has it (not in static builds).
plugin = os.path.join(config.cuda_opt_obj_root, "lib", "CudaOptPlugin.so")
if os.path.exists(plugin):
    config.available_features.add("clang-plugin")
    config.substitutions.append(("%cuda_opt_plugin", plugin))
    config.substitutions.append(
        ("%clang_cuda",
         f"{clangxx} -x cuda --cuda-gpu-arch=sm_90 --cuda-path={cuda_path} "
         f"-nocudalib -Wno-unknown-cuda-version -std=c++17 "
         f"-Xclang -target-sdk-version=12.9"))

if os.path.exists(os.path.join(config.cuda_opt_tools_dir, "cuda-opt-mlir")):
    config.available_features.add("cuda-opt-mlir")

if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")

# A CMake that takes clang (with CUDA 13) as its CUDA compiler, for
# test/CMake/example-clang.test: Debian 12's 3.25 cannot (docs/cmake.md);
# `scripts/bootstrap.sh test` installs CMake 4.4.5 from PyPI into the build
# tree for it, or CUDA_OPT_CLANG_CUDA_CMAKE names one.
cmake_clang_cuda = os.environ.get("CUDA_OPT_CLANG_CUDA_CMAKE") or os.path.join(
    config.cuda_opt_obj_root, "cmake-clang-cuda", "bin", "cmake")
if os.path.exists(cmake_clang_cuda) and os.path.exists(plugin):
    config.available_features.add("cmake-clang-cuda")
    config.substitutions.append(("%cmake_clang_cuda", cmake_clang_cuda))
    config.substitutions.append(("%clangxx", clangxx))

# The build tree (for `cmake --install`, test/CMake).
config.substitutions.append(("%cuda_opt_obj_root", config.cuda_opt_obj_root))

nvcc = os.path.join(cuda_path, "bin", "nvcc")
if os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
# NVRTC, which tune tries before nvcc (loaded at run time, no GPU needed).
if os.path.exists(os.path.join(cuda_path, "lib64", "libnvrtc.so")):
    config.available_features.add("nvrtc")

# The measurement worker (runtime/measure), built next to cuda-opt.
config.substitutions.append(
    ("%cuda_opt_measure-selftest",
     os.path.join(config.cuda_opt_tools_dir, "cuda-opt-measure-selftest")))
config.substitutions.append(
    ("%cuda_opt_measure",
     os.path.join(config.cuda_opt_tools_dir, "cuda-opt-measure")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%cuda_opt_src", config.cuda_opt_src_root))
# The sparse-format round-trip checker (runtime/sparse), built next to cuda-opt.
config.substitutions.append(
    ("%cuda_opt_tls_roundtrip", os.path.join(config.cuda_opt_tools_dir, "tls-roundtrip")))
config.substitutions.append(
    ("%cuda_opt_tls_bit_decode", os.path.join(config.cuda_opt_tools_dir, "tls-bit-decode-test")))

# GPU equivalence: build and run original and rewrite, compare their dumps.
cuda_opt_bin = os.path.join(config.cuda_opt_tools_dir, "cuda-opt")
equiv = os.path.join(config.cuda_opt_src_root, "utils", "gpu_equivalence.py")
config.substitutions.append(
    ("%gpu_equiv",
     f"{sys.executable} {equiv} --cuda-opt {cuda_opt_bin} --nvcc {nvcc} "
     f"--work %t.dir --"))

def gpu_count():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return 0
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True,
                             timeout=20)
        if out.returncode != 0:
            return 0
        return sum(1 for line in out.stdout.splitlines()
                   if line.startswith("GPU "))
    except Exception:
        return 0

gpus = gpu_count()
if gpus >= 1:
    config.available_features.add("cuda-device")
if gpus >= 2:
    config.available_features.add("cuda-multi-device")

# test/Cluster starts its own services (test/Cluster/Inputs/services.py):
# a PostgreSQL server from Debian's postgresql (its binaries are not on
# PATH), run as 'postgres' when the tests run as root, and a one-node Slurm
# cluster from slurm-wlm (with munge when installed).
def have_postgres_server():
    if not getattr(config, "cuda_opt_with_postgres", False):
        return False
    bins = glob.glob("/usr/lib/postgresql/*/bin")
    if not any(os.path.exists(os.path.join(b, t)) for b in bins
               for t in ["initdb"]) and not shutil.which("initdb"):
        return False
    if not shutil.which("psql"):
        return False
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return False
        return shutil.which("runuser") is not None
    return True

def have_slurm():
    daemons = ["slurmctld", "slurmd"]
    clients = ["sbatch", "squeue", "scontrol", "scancel", "sinfo"]
    return (all(shutil.which(d) or os.path.exists(os.path.join("/usr/sbin", d))
                for d in daemons) and all(shutil.which(c) for c in clients))

if have_postgres_server():
    config.available_features.add("postgres-server")
if have_slurm():
    config.available_features.add("slurm-cluster")
