#!/usr/bin/env bash
# scripts/sweep: one `trainsim run` per point of a cartesian product, one CSV row per point.
# Checked here: the rows are the product in order (last axis fastest) with the varied values; a
# point's numbers are exactly those `trainsim run --set ...` writes for it (compared with a direct
# run, not recomputed); a point trainsim rejects is a row with status "invalid" and trainsim's
# reason; "parallelism.dp=auto" gives dp = gpus/(tp*pp*cp); -j 1 and -j 2 give byte-identical CSVs;
# a sweep of 10^9 points is refused before anything runs, and other bad usage is one line, exit 2.
#
# Usage: bash sweep.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: sweep.sh TRAINSIM REPO}
repo=${2:?usage: sweep.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
sweep="$repo/scripts/sweep"
config="$repo/configs/quickstart.json"  # 16 GPUs, tp 4, pp 2, dp 2

"$sweep" "$config" --trainsim "$trainsim" -j 2 -o "$work/a.csv" \
  --vary parallelism.dp=auto --vary parallelism.tp=2,3,4 --vary training.micro_batch=1..2 2>"$work/a.err"
rc=$?
if [ $rc -eq 0 ]; then pass "a 1 x 3 x 2 sweep exits 0"; else fail "sweep" "exit $rc: $(cat "$work/a.err")"; fi

# Direct runs of two points, to compare with.
"$trainsim" run "$config" -q -o "$work/tp4mb2.json" --set parallelism.dp=auto --set parallelism.tp=4 --set training.micro_batch=2
"$trainsim" run "$config" -q -o "$work/tp2mb1.json" --set parallelism.dp=auto --set parallelism.tp=2 --set training.micro_batch=1

python3 - "$work" <<'PY' >"$work/checks" 2>&1
import csv, json, sys
work = sys.argv[1]
rows = list(csv.DictReader(open(f"{work}/a.csv")))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
check([(r["parallelism.tp"], r["training.micro_batch"]) for r in rows] ==
      [("2", "1"), ("2", "2"), ("3", "1"), ("3", "2"), ("4", "1"), ("4", "2")],
      "six rows, the product in order (last axis fastest)")
by = {(r["parallelism.tp"], r["training.micro_batch"]): r for r in rows}
for key, name in ((("4", "2"), "tp4mb2"), (("2", "1"), "tp2mb1")):
    report = json.load(open(f"{work}/{name}.json"))
    row = by[key]
    check(row["status"] == "ok", f"tp {key[0]} micro_batch {key[1]}: status ok")
    check(row["step_time_s"] == repr(report["step_time_s"]) and row["mfu"] == repr(report["mfu"])
          and row["peak_bytes_per_gpu"] == repr(report["memory"]["peak_bytes_per_gpu"]),
          f"tp {key[0]} micro_batch {key[1]}: step time, MFU and memory are the direct run's, exactly")
# 16 GPUs / (tp 4 * pp 2) = 2; / (tp 2 * pp 2) = 4.
check(by[("4", "2")]["dp"] == "2" and by[("2", "1")]["dp"] == "4", "dp auto: 16/(tp*pp) = 2 at tp 4, 4 at tp 2")
bad = by[("3", "1")]
check(bad["status"] == "invalid" and "tp*pp*cp = 6 to divide the cluster's 16 GPUs" in bad["error"]
      and bad["step_time_s"] == "", "tp 3: invalid, with trainsim's reason and no numbers")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"

"$sweep" "$config" --trainsim "$trainsim" -j 1 -o "$work/b.csv" \
  --vary parallelism.dp=auto --vary parallelism.tp=2,3,4 --vary training.micro_batch=1..2 2>/dev/null
if cmp -s "$work/a.csv" "$work/b.csv"; then pass "-j 1 and -j 2: byte-identical CSVs"; else fail "determinism" "the CSVs differ"; fi

source "$(dirname "$0")/lib/usage.bash"
usage_cmd=("$sweep")
usage_prog=scripts/sweep
usage "10^9 points" "more than 100000 points (1000 x 1000000): over the limit" "$config" --trainsim "$trainsim" \
  --vary training.seq_len=1..1000 --vary training.global_batch=1..1000000
usage "a 10^12-value range" "more than 100000 points" "$config" --trainsim "$trainsim" --vary cluster.gpus=1..1000000000000
usage "no --vary" "nothing to sweep" "$config" --trainsim "$trainsim"
usage "no equals sign" "expected PATH=VALUES" "$config" --trainsim "$trainsim" --vary parallelism.tp
usage "bad range" "expected LO..HI or LO..HI:xF" "$config" --trainsim "$trainsim" --vary parallelism.tp=1..x
usage "empty range" "the range is empty (8 > 1)" "$config" --trainsim "$trainsim" --vary parallelism.tp=8..1
usage "path twice" "a path is varied twice" "$config" --trainsim "$trainsim" --vary parallelism.tp=1 --vary parallelism.tp=2
usage "missing config" "cannot read the file" "$work/missing.json" --trainsim "$trainsim" --vary parallelism.tp=1
usage "unknown option" "unrecognized arguments: --bogus" "$config" --trainsim "$trainsim" --vary parallelism.tp=1 --bogus
usage "-j 0" "-j 0 is out of range" "$config" --trainsim "$trainsim" --vary parallelism.tp=1 -j 0

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
