#!/usr/bin/env bash
# bench/test-summarize.sh - run summarize.py on the hand-written reports in
# bench/testdata/fake-out and check the numbers it derives.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --eager '': no PyTorch column even when bench/results has its JSON.
python3 "$here/summarize.py" --out "$here/testdata/fake-out" \
  --corpus "$here/corpus" --results "$tmp" --name fake --eager '' >"$tmp/stdout"
md=$tmp/fake.md
fail=0
expect() {
  if ! grep -qF -- "$2" "$1"; then
    echo "test-summarize: missing in $(basename "$1"): $2"; fail=1
  fi
}
expect "$md" '| gemm_square | matmul | ok/ok | 4.2000 | 0.7000 | 6.00x | `restrict-const,gemm-tile{tile=64}` | 12 (0%) | 72 (2%) | 24.50 (40.8% of fp32) | - | 24 | 96 |'
expect "$md" '| relu | relu | ok/ok | 0.5500 | 0.5500 | 1.00x | (original kept) | 3904 (92%) | 3904 (92%) | - | - | 10 | 30 |'
expect "$md" '| saxpy | saxpy | ok/ok | - | - | - | not measured: no CUDA GPU'
expect "$md" '| scan | - | FAIL/skip |'
expect "$md" 'variants measured: 34 in 125.5 s of tuning summed over programs: 16.3 variants per minute per program'
expect "$md" 'last run: 3 programs, 2 at a time, 34 variants in 60 s of wall time on one GPU: **34.0 variants per minute**'
expect "$md" 'geometric-mean speedup over measured programs: 2.449x'
expect "$md" 'optimised run): saxpy, scan'
expect "$tmp/stdout" 'tuner throughput: 34 variants in 126 s of per-program tuning = 16.3 variants/minute per program'
expect "$tmp/stdout" 'last run: 34 variants in 60 s wall (3 programs, 2 at a time) = 34.0 variants/minute'
python3 - "$tmp/fake.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
p = {r["program"]: r for r in d["programs"]}
assert abs(p["gemm_square"]["best_pct_of_peak_flops"] - 40.8333) < 1e-3
assert p["relu"]["best_pct_of_copy"] > 92 and p["relu"]["best_pct_of_copy"] < 92.3
assert not p["saxpy"]["measured"]
assert d["totals"]["measured"] == 2 and d["totals"]["improved"] == 1
PY
grep -q 'PyTorch eager' "$md" && { echo "test-summarize: eager column without --eager"; fail=1; }

# A run dealt out to several GPUs (run.sh GPUS=N) says so.
cp -r "$here/testdata/fake-out" "$tmp/multi"
sed -i 's/}$/, "gpus": 7}/' "$tmp/multi/last-run.json"
python3 "$here/summarize.py" --out "$tmp/multi" --corpus "$here/corpus" \
  --results "$tmp/multi-res" --name fake --eager '' >/dev/null
expect "$tmp/multi-res/fake.md" 'last run: 3 programs, 2 at a time per GPU, 34 variants in 60 s of wall time on 7 GPUs of one machine, the programs dealt out among them'

# The PyTorch eager column (bench/pytorch_eager.py's JSON).
python3 "$here/summarize.py" --out "$here/testdata/fake-out" \
  --corpus "$here/corpus" --results "$tmp" --name eager \
  --eager "$here/testdata/fake-eager.json" >/dev/null
md=$tmp/eager.md
expect "$md" '| cuBLAS ms (best / cuBLAS) | PyTorch eager ms (best / eager) | variants | tune s |'
expect "$md" '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'
expect "$md" '| gemm_square | matmul | ok/ok | 4.2000 | 0.7000 | 6.00x | `restrict-const,gemm-tile{tile=64}` | 12 (0%) | 72 (2%) | 24.50 (40.8% of fp32) | - | 0.3500 (2.00x) | 24 | 96 |'
expect "$md" '| relu | relu | ok/ok | 0.5500 | 0.5500 | 1.00x | (original kept) | 3904 (92%) | 3904 (92%) | - | - | 0.5000 (1.10x) | 10 | 30 |'
expect "$md" '| saxpy | saxpy | ok/ok | - | - | - | not measured: no CUDA GPU'
expect "$md" 'no CUDA driver (libcuda.so.1 not found) | - | - | - | - | 0.6000 | - | 4 |'
expect "$md" '| scan | - | FAIL/skip | - | - | - | not measured: no report | - | - | - | - | n/a | - |'
expect "$md" "geometric mean of best / eager over 2 programs: 1.483 (below 1: cuda-opt's best is faster); best faster on 0"
python3 - "$tmp/eager.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
p = {r["program"]: r for r in d["programs"]}
assert abs(p["gemm_square"]["best_over_eager"] - 2.0) < 1e-9
assert p["saxpy"]["pytorch_eager_ms"] == 0.6 and "best_over_eager" not in p["saxpy"]
assert d["totals"]["eager_programs"] == 2
PY
[ $fail = 0 ] && echo "test-summarize: ok"
exit $fail
