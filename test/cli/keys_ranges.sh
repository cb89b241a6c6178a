#!/usr/bin/env bash
# Every ranged key of the schema (`trainsim keys --format json`). A count (min, max): a value one
# below min (and one above max, where the range is the schema's own rather than derived from
# another key) is refused by `trainsim check` with one line naming the key's JSON path and (where
# the range is the schema's own) the schema's range, exit 2; the edge values themselves pass the
# key's range check (any refusal names something else). A number or quantity (lo, hi, in SI
# units): just outside each end (hi·(1 + 1e-9), lo·(1 − 1e-9), or a negative value where lo is 0)
# is refused with one line naming its path, exit 2; the ends themselves (or a millionth of hi
# where lo is 0, which a quantity or a rate excludes) pass its range check. The scenario is
# configs/quickstart.json with its model inlined and its device profile copied beside it, so that
# their keys can be set; keys that apply under one kind, or inside a list or a map, get the context
# below.
#
# Usage: bash keys_ranges.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: keys_ranges.sh TRAINSIM REPO}
repo=${2:?usage: keys_ranges.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

"$trainsim" keys --format json >"$work/keys.json" || { fail "trainsim keys --format json" "failed"; exit 1; }

# One case per line: PATH VALUE outside|edge FILE, each FILE a scenario with PATH set to VALUE.
python3 - "$work/keys.json" "$work" >"$work/cases" <<'PY'
import copy, json, sys
keys, work = json.load(open(sys.argv[1])), sys.argv[2]
base = json.load(open("configs/quickstart.json"))
base["model"] = json.load(open("models/" + base["model"] + ".json"))
base["model"]["moe"] = {"experts": 8, "top_k": 2}
base["model"]["mla"] = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}
cluster = json.load(open("topologies/" + base["cluster"]["from"] + ".json"))
device = json.load(open("topologies/devices/" + cluster["gpu"] + ".json"))
# A validation table (@validation) of one row, the scenario above.
table = {"kind": "validation", "runs": [{"name": "r", "group": "g", "note": "", "published": {"step_time_s": 1},
                                         "extra": {}}]}
# Keys that apply to one kind only, or sit in a list or a map: where to write the value (a
# concrete JSON pointer) and what the scenario needs beside it (merged into it).
ocs = {"kind": "ocs", "reconfiguration": "1 us", "nics_per_node": 8, "nic_bandwidth": "25 GB/s"}
poisson = {"failures": {"kind": "poisson"}}
fp8 = {"efficiency_max": 0.5, "half_flops": "1 GFLOP"}  # a curve beside the key set
context = {
    "/cluster/scale_out/ports": (None, {"cluster": {"scale_out": ocs}}),
    "/cluster/scale_out/reconfiguration": (None, {"cluster": {"scale_out": ocs}}),
    "/failures/per_node_day": (None, poisson),
    "/failures/shape": (None, {"failures": {"kind": "weibull"}}),
    "/failures/components/*": ("/failures/components/gpu", poisson),
    "/failures/components/*/per_node_day": ("/failures/components/x/per_node_day", poisson),
    "/failures/components/*/silent": ("/failures/components/x/silent",
                                      {"failures": {"kind": "poisson", "components": {"x": {"per_node_day": 1e-3}}}}),
    "/failures/horizon": (None, poisson),
    "/failures/trials": (None, poisson),
    "/recovery/background_slowdown": (None, dict(poisson, recovery={"kind": "checkpoint-restart", "blocking": False})),
    "/recovery/replicas": (None, dict(poisson, recovery={"kind": "in-memory-checkpoint"})),
    "/recovery/spares": (None, dict(poisson, recovery={"kind": "spares"})),
    "/step_faults/events/*/factor": ("/step_faults/events/0/factor",
                                     {"step_faults": {"events": [{"kind": "slow", "gpu": 0}]}}),
    "/step_faults/events/*/at": ("/step_faults/events/0/at", {"step_faults": {"events": [{"kind": "fail", "gpu": 0}]}}),
    "/step_faults/stragglers/count": (None, {"step_faults": {"stragglers": {"factor": 1.1}}}),
    "/step_faults/stragglers/fraction": (None, {"step_faults": {"stragglers": {"factor": 1.1}}}),
    "/step_faults/stragglers/factor": (None, {"step_faults": {"stragglers": {"count": 1}}}),
    "/step_faults/stragglers/factor/min": (None, {"step_faults": {"stragglers": {"count": 1, "factor": {"max": 2}}}}),
    "/step_faults/stragglers/factor/max": (None, {"step_faults": {"stragglers": {"count": 1, "factor": {"min": 1}}}}),
    "/failures/components/*/takes": ("/failures/components/x/takes",
                                     {"failures": {"kind": "poisson", "components": {"x": {"per_node_day": 1e-3}}}}),
    "/step_faults/events/*/gpu": ("/step_faults/events/0/gpu", {"step_faults": {"events": [{"kind": "slow", "factor": 2}]}}),
    "/step_faults/events/*/nic": ("/step_faults/events/0/nic", {"step_faults": {"events": [{"kind": "slow", "factor": 2}]}}),
    # The device profile is a file of its own (@device): written beside the case, cluster.gpu names it.
    "@device/collectives/nvls_latency": (None, {"@device": {"collectives": {"nvls_efficiency": 0.5}}}),
    "@device/collectives/nvls_efficiency": (None, {"@device": {"collectives": {"nvls_latency": "1 us"}}}),
    "@device/flash_attention/head_dims/*": ("@device/flash_attention/head_dims/64", {}),
    "@device/gemm_fp8/efficiency_max": (None, {"@device": {"peak": {"fp8": "1 PFLOP/s"}, "gemm_fp8": fp8}}),
    "@device/gemm_fp8/half_flops": (None, {"@device": {"peak": {"fp8": "1 PFLOP/s"}, "gemm_fp8": fp8}}),
    "@device/cudnn_attention/half_seq_len": (None, {"@device": {"cudnn_attention": {"efficiency_max": 0.5}}}),
    "/training/expert_load/*": ("/training/expert_load/0", {"training": {"routing": "histogram",
                                                                          "expert_load": [1] * 8}}),
    "/training/capacity_factor": (None, {"training": {"routing": "histogram", "expert_load": [1] * 8}}),
    "@validation/runs/*/published/step_time_s": ("@validation/runs/0/published/step_time_s", {}),
    "@validation/runs/*/extra/published_peak_memory_gib": ("@validation/runs/0/extra/published_peak_memory_gib", {}),
    "@device/cudnn_attention/head_dims/*": ("@device/cudnn_attention/head_dims/64",
                                            {"@device": {"cudnn_attention": {"efficiency_max": 0.5, "half_seq_len": 1024}}}),
}

def merge(into, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict) and v.get("kind", into[k].get("kind")) == into[k].get("kind"):
            merge(into[k], v)
        else:
            into[k] = copy.deepcopy(v)

def put(s, pointer, value):
    parts = pointer.strip("/").split("/")
    node = s
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})
    node[parts[-1]] = value

def written(k, v):  # a number, or a quantity in SI units with its unit
    return v if k["type"].startswith("number") or k["unit"] in ("", "per node-day") else f"{v!r} {k['unit']}"

n = 0
def case(k, value, what, extra):
    global n
    where, needs = context.get(k["path"], (None, {}))
    where = where or k["path"]
    if "*" in where:
        print("NOCONTEXT", k["path"], "-", "-", "-", "-", "-", "-", "-")
        return
    s = {"": copy.deepcopy(base), "@device": copy.deepcopy(device), "@validation": copy.deepcopy(table)}
    root = next((r for r in ("@device", "@validation") if where.startswith(r)), "")
    merge(s, {"": needs} if "@device" not in needs else needs)
    put(s[root], where[len(root):], value)
    n += 1
    f = f"{work}/case{n}.json"
    json.dump(s["@device"], open(f"{work}/device{n}.json", "w"))
    s[""]["cluster"]["gpu"] = f"{work}/device{n}.json"
    s["@validation"]["runs"][0]["scenario"] = s[""]
    json.dump(s["@validation" if root == "@validation" else ""], open(f, "w"))
    command = "validate" if root == "@validation" else "check"
    print(where[len(root):], json.dumps(value).replace(" ", "_"), what, f, *extra, command)

for k in keys:
    if k["path"].startswith("@costs"):  # the cost table, read from the data folder only, not named by a scenario
        continue
    if "min" in k and ("*" not in k["path"] or k["path"] in context):
        own_range = k["allowed"].startswith(f"{k['min']}..{k['max']}")
        values = [(k["min"] - 1, "outside"), (k["min"], "edge")]
        if own_range:
            values += [(k["max"] + 1, "outside"), (k["max"], "edge")]
        for value, what in values:
            case(k, value, what, (k["min"], k["max"], int(own_range)))
    if "lo" in k:
        lo, hi = k["lo"], k["hi"]
        values = [(hi * (1 + 1e-9), "beyond"), (hi, "inside")]
        values += [(lo * (1 - 1e-9), "beyond"), (lo, "inside")] if lo > 0 else [(-hi * 1e-6, "beyond"), (hi * 1e-6, "inside")]
        for value, what in values:
            case(k, written(k, value), what, ("-", "-", "-"))
PY

cases=0
while read -r path value what file min max own command; do
  if [ "$path" = NOCONTEXT ]; then
    fail "$value" "a ranged key inside a list or a map with no context in keys_ranges.sh"
    continue
  fi
  value=${value//_/ }
  value=${value//\"/}
  cases=$((cases + 1))
  "$trainsim" "$command" "$file" >/dev/null 2>"$work/err"
  rc=$?
  if [ "$what" = outside ]; then
    if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF "$path: $value is out of range" "$work/err" &&
      { [ "$own" = 0 ] || grep -qF "[$min, $max]" "$work/err"; }; then
      pass "$path = $value refused (one line, exit 2)"
    elif [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF "$path: $value trials is above the limit of $max" "$work/err" &&
      grep -qF "[$min, $max]" "$work/err"; then
      pass "$path = $value refused (one line, exit 2)"
    else
      fail "$path = $value" "expected one line naming '$path: $value is out of range', exit 2; rc=$rc: $(head -2 "$work/err")"
    fi
  elif [ "$what" = beyond ]; then
    if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF "$path: " "$work/err" &&
      grep -qE "out of range|not positive|is not a (step time|peak memory)" "$work/err"; then
      pass "$path = $value refused (one line, exit 2)"
    else
      fail "$path = $value" "expected one line naming $path, out of range, exit 2; rc=$rc: $(head -2 "$work/err")"
    fi
  elif grep -F "$path: " "$work/err" | grep -qE "out of range|not positive|is not a (step time|peak memory)"; then
    fail "$path = $value" "the end of its range is refused: $(cat "$work/err")"
  else
    pass "$path = $value passes its range check"
  fi
done <"$work/cases"

[ "$cases" -gt 20 ] && pass "$cases range cases from the schema" || fail "range cases" "only $cases"
echo "keys_ranges: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
