#!/usr/bin/env bash
# `trainsim validate --strict-memory` on a table with rows the simulator cannot run: a row
# naming a device trainsim does not know and a row whose plan does not fit in GPU memory (refused
# under --strict-memory; without it, simulated: memory_verdict.sh) are printed as failed with the reason, counted per group and in a last line, and do not stop the
# others; the exit code is 1 (not every row simulated). The simulated row's error and MAPE are
# recomputed from its printed prediction. A mistake in the table's own fields still stops it with
# one line and exit code 2.
#
# Usage: bash validate_failed_rows.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validate_failed_rows.sh TRAINSIM REPO}
repo=${2:?usage: validate_failed_rows.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

python3 - "$repo/configs/quickstart.json" "$work/table.json" "$work/broken.json" "$work/bad-memory.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
base.pop("kind", None)
def row(name, scenario, published=4.0):
    return {"name": name, "group": "g", "published": {"step_time_s": published}, "note": "test", "scenario": scenario}
unknown = copy.deepcopy(base)
unknown["cluster"] = {"from": "dgx-a100-superpod", "gpus": 16, "gpu": "h100-1w"}
# gpt3-175b on 16 A100s with tp 4, dp 2 and no ZeRO: about 175e9 x 16 B / 8 GPUs of weights,
# gradients and Adam states per GPU, far beyond 80 GB.
too_big = copy.deepcopy(base)
too_big["model"] = "gpt3-175b"
runs = [row("fits", base), row("unknown-device", unknown), row("too-big", too_big)]
runs[0]["extra"] = {"published_peak_memory_gib": 20.0}  # compared with the prediction, never input
json.dump({"kind": "validation", "runs": runs}, open(sys.argv[2], "w"))
runs[0]["published"] = {"step_time_s": -1}
json.dump({"kind": "validation", "runs": runs}, open(sys.argv[3], "w"))
runs[0]["published"] = {"step_time_s": 4.0}
runs[0]["extra"] = {"published_peak_memory_gib": -3}
json.dump({"kind": "validation", "runs": runs}, open(sys.argv[4], "w"))
PY

"$trainsim" validate "$work/table.json" --strict-memory >"$work/out" 2>"$work/err"
code=$?
if [ $code -eq 1 ]; then pass "exit code 1 with failed rows"; else fail "exit code 1 with failed rows" "got $code: $(cat "$work/err")"; fi
"$trainsim" run "$repo/configs/quickstart.json" -q -o "$work/fits.json"
python3 - "$work/out" "$work/fits.json" <<'PY' >"$work/checks" 2>&1
import json, re, sys
out = open(sys.argv[1]).read().splitlines()
report = json.load(open(sys.argv[2]))
step = report["step_time_s"]
memory = report["memory"]["reserved_bytes_per_gpu"] / 2**30  # published peaks are reserved
allocated = report["memory"]["peak_bytes_per_gpu"] / 2**30
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
def line(name):
    return next((l for l in out if l.startswith(name + " ")), "")
m = re.match(r"^fits\s+g\s+4\.000s\s+([\d.]+)s\s+([-+\d.]+)%", line("fits"))
check(m is not None and abs(float(m.group(1)) - step) < 5e-4, f"the row that fits runs as `trainsim run` does ({line('fits')!r})")
err = 100 * abs(step / 4.0 - 1)
check(m is not None and abs(float(m.group(2)) - 100 * (step / 4.0 - 1)) < 0.06, "its error is recomputed")
check("failed:" in line("unknown-device") and "unknown device 'h100-1w'" in line("unknown-device"),
      f"the unknown device is a failed row with its reason ({line('unknown-device')!r})")
check("failed:" in line("too-big") and "per GPU (reserved at its peak) but" in line("too-big"),
      f"the plan that does not fit is a failed row with its reason ({line('too-big')!r})")
mm = re.search(r"peak memory ([\d.]+) GiB reserved \(([\d.]+) allocated\), published 20\.0 \(([-+\d.]+)%\)", line("fits"))
check(mm is not None and abs(float(mm.group(1)) - memory) < 0.06 and abs(float(mm.group(3)) - 100 * (memory / 20 - 1)) < 0.06,
      f"the published peak memory is compared with the report's reserve ({memory:.2f} GiB)")
check(mm is not None and abs(float(mm.group(2)) - allocated) < 0.06, f"beside what is allocated ({allocated:.2f} GiB)")
mem_mape = next((float(x.group(1)) for l in out if (x := re.match(r"^peak memory\s+MAPE\s+([\d.]+)% over 1 runs", l))), None)
check(mem_mape is not None and abs(mem_mape - 100 * abs(memory / 20 - 1)) < 0.06, f"and summarised ({mem_mape})")
mape = next((float(x.group(1)) for l in out if (x := re.match(r"^g\s+MAPE\s+([\d.]+)% over 1 runs, 2 failed$", l))), None)
check(mape is not None and abs(mape - err) < 0.06, f"the group's MAPE covers the simulated row and counts the failed ({mape})")
check(any(re.match(r"^failed\s+2 of 3 runs could not be simulated$", l) for l in out), "the last line counts them")
PY
while IFS= read -r l; do
  case "$l" in "ok   "*) pass "${l#ok   }" ;; *) fail "${l#FAIL }" "(above)" ;; esac
done <"$work/checks"

"$trainsim" validate "$work/broken.json" >"$work/out2" 2>"$work/err2"
code=$?
if [ $code -eq 2 ] && [ "$(wc -l <"$work/err2")" -eq 1 ] && grep -q "/runs/0/published/step_time_s" "$work/err2" &&
   [ ! -s "$work/out2" ]; then
  pass "a broken published time stops the table: one line, exit 2, nothing printed"
else
  fail "a broken published time stops the table" "exit $code: $(cat "$work/err2")"
fi

"$trainsim" validate "$work/bad-memory.json" >"$work/out3" 2>"$work/err3"
code=$?
if [ $code -eq 2 ] && grep -q "/runs/0/extra/published_peak_memory_gib: -3 GiB is not a peak memory" "$work/err3"; then
  pass "a broken published peak memory stops the table with its path"
else
  fail "a broken published peak memory" "exit $code: $(cat "$work/err3")"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
