#!/usr/bin/env bash
# The documentation: every generated block of README.md and docs/ and every file of examples/
# that scripts/docs makes is what TRAINSIM gives now (scripts/docs --check; the slow generators,
# whole validation tables and example sweeps, are left to `scripts/docs --check --slow`); the
# README is under 400 lines; no dated development-log entry (a YYYY-MM-DD date) and no issue
# reference ("issue #N") in README.md or docs/, and none (nor a citation of the unshipped reference
# notes) in any tracked file; every relative link of README.md and docs/ names a file that exists.
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

# A figure of docs/img/ is checked against what it was drawn from (docs/img/figures.json), without
# matplotlib: a figure replaced by other bytes, and a figure whose input changed, are stale.
for spoil in docs/img/plot-memory.png examples/plots/pp4-report.json; do
  rm -rf "$copy.spoiled" && cp -r "$copy" "$copy.spoiled"
  printf ' ' >>"$copy.spoiled/$spoil"
  out=$(python3 "$copy.spoiled/scripts/docs" --check --only docs/img/plot-memory.png --binary "$trainsim" 2>&1)
  rc=$?
  if [ $rc -eq 1 ] && grep -q 'stale: docs/img/plot-memory.png' <<<"$out"; then
    pass "a figure is stale once $spoil changes (exit 1)"
  else
    fail "a figure after $spoil changed" "exit $rc: $out"
  fi
done
# Every figure has its record, and the record names the command docs/cli.md shows.
missing=$(python3 - "$repo" <<'PY'
import json, os, sys
repo = sys.argv[1]
record = json.load(open(os.path.join(repo, "docs/img/figures.json")))
cli = open(os.path.join(repo, "docs/cli.md")).read().replace("\\\n  ", "")
for f in sorted(os.listdir(os.path.join(repo, "docs/img"))):
    name = "docs/img/" + f
    if f.endswith((".png", ".svg")) and name not in record:
        print(f"{name}: no record")
    elif name in record and record[name]["command"] not in " ".join(cli.split()):
        print(f"{name}: docs/cli.md does not show {record[name]['command']}")
PY
)
if [ -z "$missing" ]; then pass "every figure of docs/img has its record and command"; else fail "figure records" "$missing"; fi

lines=$(wc -l <"$repo/README.md")
if [ "$lines" -lt 400 ]; then pass "README.md has $lines lines (< 400)"; else fail "README.md length" "$lines lines"; fi

docs=("$repo/README.md" "$repo"/docs/*.md)
# A date not part of a file name (calibration/measured/nvidia-h200-2026-11-30.json names its run).
dated=$(grep -nHE '(^|[^-[:alnum:]])20[0-9]{2}-[01][0-9]-[0-3][0-9]([^-.[:alnum:]]|$)' "${docs[@]}")
if [ -z "$dated" ]; then pass "no dated entries in README.md and docs/"; else fail "dated entries" "$dated"; fi
issues=$(grep -nHiE 'issue #[0-9]+' "${docs[@]}")
if [ -z "$issues" ]; then pass "no issue references in README.md and docs/"; else fail "issue references" "$issues"; fi

# Every tracked file (the published tables' provenance in validation/ and the crash inputs kept
# byte for byte in test/fuzz/regressions/ aside): no development-log reference -- "issue #N",
# "issue N" or a bare "#N" (a citation names its repository: owner/repo#N, or "PR #N") -- and no
# bare citation of the reference notes kept beside the project on development machines (the
# calibration, reliability, moe, peers and simgrid notes, which users do not have); a project
# file is named by its path (docs/calibration.md), and the published tables are validation/'s.
history=$(python3 - "$repo" <<'PY'
import os, re, subprocess, sys
repo = sys.argv[1]
try:
    files = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
except (OSError, subprocess.CalledProcessError):
    files = [os.path.relpath(os.path.join(d, f), repo) for d, ds, fs in os.walk(repo)
             for f in fs if not d.startswith(os.path.join(repo, "build")) and "/.git" not in d]
files = [f for f in files if f and not f.startswith(("validation/", "test/fuzz/regressions/"))]
# Written so that none of them matches its own text.
patterns = [
    (re.compile(r"\b[Ii][Ss][Ss][Uu][Ee][Ss]? #?[0-9]+"), "issue reference"),
    (re.compile(r"(?<!PR )(?:^|(?<=[\s(,;]))#[0-9]+\b"), "bare #N reference"),
    (re.compile(r"(?:^|(?<=[^\w./-]))(?:calibration|reliability|moe|peers|simgrid)[.]md"), "bare reference-note citation"),
    (re.compile(r"(?:shared|reference)/(?:calibration|reliability|moe|peers|simgrid)[.]md"), "reference-note path"),
    (re.compile(r"(?:^|(?<=[^\w/]))(?:[.][.]/)?shared/(?:validation|reference)\b"), "the unshipped shared folder"),
]
for f in sorted(files):
    path = os.path.join(repo, f)
    try:
        data = open(path, "rb").read()
    except OSError:
        continue
    if b"\0" in data:
        continue  # binary (figures)
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        for pattern, what in patterns:
            m = pattern.search(line)
            if m:
                print(f"{f}:{n}: {what}: {line.strip()[:120]}")
PY
)
if [ -z "$history" ]; then
  pass "no issue references and no citations of the unshipped reference notes in any tracked file"
else
  fail "issue references or reference-note citations" "$history"
fi

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
