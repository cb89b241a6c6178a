#!/usr/bin/env bash
# The memory verdict, one rule for every command (sim/workload/memory_budget.hpp): the reserved
# peak against the usable memory (HBM less the CUDA context and NCCL's buffers). A plan over it is
# simulated and reported (memory.fits false, over_bytes = reserved - usable, recomputed here from
# the report's own fields); --strict-memory refuses it on run and check (one line, exit 2) and
# makes it a failed row of validate and an invalid point of a sweep; every plan search lists fits,
# as `trainsim check` on that plan says. Bad input for the flag is one line, exit 2.
#
# Usage: bash memory_verdict.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: memory_verdict.sh TRAINSIM REPO}
repo=${2:?usage: memory_verdict.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
quick=configs/quickstart.json
# The quickstart (GPT 7.5B, tp 4, pp 2, dp 2 on 16 A100-80GB) with 32 sequences per micro-batch
# and no recompute: 32 x 2048 tokens of a 4096-wide model's activations, tens of GiB per layer
# group, far over 80 GiB.
over=(--set training.micro_batch=32 --set 'training.recompute="none"')

refused() {  # NAME FRAGMENT -- COMMAND...: exit 2, one line on stderr naming FRAGMENT, nothing on stdout
  local name=$1 fragment=$2
  shift 3
  timeout 120 "$@" >"$work/r.out" 2>"$work/r.err"
  local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$work/r.out" ] && [ "$(wc -l <"$work/r.err")" -eq 1 ] &&
    grep -q -- "$fragment" "$work/r.err"; then
    pass "$name: exit 2, one line"
  else
    fail "$name" "exit $rc: $(head -c 300 "$work/r.err") / $(head -c 200 "$work/r.out")"
  fi
}

# --- over memory: simulated and reported --------------------------------------------------------
if timeout 300 "$trainsim" run "$quick" "${over[@]}" -o "$work/over.json" >"$work/over.txt" 2>"$work/over.err"; then
  pass "a plan over memory runs (exit 0)"
else
  fail "a plan over memory runs" "$(head -c 300 "$work/over.err")"
fi
timeout 300 "$trainsim" run "$quick" -q -o "$work/fits.json" 2>"$work/fits.err" || fail "quickstart" "$(head -c 300 "$work/fits.err")"
python3 - "$work/over.json" "$work/over.txt" "$work/fits.json" <<'PY' >"$work/checks" 2>&1
import json, sys
over, text, fits = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
m = over["memory"]
usable = m["capacity_bytes"] - m["cuda_context_bytes"] - m["nccl_buffer_bytes"]
check(abs(m["usable_bytes"] - usable) <= 1e-9 * usable, f"usable = capacity - CUDA context - NCCL buffers ({usable:.0f} B)")
# NCCL buffers: 16 channels x (LL 512 KiB + LL128 4,915,200 B + Simple 4 MiB) per parallel group of
# more than one GPU: tp 4, pp 2, dp 2 are three (NCCL 2.30.7 src/init.cc); the CUDA context 400 MiB.
check(m["nccl_buffer_bytes"] == 3 * 16 * (524288 + 4915200 + 4194304), f"NCCL buffers of three groups ({m['nccl_buffer_bytes']})")
check(m["cuda_context_bytes"] == 400 * 2**20, "the CUDA context: 400 MiB")
check(m["fits"] is False and m["reserved_bytes_per_gpu"] > usable, "fits is false: the reserved peak is over the usable memory")
expected = m["reserved_bytes_per_gpu"] - m["usable_bytes"]
check(abs(m["over_bytes"] - expected) <= 1e-9 * expected, f"over_bytes = reserved - usable ({expected:.0f} B)")
e = m["model_error"]
check(0 < e["mean"] <= e["worst"] < 1 and e["rows"] > 0, f"the model's measured error is stated ({e})")
want = f"over by {expected / 2**30:.2f} GiB (model error \u00b1{100 * e['mean']:.1f}% mean, {100 * e['worst']:.1f}% worst)"
check(want in text, f"the summary says {want!r}")
check(over["step_time_s"] > 0, "and the step is simulated")
f = fits["memory"]
check(f["fits"] is True and f["over_bytes"] == 0 and f["reserved_bytes_per_gpu"] <= f["usable_bytes"],
      "the quickstart fits: over_bytes 0, reserved within usable")
PY
while read -r status rest; do
  if [ "$status" = ok ]; then pass "$rest"; else fail "report" "$rest"; fi
done <"$work/checks"

# check without the flag accepts it and says it is over.
if timeout 120 "$trainsim" check "$quick" "${over[@]}" >"$work/c.out" 2>"$work/c.err" && grep -q ": over by " "$work/c.out"; then
  pass "check accepts the plan and says it is over"
else
  fail "check without --strict-memory" "$(cat "$work/c.out" "$work/c.err" | head -c 300)"
fi

# --- --strict-memory --------------------------------------------------------------------------
refused "run --strict-memory" "the plan needs .* per GPU (reserved at its peak) but a100-sxm-80gb leaves .*: over by" -- \
  "$trainsim" run "$quick" "${over[@]}" --strict-memory
refused "check --strict-memory" "the plan needs .* over by" -- "$trainsim" check "$quick" "${over[@]}" --strict-memory
if timeout 120 "$trainsim" check "$quick" --strict-memory >"$work/c.out" 2>&1 && grep -q ": fits)" "$work/c.out"; then
  pass "check --strict-memory accepts a plan that fits"
else
  fail "check --strict-memory on the quickstart" "$(head -c 300 "$work/c.out")"
fi
for cmd in run check validate; do
  refused "$cmd --strict-memory=maybe" "strict-memory" -- "$trainsim" "$cmd" "$quick" --strict-memory=maybe
done
# validate: the row over memory is a failed row with --strict-memory, simulated without it.
python3 - "$quick" "$work/table.json" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
base.pop("kind", None)
big = json.loads(json.dumps(base))
big["training"].update({"micro_batch": 32, "recompute": "none"})
runs = [{"name": n, "group": "g", "published": {"step_time_s": 4.0}, "note": "test", "scenario": s}
        for n, s in (("fits", base), ("over", big))]
json.dump({"kind": "validation", "runs": runs}, open(sys.argv[2], "w"))
PY
timeout 300 "$trainsim" validate "$work/table.json" >"$work/v.out" 2>"$work/v.err"
rc=$?
if [ $rc -eq 0 ] && grep -qE "^over +g +4\.000s +[0-9.]+s" "$work/v.out"; then
  pass "validate simulates the row over memory"
else
  fail "validate without --strict-memory" "exit $rc: $(head -c 300 "$work/v.err")"
fi
timeout 300 "$trainsim" validate "$work/table.json" --strict-memory >"$work/v.out" 2>"$work/v.err"
rc=$?
if [ $rc -eq 1 ] && grep -qE "^over .*failed: .*the plan needs" "$work/v.out" && grep -qE "^fits +g +4\.000s +[0-9.]+s" "$work/v.out"; then
  pass "validate --strict-memory: the row over memory is a failed row, the other runs"
else
  fail "validate --strict-memory" "exit $rc: $(head -c 300 "$work/v.out")"
fi

# sweep: the point over memory runs with fits false; with --strict-memory it is invalid.
sweep_points() {  # OUT ARGS...: the sweep over micro_batch 1 (fits) and 32 (over), no recompute
  local out=$1
  shift
  timeout 300 python3 scripts/sweep "$quick" --trainsim "$trainsim" --vary training.recompute=none \
    --vary training.micro_batch=1,32 -j 1 -o "$out" "$@" 2>"$work/s.err"
}
sweep_points "$work/loose.csv"
sweep_points "$work/strict.csv" --strict-memory
python3 - "$work/loose.csv" "$work/strict.csv" <<'PY' >"$work/sweep.checks" 2>&1
import csv, sys
loose, strict = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
def point(rows, mb):
    return next((r for r in rows if r["training.micro_batch"] == mb), {})
check(point(loose, "32").get("status") == "ok" and point(loose, "32").get("fits") == "false",
      f"sweep: the point over memory runs with fits false ({point(loose, '32')})")
check(point(strict, "32").get("status") == "invalid" and "the plan needs" in point(strict, "32").get("error", ""),
      f"sweep --strict-memory: the point over memory is invalid ({point(strict, '32').get('error')})")
check(point(strict, "1").get("status") == "ok" and point(strict, "1").get("fits") == "true",
      "sweep --strict-memory: the point that fits runs")
PY
while read -r status rest; do
  if [ "$status" = ok ]; then pass "$rest"; else fail "sweep" "$rest $(head -c 300 "$work/s.err")"; fi
done <"$work/sweep.checks"

# --- search: every plan it lists fits, by `trainsim check` on that plan --------------------------
# On 40 GB A100s many of the 16-GPU plans do not fit.
small=(--set cluster.gpu=a100-sxm-40gb)
timeout 600 "$trainsim" search "$quick" "${small[@]}" --top 3 >"$work/search.out" 2>"$work/search.err" ||
  fail "search" "$(head -c 300 "$work/search.err")"
python3 - "$work/search.out" <<'PY' >"$work/plans"
import re, sys
# rank tp cp pp dp sp recompute zero prec mb v memory/GPU ...
for line in open(sys.argv[1]):
    m = re.match(r"^\s*\d+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(on|off)\s+(\S+)\s+(\d)\s+(\S+)\s+(\d+)\s+(\d+)\s", line)
    if m:
        tp, cp, pp, dp, sp, rc, zero, prec, mb, v = m.groups()
        print(f"parallelism.tp={tp} parallelism.cp={cp} parallelism.pp={pp} parallelism.dp={dp} "
              f"parallelism.sequence_parallel={'true' if sp == 'on' else 'false'} training.recompute=\"{rc}\" "
              f"parallelism.zero={zero} training.precision=\"{prec}\" training.micro_batch={mb} "
              f"parallelism.virtual_stages={v}")
PY
listed=0
while read -r -a sets; do
  args=()
  for s in "${sets[@]}"; do args+=(--set "$s"); done
  listed=$((listed + 1))
  if timeout 120 "$trainsim" check "$quick" "${small[@]}" "${args[@]}" >"$work/c.out" 2>&1 && grep -q ": fits)" "$work/c.out"; then
    pass "search's plan $listed fits by check (${sets[*]})"
  else
    fail "search's plan $listed" "$(head -c 300 "$work/c.out")"
  fi
done <"$work/plans"
[ $listed -gt 0 ] || fail "search" "no plan listed: $(head -c 300 "$work/search.out")"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
