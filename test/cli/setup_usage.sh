#!/usr/bin/env bash
# scripts/setup's usage: `scripts/setup [--with-slurm] [build-dir]`. What it refuses (an unknown
# option, a second folder, an option after the folder) is one line on stderr and exit 2, before it
# installs or builds anything. What it accepts installs packages and builds, so it is not run here:
# CI runs `scripts/setup --with-slurm build` (.ci/run).
#
# Usage: bash setup_usage.sh TRAINSIM REPO
set -u

repo=${2:?usage: setup_usage.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

for args in "--with-slrum" "--with-slurm a b" "a b" "a --with-slurm" "-h"; do
  # shellcheck disable=SC2086  # the words of the case
  "$repo/scripts/setup" $args >"$work/out" 2>"$work/err"
  rc=$?
  line=$(head -n 1 "$work/err")
  if [ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
    [[ $line == "scripts/setup: error: usage: scripts/setup [--with-slurm] [build-dir]"* ]]; then
    pass "setup $args: refused"
  else
    fail "setup $args" "exit $rc: $(head -c 300 "$work/err")"
  fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
