# Shared by the command-line tests (sourced after tally.bash): a command that must be refused the
# way DESIGN.md "Command line" promises, exit 2, nothing on stdout and one line on stderr
# "trainsim: error: ...", naming the JSON path (or option) and saying what is wrong.
#   refused NAME WHERE FRAGMENT -- COMMAND...   WHERE: ": /json/path: " or "--option"
# The line is left in $work/NAME.err.
refused() {
  local name=$1 where=$2 fragment=$3
  shift 4
  "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  local line
  line=$(head -n 1 "$work/$name.err")
  if [ $rc -ne 2 ]; then
    fail "$name" "exit $rc (expected 2): $(head -c 300 "$work/$name.err")"
  elif [ -s "$work/$name.out" ] || [ "$(wc -l <"$work/$name.err")" -ne 1 ]; then
    fail "$name" "not one line on stderr alone: $(head -c 300 "$work/$name.err")"
  elif [[ $line != "trainsim: error: "*"$where"* || $line != *"$fragment"* ]]; then
    fail "$name" "the line does not name '$where' and '$fragment': $line"
  else
    pass "$name"
  fi
}
