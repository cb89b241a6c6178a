#!/usr/bin/env bash
# The documentation: every generated block of README.md and docs/ and every file of examples/
# that scripts/docs makes is what TRAINSIM gives now (scripts/docs --check; the slow generators,
# whole validation tables and example sweeps, are left to `scripts/docs --check --slow`); the
# README is under 400 lines; no dated development-log entry (a YYYY-MM-DD date) and no issue
# reference ("issue #N") in README.md or docs/; every relative link of README.md and docs/ names a
# file that exists.
#
# Usage: bash docs.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: docs.sh TRAINSIM REPO}
repo=${2:?usage: docs.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

# scripts/docs --check writes nothing: run it on a copy anyway, so a broken check cannot touch the tree.
copy="$work/repo"
mkdir "$copy"
cp -r "$repo/README.md" "$repo/docs" "$repo/scripts" "$repo/examples" "$repo/configs" "$repo/validation" "$copy/"
if out=$(python3 "$copy/scripts/docs" --check --binary "$trainsim" -j 2 2>&1); then
  pass "scripts/docs --check: every fast generated block and example is current"
else
  fail "scripts/docs --check" "$out"
fi
if [ -z "$(cd "$copy" && diff -r "$repo/docs" docs)" ] && cmp -s "$repo/README.md" "$copy/README.md"; then
  pass "scripts/docs --check writes nothing"
else
  fail "scripts/docs --check" "changed a file"
fi

# A stale block is found: spoil one generated line and --check must name it and exit 1.
python3 - "$copy/README.md" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index("<!-- generated: run-quickstart -->")
j = s.index("step time", i)
open(p, "w").write(s[:j] + "step time   9.999 s  " + s[s.index("\n", j):])
PY
out=$(python3 "$copy/scripts/docs" --check --only run-quickstart --binary "$trainsim" 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q 'README.md: run-quickstart' <<<"$out"; then
  pass "a spoiled block is reported stale (exit 1)"
else
  fail "a spoiled block" "exit $rc: $out"
fi

lines=$(wc -l <"$repo/README.md")
if [ "$lines" -lt 400 ]; then pass "README.md has $lines lines (< 400)"; else fail "README.md length" "$lines lines"; fi

docs=("$repo/README.md" "$repo"/docs/*.md)
# A date not part of a file name (calibration/measured/nvidia-h200-2026-11-30.json names its run).
dated=$(grep -nHE '(^|[^-[:alnum:]])20[0-9]{2}-[01][0-9]-[0-3][0-9]([^-.[:alnum:]]|$)' "${docs[@]}")
if [ -z "$dated" ]; then pass "no dated entries in README.md and docs/"; else fail "dated entries" "$dated"; fi
issues=$(grep -nHiE 'issue #[0-9]+' "${docs[@]}")
if [ -z "$issues" ]; then pass "no issue references in README.md and docs/"; else fail "issue references" "$issues"; fi

broken=$(python3 - "${docs[@]}" <<'PY'
import os, re, sys
for f in sys.argv[1:]:
    text = re.sub(r"```.*?```", "", open(f).read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.join(os.path.dirname(f), target.split("#")[0])
        if not os.path.exists(path):
            print(f"{f}: {target}")
PY
)
if [ -z "$broken" ]; then pass "every relative link of README.md and docs/ exists"; else fail "broken links" "$broken"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
