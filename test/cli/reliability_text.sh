#!/usr/bin/env bash
# The text summary of a reliability run: where the lost time went, each part in hours and days
# ("37.6 h (1.57 days)"), largest first, formatted here from the report's lost_s; durations in
# minutes and hours rather than raw seconds; each quantile says which tail it is: ETTR's
# pessimistic tail is its p1 (a low ETTR), time to train's its p99 (a long one), and the report
# gains p1 beside the p50 and p99 it keeps.
#
# Usage: bash reliability_text.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: reliability_text.sh TRAINSIM REPO}
repo=${2:?usage: reliability_text.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

config="$repo/configs/llama3-405b-16384xh100-reliability.json"
"$trainsim" run "$config" -o "$work/r.json" >"$work/r.txt" 2>"$work/r.err" || fail "run" "$(head -c 400 "$work/r.err")"

python3 - "$work/r.json" "$work/r.txt" <<'PY'
import json, re, sys
rel = json.load(open(sys.argv[1]))["reliability"]
text = open(sys.argv[2]).read()
ok = True
def check(name, good, detail=""):
    global ok
    print(("ok   " if good else "FAIL ") + name + ("" if good else ": " + detail))
    ok = ok and good
hd = lambda s: f"{s / 3600:.1f} h ({s / 86400:.2f} days)"
names = {"restart": "restart", "detection": "detection", "lost_work": "lost work",
         "checkpoint_writes": "checkpoint writes", "reload": "reload", "planned": "planned", "degraded": "degraded"}
order = ["restart", "detection", "lost_work", "checkpoint_writes", "reload", "planned", "degraded"]
parts = sorted([(rel["lost_s"][k], i, k) for i, k in enumerate(order) if rel["lost_s"][k] > 0], key=lambda p: (-p[0], p[1]))
want = "  time lost   " + hd(sum(p[0] for p in parts)) + " per trial: " + ", ".join(f"{names[k]} {hd(v)}" for v, _, k in parts)
check("time lost line from the report's lost_s, in hours and days, largest first", want in text.splitlines(),
      f"want {want!r} in\n{text}")
check("the 405B run's restart costs more than a day (the premise of the line)", rel["lost_s"]["restart"] > 86400)
check("no raw seconds above a minute in the reliability lines",
      not re.search(r"\b[0-9]{2,}\.[0-9]{3} s\b", "\n".join(l for l in text.splitlines() if l.startswith(("  failures", "  recovery")))),
      text)
e = rel["distribution"]["ettr"]
check("ETTR's p1 <= p50 <= p99 (p1 the pessimistic tail)", e["p1"] <= e["p50"] <= e["p99"], str(e))
check("ETTR line names p1 as the pessimistic tail", f"p1 (pessimistic) {100 * e['p1']:.1f}%" in text, text)
w = rel["time_to_train_days"]["with_failures"]
check("time to train's p1 <= p50 <= p99", w["p1"] <= w["p50"] <= w["p99"], str(w))
check("to-train line names p99 as the pessimistic tail", f"(p99 (pessimistic) {w['p99']:.1f} days)" in text, text)
check("recovery p99 is the pessimistic tail", re.search(r"recovery .* mean, .* p99 \(pessimistic\)", text) is not None, text)
check("no quantile printed without its tail", re.search(r"\bp(1|99) [0-9]", text) is None, text)
sys.exit(0 if ok else 1)
PY
if [ $? -eq 0 ]; then pass "reliability text: lost time in hours and days, tails named"; else fail "reliability text" "see above"; fi

echo "reliability_text: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
