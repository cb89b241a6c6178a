# Shared by the command-line tests (sourced, not run): pass/fail counters, a scratch folder and the
# closing line ctest and CI read.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
