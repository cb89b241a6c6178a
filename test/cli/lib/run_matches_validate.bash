# Shared by the validation tests (after tally.bash): every row of a validation table, its scenario
# written to a file and given to `trainsim run`, prints the step time `trainsim validate` printed
# for that row: `validate` runs exactly the row's scenario, nothing from its `extra`.
#   run_matches_validate TABLE VALIDATE_OUTPUT [RUN OPTIONS...]
run_matches_validate() {
  local table=$1 printed=$2
  shift 2
  local rows="$work/rows-$(basename "$table" .json)"
  mkdir -p "$rows"
  if ! python3 "$(dirname "${BASH_SOURCE[0]}")/run_matches_validate.py" "$table" "$rows" >"$rows/list" 2>"$rows/err"; then
    fail "$table: rows written as scenarios" "$(cat "$rows/err")"
    return
  fi
  local i name ran shown
  while read -r i name; do
    if ! "$trainsim" run "$@" -q -o "$rows/report-$i.json" "$rows/row-$i.json" >"$rows/log-$i" 2>&1; then
      fail "$name: trainsim run on its scenario" "$(head -c 300 "$rows/log-$i")"
      continue
    fi
    ran=$(python3 -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["step_time_s"])' "$rows/report-$i.json")
    shown=$(awk -v n="$name" '$1 == n && $4 ~ /s$/ { sub(/s$/, "", $4); print $4 }' "$printed")
    if [ -n "$ran" ] && [ "$ran" = "$shown" ]; then
      pass "$name: run prints validate's step time ($ran s)"
    else
      fail "$name: run prints validate's step time" "run $ran s, validate ${shown:-nothing} s"
    fi
  done <"$rows/list"
}
