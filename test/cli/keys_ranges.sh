#!/usr/bin/env bash
# Every count key of the schema with a range (`trainsim keys --format json`: min, max): a value one
# below min (and one above max, where the range is the schema's own rather than derived from
# another key) is refused by `trainsim check` with one line naming the key's JSON path and (where
# the range is the schema's own) the schema's range, exit 2; the edge values themselves pass the key's range check (any refusal names
# something else). The scenario is configs/quickstart.json with its model inlined, so that model
# keys can be set.
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
# Keys that apply to one kind only: their parent object for that kind (another kind replaces the
# whole object, so its required keys too).
kind_of = {"/cluster/scale_out/ports": {"kind": "ocs", "reconfiguration": "1 us", "nics_per_node": 8,
                                        "nic_bandwidth": "25 GB/s"}}
n = 0
for k in keys:
    if "min" not in k or "*" in k["path"]:
        continue
    own_range = k["allowed"].startswith(f"{k['min']}..{k['max']}")
    values = [(k["min"] - 1, "outside"), (k["min"], "edge")]
    if own_range:
        values += [(k["max"] + 1, "outside"), (k["max"], "edge")]
    for value, what in values:
        s = copy.deepcopy(base)
        parts = k["path"].strip("/").split("/")
        node = s
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node.update(kind_of.get(k["path"], {}))
        node[parts[-1]] = value
        n += 1
        f = f"{work}/case{n}.json"
        json.dump(s, open(f, "w"))
        print(k["path"], value, what, f, k["min"], k["max"], int(own_range))
PY

cases=0
while read -r path value what file min max own; do
  cases=$((cases + 1))
  "$trainsim" check "$file" >/dev/null 2>"$work/err"
  rc=$?
  if [ "$what" = outside ]; then
    if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF "$path: $value is out of range" "$work/err" &&
      { [ "$own" = 0 ] || grep -qF "[$min, $max]" "$work/err"; }; then
      pass "$path = $value refused (one line, exit 2)"
    else
      fail "$path = $value" "expected one line naming '$path: $value is out of range', exit 2; rc=$rc: $(head -2 "$work/err")"
    fi
  elif grep -qF "$path: $value is out of range" "$work/err"; then
    fail "$path = $value" "the edge of [$min, $max] is refused: $(cat "$work/err")"
  else
    pass "$path = $value passes its range check"
  fi
done <"$work/cases"

[ "$cases" -gt 20 ] && pass "$cases range cases from the schema" || fail "range cases" "only $cases"
echo "keys_ranges: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
