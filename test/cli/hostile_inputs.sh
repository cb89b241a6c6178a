#!/usr/bin/env bash
# Robustness, from the command line: the inputs a hostile-but-realistic user
# tried, and others of each class, against every subcommand that reads or writes files. Each must
# give exactly one line on stderr and exit code 2 -- or, for an output through a symbolic link,
# write through to the link's target -- with no file replaced, nothing left behind and nothing
# hanging (every command runs under `timeout`; 124 is a hang).
#   1 outputs through links and special files     4 FIFOs and devices as inputs (hangs)
#   2 deep nesting anywhere                        7 quietly wrong answers
#   3 internal errors on user input                9 what error messages reveal
# The fake /dev/stdout is a link in the scratch folder to /proc/self/fd/1 (what /dev/stdout is),
# so that a regression cannot replace the real one.
#
# Usage: bash hostile_inputs.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: hostile_inputs.sh TRAINSIM REPO}
repo=${2:?usage: hostile_inputs.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
quick=configs/quickstart.json
T=20

# expect_refusal NAME FRAGMENT CMD...: exit 2, nothing on stdout, one line on stderr containing FRAGMENT.
expect_refusal() {
  local name=$1 fragment=$2
  shift 2
  timeout $T "$@" >"$work/out" 2>"$work/err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$work/err")
  if [ $rc -ne 2 ]; then
    fail "$name" "exit $rc (124: a hang), stderr: $(head -c 400 "$work/err")"
  elif [ "$lines" -ne 1 ] || [ -s "$work/out" ]; then
    fail "$name" "$lines stderr lines, stdout $(wc -c <"$work/out") bytes: $(head -c 400 "$work/err")"
  elif ! grep -qF -- "$fragment" "$work/err"; then
    fail "$name" "stderr lacks '$fragment': $(cat "$work/err")"
  else
    pass "$name"
  fi
}

# Scratch inputs: a valid measurements file, a validation table and a scenario written out in full.
python3 - "$work" <<'PY'
import json, os, sys
w = sys.argv[1]
meas = {"kind": "measurements", "schema": 1,
        "provenance": {"gpu": "test", "profile": "h100-sxm", "source": "hostile_inputs.sh"},
        "memory": [{"kernel": "copy", "bytes": 1 << 30, "time": "0.8 ms"}]}
json.dump(meas, open(os.path.join(w, "meas.json"), "w"))
bad = dict(meas, gemm=[{"m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "rate": "1e308 TFLOP/s"}])
json.dump(bad, open(os.path.join(w, "meas-1e308.json"), "w"))
deep = dict(meas, provenance=dict(meas["provenance"], notes="x"))
open(os.path.join(w, "meas-deep.json"), "w").write(
    json.dumps(deep).replace('"x"', "[" * 200000 + "]" * 200000))
scenario = json.load(open("configs/quickstart.json"))
run = {"name": "r", "group": "g", "published": {"step_time_s": 1.0}, "note": "n", "scenario": scenario}
def table(rows): return {"kind": "validation", "description": "d", "runs": rows}
# "extra" (documentation, validation/README.md) is accepted: the zero row is refused for its
# step time, not for that key.
for name, rows in {"empty": [], "zero": [dict(run, published={"step_time_s": 0}, extra={"fsdp": "FULL_SHARD"})],
                   "negative": [dict(run, published={"step_time_s": -1})],
                   "subnormal": [dict(run, published={"step_time_s": 1e-320})],
                   "control-group": [dict(run, group="g\u001b[2J\u001b[31mred")]}.items():
    json.dump(table(rows), open(os.path.join(w, "table-" + name + ".json"), "w"))
json.dump(scenario, open(os.path.join(w, "config.json"), "w"))
text = json.dumps(scenario)
open(os.path.join(w, "dup.json"), "w").write('{"name": "first", ' + text[1:])
open(os.path.join(w, "nul.json"), "wb").write(text.encode() + b"\0garbage")
open(os.path.join(w, "nul-model.json"), "w").write(
    json.dumps(dict(scenario, model="gpt3-175b\u0000../../etc/passwd")))
open(os.path.join(w, "deep-cluster.json"), "w").write(
    text.replace('"cluster": {', '"cluster": {"note": ' + "[" * 50000 + "]" * 50000 + ', ', 1))
open(os.path.join(w, "token.json"), "w").write("ghp_AAAABBBBCCCCDDDDsecretsecretsecret\n")
PY
[ -f "$work/config.json" ] || { fail "scratch inputs" "python3 could not write them"; exit 1; }
grep -q '"cluster": {' "$work/config.json" || fail "scratch inputs" "the quickstart config has no inline cluster object"

# --- 1: outputs ----------------------------------------------------------------------------------
mkfifo "$work/out.fifo"
ln -s /proc/self/fd/1 "$work/stdout-link"
expect_refusal "run -o /dev/full" "is a character device" "$trainsim" run "$quick" -o /dev/full
expect_refusal "run -o a FIFO (no hang)" "is a FIFO" "$trainsim" run "$quick" -o "$work/out.fifo"
expect_refusal "run --trace a FIFO" "is a FIFO" "$trainsim" run "$quick" --trace "$work/out.fifo"
expect_refusal "search -o /dev/null" "is a character device" "$trainsim" search "$quick" -o /dev/null
expect_refusal "calibrate -o /dev/full" "is a character device" "$trainsim" calibrate "$work/meas.json" -o /dev/full
expect_refusal "calibrate --csv a FIFO" "is a FIFO" "$trainsim" calibrate --check "$work/meas.json" --csv "$work/out.fifo"
expect_refusal "run -o a folder" "is a directory" "$trainsim" run "$quick" -o "$work"
expect_refusal "run -o in a missing folder" "does not exist" "$trainsim" run "$quick" -o "$work/none/r.json"
cp "$work/config.json" "$work/config.keep"
expect_refusal "run -o the config itself" "is the input" "$trainsim" run "$work/config.json" -o "$work/config.json"
ln -s config.json "$work/config-alias.json"
expect_refusal "run -o a link to the config" "is the input" "$trainsim" run "$work/config.json" -o "$work/config-alias.json"
expect_refusal "search -o the config" "is the input" "$trainsim" search "$work/config.json" -o "$work/config.json"
expect_refusal "calibrate -o the measurements" "is the input" "$trainsim" calibrate "$work/meas.json" -o "$work/meas.json"
expect_refusal "run -o X --trace X" "is the same file as -o" "$trainsim" run "$quick" -o "$work/x.json" --trace "$work/x.json"
cmp -s "$work/config.json" "$work/config.keep" && pass "the config is untouched" || fail "config" "it was changed"
if [ -p "$work/out.fifo" ] && [ -c /dev/full ] && [ -c /dev/null ] && [ ! -e "$work/x.json" ]; then
  pass "no special file replaced, nothing written"
else
  fail "special files" "$(ls -l "$work/out.fifo" /dev/full /dev/null "$work/x.json" 2>&1)"
fi
if [ "$(id -u)" -eq 0 ]; then  # as root, the case that replaced device nodes
  mknod "$work/null-node" c 1 3
  expect_refusal "run -o a device node (root)" "is a character device" "$trainsim" run "$quick" -o "$work/null-node"
  [ -c "$work/null-node" ] && pass "the device node is still one" || fail "device node" "replaced"
fi
# Links to a regular file or to a new name are written through; the link stays a link.
echo old >"$work/real.json"
ln -s real.json "$work/link.json"
ln -s new.json "$work/dangling.json"
timeout $T "$trainsim" run "$quick" -q -o "$work/link.json" --trace "$work/dangling.json"
rc=$?
if [ $rc -eq 0 ] && [ -L "$work/link.json" ] && [ -L "$work/dangling.json" ] &&
   python3 -c 'import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))' "$work/real.json" "$work/new.json"; then
  pass "-o and --trace through links: the targets written, the links kept"
else
  fail "outputs through links" "exit $rc; $(ls -l "$work" | grep -E 'link|dangling|real|new')"
fi
# /dev/stdout on a regular file (here the fake one): written through to that file, link intact.
timeout $T "$trainsim" run "$quick" -q -o "$work/stdout-link" >"$work/stdout.json"
rc=$?
if [ $rc -eq 0 ] && [ -L "$work/stdout-link" ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/stdout.json"; then
  pass "-o /dev/stdout on a file: the report in that file, the link kept"
else
  fail "-o /dev/stdout on a file" "exit $rc, $(head -c 200 "$work/stdout.json")"
fi
expect_refusal "-o /dev/stdout on a pipe" "is a FIFO" bash -c 'set -o pipefail; "$0" run "$1" -o "$2" | cat' "$trainsim" "$quick" "$work/stdout-link"
# '-' is standard output: the report alone on stdout, the summary on stderr.
timeout $T "$trainsim" run "$quick" -o - 2>"$work/summary" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["step_time_s"])' >"$work/step" 2>&1
if [ -s "$work/step" ] && grep -q "step time" "$work/summary"; then
  pass "-o -: the JSON report on stdout (step $(cat "$work/step") s), the summary on stderr"
else
  fail "-o -" "$(cat "$work/step") / $(head -c 200 "$work/summary")"
fi
expect_refusal "-o - --trace -" "is the same file as -o" "$trainsim" run "$quick" -o - --trace -

# --- 2: deep nesting -----------------------------------------------------------------------------
python3 -c 'print("[" * 1000000 + "]" * 1000000)' >"$work/deep.json"
expect_refusal "check: a config nested 10^6 deep" "nested more than 64 deep" "$trainsim" check "$work/deep.json"
expect_refusal "run: a cluster section nested 5*10^4 deep" "nested more than 64 deep" "$trainsim" run "$work/deep-cluster.json"
expect_refusal "calibrate: measurements nested 2*10^5 deep" "nested more than 64 deep" "$trainsim" calibrate --check "$work/meas-deep.json"
expect_refusal "validate: a table nested 10^6 deep" "nested more than 64 deep" "$trainsim" validate "$work/deep.json"
# One command-line argument holds at most 128 KiB (MAX_ARG_STRLEN).
deep_set=$(python3 -c 'print("[" * 60000 + "]" * 60000)')
expect_refusal "run --set with a value nested 6*10^4 deep" "nested more than 64 deep" "$trainsim" run "$quick" --set "name=$deep_set"
expect_refusal "search --set with a value nested 6*10^4 deep" "nested more than 64 deep" "$trainsim" search "$quick" --set "training=$deep_set"
deep_path=$(python3 -c 'print(".".join(["a"] * 60000))')
expect_refusal "run --set with a path of 6*10^4 parts" "more than 64 parts" "$trainsim" run "$quick" --set "$deep_path=1"

# --- 3: internal errors on user input -------------------------------------------------------------
expect_refusal "calibrate: a rate of 1e308 TFLOP/s" "out of range" "$trainsim" calibrate "$work/meas-1e308.json" -o "$work/p.json"
expect_refusal "calibrate --check: a rate of 1e308 TFLOP/s" "out of range" "$trainsim" calibrate --check "$work/meas-1e308.json"
expect_refusal "run --set: a bandwidth of 1e300 TB/s" "out of range" "$trainsim" run "$quick" --set 'cluster.scale_up.bandwidth=1e300 TB/s'
expect_refusal "run --set: a latency of 1e-300 s" "out of range" "$trainsim" run "$quick" --set 'cluster.scale_out.nic_bandwidth=1e-300 Gb/s'
bad_utf8=$(printf 'a\xff\xfeb')
expect_refusal "run --set name=<invalid UTF-8>" "not valid UTF-8" "$trainsim" run "$quick" --set "name=$bad_utf8"
expect_refusal "search --set name=<invalid UTF-8>" "not valid UTF-8" "$trainsim" search "$quick" --set "name=$bad_utf8"
expect_refusal "calibrate --name <invalid UTF-8>" "not valid UTF-8" "$trainsim" calibrate "$work/meas.json" -o "$work/p.json" --name "$bad_utf8"
expect_refusal "a config path that is not UTF-8" "not valid UTF-8" "$trainsim" check "$work/$bad_utf8.json"

# --- 4: FIFOs as inputs -----------------------------------------------------------------------------
mkfifo "$work/in.fifo"
expect_refusal "check: the config is a FIFO" "is a FIFO" "$trainsim" check "$work/in.fifo"
expect_refusal "run: the model is a FIFO" "is a FIFO" "$trainsim" run "$quick" --set "model=$work/in.fifo"
expect_refusal "run: the cluster is a FIFO" "is a FIFO" "$trainsim" run "$quick" --set "cluster=$work/in.fifo"
expect_refusal "run: the device profile is a FIFO" "is a FIFO" "$trainsim" run "$quick" --set "cluster.gpu=$work/in.fifo"
expect_refusal "calibrate: the measurements are a FIFO" "is a FIFO" "$trainsim" calibrate --check "$work/in.fifo"
expect_refusal "calibrate --base a FIFO" "is a FIFO" "$trainsim" calibrate --check "$work/meas.json" --base "$work/in.fifo"
expect_refusal "validate: the table is a FIFO" "is a FIFO" "$trainsim" validate "$work/in.fifo"
expect_refusal "search: the config is a FIFO" "is a FIFO" "$trainsim" search "$work/in.fifo"
expect_refusal "shapes: a config is a FIFO" "is a FIFO" "$trainsim" shapes "$work/in.fifo"
expect_refusal "check: a terminal-like device" "is a character device" "$trainsim" check /dev/tty

# --- 7: quietly wrong answers ---------------------------------------------------------------------
for sub in run search; do
  for v in nan inf -inf 0 -1 1e999 ""; do
    expect_refusal "$sub --max-wall '$v'" "--max-wall" "$trainsim" $sub "$quick" --max-wall "$v"
  done
done
expect_refusal "validate --max-wall nan" "--max-wall" "$trainsim" validate "$work/table-empty.json" --max-wall nan
expect_refusal "validate: an empty runs array" "has no runs" "$trainsim" validate "$work/table-empty.json"
for t in zero negative subnormal; do
  expect_refusal "validate: published step time $t" "is not a step time" "$trainsim" validate "$work/table-$t.json"
done
expect_refusal "validate: control characters in a group" "contains a control character" "$trainsim" validate "$work/table-control-group.json"
grep -q $'\x1b' "$work/err" && fail "escape in the message" "a raw ESC reached stderr" || pass "the group's ESC is escaped in the message"
expect_refusal "run: valid JSON, then a NUL and garbage" "a NUL byte" "$trainsim" run "$work/nul.json"
expect_refusal "run: a model path with an embedded NUL" "contains a NUL character" "$trainsim" run "$work/nul-model.json"
expect_refusal "run: a duplicate key" "key 'name' appears twice" "$trainsim" run "$work/dup.json"
expect_refusal "calibrate --exclude nosuchkernel" "'nosuchkernel' is no memory-bound kernel" "$trainsim" calibrate "$work/meas.json" -o "$work/p.json" --exclude nosuchkernel
[ ! -e "$work/p.json" ] && pass "no profile written by the refused calibrations" || fail "calibrate" "wrote $work/p.json"

# --- 9: what error messages reveal ------------------------------------------------------------------
expect_refusal "a token file named as the config" "line 1, column 1" "$trainsim" check "$work/token.json"
grep -q "secret\|BBBB" "$work/err" && fail "token" "the message quotes the file: $(cat "$work/err")" || pass "the token is not in the message"
[ ! -e "$repo/crash-a37a373941bc499fd226d59679c97a2caafcd8d4" ] && pass "no libFuzzer artifact at the repository root" || fail "root" "crash-... file"

# Nothing left behind in the scratch folder: no temporary output files.
leftover=$(find "$work" -name '*.tmp.*' | head -3)
[ -z "$leftover" ] && pass "no temporary files left" || fail "temporary files" "$leftover"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
