#!/usr/bin/env bash
# Speed guarded without timing: the transfers the engine simulates (report `simulation.transfers`,
# deterministic for a config and seed) for scripts/bench's matrix (scripts/lib/bench_matrix.py:
# GPT-3 175B, TP 8, PP 8, 32 microbatches per replica, on A100, H100, B200, GB200 NVL72, Llama 3's
# cluster with 1:7 pods and TPU v4, under ZeRO-1, ZeRO-2 with overlapped reduction, ZeRO-3 and
# HSDP) at 1k and 16k GPUs. A change that stops a fold, or the quotient (flow_quotient.hpp), makes
# a count grow, and the test fails.
#
# Usage: bash flow_counts.sh TRAINSIM REPO
#
# Expectations:
# - Each count is at most its ceiling in test/data/bench-matrix-transfers.json: the count the
#   engine simulated when the ceiling was written (a fold that improves lowers the count and
#   passes; lower the ceiling with it: `python3 scripts/lib/bench_matrix.py --ceilings build/trainsim`).
# - Independent of those numbers: where rings fold (A100 nodes, GB200 racks; ZeRO-1, whose
#   gradients are reduced once per step), the transfers do not depend on the data-parallel degree,
#   so 131,072 GPUs simulate exactly as many as 16,384 (sim/engine/replay.cpp, "Folding").
# - Under the sanitizers (minutes of instrumented simulation) the cells of more than 50,000
#   transfers and the 131,072-GPU runs are left out; the normal build runs them all.
set -u

trainsim=${1:?usage: flow_counts.sh TRAINSIM REPO}
repo=${2:?usage: flow_counts.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

sanitized=0
grep -q -a __asan_init "$trainsim" && sanitized=1
python3 - "$trainsim" "$repo" "$work" "$sanitized" >"$work/verdicts" <<'PY'
import json, os, subprocess, sys
trainsim, repo, work = sys.argv[1:4]
sanitized = sys.argv[4] == "1"

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(repo, "scripts", "lib"))
import bench_matrix

ceilings = json.load(open(os.path.join(repo, "test", "data", "bench-matrix-transfers.json")))
count = {}
def run(name, args):
    report = os.path.join(work, "report.json")
    done = subprocess.run([trainsim, "run", *args, "-q", "-o", report], cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"FAIL\t{name}\t{done.stderr.strip()[-300:]}")
        return
    count[name] = json.load(open(report))["simulation"]["transfers"]

for name, args in bench_matrix.cells(("1k", "16k")):
    if sanitized and ceilings.get(name, 0) > 50000:
        continue
    run(name, args)
    if name not in count:
        continue
    ceiling = ceilings.get(name)
    if ceiling is None:
        print(f"FAIL\t{name}\tno ceiling in test/data/bench-matrix-transfers.json")
    elif count[name] <= ceiling:
        print(f"PASS\t{name}: {count[name]} transfers, at most {ceiling}")
    else:
        print(f"FAIL\t{name}\t{count[name]} transfers, more than {ceiling}: a fold stopped applying")
for cluster in () if sanitized else ("dgx-a100-superpod", "gb200-nvl72"):
    big, small = f"{cluster} 131k zero-1", f"{cluster} 16k zero-1"
    run(big, bench_matrix.args(cluster, "131k", "zero-1"))
    if big in count and count[big] == count.get(small):
        print(f"PASS\t{big} simulates as many transfers as {small} ({count[big]})")
    elif big in count:
        print(f"FAIL\t{big} vs {small}\t{count[big]} against {count.get(small)}: the count grows with dp")
PY
while IFS=$'\t' read -r verdict name why; do
  if [ "$verdict" = PASS ]; then pass "$name"; else fail "$name" "$why"; fi
done <"$work/verdicts"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
