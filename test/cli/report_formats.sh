#!/usr/bin/env bash
# `trainsim run --format table|json|csv` and `trainsim report REPORT.json...`: the summary a run
# prints is the one `trainsim report` prints from its saved report, byte for byte (with the step
# faults and reliability sections too); --format json prints the report as -o writes it; --format
# csv one row per report whose cells are the report's scalar fields (flattened here independently,
# in Python); the summary's numbers are the report's, rounded as printed; colour (ANSI escapes)
# only on a terminal (script(1)), never in a pipe, with NO_COLOR or TERM=dumb. Bad usage: one
# line, exit 2.
#
# Usage: bash report_formats.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: report_formats.sh TRAINSIM REPO}
repo=${2:?usage: report_formats.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/usage.bash"
usage_cmd=("$trainsim")
usage_prog=trainsim

# name config: the run's summary, its report and its summary reprinted
names=(quick faults reliability)
configs=("$repo/configs/quickstart.json" "$repo/configs/faults/gpu-failure.json"
  "$repo/configs/recovery/gpt3-175b-1024xa100-reconfigure.json")
for i in 0 1 2; do
  n=${names[$i]}
  "$trainsim" run "${configs[$i]}" -o "$work/$n.json" >"$work/$n.txt" 2>"$work/$n.err" || fail "$n run" "$(cat "$work/$n.err")"
  "$trainsim" report "$work/$n.json" >"$work/$n.again" 2>"$work/$n.again.err"
  if cmp -s "$work/$n.txt" "$work/$n.again" && [ -s "$work/$n.txt" ]; then
    pass "$n: trainsim report prints the run's summary, byte for byte"
  else
    fail "$n: report" "$(diff "$work/$n.txt" "$work/$n.again" | head -5) $(cat "$work/$n.again.err")"
  fi
  if grep -q $'\x1b' "$work/$n.txt"; then fail "$n: no colour in a pipe" "escape found"; else pass "$n: no colour in a pipe"; fi
done
grep -q "^  failure     " "$work/faults.txt" && pass "faults: the failure line is printed" ||
  fail "faults summary" "no failure line"
grep -q "^  ETTR        " "$work/reliability.txt" && grep -q "^  continuing  " "$work/reliability.txt" &&
  pass "reliability: ETTR and continuing lines are printed" || fail "reliability summary" "lines missing"

"$trainsim" run "${configs[0]}" --format json >"$work/run.json" 2>/dev/null
"$trainsim" report "$work/quick.json" --format json >"$work/report.json" 2>/dev/null
cmp -s "$work/run.json" "$work/quick.json" && pass "run --format json prints what -o writes" ||
  fail "run --format json" "differs from -o"
cmp -s "$work/report.json" "$work/quick.json" && pass "report --format json reprints the report" ||
  fail "report --format json" "differs"
"$trainsim" run "${configs[0]}" --format csv >"$work/run.csv" 2>/dev/null
"$trainsim" report "$work/quick.json" "$work/faults.json" "$work/reliability.json" --format csv >"$work/all.csv" 2>/dev/null
"$trainsim" report "$work/quick.json" "$work/faults.json" --format json >"$work/two.json" 2>/dev/null
"$trainsim" run "${configs[0]}" -q >"$work/quiet" 2>/dev/null
[ ! -s "$work/quiet" ] && pass "-q prints nothing" || fail "-q" "printed $(head -c 100 "$work/quiet")"

python3 - "$work" <<'PY' >"$work/checks" 2>&1
import csv, json, re, sys
work = sys.argv[1]

def flatten(v, prefix=""):
    if isinstance(v, dict):
        out = []
        for k, c in v.items():
            out += flatten(c, f"{prefix}.{k}" if prefix else k)
        return out
    return [] if isinstance(v, list) else [(prefix, v)]

def same(cell, value):
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, (int, float)):
        return float(cell) == float(value)
    return cell == value

def check(name, ok, why=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {why}"))

reports = {n: json.load(open(f"{work}/{n}.json")) for n in ("quick", "faults", "reliability")}
rows = list(csv.reader(open(f"{work}/run.csv", newline="")))
fields = flatten(reports["quick"])
check("run --format csv: a header and one row", len(rows) == 2, f"{len(rows)} lines")
check("csv header: the report's scalar fields in its order", rows[0] == [k for k, _ in fields], rows[0][:5])
bad = [k for (k, v), c in zip(fields, rows[1]) if not same(c, v)]
check(f"csv row: all {len(fields)} cells equal the report's values", not bad and len(rows[1]) == len(fields), bad[:3])

rows = list(csv.reader(open(f"{work}/all.csv", newline="")))
header = rows[0]
check("report --format csv of three reports: a header and three rows", len(rows) == 4, f"{len(rows)} lines")
seen = []
for n in ("quick", "faults", "reliability"):
    seen += [k for k, _ in flatten(reports[n]) if k not in seen]
check("csv of several: the union of their fields, first seen first", header == seen, set(header) ^ set(seen))
for row, n in zip(rows[1:], ("quick", "faults", "reliability")):
    values = dict(flatten(reports[n]))
    cells = dict(zip(header, row))
    bad = [k for k in header if not same(cells[k], values.get(k))]
    check(f"csv of several: {n}'s row (its fields, empty cells for the others')", not bad and len(row) == len(header), bad[:3])
check("csv: the faults run has a step_faults column the quickstart's row leaves empty",
      "step_faults.lost_s" in header and rows[1][header.index("step_faults.lost_s")] == "")

two = json.load(open(f"{work}/two.json"))
check("report --format json of two: an array of the two reports", two == [reports["quick"], reports["faults"]])

# The summary's numbers against the report's, rounded as printed.
for n, r in reports.items():
    text = open(f"{work}/{n}.txt").read()
    m = re.search(r"step time   ([0-9.]+) s    tokens/s ([0-9]+)", text)
    check(f"{n}: step time and tokens/s as in the report", m and m.group(1) == f"{r['step_time_s']:.3f}"
          and m.group(2) == f"{r['tokens_per_s']:.0f}", m and m.groups())
    m = re.search(r"MFU ([0-9.]+)%", text)
    check(f"{n}: MFU as in the report", m and m.group(1) == f"{100 * r['mfu']:.1f}", m and m.group(1))
    p = r["plan"]
    want = f"tp {p['tp']} pp {p['pp']} dp {p['dp']} cp {p['cp']}"
    check(f"{n}: the plan line names the report's plan", want in text, want)
    m = re.search(r"    compute +([0-9.]+) s", text)
    check(f"{n}: compute time as in the report", m and m.group(1) == f"{r['breakdown']['compute_s']:.3f}")
rel = reports["reliability"]["reliability"]
m = re.search(r"ETTR +([0-9.]+)%", open(f"{work}/reliability.txt").read())
check("reliability: ETTR as in the report", m and m.group(1) == f"{100 * rel['ettr']:.1f}", m and m.group(1))
PY
while read -r status rest; do
  if [ "$status" = ok ]; then pass "$rest"; else fail "${rest%%:*}" "${rest#*: }"; fi
done <"$work/checks"
[ -s "$work/checks" ] || fail "python checks" "no output"

# Colour: only on a terminal.
colour() { script -qfec "$1" /dev/null </dev/null 2>/dev/null; }
out=$(colour "'$trainsim' report '$work/quick.json'")
[[ $out == *$'\x1b[1m'* && $out == *$'\x1b[32mfits'* ]] && pass "on a terminal: bold headline, green 'fits'" ||
  fail "colour on a terminal" "$(printf %q "${out:0:120}")"
out=$(colour "NO_COLOR=1 '$trainsim' report '$work/quick.json'")
[[ $out != *$'\x1b'* && $out == *"step time"* ]] && pass "NO_COLOR: no colour on a terminal" ||
  fail "NO_COLOR" "$(printf %q "${out:0:120}")"
out=$(colour "TERM=dumb '$trainsim' report '$work/quick.json'")
[[ $out != *$'\x1b'* && $out == *"step time"* ]] && pass "TERM=dumb: no colour" || fail "TERM=dumb" "escape found"
out=$(colour "'$trainsim' report '$work/quick.json' --format csv")
[[ $out != *$'\x1b'* && $out == name,* ]] && pass "csv on a terminal: no colour" || fail "csv colour" "escape found"

# Bad usage.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
r = json.load(open(f"{work}/quick.json"))
json.dump(dict(r, step_time_s="fast"), open(f"{work}/string.json", "w"))
del r["plan"]
json.dump(r, open(f"{work}/noplan.json", "w"))
PY
printf 'not json' >"$work/text.json"
printf '[1, 2]' >"$work/array.json"
usage "report: no file" "reports is required" report
usage "report: a missing file" "no such file" report "$work/missing.json"
usage "report: a folder" "$work" report "$work"
usage "report: not JSON" "text.json" report "$work/text.json"
usage "report: a JSON array" "is not a trainsim report" report "$work/array.json"
usage "report: a scenario" "is not a trainsim report" report "$repo/configs/quickstart.json"
usage "report: step_time_s a string" "/step_time_s: is string" report "$work/string.json"
usage "report: no plan section" "noplan.json: /plan: missing" report "$work/noplan.json"
usage "report: bad --format" "--format" report "$work/quick.json" --format xml
usage "report: the second of two is bad" "array.json" report "$work/quick.json" "$work/array.json" --format csv
usage "run: bad --format" "--format" run "${configs[0]}" --format yaml
usage "run: --format without a value" "--format" run "${configs[0]}" --format

echo "report_formats: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
