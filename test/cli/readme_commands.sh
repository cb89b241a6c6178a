#!/usr/bin/env bash
# The README's commands run as written. A shell block marked runnable, a line
#   <!-- runnable -->
# right before its ```sh fence, is run with bash -e, as one script, in a scratch folder that
# looks like the repository root (its folders linked, build/trainsim being TRAINSIM), and must exit
# 0; the files its commands name with -o must then exist. Blocks not marked (setup, the GPU
# machine's kernel suite, the minutes-long optical study) are not run; of those, every repository
# path they name must exist.
#
# Usage: bash readme_commands.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: readme_commands.sh TRAINSIM REPO}
repo=${2:?usage: readme_commands.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

root="$work/root"
mkdir -p "$root/build"
for d in "$repo"/*; do [ "$(basename "$d")" = build ] || ln -s "$d" "$root/$(basename "$d")"; done
ln -s "$trainsim" "$root/build/trainsim"

blocks="$work/blocks"
mkdir "$blocks"
python3 - "$repo/README.md" "$blocks" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
runnable = re.findall(r"<!-- runnable -->\n```sh\n(.*?)```", text, re.S)
other = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if b not in runnable]
for i, b in enumerate(runnable):
    open(f"{sys.argv[2]}/run-{i}.sh", "w").write(b)
for i, b in enumerate(other):
    open(f"{sys.argv[2]}/other-{i}.sh", "w").write(b)
PY

n=$(ls "$blocks"/run-*.sh 2>/dev/null | wc -l)
if [ "$n" -ge 4 ]; then pass "$n runnable blocks in README.md"; else fail "runnable blocks" "found $n, expected at least 4"; fi

for b in "$blocks"/run-*.sh; do
  first=$(head -1 "$b")
  if out=$(cd "$root" && NO_COLOR=1 bash -e "$b" 2>&1 >/dev/null); then
    missing=""
    for o in $(grep -oE '(^| )-o [^ ]+' "$b" | awk '{print $2}'); do
      [ -s "$root/$o" ] || missing="$missing $o"
    done
    if [ -z "$missing" ]; then pass "runs: $first"; else fail "$first" "did not write$missing"; fi
  else
    fail "$first" "$(tail -3 <<<"$out")"
  fi
done

# Blocks not run: the repository paths they name exist.
for b in "$blocks"/other-*.sh; do
  for p in $(grep -oE '(scripts|configs|build|examples|validation|topologies)/[A-Za-z0-9_./-]+' "$b" | sort -u); do
    case "$p" in build/*|*/results.csv|*/cost.png) continue ;; esac
    if [ -e "$repo/$p" ]; then pass "exists: $p"; else fail "README names $p" "no such file"; fi
  done
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
