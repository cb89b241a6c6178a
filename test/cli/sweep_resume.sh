#!/usr/bin/env bash
# scripts/sweep -o as a journal, --resume and the progress line.
# Checked here: a 24-point sweep killed with SIGKILL halfway leaves only complete lines, no
# duplicates, and no trainsim running; --resume runs exactly the points missing and ends with
# the CSV an uninterrupted sweep writes, byte for byte (24 distinct rows, no partial line); a last
# line cut short is dropped and its point rerun; interrupted and crashed rows are rerun, ok and
# invalid rows kept; the progress line appears on a terminal (script(1)) and never in a file; bad
# use of --resume is one line, exit 2.
#
# Usage: bash sweep_resume.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: sweep_resume.sh TRAINSIM REPO}
repo=${2:?usage: sweep_resume.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
sweep="$repo/scripts/sweep"
config="$repo/configs/quickstart.json"  # 16 GPUs: micro_batch 1..8 at tp 1, 2, 4 gives ok and invalid points
export TMPDIR="$work/tmp"               # scratch folders a SIGKILL leaves behind land here
mkdir "$TMPDIR"

# A trainsim that takes 0.3 s a point and notes each start (pid), so the test can kill the sweep
# halfway, count the points a resume runs, and see that no point outlives a killed sweep.
slow="$work/slow-trainsim"
cat >"$slow" <<EOF
#!/usr/bin/env bash
echo \$\$ >>"$work/started"
[ -f "$work/hang" ] && exec sleep 30  # a point that would run long
sleep 0.3
exec "$trainsim" "\$@"
EOF
chmod +x "$slow"
args=("$config" --trainsim "$slow" -j 2 --vary parallelism.dp=auto --vary parallelism.tp=1,2,4
  --vary training.micro_batch=1..8)
started() { if [ -f "$work/started" ]; then wc -l <"$work/started"; else echo 0; fi; }

"$sweep" "${args[@]}" -o "$work/full.csv" 2>"$work/full.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$work/full.csv")" -eq 25 ]; then
  pass "an uninterrupted 24-point sweep: a header and 24 rows"
else
  fail "uninterrupted sweep" "exit $rc, $(wc -l <"$work/full.csv") lines: $(cat "$work/full.err")"
fi

# --- SIGKILL halfway, then --resume ----------------------------------------------------------------
rm -f "$work/started"
"$sweep" "${args[@]}" -o "$work/k.csv" 2>/dev/null &
pid=$!
for _ in $(seq 200); do  # until 12 rows are in (at most 20 s)
  [ -f "$work/k.csv" ] && [ "$(wc -l <"$work/k.csv")" -ge 13 ] && break
  sleep 0.1
done
# From now on points run for 30 s: kill the sweep once two of them are running.
touch "$work/hang"
before=$(started)
for _ in $(seq 100); do [ "$(started)" -ge $((before + 2)) ] && break; sleep 0.05; done
sleep 0.2
kill -KILL $pid
wait $pid 2>/dev/null
rm "$work/hang"
rows_at_kill=$(($(wc -l <"$work/k.csv") - 1))
sleep 0.5  # the points in flight get SIGKILL from the kernel as their parent dies
alive=0
while read -r p; do  # a zombie (an orphan no init reaped yet) has stopped running
  state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) && [ "$state" != Z ] && alive=$((alive + 1))
done <"$work/started"
cp "$work/k.csv" "$work/k-at-kill.csv"
python3 - "$work/k-at-kill.csv" "$work/full.csv" <<'PY' >"$work/checks" 2>&1
import sys
data = open(sys.argv[1], "rb").read()
full = open(sys.argv[2]).read().splitlines()
lines = data.decode().splitlines()
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
check(data.endswith(b"\n"), "killed with SIGKILL: the CSV ends with a whole line")
check(lines[0] == full[0], "killed: the header is the sweep's")
check(len(set(lines[1:])) == len(lines) - 1, "killed: no row twice")
check(set(lines[1:]) <= set(full[1:]), "killed: every row is one an uninterrupted sweep writes, whole")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"
if [ "$rows_at_kill" -ge 12 ] && [ "$rows_at_kill" -lt 24 ]; then
  pass "killed halfway: $rows_at_kill of 24 rows in the CSV"
else
  fail "kill halfway" "$rows_at_kill rows when killed (expected 12 to 23)"
fi
if [ $alive -eq 0 ]; then pass "no point outlives the killed sweep (two were to run 30 s)"; else
  fail "orphans" "$alive points still running"; fi

rm -f "$work/started"
"$sweep" "${args[@]}" -o "$work/k.csv" --resume 2>"$work/resume.err"
rc=$?
ran=$(started)
if [ $rc -eq 0 ] && cmp -s "$work/k.csv" "$work/full.csv"; then
  pass "--resume: exit 0 and the uninterrupted sweep's CSV, byte for byte (24 distinct rows, no partial line)"
else
  fail "--resume" "exit $rc: $(cat "$work/resume.err"); $(diff "$work/k.csv" "$work/full.csv" | head -5)"
fi
if [ "$ran" -eq $((24 - rows_at_kill)) ]; then
  pass "--resume ran the $ran missing points, no other"
else
  fail "--resume points" "ran $ran points with $rows_at_kill kept (expected $((24 - rows_at_kill)))"
fi
if grep -q "resuming: $rows_at_kill of 24 points kept" "$work/resume.err"; then
  pass "--resume says how many points it kept"
else
  fail "--resume message" "$(cat "$work/resume.err")"
fi

# --- a line cut short, interrupted and crashed rows ------------------------------------------------
# From the whole CSV: row 3 made interrupted, row 5 crashed, row 9 dropped, and the last row cut
# in the middle (as a crash of the machine could leave it).
python3 - "$work/full.csv" "$work/edited.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
status = rows[0].index("status")
for r, s in ((3, "interrupted"), (5, "crash")):
    rows[r] = rows[r][:status] + [s] + [""] * (len(rows[r]) - status - 2) + ["stopped"]
del rows[9]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    for r in rows[:-1]:
        w.writerow(r)
    f.write(",".join(rows[-1])[:20])  # no newline
PY
rm -f "$work/started"
"$sweep" "${args[@]}" -o "$work/edited.csv" --resume 2>"$work/edited.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/edited.csv" "$work/full.csv" && [ "$(started)" -eq 4 ]; then
  pass "--resume reruns the interrupted, crashed, missing and cut-short rows (4 points), keeps the rest"
else
  fail "--resume of an edited CSV" "exit $rc, $(started) points run: $(cat "$work/edited.err")"
fi

# A finished sweep resumed: nothing runs, the CSV is unchanged. A new name: a fresh start.
rm -f "$work/started"
"$sweep" "${args[@]}" -o "$work/full.csv" --resume 2>/dev/null
rc=$?
if [ $rc -eq 0 ] && [ "$(started)" -eq 0 ]; then pass "--resume of a finished sweep runs nothing"; else
  fail "--resume finished" "exit $rc, $(started) points run"; fi
"$sweep" "${args[@]}" -o "$work/new.csv" --resume 2>/dev/null
if cmp -s "$work/new.csv" "$work/full.csv"; then pass "--resume onto a new name is a fresh sweep"; else
  fail "--resume new" "the CSVs differ"; fi

# --- the progress line: on a terminal only ---------------------------------------------------------
small=("$config" --trainsim "$slow" -j 2 --vary training.micro_batch=1..4)
if command -v script >/dev/null; then
  script -qec "$(printf '%q ' "$sweep" "${small[@]}" -o "$work/tty.csv")" /dev/null >"$work/tty.out" 2>&1
  not_ok=$(grep -vc ',ok,' "$work/tty.csv")  # the header and each row not ok
  if tr '\r' '\n' <"$work/tty.out" | grep -q "\] 4/4 points, .*/s, ETA 0:00:00, $((not_ok - 1)) failed"; then
    pass "on a terminal: a progress line (points done of all, rate, ETA, failures)"
  else
    fail "progress on a terminal" "$(tr '\r' '\n' <"$work/tty.out" | head -5)"
  fi
else
  fail "progress on a terminal" "script(1) (bsdutils) is missing"
fi
"$sweep" "${small[@]}" -o "$work/notty.csv" 2>"$work/notty.err"
if ! grep -q "points, " "$work/notty.err" && ! grep -q $'\r' "$work/notty.err" &&
  [ "$(wc -l <"$work/notty.err")" -eq 2 ]; then
  pass "stderr a file: no progress line, the two summary lines only"
else
  fail "progress off a terminal" "$(cat -A "$work/notty.err" | head -5)"
fi

# --- bad usage ---------------------------------------------------------------------------------------
source "$(dirname "$0")/lib/usage.bash"
usage_cmd=("$sweep")
usage_prog=scripts/sweep
rm -f "$work/started"
usage_ran() { [ "$(started)" -ne 0 ]; }
cp "$work/full.csv" "$work/kept.csv"
usage "--resume without -o" "--resume needs -o FILE" "${small[@]}" --resume
usage "--resume of another sweep's CSV" "kept.csv: --resume: the header is not this sweep's" \
  "${small[@]}" -o "$work/kept.csv" --resume
usage "--resume with other values" "row 2: the values auto, 1, 1 are not a point of this sweep" \
  "$config" --trainsim "$slow" --vary parallelism.dp=auto --vary parallelism.tp=2,4 \
  --vary training.micro_batch=1..8 -o "$work/kept.csv" --resume
printf 'parallelism.dp,parallelism.tp\nauto,1\n' >"$work/short.csv"
usage "--resume of a CSV with short rows" "short.csv: --resume: the header is not this sweep's" \
  "${args[@]}" -o "$work/short.csv" --resume
head -n 1 "$work/full.csv" >"$work/odd.csv"
echo "auto,1,1,weird" >>"$work/odd.csv"
usage "--resume of a row with an unknown status" "row 2 is not a row of this sweep" \
  "${args[@]}" -o "$work/odd.csv" --resume
usage "a value twice" "the value 2 is listed twice" "${small[@]}" --vary parallelism.tp=2,4,2
if cmp -s "$work/kept.csv" "$work/full.csv"; then pass "a refused --resume leaves the CSV as it was"; else
  fail "refused resume" "the CSV changed"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
