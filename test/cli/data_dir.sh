#!/usr/bin/env bash
# Where trainsim reads its data files (sim/core/data_dir.hpp): --data DIR, else $TRAINSIM_DATA
# (unset or empty: not given), else the installed share/trainsim, else the source tree of a binary
# run from its build tree (the installed case: test/cli/install_tree.sh).
#  - each step of that order beats the next: a second data folder, a copy of the source tree's
#    models/ and topologies/ with one model renamed, tells which folder a run read (the renamed
#    model is found there only; the old name only in the source tree); `list` names the folder;
#  - a relative --data is taken from the working directory and shown as given;
#  - a --data or TRAINSIM_DATA that is missing, a file, a folder without models/ or topologies/,
#    or unreadable, is refused in one line, exit 2, by every command that takes --data, and never
#    passed over for the next folder in the order.
#
# Usage: bash data_dir.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: data_dir.sh TRAINSIM REPO}
repo=${2:?usage: data_dir.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/refusal.bash"
trainsim=$(cd "$(dirname "$trainsim")" && pwd)/$(basename "$trainsim")
repo=$(cd "$repo" && pwd)
quick=$repo/configs/quickstart.json
unset TRAINSIM_DATA

alt=$work/alt
mkdir "$alt"
cp -r "$repo/models" "$repo/topologies" "$alt/"
only=alt-only-$$
[ ! -e "$repo/models/$only.json" ] || fail "setup" "$repo/models/$only.json exists"
mv "$alt/models/gpt-7.5b.json" "$alt/models/$only.json"

# reads NAME EXPECTED-FOLDER ORIGIN [env...] -- [trainsim options...]: `list` names the folder and
# origin (FOLDER as shown, relative to the working directory), and a scenario naming $only runs
# exactly when that folder is $alt.
reads() {
  local name=$1 folder=$2 origin=$3
  shift 3
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local line
  line=$(env "${envs[@]}" "$trainsim" list "$@" | head -n 1)
  env "${envs[@]}" "$trainsim" check "$quick" --set "model=$only" "$@" >"$work/check.out" 2>&1
  local rc=$? read_alt=no
  [ "$(cd "$folder" && pwd)" = "$alt" ] && read_alt=yes
  if [ "$line" != "data folder: $folder ($origin)" ]; then
    fail "$name" "list says: $line"
  elif [ $read_alt = yes ] && [ $rc -ne 0 ]; then
    fail "$name" "the model only in $alt is not found: $(cat "$work/check.out")"
  elif [ $read_alt = no ] && ! grep -q "unknown model '$only'" "$work/check.out"; then
    fail "$name" "exit $rc; expected the model of $alt to be unknown: $(cat "$work/check.out")"
  else
    pass "$name: $line"
  fi
}
reads "neither: the source tree" "$repo" "source tree" --
reads "an empty TRAINSIM_DATA is not given" "$repo" "source tree" TRAINSIM_DATA= --
reads "TRAINSIM_DATA over the source tree" "$alt" TRAINSIM_DATA "TRAINSIM_DATA=$alt" --
reads "--data over the source tree" "$alt" --data -- --data "$alt"
reads "--data over TRAINSIM_DATA" "$repo" --data "TRAINSIM_DATA=$alt" -- --data "$repo"
cd "$work" || exit 1
reads "a relative --data, as given" "alt" --data -- --data alt

# Each command that takes --data refuses a folder it cannot use.
mkdir "$work/empty"
echo '{}' >"$work/file.json"
declare -A commands=(
  [run]="run $quick" [check]="check $quick" [validate]="validate $repo/validation/published-tpu-v4.json"
  [calibrate]="calibrate --check $repo/calibration/published/a100-sxm-80gb.json" [shapes]="shapes $quick"
  [search]="search $quick" [list]="list")
for cmd in run check validate calibrate shapes search list; do
  # shellcheck disable=SC2086  # the command's words
  refused "$cmd --data missing" "--data '$work/missing': does not exist" \
    "(expected a readable folder holding models/ and topologies/" -- "$trainsim" ${commands[$cmd]} --data "$work/missing"
done
refused "--data a file" "--data '$work/file.json': is a regular file, not a folder" "(expected" -- \
  "$trainsim" check "$quick" --data "$work/file.json"
refused "--data a folder without data" "--data '$work/empty': holds no models/ or topologies/ folder" "(expected" -- \
  "$trainsim" check "$quick" --data "$work/empty"
refused "--data empty" "--data '': does not exist" "(expected" -- "$trainsim" check "$quick" --data ""
refused "TRAINSIM_DATA missing, not passed over" "TRAINSIM_DATA '$work/missing': does not exist" "(expected" -- \
  env TRAINSIM_DATA="$work/missing" "$trainsim" check "$quick"
refused "TRAINSIM_DATA a file" "TRAINSIM_DATA '$work/file.json': is a regular file, not a folder" "(expected" -- \
  env TRAINSIM_DATA="$work/file.json" "$trainsim" run "$quick"
refused "TRAINSIM_DATA a folder without data" "TRAINSIM_DATA '$work/empty': holds no models/ or topologies/" "(expected" \
  -- env TRAINSIM_DATA="$work/empty" "$trainsim" list
if [ "$(id -u)" -ne 0 ]; then  # root reads any folder
  mkdir "$work/locked"
  cp -r "$repo/models" "$work/locked/"
  chmod 000 "$work/locked"
  refused "--data unreadable" "--data '$work/locked': is not readable" "(expected" -- \
    "$trainsim" check "$quick" --data "$work/locked"
  chmod 700 "$work/locked"
else
  echo "note: running as root, which reads any folder: the unreadable --data case is not checked"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
