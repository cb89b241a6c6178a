# The validation tests' shared part (validation.sh, validation_tpu_v4.sh), after tally.bash:
#   validate_and_check TABLE [VALIDATE OPTIONS...] <<'PY' ... PY
# runs `trainsim validate` on TABLE and then the Python checks read from stdin with the printed
# output and the table as argv[1] and argv[2] and validation_rows.py importable; each line the
# checks print ("ok   ..." or "FAIL ...") is one pass or failure.
validate_and_check() {
  local table=$1
  shift
  if ! "$trainsim" validate "$@" "$table" >"$work/out" 2>"$work/err"; then
    fail "trainsim validate" "$(cat "$work/err")"
    return
  fi
  PYTHONPATH="$(dirname "${BASH_SOURCE[0]}")" python3 - "$work/out" "$table" >"$work/checks" 2>&1
  while IFS= read -r line; do
    case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
  done <"$work/checks"
}
