#!/usr/bin/env bash
# The optical study (scripts/study-optical, configs/studies/optical/) on a small study of its own
# (a 64-chip job; a fat-tree, a direct-connect network, a static mesh and an OCS torus; budgets of
# half and once the torus's capex), checked against invariants: every point prices to its budget
# (capex per chip = budget x the reference's at its own bandwidths: equal cost, recomputed here
# from the CSV), the reference runs unscaled at budget 1, more budget never slows a network down,
# the same study gives the same CSV; the shipped study's header is the committed results';
# `scripts/plot cost` draws the same bytes twice; bad usage is one line and exit 2.
# Usage: bash study_optical.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: study_optical.sh TRAINSIM REPO}
repo=${2:?usage: study_optical.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

/usr/bin/python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
job = json.load(open("configs/studies/optical/job.json"))
job.update(model="llama2-7b", parallelism={"tp": 1, "pp": 1, "dp": 64, "zero": 3, "overlap_grad_reduce": True})
job["training"].update(global_batch=64)
json.dump(job, open(os.path.join(work, "job.json"), "w"))
chips = {"gpu": "tpu-v4", "gpus": 64, "gpus_per_node": 4}
dcn = {"kind": "fat-tree", "nics_per_node": 1, "nic_bandwidth": "200 Gb/s"}
torus = lambda kind, **kw: dict(chips, scale_up=dict({"kind": kind, "dims": [4, 4, 4], "cube": [4, 4, 4],
                                                      "bandwidth": "45 GB/s"}, **kw), scale_out=dcn)
study = {"kind": "study", "scenario": "job.json", "reference": "torus", "budgets": [0.5, 1],
         "networks": [
             {"label": "fat-tree", "scale": ["scale_out.nic_bandwidth"],
              "cluster": dict(chips, scale_up={"kind": "nvswitch", "bandwidth": "90 GB/s"},
                              scale_out={"kind": "fat-tree", "nics_per_node": 4, "nic_bandwidth": "400 Gb/s"})},
             {"label": "direct", "scale": ["scale_out.nic_bandwidth"],
              "cluster": dict(chips, scale_up={"kind": "nvswitch", "bandwidth": "90 GB/s"},
                              scale_out={"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "400 Gb/s"})},
             {"label": "mesh", "scale": ["scale_up.bandwidth", "scale_out.nic_bandwidth"], "cluster": torus("mesh")},
             {"label": "torus", "scale": ["scale_up.bandwidth", "scale_out.nic_bandwidth"],
              "cluster": torus("torus", ocs=True)}]}
json.dump(study, open(os.path.join(work, "study.json"), "w"))
bad = dict(study, reference="ring")
json.dump(bad, open(os.path.join(work, "bad-reference.json"), "w"))
bad = json.loads(json.dumps(study))
bad["networks"][0]["scale"] = ["scale_up.latency"]
json.dump(bad, open(os.path.join(work, "bad-scale.json"), "w"))
PY

for run in 1 2; do
  if timeout 300 /usr/bin/python3 scripts/study-optical "$work/study.json" --trainsim "$trainsim" -o "$work/r$run.csv" \
       2>"$work/err"; then
    pass "study, run $run: exit 0"
  else
    fail "study, run $run" "exit $?: $(tail -1 "$work/err")"
  fi
done
cmp -s "$work/r1.csv" "$work/r2.csv" && pass "the same study gives a byte-identical CSV" || fail "determinism" "CSVs differ"
/usr/bin/python3 - "$work/r1.csv" configs/studies/optical/results.csv >"$work/checks" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def check(name, good):
    print(("ok   " if good else "FAIL ") + name)
check("eight points, all ok", len(rows) == 8 and all(r["status"] == "ok" for r in rows))
ref = next(r for r in rows if r["network"] == "torus" and float(r["budget"]) == 1)
check("the reference runs unscaled at budget 1", float(ref["scale"]) == 1)
for r in rows:
    want = float(r["budget"]) * float(ref["capex_per_chip_usd"])
    got = float(r["capex_per_chip_usd"])
    check(f"{r['network']} at {r['budget']}x: ${got:.2f} per chip = budget x reference ${want:.2f}",
          abs(got / want - 1) < 1e-4)
for n in ("fat-tree", "mesh", "torus"):
    t = {float(r["budget"]): float(r["tokens_per_s"]) for r in rows if r["network"] == n}
    check(f"{n}: throughput at 1x ({t[1]:.0f}) not below 0.5x ({t[0.5]:.0f})", t[1] >= t[0.5])
check("the shipped study's CSV header is this one's", open(sys.argv[1]).readline() == open(sys.argv[2]).readline())
PY
cat "$work/checks"
passed=$((passed + $(grep -c '^ok' "$work/checks")))
failed=$((failed + $(grep -c '^FAIL' "$work/checks")))

if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  for n in 1 2; do /usr/bin/python3 scripts/plot cost "$work/r1.csv" -o "$work/c$n.png" 2>"$work/err"; done
  [ "$(head -c 4 "$work/c1.png" | od -An -c | tr -d ' ')" = '211PNG' ] && cmp -s "$work/c1.png" "$work/c2.png" &&
    pass "scripts/plot cost: a PNG, the same bytes twice" || fail "scripts/plot cost" "$(cat "$work/err")"
fi

one_line_exit_2() {  # NAME EXPECTED-FRAGMENT ARGS...
  local name=$1 want=$2
  shift 2
  local err rc
  err=$(timeout 60 /usr/bin/python3 scripts/study-optical "$@" --trainsim "$trainsim" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$want"* ]] &&
    pass "$name: one line, exit 2" || fail "$name" "rc $rc: $err"
}
one_line_exit_2 "unknown reference" "/reference: 'ring' is not a network's label" "$work/bad-reference.json"
one_line_exit_2 "a scaled path that is no bandwidth" "/networks/0/scale/0: 'scale_up.latency' is not a bandwidth" \
  "$work/bad-scale.json"
one_line_exit_2 "unknown budget" "--budgets: 3" "$work/study.json" --budgets 3

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
