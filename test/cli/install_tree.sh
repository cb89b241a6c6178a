#!/usr/bin/env bash
# `cmake --install` and an installed trainsim used from anywhere:
#  - the install holds bin/trainsim, share/trainsim/{models,topologies,calibration,configs,
#    validation,examples}, the scripts in share/trainsim/scripts and the LICENSE;
#  - the installed binary reads share/trainsim beside it and never the source tree: `list` names
#    it, and in a copy of the install with one model renamed, the old name is unknown (the source
#    tree has it) and the new one is found (the source tree lacks it);
#  - from /tmp and from a third folder, a scenario in another folder runs with a device profile
#    that the installed `calibrate` fitted, named by a path relative to the scenario and by an
#    absolute one; its report is byte-identical to the build tree's binary's on the same inputs;
#  - a bare name is looked up in the data folder only, and the refusal says how to name the file
#    beside the scenario; a missing path is refused naming the path and folder as the user gave
#    them, never the source tree;
#  - a binary outside both its build tree and an install finds no data folder: one line, exit 2;
#  - the installed scripts find the installed binary.
# --data and TRAINSIM_DATA: test/cli/data_dir.sh.
#
# Usage: bash install_tree.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: install_tree.sh TRAINSIM REPO}
repo=${2:?usage: install_tree.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/refusal.bash"
build=$(cd "$(dirname "$trainsim")" && pwd)
trainsim=$build/$(basename "$trainsim")
repo=$(cd "$repo" && pwd)

prefix=$work/prefix
if cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  pass "cmake --install into a fresh prefix"
else
  fail "cmake --install" "$(tail -n 5 "$work/install.log")"
fi
share=$prefix/share/trainsim
bin=$prefix/bin/trainsim
missing=""
for f in bin/trainsim share/trainsim/models/gpt-7.5b.json share/trainsim/topologies/devices/a100-sxm-80gb.json \
  share/trainsim/topologies/dgx-a100-superpod.json share/trainsim/topologies/costs/network.json \
  share/trainsim/calibration/published/a100-sxm-80gb.json share/trainsim/configs/quickstart.json \
  share/trainsim/configs/traces/example-failures.csv share/trainsim/scripts/sweep \
  share/trainsim/scripts/lib/trainsim_io.py share/doc/trainsim/LICENSE; do
  [ -f "$prefix/$f" ] || missing+=" $f"
done
for d in validation examples; do [ -d "$share/$d" ] || missing+=" share/trainsim/$d/"; done
[ -z "$missing" ] && pass "the install holds the binary, data, scripts and LICENSE" || fail "install contents" "missing:$missing"
# Each shipped data file, byte for byte.
differ=""
for d in models topologies calibration configs; do
  diff -r "$repo/$d" "$share/$d" >/dev/null || differ+=" $d"
done
[ -z "$differ" ] && pass "installed data equal to the source tree's" || fail "installed data" "differs in:$differ"

# Where each binary reads its data (the first line of `list`).
line=$(env -u TRAINSIM_DATA "$bin" list | head -n 1)
[ "$line" = "data folder: $share (installed)" ] && pass "installed binary: $line" || fail "installed list" "$line"
line=$(env -u TRAINSIM_DATA "$trainsim" list | head -n 1)
[ "$line" = "data folder: $repo (source tree)" ] && pass "build-tree binary: $line" || fail "build-tree list" "$line"

# A copy of the install (moved whole, so also relocatable) with gpt-7.5b renamed: proof that the
# installed binary reads its own tree and falls back to no other.
moved=$work/moved
cp -r "$prefix" "$moved"
only=installed-only-$$
[ ! -e "$repo/models/$only.json" ] || fail "setup" "$repo/models/$only.json exists"
mv "$moved/share/trainsim/models/gpt-7.5b.json" "$moved/share/trainsim/models/$only.json"
(cd /tmp && env -u TRAINSIM_DATA "$moved/bin/trainsim" check "$repo/configs/quickstart.json" --set "model=$only") \
  >"$work/only.out" 2>&1 && pass "a model only in the moved install's data is found" ||
  fail "model only in the install" "$(cat "$work/only.out")"
refused "a model only in the source tree is unknown to the installed binary" ": /model: " \
  "unknown model 'gpt-7.5b'" -- env -u TRAINSIM_DATA "$moved/bin/trainsim" check "$repo/configs/quickstart.json"

# The user's folders: a scenario, and a device profile fitted by the installed calibrate.
mkdir -p "$work/jobs/scenarios" "$work/jobs/profiles" "$work/elsewhere"
cd /tmp || exit 1
env -u TRAINSIM_DATA "$bin" calibrate "$share/calibration/published/a100-sxm-80gb.json" \
  -o "$work/jobs/profiles/my-a100.json" >"$work/cal.out" 2>&1 &&
  pass "installed calibrate from /tmp (base profile by the measurements' name)" ||
  fail "installed calibrate" "$(tail -n 3 "$work/cal.out")"
python3 - "$share/configs/quickstart.json" "$work/jobs" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for name, gpu in [("relative", "../profiles/my-a100.json"), ("absolute", sys.argv[2] + "/profiles/my-a100.json"),
                  ("bare", "my-a100"), ("missing", "./no-such-profile.json")]:
    s["cluster"]["gpu"] = gpu
    json.dump(s, open(f"{sys.argv[2]}/scenarios/{name}.json", "w"), indent=1)
PY
cp "$work/jobs/profiles/my-a100.json" "$work/jobs/scenarios/my-a100.json"  # beside the scenario, for the hint
for how in relative absolute; do
  out=$(env -u TRAINSIM_DATA "$bin" check "$work/jobs/scenarios/$how.json" 2>&1)
  [[ $? -eq 0 && $out == *"on 16 x my-a100;"* ]] && pass "from /tmp: the device by its $how path" ||
    fail "from /tmp, $how path" "$out"
done
# The run, installed and build-tree binaries on the same inputs: the same report, byte for byte.
cd "$work/elsewhere" || exit 1
env -u TRAINSIM_DATA "$bin" run ../jobs/scenarios/relative.json --fidelity class -q -o installed.json
rc1=$?
env -u TRAINSIM_DATA "$trainsim" run ../jobs/scenarios/relative.json --fidelity class -q -o build.json
rc2=$?
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s installed.json build.json &&
  grep -q '"device": *"my-a100"' installed.json; then
  pass "run from a third folder: installed report equal to the build tree's, device my-a100"
else
  fail "installed run" "exit $rc1 and $rc2; reports $(cmp installed.json build.json 2>&1)"
fi
refused "a bare name is looked up in the data folder only" ": /cluster/gpu: " \
  "unknown device 'my-a100'; '../jobs/scenarios/my-a100.json' exists, but a bare name is looked up in the data folder only: write './my-a100.json'" \
  -- env -u TRAINSIM_DATA "$bin" check ../jobs/scenarios/bare.json
refused "a missing relative path, named as given" "../jobs/scenarios/missing.json: /cluster/gpu: " \
  "cannot find './no-such-profile.json': no such file relative to '../jobs/scenarios' (the naming file's folder) or to the data folder" \
  -- env -u TRAINSIM_DATA "$bin" check ../jobs/scenarios/missing.json
grep -q "$repo" "$work/a missing relative path, named as given.err" &&
  fail "missing path message" "names the source tree: $(cat "$work/a missing relative path, named as given.err")" ||
  pass "the refusal does not name the source tree"

# Outside its build tree and with no share/trainsim beside it, a binary has no data folder.
mkdir "$work/lone"
cp "$trainsim" "$work/lone/trainsim"
refused "a lone binary has no data folder" "found no data folder: '$work/lone/trainsim' has no ../share/trainsim" \
  "(expected --data DIR or TRAINSIM_DATA=DIR" -- env -u TRAINSIM_DATA "$work/lone/trainsim" check "$repo/configs/quickstart.json"
line=$(env -u TRAINSIM_DATA "$work/lone/trainsim" list --data "$share" | head -n 1)
[ "$line" = "data folder: $share (--data)" ] && pass "a lone binary with --data: $line" || fail "lone --data" "$line"

# The installed scripts run the installed binary by default.
found=$(env -u TRAINSIM -u TRAINSIM_DATA PATH=/usr/bin:/bin python3 -c \
  "import sys; sys.path.insert(0, sys.argv[1]); import trainsim_io; print(trainsim_io.default_trainsim(), trainsim_io.DATA_DIR)" \
  "$share/scripts/lib")
[ "$found" = "$bin $share" ] && pass "installed scripts: binary and data $found" || fail "installed scripts" "$found"
if env -u TRAINSIM -u TRAINSIM_DATA "$share/scripts/sweep" ../jobs/scenarios/absolute.json --vary training.global_batch=64,128 \
  -o sweep.csv >"$work/sweep.out" 2>&1 && [ "$(grep -c ',ok,' sweep.csv)" = 2 ]; then
  pass "installed sweep over a scenario in another folder: 2 points ok"
else
  fail "installed sweep" "$(tail -n 3 "$work/sweep.out"; cat sweep.csv 2>/dev/null)"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
