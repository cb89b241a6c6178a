#!/usr/bin/env bash
# Inputs that could be read as something else, each refused (exit 2, one line naming where)
# or read exactly:
#  - a seed is read exactly: 2^53 + 1 runs as itself, not as 2^53; 2^62 is refused by the
#    [0, 2^62 - 1] check instead of rounding into it; 2^53 + 1 written with an exponent is refused.
#  - a report whose step time was edited to -1 s (or an ETTR to 1.5) is refused by `trainsim report`.
#  - "failures": {} (in the file or through --set) is refused, not read as no failures; so is
#    "recovery": {} without failures.
#  - a straggler fraction below one GPU (1e-11, 1e-320 of 16 GPUs) is refused, not read as none.
#  - --max-memory '1e300 B' is refused: at most 1 PiB.
#  - a cluster whose "from" chain loops (a.json -> b.json -> a.json) is refused naming the loop.
# Usage: bash input_bounds.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: input_bounds.sh TRAINSIM REPO}
repo=${2:?usage: input_bounds.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/refusal.bash"
cd "$repo" || exit 1
quick=configs/quickstart.json
poisson='failures={"kind": "poisson", "per_node_day": 0.5, "horizon": "7 d", "trials": 5}'

# Seeds: the report states the seed it ran, and two neighbours above 2^53 draw different failures.
for seed in 9007199254740992 9007199254740993; do
  timeout 60 "$trainsim" run "$quick" -q -o "$work/seed-$seed.json" --set "$poisson" --set seed=$seed ||
    fail "seed $seed" "exit $?"
done
if python3 - "$work/seed-9007199254740992.json" "$work/seed-9007199254740993.json" <<'PY'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if (a["seed"], b["seed"]) == (2**53, 2**53 + 1) and a["reliability"] != b["reliability"] else 1)
PY
  pass "seed 2^53 + 1 runs as itself, not as 2^53"
else
  fail "seed 2^53 + 1" "ran as another seed"
fi
refused "seed 2^62" ": /seed: " "4611686018427387904 is out of range" -- "$trainsim" check "$quick" --set seed=4611686018427387904
refused "seed 2^53 + 1 with an exponent" ": /seed: " "written as a decimal fraction or exponent" \
  -- "$trainsim" check "$quick" --set seed=9.007199254740993e15

# Reports read back.
timeout 60 "$trainsim" run "$quick" -q -o "$work/report.json" --set "$poisson" || fail "run" "exit $?"
python3 - "$work/report.json" "$work" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def edited(name, change):
    e = json.loads(json.dumps(r))
    change(e)
    json.dump(e, open(f"{sys.argv[2]}/{name}.json", "w"))
edited("negative-step", lambda e: e.__setitem__("step_time_s", -1))
edited("ettr-above-1", lambda e: e["reliability"].__setitem__("ettr", 1.5))
edited("negative-bubble", lambda e: e["breakdown"].__setitem__("bubble_s", -0.5))
PY
refused "report: step time -1 s" "negative-step.json: /step_time_s: " "-1 is out of range" \
  -- "$trainsim" report "$work/negative-step.json"
refused "report: ETTR 1.5" "ettr-above-1.json: /reliability/ettr: " "1.5 is out of range" \
  -- "$trainsim" report "$work/ettr-above-1.json" --format json
refused "report: a negative bubble" "negative-bubble.json: /breakdown/bubble_s: " "-0.5 is out of range" \
  -- "$trainsim" report "$work/negative-bubble.json" --format csv

# Empty sections.
refused "failures={} through --set" ": /failures: " "is an empty object, which would change nothing" \
  -- "$trainsim" check "$quick" --set 'failures={}'
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s["failures"] = {}; s["recovery"] = {}; json.dump(s, open(sys.argv[2], "w"))' \
  "$quick" "$work/empty-failures.json"
refused "failures: {} in the file" "empty-failures.json: /failures: " "is an empty object" \
  -- "$trainsim" run "$work/empty-failures.json"
refused "recovery={} without failures" ": /recovery: " "a recovery strategy needs a failures section" \
  -- "$trainsim" check "$quick" --set 'recovery={}'
for fraction in 1e-11 1e-320; do
  refused "straggler fraction $fraction" ": /step_faults/stragglers/fraction: " "of 16 GPUs is less than one GPU" \
    -- "$trainsim" check "$quick" --set "step_faults={\"stragglers\": {\"fraction\": $fraction, \"factor\": 2}}"
done
refused "--max-memory 1e300 B" "--max-memory" "is more than 1 PiB" -- "$trainsim" run "$quick" -q --max-memory '1e300 B'

# A "from" loop: two complete cluster files naming each other.
python3 - topologies/dgx-a100-superpod.json "$work" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for me, other in (("a", "b"), ("b", "a")):
    json.dump(dict(c, **{"from": other + ".json"}), open(f"{sys.argv[2]}/{me}.json", "w"))
PY
refused "a from chain that loops" "b.json: /from: " "the \"from\" chain loops: $work/a.json -> $work/b.json -> $work/a.json" \
  -- "$trainsim" check "$quick" --set "cluster={\"from\": \"$work/a.json\", \"gpus\": 16}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
