#!/usr/bin/env python3
"""CPU checks of bench/pytorch_eager.py (no torch or GPU needed).

1. every corpus program has a PyTorch entry, and its tensors hold as many
   elements as its spec's buffers (the known exceptions listed);
2. --dry-run and the --programs filter work;
3. with a stand-in for torch (events that report fixed times), main() times,
   writes the JSON, merges a second run into it, and summarize.py reads it.
"""
import json
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pytorch_eager as pe  # noqa: E402

# program -> why its element count differs from its spec's
SPEC_DIFFERS = {
    "saxpy": "y is read and written (the spec lists it once)",
    "bitonic_sort": "the keys are sorted in place (the spec lists them once)",
    "scan": "the spec also lists block_scan's block totals",
    "spmv_csr": "the spec's matrix is 64M rows x 1 nnz; the program's is timed",
    "segment_max": "the spec's segments are 1 element each; the program's "
                   "(0 to 60, ~30 on average) are timed",
    "stencil5": "the convolution's 3x3 weights",
    # Multi-launch programs: the spec is the first kernel's, the entry the
    # whole chain's live inputs and final output.
    "chain3_fp16": "the spec is mul's (x, y, t1); the chain also reads z",
    "map_reduce_sumsq": "the spec is square's (x, sq); the chain's result "
                        "is one float",
}
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


sizes = pe.corpus_sizes(os.path.join(HERE, "corpus"))
table = pe.entries(sizes)
for name in sorted(sizes):
    check(name in table, "%s: no entry" % name)
    spec_path = os.path.join(HERE, "corpus", name + ".tune.json")
    if name not in table or not os.path.exists(spec_path):
        continue
    with open(spec_path) as f:
        spec = json.load(f)
    env = dict(spec["sizes"])
    count = 0
    for v in spec["args"].values():
        if isinstance(v, dict) and "count" in v:
            count += eval(str(v["count"]).replace("/", "//"),
                          {"__builtins__": {}}, env)
    e = table[name]
    mine = sum(t.numel() for t in e.inputs + e.outputs)
    if name in SPEC_DIFFERS:
        check(mine != count, "%s: listed as differing but matches" % name)
    else:
        check(mine == count, "%s: %d elements, spec %d" % (name, mine, count))

check(pe.select(["gemv", "gemv16", "softmax", "softmax_fp16"],
                ["gemv*", "softmax"]) == ["gemv", "gemv16", "softmax"],
      "select: globs and names")
check(pe.select(["a", "b"], ["b,a"]) == ["a", "b"], "select: comma list")

dry = subprocess.run([sys.executable, os.path.join(HERE, "pytorch_eager.py"),
                      "--dry-run", "--programs", "row_arg*", "--quick"],
                     capture_output=True, text=True)
check(dry.returncode == 0, "dry run failed: " + dry.stderr)
check("x.argmax(dim=1)" in dry.stdout and "x.argmin(dim=1)" in dry.stdout
      and "2 programs, 20 timed calls" in dry.stdout,
      "dry run output:\n" + dry.stdout)
none = subprocess.run([sys.executable, os.path.join(HERE, "pytorch_eager.py"),
                       "--dry-run", "--programs", "nosuch"],
                      capture_output=True, text=True)
check(none.returncode == 2, "an unmatched filter must exit 2")


# A stand-in for torch: enough for main(), run_one() and time_op() on an
# entry table whose ops do nothing; event i reports 1 + i/100 ms.
class FakeEvent:
    clock = 0

    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        FakeEvent.clock += 1
        self.t = FakeEvent.clock

    def elapsed_time(self, end):
        return 1.0 + (end.t - self.t - 1) + (self.t // 2) / 100.0


class FakeBuf:
    def zero_(self):
        return self


fake = types.ModuleType("torch")
fake.__version__ = "fake"
fake.int32 = "int32"
fake.float32 = "float32"
fake.cuda = types.SimpleNamespace(
    is_available=lambda: True, get_device_name=lambda: "Fake H200",
    synchronize=lambda: None, empty_cache=lambda: None, Event=FakeEvent)
fake.backends = types.SimpleNamespace(
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace()),
    cudnn=types.SimpleNamespace())
fake.empty = lambda *a, **k: FakeBuf()
fake.Generator = lambda device=None: types.SimpleNamespace(
    manual_seed=lambda s: None)
fake_nn = types.ModuleType("torch.nn")
fake_f = types.ModuleType("torch.nn.functional")
fake.nn = fake_nn
fake_nn.functional = fake_f
sys.modules.update({"torch": fake, "torch.nn": fake_nn,
                    "torch.nn.functional": fake_f})

calls = []
fake_table = {
    "relu": pe.Entry("op relu", [pe.T("x", (1000,), "float32")],
                     [pe.T("out", (1000,), "float32")],
                     lambda t, th, F: calls.append("relu")),
    "softmax": pe.Entry("op softmax", [pe.T("x", (10, 100), "float32")],
                        [pe.T("out", (10, 100), "float32")],
                        lambda t, th, F: calls.append("softmax"), note="n"),
}
pe.entries = lambda s: fake_table
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "eager.json")
    rc = pe.main(["--out", out, "--programs", "relu,saxpy", "--reps", "21",
                  "--warmup", "3"])
    check(rc == 0, "main returned %s" % rc)
    check(calls.count("relu") == 24, "relu called %d times, not 3 + 21"
          % calls.count("relu"))
    with open(out) as f:
        d = json.load(f)
    r = d["programs"].get("relu", {})
    check(r.get("reps") == 21 and r.get("bytes") == 8000, "relu row: %s" % r)
    check(abs(r.get("median_ms", 0) - 1.10) < 1e-9,
          "median of the fake times: %s" % r.get("median_ms"))
    check(r.get("min_ms", 0) < r.get("p10_ms", 0) < r["median_ms"]
          < r.get("p90_ms", 0) < r.get("max_ms", 0), "quantiles: %s" % r)
    check(abs(r["GB/s"] - 8000 / (r["median_ms"] * 1e-3) / 1e9) < 1e-9,
          "GB/s")
    check("saxpy" in d["no_equivalent"], "saxpy must be listed without entry")
    # A second run of another subset merges into the same file.
    rc = pe.main(["--out", out, "--programs", "softmax", "--quick"])
    with open(out) as f:
        d = json.load(f)
    check(set(d["programs"]) == {"relu", "softmax"}, "merge: %s" %
          sorted(d["programs"]))
    check(d["programs"]["softmax"]["reps"] == 20 and d["quick"], "quick run")
    # summarize.py reads it.
    res = os.path.join(tmp, "res")
    sm = subprocess.run(
        [sys.executable, os.path.join(HERE, "summarize.py"), "--out",
         os.path.join(HERE, "testdata", "fake-out"), "--results", res,
         "--name", "x", "--eager", out], capture_output=True, text=True)
    check(sm.returncode == 0, "summarize: " + sm.stderr)
    with open(os.path.join(res, "x.md")) as f:
        md = f.read()
    check("| 0.5500 | 0.5500 | 1.00x | (original kept) | 3904 (92%) | "
          "3904 (92%) | - | - | 1.1000 (0.50x) | 10 | 30 |" in md,
          "summarize row for relu:\n" + md)

for f in failures:
    print("test-pytorch-eager: " + f)
print("test-pytorch-eager: %s" % ("ok" if not failures else "FAILED"))
sys.exit(1 if failures else 0)
