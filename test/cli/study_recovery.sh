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

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
