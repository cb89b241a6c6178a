#!/usr/bin/env bash
# scripts/sweep on Slurm: --points slices, --merge, the job scripts --slurm writes, and a real
# single-node Slurm that runs them.
# Checked here, without Slurm: the parts of three --points slices merge into the local sweep's CSV
# byte for byte, even when a part's rows are in the order its points finished; a point missing
# from a part is an interrupted row naming its task (exit 1), and --resume of that part completes
# it; --slurm writes the same scripts for the same command, with absolute paths, the array range,
# the slices and the merge; run by hand (SLURM_ARRAY_TASK_ID=K bash sweep.sbatch, then bash
# merge.sbatch, from another folder) they give the local CSV; the printed submit command, run
# against a stand-in sbatch, submits the array and then the merge with afterany on the array's id,
# and so does --submit; --sbatch-arg, -j, --fidelity and --max-wall reach the scripts; bad usage of
# each new option is one line, exit 2.
# With Slurm (root, the slurm-wlm and munge packages): munged, slurmctld and slurmd start on a
# private configuration (own key and socket, free localhost ports, state in the scratch folder, no
# cgroups), the sweep is submitted with --submit, and the merged CSV is the local CSV byte for
# byte; task 1 submitted again after its part lost a row keeps the other rows (--resume) and the
# merge gives the local CSV again; every daemon is stopped at the end (and gets SIGTERM should
# this shell be killed). Where Slurm cannot start, the test says why and exits 77 (ctest:
# skipped) once the other checks pass.
#
# Usage: bash sweep_slurm.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: sweep_slurm.sh TRAINSIM REPO}
repo=${2:?usage: sweep_slurm.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
trainsim=$(realpath "$trainsim")
sweep="$repo/scripts/sweep"
config="$repo/configs/quickstart.json"  # 16 GPUs: tp 3 does not divide the heads, so some rows are invalid
# 8 points; --chunk 3 makes three slices, the last one short (points 6 and 7).
args=("$config" --trainsim "$trainsim" --vary parallelism.dp=auto --vary parallelism.tp=1,2,3,4
  --vary training.micro_batch=1..2)

"$sweep" "${args[@]}" -j 2 -o "$work/local.csv" 2>"$work/local.err"
if [ "$(wc -l <"$work/local.csv")" -eq 9 ] && grep -q ',ok,' "$work/local.csv" && grep -q ',invalid,' "$work/local.csv"; then
  pass "the local sweep: 8 rows, ok and invalid ones"
else
  fail "local sweep" "$(cat "$work/local.err")"
fi

# --- --points slices and --merge -------------------------------------------------------------------
mkdir "$work/parts"
for k in 0 1 2; do
  first=$((3 * k)) last=$((3 * k + 2))
  [ $last -gt 7 ] && last=7
  "$sweep" "${args[@]}" -j 1 --points "$first..$last" -o "$work/parts/part-$k.csv" 2>/dev/null
done
if [ "$(cat "$work"/parts/part-*.csv | grep -vc '^parallelism.dp,')" -eq 8 ]; then
  pass "three --points slices: 3 + 3 + 2 rows"
else
  fail "--points slices" "$(wc -l "$work"/parts/part-*.csv)"
fi
# A journal holds rows in the order the points finished: part 2 reversed (header first).
{ head -n 1 "$work/parts/part-2.csv"; tail -n +2 "$work/parts/part-2.csv" | tac; } >"$work/p2" && mv "$work/p2" "$work/parts/part-2.csv"
"$sweep" "${args[@]}" --merge "$work/parts" --chunk 3 -o "$work/merged.csv" 2>"$work/merge.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$work/local.csv"; then
  pass "--merge of the slices: exit 0 and the local CSV byte for byte (a part in finishing order too)"
else
  fail "--merge" "exit $rc: $(cat "$work/merge.err"); $(diff "$work/merged.csv" "$work/local.csv" | head -6)"
fi

# A point missing from part 1 (its task ran out of time): an interrupted row that names task 1.
cp "$work/parts/part-1.csv" "$work/part-1.whole"
sed -i '3d' "$work/parts/part-1.csv"  # point 4: tp 3, micro-batch 1
"$sweep" "${args[@]}" --merge "$work/parts" --chunk 3 -o "$work/holed.csv" 2>"$work/holed.err"
rc=$?
python3 - "$work/holed.csv" "$work/local.csv" <<'PY' >"$work/checks" 2>&1
import csv, sys
holed = list(csv.reader(open(sys.argv[1], newline="")))
local = list(csv.reader(open(sys.argv[2], newline="")))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
status = local[0].index("status")
check(len(holed) == 9 and all(holed[i] == local[i] for i in range(9) if i != 5),
      "a point missing from its part: the other rows are the local CSV's")
row = holed[5] if len(holed) > 5 else []
check(row[:status] == local[5][:status] and row[status] == "interrupted" and "array task 1 ended" in row[-1]
      and all(c == "" for c in row[status + 1:-1]), "the missing point: a row with status interrupted naming task 1")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "$(head -c 300 "$work/holed.csv")" ;; esac
done <"$work/checks"
if [ $rc -eq 1 ] && grep -q "sbatch --array=1 $work/parts/sweep.sbatch" "$work/holed.err"; then
  pass "a merge with a point missing exits 1 and says which task to run again"
else
  fail "merge with a hole" "exit $rc: $(cat "$work/holed.err")"
fi
"$sweep" "${args[@]}" -j 1 --points 3..5 -o "$work/parts/part-1.csv" --resume 2>/dev/null
"$sweep" "${args[@]}" --merge "$work/parts" --chunk 3 -o "$work/holed.csv" 2>/dev/null
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/parts/part-1.csv" "$work/part-1.whole" && cmp -s "$work/holed.csv" "$work/local.csv"; then
  pass "--points --resume completes the part; merged again: the local CSV"
else
  fail "resume a part" "exit $rc; $(diff "$work/parts/part-1.csv" "$work/part-1.whole" | head -4)"
fi

# --- the scripts --slurm writes ----------------------------------------------------------------------
gen="$work/gen"
"$sweep" "${args[@]}" -o "$work/gen.csv" --slurm "$gen" --chunk 3 >"$work/gen.out" 2>"$work/gen.err"
rc=$?
expected="array=\$(sbatch --parsable $gen/sweep.sbatch) && sbatch --parsable --dependency=afterany:\"\${array%%;*}\" $gen/merge.sbatch"
if [ $rc -eq 0 ] && [ "$(cat "$work/gen.out")" = "$expected" ] && [ "$(wc -l <"$work/gen.out")" -eq 1 ]; then
  pass "--slurm prints the submit command: the array, then the merge after it (afterany)"
else
  fail "--slurm output" "exit $rc: $(cat "$work/gen.out" "$work/gen.err")"
fi
a="$gen/sweep.sbatch" m="$gen/merge.sbatch"
has() { grep -qxF -- "$2" "$1"; }
has_in() { grep -qF -- "$2" "$1"; }
if has "$a" "#SBATCH --array=0-2" && has "$a" "#SBATCH --cpus-per-task=1" && has "$a" "#SBATCH --output=$gen/task-%a.log" &&
  has "$a" 'first=$((SLURM_ARRAY_TASK_ID * 3))' && has "$a" 'if [ "$last" -gt 7 ]; then last=7; fi' &&
  has_in "$a" "exec $(realpath "$sweep") $(realpath "$config") --trainsim $trainsim --vary=parallelism.dp=auto --vary=parallelism.tp=1,2,3,4 --vary=training.micro_batch=1..2 -j 1 --points \"\$first..\$last\" -o $gen/\"part-\$SLURM_ARRAY_TASK_ID.csv\" --resume"; then
  pass "sweep.sbatch: the array range 0-2, 3 points a task, absolute paths, each task's part with --resume"
else
  fail "sweep.sbatch" "$(cat "$a")"
fi
if has "$m" "#SBATCH --output=$gen/merge.log" && ! grep -q -- '--array' "$m" &&
  has_in "$m" "exec $(realpath "$sweep") $(realpath "$config") --trainsim $trainsim --vary=parallelism.dp=auto --vary=parallelism.tp=1,2,3,4 --vary=training.micro_batch=1..2 --chunk 3 --merge $gen -o $work/gen.csv"; then
  pass "merge.sbatch: --merge of the folder into the -o CSV, absolute paths"
else
  fail "merge.sbatch" "$(cat "$m")"
fi
cp "$a" "$work/a1" && cp "$m" "$work/m1"
"$sweep" "${args[@]}" -o "$work/gen.csv" --slurm "$gen" --chunk 3 >/dev/null 2>&1
if cmp -s "$a" "$work/a1" && cmp -s "$m" "$work/m1"; then pass "the same command writes the same scripts, byte for byte"; else
  fail "determinism" "$(diff "$work/a1" "$a")"; fi
"$sweep" "${args[@]}" -o "$work/big.csv" --slurm "$work/big" --vary seed=1..300 >/dev/null 2>&1  # 2,400 points
if has "$work/big/sweep.sbatch" "#SBATCH --array=0-799" && has "$work/big/sweep.sbatch" 'first=$((SLURM_ARRAY_TASK_ID * 3))'; then
  pass "the default --chunk: 2,400 points in 800 tasks of 3 (at most 1,000 tasks)"
else
  fail "default chunk" "$(grep -e --array -e first= "$work/big/sweep.sbatch")"
fi
"$sweep" "${args[@]}" -o "$work/opt.csv" --slurm "$work/opt" -j 2 --fidelity full --max-wall 30 \
  --sbatch-arg=--partition=cpu --sbatch-arg=--time=1:00:00 >/dev/null 2>&1
ok_both=1
for f in "$work/opt/sweep.sbatch" "$work/opt/merge.sbatch"; do
  has "$f" "#SBATCH --partition=cpu" && has "$f" "#SBATCH --time=1:00:00" &&
    has_in "$f" "--vary=training.micro_batch=1..2 --fidelity full --max-wall 30.0 " || ok_both=0
done
if [ $ok_both -eq 1 ] && has "$work/opt/sweep.sbatch" "#SBATCH --cpus-per-task=2" &&
  has_in "$work/opt/sweep.sbatch" "--max-wall 30.0 -j 2 --points "; then
  pass "--sbatch-arg: an #SBATCH line in both scripts; --fidelity, --max-wall and -j (with --cpus-per-task) passed on"
else
  fail "options passed on" "$(cat "$work/opt/sweep.sbatch")"
fi
# Run as Slurm would, from another folder: each array task, then the merge.
mkdir "$work/elsewhere"
(cd "$work/elsewhere" && for k in 0 1 2; do SLURM_ARRAY_TASK_ID=$k bash "$a" 2>/dev/null; done && bash "$m" 2>/dev/null)
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/gen.csv" "$work/local.csv"; then
  pass "the scripts run by hand from another folder: the local CSV byte for byte"
else
  fail "scripts by hand" "exit $rc; $(diff "$work/gen.csv" "$work/local.csv" | head -4)"
fi

# A CSV name with a newline in it: quoted in the scripts, never a line of its own.
nl="$work/odd"$'\n'"name.csv"
"$sweep" "$config" --trainsim "$trainsim" --vary training.micro_batch=1..2 -o "$nl" --slurm "$work/nl" --chunk 1 >/dev/null 2>&1
(cd "$work/elsewhere" && for k in 0 1; do SLURM_ARRAY_TASK_ID=$k bash "$work/nl/sweep.sbatch" 2>/dev/null; done &&
  bash "$work/nl/merge.sbatch" 2>/dev/null)
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$nl")" -eq 3 ] && ! grep -q '^name.csv ' "$work"/nl/*.sbatch; then
  pass "an -o with a newline in its name: quoted in the scripts, which write it"
else
  fail "-o with a newline" "exit $rc: $(cat "$work/nl/merge.sbatch")"
fi

# The printed command and --submit against a stand-in sbatch that logs its arguments.
mkdir "$work/bin"
cat >"$work/bin/sbatch" <<EOF
#!/usr/bin/env bash
echo "\$*" >>"$work/sbatch.log"
n=\$(wc -l <"$work/sbatch.log")
echo "\$((40 + n));cluster"
EOF
chmod +x "$work/bin/sbatch"
(PATH="$work/bin:$PATH" && eval "$(cat "$work/gen.out")") >"$work/eval.out"
if [ "$(cat "$work/sbatch.log")" = "--parsable $gen/sweep.sbatch
--parsable --dependency=afterany:41 $gen/merge.sbatch" ]; then
  pass "the printed command submits the array, then the merge with afterany on the array's job id"
else
  fail "printed command" "$(cat "$work/sbatch.log")"
fi
rm "$work/sbatch.log"
PATH="$work/bin:$PATH" "$sweep" "${args[@]}" -o "$work/gen.csv" --slurm "$gen" --chunk 3 --submit >"$work/submit.out" 2>/dev/null
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$work/submit.out")" = "41 42" ] && [ "$(cat "$work/sbatch.log")" = "--parsable $gen/sweep.sbatch
--parsable --dependency=afterany:41 $gen/merge.sbatch" ]; then
  pass "--submit runs the same two sbatch commands and prints the two job ids"
else
  fail "--submit" "exit $rc, $(cat "$work/submit.out"): $(cat "$work/sbatch.log")"
fi

# --- bad usage ---------------------------------------------------------------------------------------
source "$(dirname "$0")/lib/usage.bash"
usage_cmd=("$sweep")
usage_prog=scripts/sweep
touch "$work/afile"
usage "--slurm without -o" "--slurm needs -o FILE" "${args[@]}" --slurm "$work/s1"
usage "--merge without -o" "--merge needs -o FILE" "${args[@]}" --merge "$work/parts"
usage "--chunk 0" "--chunk 0: expected a number of points per array task, at least 1" \
  "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --chunk 0
usage "--chunk without --slurm" "--chunk without --slurm" "${args[@]}" --chunk 2
usage "--submit without --slurm" "--submit without --slurm" "${args[@]}" --submit
usage "--sbatch-arg without --slurm" "--sbatch-arg without --slurm" "${args[@]}" --sbatch-arg=--time=1:00
usage "--sbatch-arg not an option" "--sbatch-arg time=1: expected one sbatch option" \
  "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --sbatch-arg time=1
usage "--slurm with --merge" "--slurm and --merge together" "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --merge "$work/parts"
usage "--slurm with --resume" "--resume with --slurm" "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --resume
usage "--slurm with --points" "--points with --slurm" "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --points 0..1
usage "--points past the end" "--points 6..8: out of range for a sweep of 8 points" "${args[@]}" --points 6..8
usage "--points backwards" "--points 3..2: out of range" "${args[@]}" --points 3..2
usage "--points not a range" "--points '5': not a range (expected FIRST..LAST" "${args[@]}" --points 5
usage "--slurm DIR a file" "--slurm $work/afile: not a folder" "${args[@]}" -o "$work/x.csv" --slurm "$work/afile"
usage "--slurm DIR in a missing folder" "is not a writable folder" "${args[@]}" -o "$work/x.csv" --slurm "$work/no/such"
usage "--slurm DIR with a space" "the path has a space" "${args[@]}" -o "$work/x.csv" --slurm "$work/a b"
# A folder that is not writable: as root, the sweep runs as nobody (setpriv), which may write only pub/.
mkdir -m 755 "$work/ro"
mkdir -m 777 "$work/pub"
if [ "$(id -u)" -ne 0 ]; then
  chmod 555 "$work/ro"
  usage "--slurm DIR not writable" "--slurm $work/ro: the folder is not writable" \
    "${args[@]}" -o "$work/pub/x.csv" --slurm "$work/ro"
elif command -v setpriv >/dev/null; then
  chmod 711 "$work"
  usage_cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups "$sweep")
  usage "--slurm DIR not writable" "--slurm $work/ro: the folder is not writable" \
    "${args[@]}" -o "$work/pub/x.csv" --slurm "$work/ro"
  chmod 700 "$work"
else
  echo "skip --slurm DIR not writable: root without setpriv"
fi
usage_cmd=(env PATH=/nonexistent "$sweep")
usage "--submit without sbatch on PATH" "--submit: sbatch is not on PATH" \
  "${args[@]}" -o "$work/x.csv" --slurm "$work/s1" --submit
usage_cmd=("$sweep")
if [ ! -e "$work/s1" ] && [ ! -e "$work/x.csv" ]; then pass "refused --slurm: no folder, no CSV"; else
  fail "refused --slurm" "it wrote $(ls "$work/s1" "$work/x.csv" 2>&1)"; fi
usage "--merge of a folder that is not" "--merge $work/afile: not a folder" "${args[@]}" -o "$work/x.csv" --merge "$work/afile"
mv "$work/parts/part-1.csv" "$work/part-1.away"
usage "--merge with a part missing" "1 of 3 parts are missing (part-1.csv;" \
  "${args[@]}" -o "$work/x.csv" --merge "$work/parts" --chunk 3
mkfifo "$work/parts/part-1.csv"
usage "--merge with a part that is a FIFO" "part-1.csv: cannot read a FIFO, not a regular file" \
  "${args[@]}" -o "$work/x.csv" --merge "$work/parts" --chunk 3
rm "$work/parts/part-1.csv"
mv "$work/part-1.away" "$work/parts/part-1.csv"
usage "--merge with another --chunk" "part-1.csv: --merge: row 2: the values auto, 2, 2 are not a point" \
  "${args[@]}" -o "$work/x.csv" --merge "$work/parts" --chunk 4
usage "--slurm into another sweep's folder" "holds the parts of another sweep" \
  "${args[@]}" --vary seed=1,2 -o "$work/x.csv" --slurm "$work/gen"
[ ! -e "$work/x.csv" ] && pass "refused --merge: no CSV" || fail "refused --merge" "it wrote x.csv"

# --- a real single-node Slurm ------------------------------------------------------------------------
# The daemons run in the foreground as children of this shell; stop_slurm ends them (and the jobs
# first), on every exit.
pids=()
conf="$work/slurm/slurm.conf"
stop_slurm() {
  if [ ${#pids[@]} -eq 0 ]; then return 0; fi
  if [ -n "${SLURM_CONF:-}" ]; then
    timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 50); do [ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  pids=()
}
trap 'stop_slurm; rm -rf "$work"' EXIT

skip=""
start_slurm() {
  [ "$(id -u)" -eq 0 ] || { skip="not root (munged and slurmd run as root here)"; return 1; }
  local c
  for c in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel hostname python3; do
    command -v $c >/dev/null || { skip="$c is missing (scripts/setup --with-slurm, or Debian: apt-get install slurm-wlm munge)"; return 1; }
  done
  local d="$work/slurm" host ports
  # Each daemon gets SIGTERM if this shell dies without running its EXIT trap (SIGKILL, a timeout).
  local orphan=()
  command -v setpriv >/dev/null && orphan=(setpriv --pdeathsig TERM)
  mkdir -m 700 "$d" "$d/munge" "$d/state" "$d/spool"
  head -c 128 /dev/urandom >"$d/munge/munge.key" && chmod 600 "$d/munge/munge.key"
  "${orphan[@]}" munged --foreground --force --socket="$d/munge/sock" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/pid" --log-file="$d/munge/log" --seed-file="$d/munge/seed" 2>"$d/munged.err" &
  pids+=($!)
  for _ in $(seq 50); do [ -S "$d/munge/sock" ] && break; sleep 0.1; done
  [ -S "$d/munge/sock" ] || { skip="munged did not start: $(tail -n 2 "$d/munged.err" | tr '\n' ' ')"; return 1; }
  host=$(hostname -s)
  ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])') || { skip="no free ports"; return 1; }
  set -- $ports
  cat >"$conf" <<EOF
ClusterName=trainsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$conf"
  "${orphan[@]}" slurmctld -D -c -f "$conf" >"$d/slurmctld.out" 2>&1 &
  pids+=($!)
  "${orphan[@]}" slurmd -D -f "$conf" -N "$host" >"$d/slurmd.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 60); do  # at most 30 s
    [ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.5
  done
  skip="the node did not come up idle in 30 s: $(tail -n 2 "$d/slurmctld.log" "$d/slurmd.log" 2>&1 | tr '\n' ' ')"
  return 1
}

if start_slurm; then
  pass "Slurm up: munged, slurmctld and slurmd on a private configuration, the node idle"
  "$sweep" "${args[@]}" -o "$work/slurm.csv" --slurm "$work/sl" --chunk 3 --submit >"$work/ids" 2>"$work/submit.err"
  rc=$?
  read -r array_id merge_id <"$work/ids"
  if [ $rc -eq 0 ] && [[ ${array_id:-} =~ ^[0-9]+$ ]] && [[ ${merge_id:-} =~ ^[0-9]+$ ]]; then
    pass "--submit on Slurm: the array job $array_id and the merge job $merge_id"
  else
    fail "--submit on Slurm" "exit $rc: $(cat "$work/ids" "$work/submit.err")"
  fi
  for _ in $(seq 240); do  # at most 120 s for the whole sweep
    [ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && break
    sleep 0.5
  done
  left=$(timeout 5 squeue -h 2>&1)
  state=$(timeout 5 scontrol show job "${merge_id:-0}" 2>&1 | grep -o -e 'JobState=[A-Z_]*' -e ' ExitCode=[0-9:]*' | tr -d ' ' | tr '\n' ' ')
  if [ -z "$left" ] && [ "$state" = "JobState=COMPLETED ExitCode=0:0 " ]; then
    pass "the jobs ended, the merge job COMPLETED with exit code 0"
  else
    fail "jobs" "still queued: $left; merge: $state; $(cat "$work"/sl/*.log 2>/dev/null | tail -n 5)"
  fi
  if cmp -s "$work/slurm.csv" "$work/local.csv" && [ "$(ls "$work"/sl/part-*.csv | wc -l)" -eq 3 ]; then
    pass "the merged CSV from Slurm: the local CSV byte for byte (3 parts)"
  else
    fail "Slurm CSV" "$(ls "$work/sl"); $(diff "$work/slurm.csv" "$work/local.csv" 2>&1 | head -4)"
  fi
  # A task that stopped early (its part lost a row), submitted again on its own: it runs the point
  # missing, keeps the others (--resume), and the merge gives the local CSV again.
  cp "$work/sl/part-1.csv" "$work/sl-part-1.whole"
  sed -i '3d' "$work/sl/part-1.csv"
  rm "$work/slurm.csv"
  timeout 60 sbatch --wait --quiet --array=1 "$work/sl/sweep.sbatch" >/dev/null 2>"$work/again.err"
  rc1=$?
  timeout 60 sbatch --wait --quiet "$work/sl/merge.sbatch" >/dev/null 2>>"$work/again.err"
  rc2=$?
  if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$work/sl/part-1.csv" "$work/sl-part-1.whole" &&
    cmp -s "$work/slurm.csv" "$work/local.csv" && grep -q "resuming: 2 of 3 points kept" "$work/sl/task-1.log"; then
    pass "sbatch --array=1 again on Slurm: the task keeps 2 points, runs the missing one; merged: the local CSV"
  else
    fail "task again" "exit $rc1, $rc2: $(cat "$work/again.err"); $(tail -n 3 "$work/sl/task-1.log")"
  fi
  started=("${pids[@]}")
  stop_slurm
  still=0
  for p in "${started[@]}"; do
    kill -0 "$p" 2>/dev/null && still=$((still + 1))
  done
  if [ $still -eq 0 ] && [ ${#started[@]} -eq 3 ]; then pass "the 3 daemons started here are stopped"; else fail "daemons" "$still still running"; fi
else
  stop_slurm
  echo "skip: a real Slurm: $skip"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] || exit 1
[ -z "$skip" ] || exit 77
