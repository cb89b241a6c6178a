#!/usr/bin/env bash
# Bounded messages: an error is one line of bounded length whatever the input held. A
# value, key or path quoted from the input is cut to about 100 characters with its length
# (text_escape.hpp quote_value), each part of the line to a few hundred (error.cpp), and the
# content of a file that is not JSON -- a failure trace -- is never quoted at all.
#
# Expectation: every case exits 2 with exactly one line on stderr of at most 2,000 bytes (the
# longest legitimate line, a list of valid keys, is under 1,000); the trace cases never print the
# trace's text.
#
# Usage: bash messages_bounded.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: messages_bounded.sh TRAINSIM REPO}
repo=${2:?usage: messages_bounded.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
T=60
MAX=2000

# bounded NAME CMD...: exit 2, one line of at most MAX bytes; the line is left in $work/err.
bounded() {
  local name=$1
  shift
  timeout $T "$@" >/dev/null 2>"$work/err" </dev/null
  local rc=$? lines bytes
  lines=$(wc -l <"$work/err")
  bytes=$(wc -c <"$work/err")
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ "$bytes" -le $MAX ]; then
    pass "$name ($bytes bytes)"
  else
    fail "$name" "exit $rc, $lines lines, $bytes bytes: $(head -c 300 "$work/err")"
  fi
}

python3 - "$repo" "$work" <<'PY'
import json, sys
repo, work = sys.argv[1:]
base = json.load(open(f"{repo}/configs/quickstart.json"))
def scenario(name, edit):
    s = json.loads(json.dumps(base))
    edit(s)
    json.dump(s, open(f"{work}/{name}.json", "w"))
scenario("key", lambda s: s["training"].update({"k" * 1_000_000: 1}))
scenario("value", lambda s: s["training"].update({"recompute": "x" * 10_000_000}))
scenario("quantity", lambda s: s["cluster"].update({"scale_up": {"bandwidth": "9" * 1_000_000 + " GB/s"}}))
scenario("model", lambda s: s.update({"model": "m" * 200_000}))
def trace(s, name):
    s["failures"] = {"kind": "trace", "trace": f"{work}/{name}.csv", "horizon": "7 d"}
    s["recovery"] = {"kind": "checkpoint-restart"}
for name in ("longline", "secret", "component"):
    scenario(name, lambda s, n=name: trace(s, n))
open(f"{work}/longline.csv", "w").write("a" * 20_000_000 + "\n")
open(f"{work}/secret.csv", "w").write("ghp_TOPSECRET0123456789\n1,gpu,x\n")
open(f"{work}/component.csv", "w").write("time,component,location\n1,netwrk,x\n")
PY

bounded "a 1 MB key" "$trainsim" run "$work/key.json"
bounded "a 10 MB value" "$trainsim" run "$work/value.json"
bounded "a 1 MB quantity" "$trainsim" run "$work/quantity.json"
bounded "a 200 kB model name" "$trainsim" run "$work/model.json"
long_path="$work/$(printf 'd%.0s' $(seq 1 200))"
for i in $(seq 1 400); do long_path="$long_path/d"; done
bounded "a 100 kB-deep path" "$trainsim" run "$long_path/x.json"
bounded "a 100 kB argument" "$trainsim" run "$repo/configs/quickstart.json" --max-wall "$(head -c 100000 /dev/zero | tr '\0' 'x')"
bounded "a 100 kB --set value" "$trainsim" run "$repo/configs/quickstart.json" --set "training.recompute=\"$(head -c 100000 /dev/zero | tr '\0' 'x')\""
bounded "a trace's 20 MB first line" "$trainsim" run "$work/longline.json"
bounded "a trace whose first line is a token" "$trainsim" run "$work/secret.json"
if grep -q TOPSECRET "$work/err"; then fail "the token" "quoted: $(cat "$work/err")"; else pass "the token is not quoted"; fi
bounded "a trace's unknown component" "$trainsim" run "$work/component.json"
if grep -q netwrk "$work/err"; then fail "the component" "quoted: $(cat "$work/err")"; else pass "the component is not quoted"; fi
bounded "check: a 1 MB key" "$trainsim" check "$work/key.json"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
