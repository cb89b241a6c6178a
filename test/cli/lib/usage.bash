# Shared by the command-line tests of the scripts (sourced after tally.bash): `usage NAME FRAGMENT
# ARGS...` runs "${usage_cmd[@]}" ARGS... and passes when it exits 2 with one line on stderr,
# "$usage_prog: error: ...FRAGMENT...", nothing on stdout, in at most 5 s, and -- when the test
# defines usage_ran -- without usage_ran saying that it did work.
usage() {
  local name=$1 fragment=$2
  shift 2
  local start=$SECONDS
  "${usage_cmd[@]}" "$@" >"$work/u.out" 2>"$work/u.err"
  local rc=$? line
  line=$(head -n 1 "$work/u.err")
  if [ $rc -ne 2 ]; then
    fail "$name" "exit code $rc (expected 2): $(head -c 300 "$work/u.err")"
  elif [ "$(wc -l <"$work/u.err")" -ne 1 ] || [[ $line != "$usage_prog: error: "*"$fragment"* ]]; then
    fail "$name" "stderr is not one line with '$fragment': $(head -c 300 "$work/u.err")"
  elif [ -s "$work/u.out" ] || [ $((SECONDS - start)) -gt 5 ] || { declare -F usage_ran >/dev/null && usage_ran; }; then
    fail "$name" "printed to stdout or ran points"
  else
    pass "$name: exit 2, one line"
  fi
}
