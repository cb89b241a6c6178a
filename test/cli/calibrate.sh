#!/usr/bin/env bash
# `trainsim calibrate` from the command line:
#  - `--check` on every published measurements file (calibration/published/) prints one row per
#    kernel class; the H200 GEMM row's error is recomputed here from the profile's numbers
#    (t = 2mnk / (P * eta_max * F/(F + F_half)), docs/calibration.md) and must match;
#  - a fit writes a profile that `trainsim run` accepts, byte-identical when run twice;
#  - malformed measurement files and options: exit 2, one line on stderr naming file and path.
#
# Usage: bash calibrate.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: calibrate.sh TRAINSIM REPO}
repo=${2:?usage: calibrate.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

for f in calibration/published/*.json; do
  out=$("$trainsim" calibrate --check "$f" 2>&1)
  rc=$?
  classes=$(python3 - "$f" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
c = set()
for g in m.get("gemm", []): c.add("gemm " + g["dtype"])
for k in m.get("memory", []): c.add("memory " + k["kernel"])
print(len(c) + len({(a.get("impl"), a["pass"], a["causal"]) for a in m.get("attention", [])})
      + len({(x["op"], x["ranks"], x.get("algo", "default")) for x in m.get("collectives", [])}))
PY
)
  rows=$(printf '%s\n' "$out" | sed -n '/^kernel class/,/^$/p' | grep -vc '^kernel class\|^$')
  if [ $rc -eq 0 ] && [ "$rows" = "$classes" ]; then
    pass "--check $f: $rows kernel classes"
  else
    fail "--check $f" "exit $rc, $rows table rows for $classes classes: $out"
  fi
done

# The H200 8192^3 GEMM at 769 TFLOP/s (calibration/published/h200-sxm.json) against the shipped h200-sxm profile.
expected=$(python3 - <<'PY'
import json, re
d = json.load(open("topologies/devices/h200-sxm.json"))
val = lambda e: e["value"] if isinstance(e, dict) else e
peak = float(val(d["peak"]["bf16"]).split()[0]) * 1e12
eta, half = float(val(d["gemm"]["efficiency_max"])), float(val(d["gemm"]["half_flops"]).split()[0]) * 1e9
F = 2.0 * 8192**3
t_pred = F / (peak * eta * F / (F + half))
t_meas = F / 769e12
print(f"{100 * (t_pred / t_meas - 1):+.1f}%")
PY
)
got=$("$trainsim" calibrate --check calibration/published/h200-sxm.json | grep '/gemm/0)' | awk '{print $1}')
if [ "$got" = "$expected" ]; then pass "H200 GEMM error $got matches the closed form"; else fail "H200 GEMM error" "printed '$got', closed form $expected"; fi

# Fit, write, run with the fitted profile; twice, byte-identical.
for i in 1 2; do
  if "$trainsim" calibrate calibration/published/a100-sxm-80gb.json --name a100-fitted -o "$work/fit$i.json" >"$work/fit$i.txt" 2>&1; then
    pass "fit $i writes a profile"
  else
    fail "fit $i" "$(cat "$work/fit$i.txt")"
  fi
done
if cmp -s "$work/fit1.json" "$work/fit2.json" && cmp -s <(grep -v '^wrote' "$work/fit1.txt") <(grep -v '^wrote' "$work/fit2.txt"); then
  pass "two fits are byte-identical"
else
  fail "determinism" "two fits of the same file differ"
fi
# The run check fits GEMMs 25 % slower than published (every GEMM rate x 0.8; the fit then lands
# below the shipped A100 GEMM efficiency): trainsim run must use the fitted profile and give a
# longer step than the shipped one.
python3 - "$work/slow.json" <<'PY'
import json, sys
d = json.load(open("calibration/published/a100-sxm-80gb.json"))
for g in d["gemm"]:
    value, unit = g["rate"].split(" ", 1)
    g["rate"] = f"{float(value) * 0.8} {unit}"
json.dump(d, open(sys.argv[1], "w"))
PY
"$trainsim" calibrate "$work/slow.json" --base a100-sxm-80gb --name a100-slow -o "$work/slow-profile.json" >/dev/null 2>&1
step() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$1"; }
if out=$("$trainsim" run configs/quickstart.json --set "cluster.gpu=$work/slow-profile.json" -q -o "$work/fitted.json" 2>&1) &&
   "$trainsim" run configs/quickstart.json -q -o "$work/shipped.json" &&
   python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' \
     "$(step "$work/fitted.json")" "$(step "$work/shipped.json")"; then
  pass "trainsim run uses the fitted profile ($(step "$work/fitted.json") s with 25 % slower GEMMs vs $(step "$work/shipped.json") s)"
else
  fail "run with the fitted profile" "$out"
fi

# Bad input: exit 2, nothing on stdout, one line on stderr with the expected fragment.
bad() {  # name fragment args...
  local name=$1 fragment=$2
  shift 2
  "$trainsim" calibrate "$@" >"$work/out" 2>"$work/err"
  local rc=$? lines
  lines=$(wc -l <"$work/err")
  if [ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ "$lines" -eq 1 ] && grep -qF -- "$fragment" "$work/err"; then
    pass "$name"
  else
    fail "$name" "exit $rc, stdout '$(cat "$work/out")', stderr '$(cat "$work/err")' (wanted '$fragment')"
  fi
}
write() { printf '%s' "$2" >"$work/$1.json"; }
head='{"kind": "measurements", "schema": 1, "provenance": {"gpu": "g", "source": "s", "profile": "h100-sxm"}'
write no-records "$head}"
write bad-json "$head, \"gemm\": [}"
write bad-rate "$head, \"gemm\": [{\"m\": 8, \"n\": 8, \"k\": 8, \"dtype\": \"bf16\", \"rate\": \"9 GB/s\"}]}"
write no-profile '{"kind": "measurements", "schema": 1, "provenance": {"gpu": "g", "source": "s"}, "memory": [{"kernel": "copy", "bytes": 8, "time": "1 us"}]}'
write too-fast "$head, \"memory\": [{\"kernel\": \"copy\", \"bytes\": 1000000000, \"time\": \"1 us\"}, {\"kernel\": \"copy\", \"bytes\": 2000000000, \"time\": \"2 us\"}, {\"kernel\": \"copy\", \"bytes\": 4000000000, \"time\": \"4 us\"}]}"
bad "no records" "no-records.json: /: holds no measurements" "$work/no-records.json"
bad "not JSON" "bad-json.json" "$work/bad-json.json"
bad "rate in the wrong unit" "bad-rate.json: /gemm/0/rate: '9 GB/s' does not parse" "$work/bad-rate.json"
bad "no profile named" "no-profile.json: /provenance/profile: names no device profile" "$work/no-profile.json"
bad "faster than the datasheet" "too-fast.json: /: memory-bound kernels imply an efficiency of" "$work/too-fast.json"
bad "unknown base" "--base: /: unknown device 'h100-sx' (did you mean 'h100-sxm'?)" "$work/no-profile.json" --base h100-sx
bad "unknown device to check" "unknown device 'nope'" calibration/published/h200-sxm.json --check --device nope
bad "missing file" "$work/missing.json" "$work/missing.json"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
