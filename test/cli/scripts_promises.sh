#!/usr/bin/env bash
# What scripts/sweep, plot, study-recovery and study-optical promise
# about their inputs, their points and their figures, each checked on the input that broke it.
#
# Expectation, defect by defect:
#  1. sweep -o a file the points read: the model named by path, the cluster's "from" file through a
#     link, the device file that one names, a trace in a nested key, a file a --vary value names, a
#     model a name finds in the data folders: one line, exit 2, no point run, the file unchanged.
#  2. sweep --resume and --merge read the CSV row by row and refuse what the sweep did not write:
#     a 2 GiB CSV at once (under a 1 GiB memory limit, the file left as it was), a 200 kB cell, an
#     edited number: one line, exit 2, never a traceback; a CSV it wrote with timeout rows resumes,
#     nothing run again.
#  3. sweep --max-wall inf, nan, -1, 0: one line, exit 2, no point run.
#  4. A point that ignores SIGTERM and never ends, --max-wall 1: the sweep ends within 30 s, each
#     point a timeout row, no process of theirs left.
#  5. A point that writes 50 MB to stderr: its row's error is the first line cut to 200 characters
#     with its length (or the short first line whole); the CSV stays small.
#  6. plot: a 300 x 300 heatmap, a report of 10,000 stages and a CSV of 100,001 rows are refused in
#     seconds (one line, exit 2, no file); a 120 kB title and one of glyphs the font lacks draw a PNG
#     with nothing on stderr (no matplotlib warning, no traceback); a broken matplotlib is one line,
#     "scripts/plot: internal error: ...", exit 1.
#  7. study-recovery with a study that names an unknown recovery strategy, an empty `set` path or
#     itself as its scenario, and study-optical with one that names itself: one line, exit 2, no
#     point run.
# Every command runs under `timeout`, so a hang is a failure, not a stuck suite.
#
# Usage: bash scripts_promises.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: scripts_promises.sh TRAINSIM REPO}
repo=${2:?usage: scripts_promises.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/usage.bash"
sweep="$repo/scripts/sweep"
plot="$repo/scripts/plot"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"

# A trainsim that notes each subcommand it runs, then runs the real one.
fake="$work/fake-trainsim"
cat >"$fake" <<EOF
#!/usr/bin/env bash
echo "\$1" >>"$work/calls"
exec "$trainsim" "\$@"
EOF
chmod +x "$fake"
usage_ran() { grep -qx run "$work/calls" 2>/dev/null; }
# refused PROG NAME FRAGMENT COMMAND...: usage's checks (one line with FRAGMENT, exit 2, no stdout,
# within 5 s) and no `trainsim run` started.
refused() {
  usage_prog=$1
  shift
  usage_cmd=()
  rm -f "$work/calls"
  usage "$@"
}
# unchanged NAME FILE COPY: the file is as it was.
unchanged() {
  if cmp -s "$2" "$3"; then pass "$1: the file is unchanged"; else fail "$1" "the file was changed"; fi
}

# --- 1. sweep -o an input -------------------------------------------------------------------------
cfg="$work/cfg"
mkdir -p "$cfg/sub" "$work/repo/models"
cp "$repo/models/gpt-7.5b.json" "$cfg/m.json"
cp "$repo/models/gpt-7.5b.json" "$cfg/m2.json"
cp "$repo/topologies/devices/a100-sxm-80gb.json" "$cfg/sub/dev.json"
python3 - "$repo" "$cfg" <<'PY'
import json, sys
repo, cfg = sys.argv[1:]
cluster = json.load(open(f"{repo}/topologies/dgx-a100-superpod.json"))
cluster["gpu"] = "dev.json"  # relative to the cluster file's folder
json.dump(cluster, open(f"{cfg}/sub/c.json", "w"))
q = json.load(open(f"{repo}/configs/quickstart.json"))
q.update(model="m.json", cluster={"from": "sub/c.json", "gpus": 16})
q["failures"] = {"kind": "trace", "trace": "t.csv", "horizon": "1 d", "trials": 1}
json.dump(q, open(f"{cfg}/q.json", "w"))
named = dict(q, model="promises-model")  # a name trainsim finds in the data folder's models/
json.dump(named, open(f"{cfg}/named.json", "w"))
PY
printf 'time,component,location\n1 h,gpu,node 0\n' >"$cfg/t.csv"
cp -r "$cfg" "$work/cfg-copy"
ln -s sub/c.json "$cfg/to-cluster.json"
mkdir -p "$work/repo/scripts"
cp -r "$repo/scripts/sweep" "$repo/scripts/lib" "$work/repo/scripts/"
cp "$cfg/m.json" "$work/repo/models/promises-model.json"
cp "$cfg/m.json" "$work/promises-model.copy"
sw=("$cfg/q.json" --trainsim "$fake" --vary seed=1,2)
refused scripts/sweep "-o the model the config names by path" "m.json: cannot write: it is the input" \
  "$sweep" "${sw[@]}" -o "$cfg/m.json"
unchanged "-o the model" "$cfg/m.json" "$work/cfg-copy/m.json"
refused scripts/sweep "-o a link to the cluster's \"from\" file" "to-cluster.json: cannot write: it is the input" \
  "$sweep" "${sw[@]}" -o "$cfg/to-cluster.json"
unchanged "-o the \"from\" file" "$cfg/sub/c.json" "$work/cfg-copy/sub/c.json"
refused scripts/sweep "-o the device file the cluster file names" "dev.json: cannot write: it is the input" \
  "$sweep" "${sw[@]}" -o "$cfg/sub/dev.json"
unchanged "-o the device file" "$cfg/sub/dev.json" "$work/cfg-copy/sub/dev.json"
refused scripts/sweep "-o the trace a nested key names" "t.csv: cannot write: it is the input" \
  "$sweep" "${sw[@]}" -o "$cfg/t.csv"
unchanged "-o the trace" "$cfg/t.csv" "$work/cfg-copy/t.csv"
refused scripts/sweep "-o a model a --vary value names" "m2.json: cannot write: it is the input" \
  "$sweep" "$cfg/q.json" --trainsim "$fake" --vary model=m.json,m2.json -o "$cfg/m2.json"
unchanged "-o a --vary value's file" "$cfg/m2.json" "$work/cfg-copy/m2.json"
refused scripts/sweep "-o a model named by name (the data folder's models/)" "cannot write: it is the input" \
  "$work/repo/scripts/sweep" "$cfg/named.json" --trainsim "$fake" --vary seed=1 \
  -o "$work/repo/models/promises-model.json"
unchanged "-o a named model" "$work/repo/models/promises-model.json" "$work/promises-model.copy"

# --- 3. --max-wall out of range ----------------------------------------------------------------------
for w in inf nan -1 0; do
  refused scripts/sweep "--max-wall $w" "out of range (expected a number of seconds above 0" \
    "$sweep" "${sw[@]}" --max-wall "$w"
done

# --- 2. --resume and --merge: a CSV the sweep did not write -------------------------------------------
q="$repo/configs/quickstart.json"
rs=("$q" --trainsim "$fake" --vary seed=1,2)
timeout 120 "$sweep" "$q" --trainsim "$trainsim" --vary seed=1,2 -o "$work/good.csv" 2>"$work/good.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c ',ok,' "$work/good.csv")" -eq 2 ]; then
  pass "a two-point sweep to edit: exit 0, two ok rows"
else
  fail "the sweep to edit" "exit $rc: $(tail -c 300 "$work/good.err")"
fi
cp "$work/good.csv" "$work/big.csv"
truncate -s 2G "$work/big.csv"
# Under a 1 GiB address-space limit: a sweep that read the whole file would fail, not swap.
usage_prog=scripts/sweep
usage_cmd=(bash -c 'ulimit -v 1048576 && exec "$@"' limited)
rm -f "$work/calls"
usage "--resume of a 2 GiB CSV" "big.csv: --resume: 2147483648 bytes, more than this sweep of 2 points writes" \
  "$sweep" "${rs[@]}" -o "$work/big.csv" --resume
if [ "$(stat -c %s "$work/big.csv")" -eq 2147483648 ] &&
   head -n 1 "$work/big.csv" | cmp -s - <(head -n 1 "$work/good.csv"); then pass "the 2 GiB CSV is left as it was"; else fail "2 GiB CSV" "changed: $(stat -c %s "$work/big.csv") bytes"; fi
rm -f "$work/big.csv"
python3 - "$work" <<'PY'
import csv, sys
work = sys.argv[1]
rows = list(csv.reader(open(f"{work}/good.csv", newline="")))
status = rows[0].index("status")
def write(name, rows):
    with open(f"{work}/{name}", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
cell = [r[:] for r in rows]
cell[2] = cell[2][:status] + ["invalid"] + [""] * (len(cell[2]) - status - 2) + ["x" * 200_000]
write("cell.csv", cell)
edited = [r[:] for r in rows]
edited[1][rows[0].index("step_time_s")] = "4.07x"
write("edited.csv", edited)
PY
cp "$work/cell.csv" "$work/cell.copy"
cp "$work/edited.csv" "$work/edited.copy"
refused scripts/sweep "--resume of a CSV with a 200 kB cell" "cell.csv: --resume: " \
  "$sweep" "${rs[@]}" -o "$work/cell.csv" --resume
unchanged "--resume of a 200 kB cell" "$work/cell.csv" "$work/cell.copy"
refused scripts/sweep "--resume of a CSV with an edited number" \
  "edited.csv: --resume: row 2: step_time_s is 4.07x in a row of status ok (expected a number" \
  "$sweep" "${rs[@]}" -o "$work/edited.csv" --resume
unchanged "--resume of an edited number" "$work/edited.csv" "$work/edited.copy"
mkdir -p "$work/parts"
cp "$work/edited.csv" "$work/parts/part-0.csv"
refused scripts/sweep "--merge of a part with an edited number" "part-0.csv: --merge: row 2: step_time_s is 4.07x" \
  "$sweep" "${rs[@]}" --chunk 2 --merge "$work/parts" -o "$work/merged.csv"
cp "$work/cell.csv" "$work/parts/part-0.csv"
refused scripts/sweep "--merge of a part with a 200 kB cell" "part-0.csv: --merge: " \
  "$sweep" "${rs[@]}" --chunk 2 --merge "$work/parts" -o "$work/merged.csv"
if [ ! -e "$work/merged.csv" ]; then pass "--merge refused: nothing written"; else fail "--merge" "wrote a CSV"; fi

# --- 4. a point that never ends and ignores SIGTERM ----------------------------------------------------
hang="$work/hang-trainsim"
cat >"$hang" <<EOF
#!/usr/bin/env bash
echo \$\$ >>"$work/hang.pids"
trap '' TERM
exec sleep 600
EOF
chmod +x "$hang"
start=$SECONDS
timeout -k 5 60 "$sweep" "$q" --trainsim "$hang" --vary seed=1,2 -j 2 --max-wall 1 -o "$work/hang.csv" \
  2>"$work/hang.err"
rc=$?
took=$((SECONDS - start))
sleep 0.5
left=0
while read -r p; do  # a zombie (an orphan no init reaped yet) has stopped running
  state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) && [ "$state" != Z ] && left=$((left + 1))
done <"$work/hang.pids"
if [ $rc -eq 0 ] && [ $took -le 30 ] && [ "$(grep -c '^[12],timeout,.*the sweep stopped it' "$work/hang.csv")" -eq 2 ]
then
  pass "points that hang and ignore SIGTERM, --max-wall 1: the sweep ends in $took s, two timeout rows"
else
  fail "hung points" "exit $rc after $took s: $(tail -c 300 "$work/hang.err"); $(cat "$work/hang.csv" 2>/dev/null)"
fi
if [ "$left" -eq 0 ] && [ -s "$work/hang.pids" ]; then pass "no hung point is left running"; else
  fail "hung points left" "$left still running"; fi
cp "$work/hang.pids" "$work/hang.pids.before"
timeout -k 5 60 "$sweep" "$q" --trainsim "$hang" --vary seed=1,2 --max-wall 1 -o "$work/hang.csv" --resume \
  2>"$work/resume.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/hang.pids" "$work/hang.pids.before" &&
   grep -q "resuming: 2 of 2 points kept" "$work/resume.err"; then
  pass "--resume of the CSV with timeout rows: both kept, nothing run"
else
  fail "--resume of timeout rows" "exit $rc: $(cat "$work/resume.err")"
fi

# --- 5. a point's 50 MB of stderr ----------------------------------------------------------------------
loud="$work/loud-trainsim"
cat >"$loud" <<'EOF'
#!/usr/bin/env bash
case "$*" in
  *seed=1*) printf 'trainsim: error: /x: '; head -c 50000000 /dev/zero | tr '\0' e; echo; echo second ;;
  *) echo "trainsim: error: short first line"; yes 'another line' | head -c 50000000 ;;
esac >&2
exit 2
EOF
chmod +x "$loud"
start=$SECONDS
timeout -k 5 60 "$sweep" "$q" --trainsim "$loud" --vary seed=1,2 -j 2 -o "$work/loud.csv" 2>"$work/loud.err"
rc=$?
took=$((SECONDS - start))
python3 - "$work/loud.csv" <<'PY' >"$work/checks" 2>&1
import csv, os, sys
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
size = os.path.getsize(sys.argv[1])
csv.field_size_limit(1 << 30)  # a sweep that copied the stderr whole: the rows are read, and checked
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
check(size < 4000, f"50 MB of stderr per point: a CSV of {size} bytes")
long = rows[0]["error"] if rows else ""
check(long.startswith("/x: eeee") and long.endswith(" characters)") and len(long) < 260,
      f"a 50 MB first line: cut to 200 characters with its length ({long[-40:]!r})")
check(len(rows) > 1 and rows[1]["error"] == "short first line", "a short first line, then 50 MB: the first line whole")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"
if [ $rc -eq 0 ] && [ $took -le 30 ]; then pass "the loud points: exit 0 in $took s"; else
  fail "loud points" "exit $rc after $took s: $(tail -c 300 "$work/loud.err")"; fi

# --- 6. plot: figures past their limits, long titles, warnings, internal errors -----------------------
python3 - "$work" "$repo" <<'PY'
import csv, json, sys
work, repo = sys.argv[1:]
with open(f"{work}/grid.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["a", "b", "status", "mfu", "error"])
    w.writerows([i, j, "ok", 0.5, ""] for i in range(300) for j in range(300))
with open(f"{work}/rows.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["a", "status", "step_time_s", "peak_bytes_per_gpu", "error"])
    w.writerows([i, "ok", 1 + i % 7, 1e9 * (1 + i % 5), ""] for i in range(100_001))
report = json.load(open(f"{repo}/examples/plots/pp4-report.json"))
stage = report["memory"]["stages"][0]
report["memory"]["stages"] = [dict(stage, pipeline_rank=i) for i in range(10_000)]
json.dump(report, open(f"{work}/stages.json", "w"))
PY
refused scripts/plot "heatmap of 300 x 300 cells" "grid.csv: 300 values of b, more than a figure shows" \
  timeout -k 1 20 "$plot" heatmap "$work/grid.csv" -o "$work/grid.png"
refused scripts/plot "memory of a report of 10,000 stages" \
  "stages.json: 10000 pipeline stages in memory.stages, more than a figure shows" \
  timeout -k 1 20 "$plot" memory "$work/stages.json" -o "$work/stages.png"
refused scripts/plot "pareto of a CSV of 100,001 rows" "rows.csv: more than 100000 rows" \
  timeout -k 1 20 "$plot" pareto "$work/rows.csv" -o "$work/rows.png"
if [ ! -e "$work/grid.png" ] && [ ! -e "$work/stages.png" ] && [ ! -e "$work/rows.png" ]; then
  pass "refused figures: no file written"; else fail "refused figures" "a file was written"; fi
left=$(pgrep -a -f "$work/(grid|stages|rows)" || true)
if [ -z "$left" ]; then pass "no plot process left"; else fail "plot processes left" "$left"; fi
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  # plotted NAME TITLE: the tp-pp heatmap with --title TITLE: exit 0, a PNG, stderr empty.
  plotted() {
    timeout -k 1 60 "$plot" heatmap "$repo/examples/plots/tp-pp.csv" --title "$2" -o "$work/$1.png" 2>"$work/$1.err"
    local rc=$?
    if [ $rc -eq 0 ] && [ ! -s "$work/$1.err" ] && [ "$(head -c 4 "$work/$1.png" | od -An -c | tr -d ' ')" = '211PNG' ]
    then pass "$1: a PNG, nothing on stderr"; else fail "$1" "exit $rc: $(head -c 300 "$work/$1.err")"; fi
  }
  plotted "a 120 kB title" "$(head -c 120000 /dev/zero | tr '\0' T)"
  plotted "a title of glyphs the font lacks (no matplotlib warning)" "训练 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃"
else
  echo "skip the titles: no matplotlib"
fi
mkdir -p "$work/broken/matplotlib"
echo 'def use(name): raise RuntimeError("a broken backend")' >"$work/broken/matplotlib/__init__.py"
PYTHONPATH="$work/broken" timeout -k 1 20 "$plot" heatmap "$repo/examples/plots/tp-pp.csv" -o "$work/broken.png" \
  >"$work/broken.out" 2>"$work/broken.err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$work/broken.err")" -eq 1 ] &&
   grep -q '^scripts/plot: internal error: RuntimeError: a broken backend' "$work/broken.err" &&
   [ ! -e "$work/broken.png" ]
then pass "a broken matplotlib: one line, internal error, exit 1, no file"
else fail "broken matplotlib" "exit $rc: $(head -c 400 "$work/broken.err")"; fi

# --- 7. studies with a study-level mistake ---------------------------------------------------------------
st="$work/study"
mkdir -p "$st"
cp "$repo/configs/studies/recovery/job.json" "$st/job.json"
python3 - "$repo" "$st" <<'PY'
import json, sys
repo, st = sys.argv[1:]
base = json.load(open(f"{repo}/configs/studies/recovery/study.json"))
def write(name, **changes):
    json.dump(dict(base, **changes), open(f"{st}/{name}", "w"))
ok = {"label": "checkpoint-restart", "set": {"recovery.kind": "checkpoint-restart"}}
write("unknown.json", strategies=[ok, {"label": "bogus", "set": {"recovery.kind": "bogus"}}])
write("empty-path.json", strategies=[ok, {"label": "empty", "set": {"": "checkpoint-restart"}}])
write("itself.json", scenario="itself.json")
optical = json.load(open(f"{repo}/configs/studies/optical/study.json"))
json.dump(dict(optical, scenario="optical-itself.json"), open(f"{st}/optical-itself.json", "w"))
PY
sr=("$repo/scripts/study-recovery" --trainsim "$fake" --rates "10 min" --trials 2 -o "$work/study.csv")
refused scripts/study-recovery "study naming an unknown recovery strategy" \
  "unknown.json: /strategies/1 (bogus): trainsim check refuses the job with it: /recovery/kind: unknown recovery" \
  "${sr[@]}" "$st/unknown.json"
refused scripts/study-recovery "study with an empty set path" \
  "empty-path.json: /strategies/1/set: \"\" is not a scenario path" "${sr[@]}" "$st/empty-path.json"
refused scripts/study-recovery "study naming itself as its scenario" \
  "itself.json: /scenario: itself.json is the study itself" "${sr[@]}" "$st/itself.json"
refused scripts/study-optical "optical study naming itself as its scenario" \
  "optical-itself.json: /scenario: optical-itself.json is the study itself" \
  "$repo/scripts/study-optical" "$st/optical-itself.json" --trainsim "$fake" -o "$work/optical.csv"
if [ ! -e "$work/study.csv" ] && [ ! -e "$work/optical.csv" ]; then pass "refused studies: no CSV written"; else
  fail "refused studies" "a CSV was written"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
