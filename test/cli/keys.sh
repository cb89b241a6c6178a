#!/usr/bin/env bash
# `trainsim keys`: docs/scenario.md is what `trainsim keys --format markdown` prints (regenerate it
# with `build/trainsim keys --format markdown > docs/scenario.md`); every key a shipped JSON file
# (configs/, validation/, models/, topologies/, calibration/) uses is in the schema -- scenarios
# (validation rows' too), models, clusters, device profiles, the cost table and the validation
# tables themselves; studies and calibration measurements, which scripts and `trainsim calibrate`
# read, are named and skipped, and a file of any other kind fails -- wherever the schema details
# the object the key sits in (not inside free documentation such as a row's `extra`); an unknown
# section or key, or format, is refused with one line, exit 2.
#
# Usage: bash keys.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: keys.sh TRAINSIM REPO}
repo=${2:?usage: keys.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

if "$trainsim" keys --format markdown >"$work/scenario.md" 2>"$work/err" && cmp -s "$work/scenario.md" docs/scenario.md; then
  pass "docs/scenario.md is what 'trainsim keys --format markdown' prints"
else
  fail "docs/scenario.md" "differs from 'trainsim keys --format markdown' (regenerate it): $(cat "$work/err")"
fi

if "$trainsim" keys --format json >"$work/keys.json" 2>"$work/err"; then
  pass "trainsim keys --format json"
else
  fail "trainsim keys --format json" "$(cat "$work/err")"
fi

# The walk: each file's keys as JSON pointers from the scenario's root (array elements and the
# entries of a map as '*'), against the schema's paths. A key is checked where the schema details
# its parent object (has keys under it); a model or cluster object's "from" names the file it
# overrides (scenario.cpp) and is no key of the model or cluster itself.
out=$(python3 - "$work/keys.json" <<'PY'
import glob, json, sys
entries = json.load(open(sys.argv[1]))
schema = {k["path"] for k in entries}
detailed = {p.rsplit("/", 1)[0] for p in schema}
# Objects of free documentation (a validation row's extra): only the keys the schema lists are read.
free = {k["path"] for k in entries if k["default_note"] == "documentation only"}
missing, checked = [], 0

def walk(node, path, where):
    global checked
    if isinstance(node, dict):
        if set(node) == {"value", "source"} or set(node) == {"value", "source", "note"}:
            return
        for key, value in node.items():
            p = path + "/" + key
            if path in detailed and path not in free and not (key == "from" and path in ("/model", "/cluster")):
                checked += 1
                if p not in schema:
                    star = path + "/*"
                    if star not in schema:
                        missing.append(f"{where}: {p}")
                        continue
                    p = star
            walk(value, p, where)
    elif isinstance(node, list):
        for value in node:
            walk(value, path + "/*", where)

files = [f for d in ("configs", "validation", "models", "topologies", "calibration")
         for f in glob.glob(d + "/**/*.json", recursive=True)]
for f in sorted(files):
    d = json.load(open(f))
    kind = d.get("kind") if isinstance(d, dict) else None
    if kind == "scenario":
        walk(d, "", f)
    elif kind in ("model", "cluster"):
        walk(d, "/" + kind, f)
    elif kind in ("device", "costs"):  # files of their own: the schema's @device, @costs
        walk(d, "@" + kind, f)
    elif kind in ("study", "measurements"):
        pass  # read by scripts/study-* and by trainsim calibrate, not by the scenario reader
    elif kind == "validation":
        walk(d, "@validation", f)
        for i, run in enumerate(d["runs"]):
            walk(run["scenario"], "", f"{f} /runs/{i}/scenario")
    else:
        missing.append(f"{f}: a file of kind {kind!r} the walk does not know")
print(checked)
for m in missing:
    print(m)
PY
)
checked=$(head -1 <<<"$out")
if [ "$(wc -l <<<"$out")" -eq 1 ] && [ "$checked" -gt 100 ]; then
  pass "every key of the shipped files in a section the schema details is in 'trainsim keys' ($checked keys)"
else
  fail "keys of the shipped files missing from 'trainsim keys'" "$(tail -n +2 <<<"$out" | head -20 | tr '\n' ';')"
fi

# Refusals: one line, exit 2, with a did-you-mean for a near miss.
for args in "paralelism" "/parallelism/tpp" "--format xml"; do
  # shellcheck disable=SC2086
  "$trainsim" keys $args >"$work/out" 2>"$work/err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && [ ! -s "$work/out" ]; then
    pass "keys $args: refused with one line, exit 2"
  else
    fail "keys $args" "rc=$rc, $(wc -l <"$work/err") lines: $(head -3 "$work/err")"
  fi
done
"$trainsim" keys paralelism 2>"$work/err"
grep -q "did you mean 'parallelism'" "$work/err" && pass "keys paralelism: did you mean 'parallelism'" ||
  fail "keys paralelism" "no did-you-mean: $(cat "$work/err")"
"$trainsim" keys /parallelism/tpp 2>"$work/err"
grep -q "did you mean '/parallelism/tp'" "$work/err" && pass "keys /parallelism/tpp: did you mean '/parallelism/tp'" ||
  fail "keys /parallelism/tpp" "no did-you-mean: $(cat "$work/err")"

# A key and a section select what they name.
[ "$("$trainsim" keys parallelism.zero --format json | python3 -c 'import json,sys; print([k["path"] for k in json.load(sys.stdin)])')" = "['/parallelism/zero']" ] &&
  pass "keys parallelism.zero selects /parallelism/zero" || fail "keys parallelism.zero" "selects something else"

echo "keys: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
