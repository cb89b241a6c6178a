#!/usr/bin/env bash
# Physics holds for every accepted network and device value, and SimGrid never speaks to the user
# On configs/quickstart.json (16 A100s, TP 4 inside a node, PP 2, DP 2 across nodes):
#
# - monotone steps (invariants, no figures): over bandwidths from 1 GB/s to the reader's bound of
#   1 PB/s (decades, and 300 GB/s) on NVLink -- with 1 us and with 200 us NVLink latency -- and on
#   the NICs, and over the device's NVLink and network efficiencies from 0.01 to 1, a faster or
#   more efficient tier never gives a slower step; a slow NIC or GPU (factor 1 to 10^6) never
#   gives a faster one, nor one faster than the healthy step. Each step within a relative 1e-9 of
#   the previous one (SimGrid's rounding) counts as equal.
# - refusals (one line "trainsim: error: FILE: /path: ... (expected ...)" on stderr, exit 2, nothing
#   on stdout): a link bandwidth past 1 PB/s or under 1 Mb/s; a link latency past 1 s or under 1 ns;
#   a device profile's efficiency, sustained_compute, peak, half sizes or NCCL latency outside its
#   range (subnormal efficiencies among them); sixty 10^6 slowdowns on one NIC (each in range, their product not). The same
#   profile is refused by `check` and `search` with exit 2, and `validate` fails its row with the
#   same message (and at most its own one line on stderr).
# - silence: every run above with -q writes nothing on stderr, a step that ends in a failure's
#   deadlock (configs/faults/gpu-failure.json) included: no SimGrid log line, no backtrace.
#
# Usage: bash physics_ranges.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: physics_ranges.sh TRAINSIM REPO}
repo=${2:?usage: physics_ranges.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
quick="$repo/configs/quickstart.json"

step() {  # label args... -> the step time in $STEP; fails the label unless the run was silent
  local label=$1 out rc
  shift
  STEP=
  out=$("$trainsim" run "$quick" -q -o "$work/r.json" "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || [ -n "$out" ]; then
    fail "$label" "exit $rc: $out"
    return 1
  fi
  STEP=$(sed -n 's/^  "step_time_s": \([^,]*\),$/\1/p' "$work/r.json")
}

# label direction(down|up) rows ("x step" lines): steps never rise (down) or never fall (up) as x
# grows.
monotone() {
  local problems
  problems=$(python3 -c '
import sys
direction, rows = sys.argv[1], [l.split() for l in sys.argv[2].splitlines() if l.strip()]
bad = []
for (x0, s0), (x1, s1) in zip(rows, rows[1:]):
    a, b = float(s0), float(s1)
    if (b > a * (1 + 1e-9)) if direction == "down" else (b < a * (1 - 1e-9)):
        bad.append("%s: %s -> %s: %s" % (x0, s0, x1, s1))
print("; ".join(bad) if len(rows) > 2 else "too few runs")' "$2" "$3")
  if [ -z "$problems" ]; then pass "$1"; else fail "$1" "$problems"; fi
}

rates=("1 GB/s" "10 GB/s" "100 GB/s" "300 GB/s" "1 TB/s" "10 TB/s" "100 TB/s" "1 PB/s")
bandwidth_sweep() {  # label key [--set args for every run...]
  local label=$1 key=$2 v rows=
  shift 2
  for v in "${rates[@]}"; do
    step "$label: $v" --set "$key=$v" "$@" && rows+="$v $STEP"$'\n'
  done
  monotone "$label" down "$(sed -e 's/ GB\/s/e9/; s/ TB\/s/e12/; s/ PB\/s/e15/' <<<"$rows")"
}
bandwidth_sweep "more NVLink bandwidth never slows the step" cluster.scale_up.bandwidth
# Over 200 us hops SimGrid's default TCP window (4 MiB / (2 x latency) = 10 GB/s) used to cap a
# flow, and faster NVLink made the LL protocol's flows slower.
bandwidth_sweep "more NVLink bandwidth never slows the step over 200 us hops" cluster.scale_up.bandwidth \
  --set 'cluster.scale_up.latency=200 us'
bandwidth_sweep "more NIC bandwidth never slows the step" cluster.scale_out.nic_bandwidth

# Device profiles: the A100's with values replaced (JSON values; "a.b" is a nested key).
profile() {  # name key=json ...
  local name=$1
  shift
  python3 - "$repo/topologies/devices/a100-sxm-80gb.json" "$work/$name.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for kv in sys.argv[3:]:
    key, value = kv.split("=", 1)
    *parents, last = key.split(".")
    node = d
    for k in parents:
        node = node[k]
    node[last] = json.loads(value)
json.dump(d, open(sys.argv[2], "w"))
PY
}

for tier in scale_up scale_out; do
  rows=
  for e in 0.01 0.1 0.3 0.6 1; do
    profile "$tier-$e" "collectives.${tier}_efficiency=$e"
    step "$tier efficiency $e" --set "cluster.gpu=$work/$tier-$e.json" && rows+="$e $STEP"$'\n'
  done
  monotone "a higher $tier efficiency never slows the step" down "$rows"
done

# Slow components: never faster than healthy, slower the larger the factor.
step "healthy" && healthy=$STEP
for target in nic gpu; do
  rows="0 $healthy"$'\n'
  for f in 1 10 1e3 1e6; do
    step "$target slowed $f" --set "step_faults={\"events\": [{\"kind\": \"slow\", \"$target\": 0, \"factor\": $f}]}" &&
      rows+="$f $STEP"$'\n'
  done
  monotone "a slower $target never speeds the step up" up "$rows"
done

refuse() {  # label fragment command args... -> exit 2, one line naming the fragment, nothing on stdout
  local label=$1 fragment=$2 out err rc
  shift 2
  out=$("$@" 2>"$work/err")
  rc=$?
  err=$(cat "$work/err")
  if [ $rc -ne 2 ]; then
    fail "$label" "exit $rc (expected 2): $err"
  elif [ -n "$out" ] || [ "$(wc -l <"$work/err")" -ne 1 ]; then
    fail "$label" "expected one line on stderr and none on stdout: $out / $err"
  elif [[ "$err" != "trainsim: error: "*"$fragment"*"(expected "* ]]; then
    fail "$label" "'$err' does not name '$fragment'"
  else
    pass "$label"
  fi
}

for v in "1e18 B/s" "1e24 B/s" "1.000001 PB/s" "0.99 Mb/s"; do
  refuse "NVLink at $v" "/cluster/scale_up/bandwidth: '$v' is out of range" "$trainsim" run "$quick" \
    --set "cluster.scale_up.bandwidth=$v"
done
refuse "a NIC at 1e20 B/s" "/cluster/scale_out/nic_bandwidth: '1e20 B/s' is out of range" "$trainsim" run "$quick" \
  --set "cluster.scale_out.nic_bandwidth=1e20 B/s"
refuse "storage at 2 EB/s" "/cluster/storage_bandwidth: '2 EB/s' is out of range" "$trainsim" run "$quick" \
  --set "cluster.storage_bandwidth=2 EB/s"
# A hop's latency past 1 s (SimGrid aborted at 10^5 s on a torus; fuzz_platform) or under 1 ns.
for v in "1.5 s" "1e5 s" "0.5 ns"; do
  refuse "NVLink latency $v" "/cluster/scale_up/latency: '$v' is out of range" "$trainsim" run "$quick" \
    --set "cluster.scale_up.latency=$v"
done
refuse "network latency 1e18 s" "/cluster/scale_out/latency: '1e18 s' is out of range" "$trainsim" run "$quick" \
  --set "cluster.scale_out.latency=1e18 s"

bad_profiles=(
  "collectives.scale_out_efficiency=5e-324 /collectives/scale_out_efficiency"
  "collectives.scale_up_efficiency=1e-320 /collectives/scale_up_efficiency"
  "collectives.scale_out_efficiency=1e-300 /collectives/scale_out_efficiency"
  "collectives.scale_up_efficiency=0.009 /collectives/scale_up_efficiency"
  "gemm.efficiency_max=5e-324 /gemm/efficiency_max"
  "memory_ops.efficiency_max=1e-300 /memory_ops/efficiency_max"
  "sustained_compute=1e-320 /sustained_compute"
  "sustained_compute=1e-300 /sustained_compute"
  "flash_attention.efficiency_max=1e-300 /flash_attention/efficiency_max"
  'peak.bf16="1e30 TFLOP/s" /peak/bf16'
  'peak.bf16="0.5 TFLOP/s" /peak/bf16'
  'hbm.capacity="2 PiB" /hbm/capacity'
  'hbm.bandwidth="1e300 TB/s" /hbm/bandwidth'
  'gemm.half_flops="1e-300 FLOP" /gemm/half_flops'
  'gemm.half_flops="1e20 FLOP" /gemm/half_flops'
  'memory_ops.half_bytes="1e20 B" /memory_ops/half_bytes'
  'collectives.base_latency="1e6 s" /collectives/base_latency'
  'collectives.scale_out_step_latency="1e-300 s" /collectives/scale_out_step_latency'
)
for entry in "${bad_profiles[@]}"; do
  change=${entry% *} where=${entry##* }
  profile bad "$change"
  refuse "device profile $change" "$work/bad.json: $where: " "$trainsim" run "$quick" --set "cluster.gpu=$work/bad.json"
done
profile bad "sustained_compute=1e-300"
refuse "check refuses the profile" "$work/bad.json: /sustained_compute: 1e-300 is out of range" \
  "$trainsim" check "$quick" --set "cluster.gpu=$work/bad.json"
refuse "search refuses the profile" "$work/bad.json: /sustained_compute: 1e-300 is out of range" \
  "$trainsim" search "$quick" --set "cluster.gpu=$work/bad.json"
python3 - "$quick" "$work/bad.json" "$work/table.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.pop("kind", None)
s["cluster"]["gpu"] = sys.argv[2]
row = {"name": "bad-profile", "group": "g", "published": {"step_time_s": 4.0}, "note": "test", "scenario": s}
json.dump({"kind": "validation", "runs": [row]}, open(sys.argv[3], "w"))
PY
out=$("$trainsim" validate "$work/table.json" 2>"$work/err")
if grep -q "failed: $work/bad.json: /sustained_compute: 1e-300 is out of range" <<<"$out" &&
  [ "$(wc -l <"$work/err")" -le 1 ] && ! grep -qv '^trainsim: ' "$work/err"; then
  pass "validate fails the row on the profile"
else
  fail "validate fails the row on the profile" "$out / $(cat "$work/err")"
fi

events=$(python3 -c 'import json; print(json.dumps({"events": [{"kind": "slow", "nic": 0, "factor": 1e6}] * 60}))')
refuse "sixty 10^6 slowdowns on one NIC" "/step_faults/events/1: the slowdowns on nic 0 multiply to 10^12.0" \
  "$trainsim" run "$quick" --set "step_faults=$events"
refuse "straggler on a slowed GPU" "/step_faults/stragglers: the slowdowns on gpu" "$trainsim" run "$quick" \
  --set 'step_faults={"events": [{"kind": "slow", "gpu": 0, "factor": 1e6}], "stragglers": {"fraction": 1, "factor": 2}}'
step "a product of exactly 10^6 runs" --set 'step_faults={"events": [{"kind": "slow", "nic": 0, "factor": 1000},
    {"kind": "slow", "nic": 0, "factor": 1000}]}' && pass "a product of exactly 10^6 runs"

out=$("$trainsim" run "$repo/configs/faults/gpu-failure.json" -q -o "$work/f.json" 2>&1)
if [ $? -eq 0 ] && [ -z "$out" ]; then pass "a failure's deadlock is silent"; else fail "a failure's deadlock is silent" "$out"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
