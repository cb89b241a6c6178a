#!/usr/bin/env bash
# The recovery study (scripts/study-recovery, configs/studies/recovery/) at its most frequent failures with
# few trials: every strategy runs on the study's job; the continuing strategies keep more goodput
# than checkpoint-restart and recover faster (no restart, no reload: detection + pause < detection
# + restart + reload); the CSV header is the committed results' (so results.csv is not stale); the
# figure is a PNG; bad usage is one line and exit 2.
# Usage: bash study_recovery.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: study_recovery.sh TRAINSIM REPO}
repo=${2:?usage: study_recovery.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
study=configs/studies/recovery/study.json

if timeout 300 /usr/bin/python3 scripts/study-recovery "$study" --rates "10 min" --trials 3 --trainsim "$trainsim" \
     -o "$work/r.csv" --plot "$work/g.png" 2>"$work/err"; then
  pass "study at a job MTTF of 10 min (Bamboo's frequent preemption), 3 trials: exit 0"
else
  fail "study" "exit $?: $(tail -1 "$work/err")"
fi
/usr/bin/python3 - "$work/r.csv" configs/studies/recovery/results.csv "$study" >"$work/checks" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
committed = open(sys.argv[2]).readline()
study = json.load(open(sys.argv[3]))
def check(name, good):
    print(("ok   " if good else "FAIL ") + name)
check("one row per strategy", [r["strategy"] for r in rows] == [s["label"] for s in study["strategies"]])
check("every strategy runs on the study's job", all(r["status"] == "ok" for r in rows))
check("the CSV header is the committed results'", open(sys.argv[1]).readline() == committed)
g = {r["strategy"]: float(r["goodput"] or 0) for r in rows}
rec = {r["strategy"]: float(r["mean_recovery_s"] or 0) for r in rows}
for s in ("reconfigure", "redundant", "reroute", "swarm"):
    check(f"{s}: goodput {g[s]:.3f} above checkpoint-restart's {g['checkpoint-restart']:.3f}", g[s] > g["checkpoint-restart"])
    check(f"{s}: recovery {rec[s]:.0f} s shorter than checkpoint-restart's {rec['checkpoint-restart']:.0f} s",
          rec[s] < rec["checkpoint-restart"])
PY
cat "$work/checks"
passed=$((passed + $(grep -c '^ok' "$work/checks")))
failed=$((failed + $(grep -c '^FAIL' "$work/checks")))
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  [ "$(head -c 4 "$work/g.png" | od -An -c | tr -d ' ')" = '211PNG' ] && pass "--plot writes a PNG" ||
    fail "--plot" "not a PNG"
fi
err=$(timeout 60 /usr/bin/python3 scripts/study-recovery "$study" --rates "2 h" --trainsim "$trainsim" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"unknown rate '2 h'"* ]] &&
  pass "unknown rate: one line, exit 2" || fail "unknown rate" "rc $rc: $err"

# A list in a strategy's `set`: one point per value, in the list's order, under the strategy's one
# label; each point's checkpoint interval is the one listed, rounded up to whole steps (a checkpoint
# is taken between steps): ceil(minutes x 60 / step) x step.
/usr/bin/python3 - "$work/list.json" "$repo/configs/studies/recovery/job.json" <<'PY'
import json, sys
json.dump({"kind": "study", "scenario": sys.argv[2],
           "rates": [{"label": "1 h", "per_node_day": 0.1875}],
           "strategies": [{"label": "checkpoint-restart",
                           "set": {"recovery.kind": "checkpoint-restart",
                                   "recovery.checkpoint_interval": ["4 min", "16 min"]}}]},
          open(sys.argv[1], "w"))
PY
if timeout 300 /usr/bin/python3 scripts/study-recovery "$work/list.json" --trials 2 --trainsim "$trainsim" \
     -o "$work/list.csv" 2>"$work/err"; then
  got=$(/usr/bin/python3 - "$work/list.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = [math.ceil(m * 60 / float(r["step_time_s"])) * float(r["step_time_s"]) for m, r in zip((4, 16), rows)]
ok = [r["strategy"] for r in rows] == ["checkpoint-restart"] * 2 and \
    all(abs(float(r["checkpoint_interval_s"]) - w) <= 1e-5 * w for r, w in zip(rows, want))
print(("ok " if ok else "bad ") + " ".join(r["strategy"] + "@" + r["checkpoint_interval_s"] for r in rows))
PY
)
  [[ "$got" == ok* ]] && pass "a list in set: one point per value (${got#ok })" || fail "a list in set" "$got"
else
  fail "a list in set" "exit $?: $(tail -1 "$work/err")"
fi
err=$(timeout 60 /usr/bin/python3 scripts/study-recovery "$work/list.json" --plot "$work/l.png" --trainsim "$trainsim" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"--plot: a strategy with a list"* ]] &&
  pass "--plot with a list: one line, exit 2" || fail "--plot with a list" "rc $rc: $err"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
