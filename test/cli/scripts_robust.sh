#!/usr/bin/env bash
# The scripts (sweep, merge-measurements, bench, run-kernels, fuzz) against hostile inputs and
# environments, all through scripts/lib/trainsim_io.py. Every command runs under
# `timeout`, so a hang is a failure, not a stuck suite.
#
# Expectation, class by class:
#  1. Outputs (sweep -o, merge OUT, run-kernels OUTPUT, fuzz's findings folder): a FIFO, a device
#     (/dev/full, a link to it), a directory, a name ending in /, a missing folder, a read-only
#     folder (tried as user nobody when this runs as root), a symlink loop, the input itself (by
#     name, through a link, as a hard link) are refused with one line and exit 2, before any
#     point runs, and the node is left as it was; a symlink to a regular file (or to a new name)
#     is written through: the target holds the output, the link is still the same link, and an
#     existing target keeps its permissions.
#  2. JSON inputs: nesting deeper than 64 (65, 100,000 and 1,000,000 deep, in a scenario field and
#     in a measurements file), more than 2^20 values, a NUL byte (after valid JSON, in a string),
#     invalid UTF-8, a key twice, NaN, 1e999, an empty file, a file over 64 MiB, and a token file
#     named by mistake: one line naming the file, exit 2, never the token; nesting of 64 is read.
#  4. Inputs that are not regular files (a FIFO with no writer, /dev/zero, a directory) as the
#     sweep's config, a measurements file and bench's table: refused at once, nothing hangs.
#  8. Sweeps: SIGINT and SIGTERM while points run stop the sweep within 3 s (exit 130, 143; a
#     point that ignores SIGTERM is killed), SIGHUP gives 129 with the CSV on stdout; the CSV
#     keeps the rows done and marks the others `interrupted`; no temporary file is left in the
#     temporary folder or beside the CSV, and no trainsim or wrapper process is left. A SIGHUP
#     ignored at start (nohup) does not stop the sweep. A point killed by a signal is a `crash`
#     row naming the signal, and the sweep exits 1.
# The slow points come from a wrapper trainsim that sleeps (except for seeds 1 and 2) and then
# runs the real one; it logs each start, so "nothing ran" is checked, not guessed from timing.
#
# Usage: bash scripts_robust.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: scripts_robust.sh TRAINSIM REPO}
repo=${2:?usage: scripts_robust.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
sweep="$repo/scripts/sweep"
merge="$repo/scripts/merge-measurements"
chmod 755 "$work"  # the read-only-folder case runs as another user when this runs as root
src="$work/in" dst="$work/out"
mkdir -p "$work/tmp" "$dst" "$src"
export TMPDIR="$work/tmp"  # the sweep's scratch folder lands here: it must be empty at the end
config="$src/q.json"
cp "$repo/configs/quickstart.json" "$config"

fake="$work/fake/trainsim"
mkdir -p "$work/fake"
cat >"$fake" <<EOF
#!/usr/bin/python3
import os, signal, sys, time
args = sys.argv[1:]
with open("$work/calls", "a") as f:
    f.write(" ".join(args) + "\n")
if os.environ.get("FAKE_STUBBORN"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.environ.get("FAKE_SELF_KILL") and "seed=3" in args:
    os.kill(os.getpid(), signal.SIGKILL)
if "seed=1" not in args and "seed=2" not in args:
    time.sleep(float(os.environ.get("FAKE_SLEEP", "30")))
os.execv("$trainsim", ["$trainsim"] + args)
EOF
chmod +x "$fake"

# refused NAME FRAGMENT COMMAND...: exit 2, one line on stderr with FRAGMENT, nothing on stdout,
# within the timeout, and no trainsim started.
refused() {
  local name=$1 fragment=$2
  shift 2
  rm -f "$work/calls"
  timeout -k 1 10 "$@" >"$work/r.out" 2>"$work/r.err" </dev/null
  local rc=$?
  if [ $rc -ne 2 ]; then
    fail "$name" "exit code $rc (expected 2): $(head -c 300 "$work/r.err")"
  elif [ "$(wc -l <"$work/r.err")" -ne 1 ] || ! grep -qF -- "$fragment" "$work/r.err"; then
    fail "$name" "stderr is not one line with '$fragment': $(head -c 300 "$work/r.err")"
  elif [ -s "$work/r.out" ] || [ -e "$work/calls" ]; then
    fail "$name" "printed to stdout or started trainsim"
  else
    pass "$name: exit 2, one line"
  fi
}
sw=("$sweep" "$config" --trainsim "$fake" --vary seed=1,2)

# --- class 1: outputs -------------------------------------------------------------------------
mkfifo "$dst/fifo"
mkdir "$dst/dir" "$dst/ro"
ln -s /dev/full "$dst/to-full"
ln -s loop-b "$dst/loop-a"
ln -s loop-a "$dst/loop-b"
ln -s "$config" "$dst/to-config"
ln "$config" "$dst/hard-config"
refused "sweep -o /dev/full" "/dev/full: cannot write to a character device" "${sw[@]}" -o /dev/full
refused "sweep -o a link to /dev/full" "to-full: cannot write to a character device (/dev/full)" "${sw[@]}" -o "$dst/to-full"
refused "sweep -o a FIFO" "fifo: cannot write to a FIFO" "${sw[@]}" -o "$dst/fifo"
refused "sweep -o a directory" "dir: cannot write to a directory" "${sw[@]}" -o "$dst/dir"
refused "sweep -o a name ending in /" "ends in /" "${sw[@]}" -o "$dst/new/"
refused "sweep -o in a missing folder" "the folder $dst/no/such does not exist" "${sw[@]}" -o "$dst/no/such/s.csv"
refused "sweep -o a symlink loop" "loop-a: cannot write: Too many levels of symbolic links" "${sw[@]}" -o "$dst/loop-a"
refused "sweep -o the config" "cannot write: it is the input" "${sw[@]}" -o "$config"
refused "sweep -o a link to the config" "to-config: cannot write: it is the input" "${sw[@]}" -o "$dst/to-config"
refused "sweep -o a hard link to the config" "hard-config: cannot write: it is the input" "${sw[@]}" -o "$dst/hard-config"
refused "sweep -o the trainsim binary" "cannot write: it is the input" "${sw[@]}" -o "$fake"
refused "merge OUT /dev/full" "/dev/full: cannot write to a character device" "$merge" /dev/full "$config"
refused "merge OUT a FIFO" "fifo: cannot write to a FIFO" "$merge" "$dst/fifo" "$config"
refused "merge OUT a directory" "dir: cannot write to a directory" "$merge" "$dst/dir" "$config"
refused "merge OUT the input, through a link" "to-config: cannot write: it is the input" "$merge" "$dst/to-config" "$config"
# run-kernels checks before it builds; a copy of the scripts, so a regression builds nothing here.
mkdir -p "$work/repo/scripts"
cp -r "$repo/scripts/run-kernels" "$repo/scripts/fuzz" "$repo/scripts/lib" "$work/repo/scripts/"
refused "run-kernels OUTPUT /dev/full" "scripts/run-kernels: error: /dev/full: cannot write to a character device" \
  "$work/repo/scripts/run-kernels" /dev/full
refused "run-kernels OUTPUT a FIFO" "fifo: cannot write to a FIFO" "$work/repo/scripts/run-kernels" "$dst/fifo"
refused "run-kernels OUTPUT in a missing folder" "does not exist" "$work/repo/scripts/run-kernels" "$dst/no/m.json"
if [ -c /dev/full ] && [ ! -L /dev/full ] && [ -p "$dst/fifo" ] && [ -d "$dst/dir" ] && [ -L "$dst/to-full" ] &&
   cmp -s "$config" "$repo/configs/quickstart.json"; then
  pass "/dev/full, the FIFO, the directory, the link and the config are as they were"
else
  fail "nodes kept" "$(ls -la /dev/full "$dst")"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)  # root writes anywhere; nobody does not
else
  as_user=()
fi
chmod 555 "$dst/ro"
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  refused "sweep -o in a read-only folder" "the folder $dst/ro is not writable" \
    "${as_user[@]}" "$sweep" "$config" --trainsim "$fake" --vary seed=1 -o "$dst/ro/s.csv"
  refused "merge OUT in a read-only folder" "the folder $dst/ro is not writable" \
    "${as_user[@]}" "$merge" "$dst/ro/m.json" "$config"
  refused "fuzz run from a read-only folder" "cannot write findings there" \
    "${as_user[@]}" bash -c 'cd "$0" && exec "$@"' "$dst/ro" "$work/repo/scripts/fuzz" fuzz_reader 1 1
else
  echo "skip read-only folder cases: root without setpriv"
fi

# Written through: a link to a regular file (its mode kept) and a link to a new name.
echo old >"$dst/target.csv"
chmod 640 "$dst/target.csv"
ln -s target.csv "$dst/link.csv"
ln -s fresh.csv "$dst/dangling.csv"
timeout 20 "$sweep" "$config" --trainsim "$trainsim" --vary seed=1,2 -o "$dst/link.csv" 2>"$work/e1"
rc1=$?
timeout 20 "$sweep" "$config" --trainsim "$trainsim" --vary seed=1 -o "$dst/dangling.csv" 2>"$work/e2"
rc2=$?
if [ $rc1 -eq 0 ] && [ -L "$dst/link.csv" ] && [ "$(readlink "$dst/link.csv")" = target.csv ] &&
   [ "$(wc -l <"$dst/target.csv")" -eq 3 ] && head -n 1 "$dst/target.csv" | grep -q '^seed,status,' &&
   [ "$(stat -c %a "$dst/target.csv")" = 640 ]; then
  pass "sweep -o a link to a file: written through, the link kept, the file's mode 640 kept"
else
  fail "sweep -o link" "exit $rc1: $(cat "$work/e1"); $(ls -la "$dst")"
fi
if [ $rc2 -eq 0 ] && [ -L "$dst/dangling.csv" ] && [ "$(wc -l <"$dst/fresh.csv")" -eq 2 ]; then
  pass "sweep -o a link to a new name: the target created, the link kept"
else
  fail "sweep -o dangling link" "exit $rc2: $(cat "$work/e2"); $(ls -la "$dst")"
fi
printf '{"kind": "measurements", "schema": 1, "provenance": {"gpu": "g", "wall_time": "1 s"}, "gemm": [{"m": 1}]}' \
  >"$src/m1.json"
echo old >"$dst/merged.json"
ln -s merged.json "$dst/merged-link.json"
if timeout 10 "$merge" "$dst/merged-link.json" "$src/m1.json" >/dev/null 2>"$work/e3" &&
   [ -L "$dst/merged-link.json" ] && grep -q '"kind": "measurements"' "$dst/merged.json"; then
  pass "merge OUT a link to a file: written through, the link kept"
else
  fail "merge OUT link" "$(cat "$work/e3"); $(ls -la "$dst")"
fi

# --- class 2: JSON inputs ---------------------------------------------------------------------
python3 - "$src" <<'PY'
import sys
d = sys.argv[1]
def w(name, data):
    open(f"{d}/{name}", "wb").write(data)
scenario = open(f"{d}/q.json", "rb").read().rstrip()[:-1]  # the quickstart scenario, without its closing }
w("deep-desc.json", scenario + b', "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
w("deep-1m.json", b'{"kind": "scenario", "description": ' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}")
w("deep-65.json", b'{"cluster": {"x": ' + b"[" * 63 + b"]" * 63 + b"}}")
w("deep-64.json", scenario + b', "x": ' + b"[" * 63 + b"]" * 63 + b"}")
w("values.json", b"[" + b"0," * (1 << 20) + b"0]")
w("nul-after.json", scenario + b"}\0garbage")
w("nul-string.json", b'{"name": "a\0b"}')
w("utf8.json", b'{"name": "caf\xc3\xa9 \xff\xfe"}')
w("dup.json", b'{"kind": "scenario", "seed": 1,\n "seed": 2}')
w("nan.json", b'{"seed": NaN}')
w("inf.json", b'{"seed": 1e999}')
w("empty.json", b"")
w("token.json", b"ghp_SECRETtoken0123456789abcdefSECRET\n")
prov = b'"provenance": {"gpu": "g", "wall_time": "1 s"'
m = b'{"kind": "measurements", "schema": 1, '
w("m-deep.json", m + prov + b', "x": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}}")
w("m-nul.json", m + prov + b"}}\0")
w("m-utf8.json", m + prov.replace(b'"g"', b'"\xc0\xaf"') + b"}}")
w("m-dup.json", m + prov + b'}, "gemm": [], "gemm": []}')
PY
truncate -s 65M "$src/huge.json"
sj=(--trainsim "$fake" --vary seed=1)
refused "sweep: nested 100,000 deep in a scenario field" "column 71: arrays and objects nested more than 64 deep" \
  "$sweep" "$src/deep-desc.json" "${sj[@]}"
refused "sweep: nested 1,000,000 deep" "arrays and objects nested more than 64 deep" "$sweep" "$src/deep-1m.json" "${sj[@]}"
refused "sweep: nested 65 deep in the cluster" "deep-65.json: line 1, column 81: arrays and objects nested more than 64 deep" \
  "$sweep" "$src/deep-65.json" "${sj[@]}"
refused "sweep: 2^20 + 1 values" "more than 1048576 values" "$sweep" "$src/values.json" "${sj[@]}"
# The NUL follows the quickstart's closing brace, alone on its last line.
last=$(wc -l <"$repo/configs/quickstart.json")
refused "sweep: a NUL after valid JSON" "nul-after.json: line $last, column 2: a NUL byte" "$sweep" "$src/nul-after.json" \
  "${sj[@]}"
refused "sweep: a NUL in a string" "nul-string.json: line 1, column 12: a NUL byte" "$sweep" "$src/nul-string.json" "${sj[@]}"
refused "sweep: invalid UTF-8" "utf8.json: line 1, column 16: invalid UTF-8 (byte 0xff" "$sweep" "$src/utf8.json" "${sj[@]}"
refused "sweep: a key twice" "dup.json: the key \"seed\" appears twice" "$sweep" "$src/dup.json" "${sj[@]}"
refused "sweep: NaN" "NaN is not a JSON number" "$sweep" "$src/nan.json" "${sj[@]}"
refused "sweep: 1e999" "beyond the range of a double" "$sweep" "$src/inf.json" "${sj[@]}"
refused "sweep: an empty config" "empty.json: line 1, column 1: Expecting value" "$sweep" "$src/empty.json" "${sj[@]}"
refused "sweep: a 65 MiB config" "larger than 64 MiB" "$sweep" "$src/huge.json" "${sj[@]}"
refused "sweep: a token file as config" "token.json: line 1, column 1: Expecting value" "$sweep" "$src/token.json" "${sj[@]}"
if grep -q SECRET "$work/r.err"; then fail "token not echoed" "$(cat "$work/r.err")"; else pass "the token is not echoed"; fi
refused "merge: nested 5,000 deep" "m-deep.json: line 1, column " "$merge" "$dst/m.json" "$src/m-deep.json"
refused "merge: a NUL byte" "m-nul.json: line 1, column 86: a NUL byte" "$merge" "$dst/m.json" "$src/m-nul.json"
refused "merge: invalid UTF-8" "m-utf8.json: line 1, column 62: invalid UTF-8 (byte 0xc0" \
  "$merge" "$dst/m.json" "$src/m-utf8.json"
refused "merge: a key twice" "the key \"gemm\" appears twice" "$merge" "$dst/m.json" "$src/m1.json" "$src/m-dup.json"
refused "merge: a token file" "token.json: line 1, column 1: Expecting value" "$merge" "$dst/m.json" "$src/token.json"
if grep -q SECRET "$work/r.err"; then fail "merge: token" "echoed: $(cat "$work/r.err")"; else pass "merge: the token is not echoed"; fi
if [ ! -e "$dst/m.json" ]; then pass "merge: no output written for a refused input"; else fail "merge output" "written"; fi
timeout 20 "$sweep" "$src/deep-64.json" --trainsim "$trainsim" --vary seed=1 >"$work/d64.csv" 2>"$work/d64.err"
if [ $? -eq 0 ] && grep -q '^1,' "$work/d64.csv"; then
  pass "nesting of 64 (the limit) is read: the sweep runs, trainsim judges the field"
else
  fail "nesting of 64" "$(cat "$work/d64.err")"
fi

# --- class 4: inputs that are not regular files -----------------------------------------------
mkfifo "$src/fifo"
refused "sweep: a FIFO as config" "fifo: cannot read a FIFO, not a regular file" "$sweep" "$src/fifo" "${sj[@]}"
refused "sweep: /dev/zero as config" "/dev/zero: cannot read a character device" "$sweep" /dev/zero "${sj[@]}"
refused "sweep: a directory as config" "cannot read a directory" "$sweep" "$src" "${sj[@]}"
refused "merge: a FIFO as input" "fifo: cannot read a FIFO" "$merge" "$dst/m.json" "$src/m1.json" "$src/fifo"
refused "merge: /dev/zero as input" "/dev/zero: cannot read a character device" "$merge" "$dst/m.json" /dev/zero
refused "bench: a FIFO as the validation table" "scripts/bench: error: $work/in/fifo: cannot read a FIFO" \
  env TRAINSIM_VALIDATION="$src/fifo" "$repo/scripts/bench" "$work/no-build"
refused "sweep: a directory as --trainsim" "not an executable trainsim" "$sweep" "$config" --trainsim "$work" --vary seed=1

# --- class 8: signals -------------------------------------------------------------------------
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# start_sweep ENV... -- ARGS...: the sweep (SIGINT and SIGHUP at their defaults, unlike a
# background job's) under timeout, in the background; sweep_pid is the sweep's own process.
start_sweep() {
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  rm -f "$work/calls"
  timeout -k 2 20 env --default-signal=INT,HUP "${envs[@]}" "$sweep" "$config" --trainsim "$fake" "$@" \
    >"$work/s.out" 2>"$work/s.err" &
  timeout_pid=$!
  sweep_pid=
  local i
  for i in $(seq 100); do  # until two slow points run (seeds 1 and 2 are done by then)
    [ -z "$sweep_pid" ] && sweep_pid=$(pgrep -P "$timeout_pid")
    [ "$(pgrep -c -f "^/usr/bin/python3 $fake run .* --set seed=[34]\$")" -eq 2 ] && return 0
    sleep 0.05
  done
  return 1
}
# stopped NAME SIGNAL CODE CSV: signal the sweep, then check the exit code, the time to stop,
# the rows, and that no process and no temporary file is left.
stopped() {
  local name=$1 sig=$2 code=$3 csv=$4
  local t0 rc took left
  t0=$(now_ms)
  kill -s "$sig" "$sweep_pid"
  wait "$timeout_pid"
  rc=$?
  took=$(($(now_ms) - t0))
  sleep 0.1
  left=$(pgrep -a -f "$work/" || true)
  if [ $rc -ne "$code" ]; then
    fail "$name" "exit code $rc (expected $code): $(head -c 400 "$work/s.err")"
  elif [ $took -gt 3000 ]; then
    fail "$name" "took $took ms to stop"
  elif [ -n "$left" ]; then
    fail "$name" "processes left: $left"
  elif [ -n "$(ls -A "$TMPDIR")" ] || ls -A "$dst" | grep -q '\.tmp$'; then
    fail "$name" "temporary files left: $(ls -A "$TMPDIR" "$dst")"
  elif [ "$(cut -d, -f2 "$csv" | tr '\n' ' ')" != "status ok ok interrupted interrupted interrupted interrupted " ]; then
    fail "$name" "rows: $(cut -d, -f1,2 "$csv" | tr '\n' ' ')"
  elif ! grep -q "^3,interrupted,.*stopped by $sig while it ran" "$csv" ||
       ! grep -q "^6,interrupted,.*not run: the sweep was stopped by $sig" "$csv"; then
    fail "$name" "the interrupted rows do not say why: $(cat "$csv")"
  else
    pass "$name: exit $code in $took ms, rows 1-2 ok, 3-6 interrupted, no process or temporary file left"
  fi
}
if start_sweep -- --vary seed=1..6 -j 2 -o "$dst/int.csv"; then
  stopped "SIGINT mid-sweep" SIGINT 130 "$dst/int.csv"
else
  fail "SIGINT mid-sweep" "the slow points did not start: $(cat "$work/s.err")"
fi
if start_sweep FAKE_STUBBORN=1 -- --vary seed=1..6 -j 2 -o "$dst/term.csv"; then
  stopped "SIGTERM mid-sweep, points that ignore SIGTERM" SIGTERM 143 "$dst/term.csv"
else
  fail "SIGTERM mid-sweep" "the slow points did not start: $(cat "$work/s.err")"
fi
if start_sweep -- --vary seed=1..6 -j 2; then
  stopped "SIGHUP mid-sweep, the CSV on stdout" SIGHUP 129 "$work/s.out"
else
  fail "SIGHUP mid-sweep" "the slow points did not start: $(cat "$work/s.err")"
fi
# nohup: SIGHUP ignored at start stays ignored; the sweep finishes.
rm -f "$work/calls"
FAKE_SLEEP=0.5 timeout -k 2 20 env --ignore-signal=HUP "$sweep" "$config" --trainsim "$fake" --vary seed=1..4 -j 2 \
  -o "$dst/nohup.csv" 2>"$work/s.err" &
timeout_pid=$!
sleep 0.3
kill -HUP "$(pgrep -P "$timeout_pid")" 2>/dev/null
wait "$timeout_pid"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c ',ok,' "$dst/nohup.csv")" -eq 4 ]; then
  pass "SIGHUP ignored at start (nohup): the sweep finishes, 4 rows ok"
else
  fail "nohup" "exit $rc: $(cat "$work/s.err")"
fi
# A point killed by a signal is a crash row, not a normal one.
FAKE_SELF_KILL=1 FAKE_SLEEP=0 timeout 20 "$sweep" "$config" --trainsim "$fake" --vary seed=1..4 -j 2 \
  -o "$dst/killed.csv" 2>"$work/s.err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^3,crash,.*killed by SIGKILL' "$dst/killed.csv" &&
   [ "$(grep -c ',ok,' "$dst/killed.csv")" -eq 3 ]; then
  pass "a point killed by SIGKILL: a crash row naming the signal, exit 1, the other rows ok"
else
  fail "killed point" "exit $rc: $(cat "$work/s.err"; cat "$dst/killed.csv")"
fi
leftovers=$(ls -A "$TMPDIR"; ls -A "$dst" | grep '\.tmp$')
if [ -z "$leftovers" ]; then pass "no temporary file anywhere"; else fail "temporary files" "$leftovers"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
