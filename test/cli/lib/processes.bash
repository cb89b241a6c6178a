# Shared by the signal tests (sourced, not run): finding a process's children.

child_of() {  # pid: the first child's pid, waiting up to 10 s for it to appear
  local end=$((SECONDS + 10)) c
  while [ $SECONDS -lt $end ]; do
    c=$(pgrep -P "$1" | head -n 1)
    [ -n "$c" ] && { echo "$c"; return 0; }
    sleep 0.05
  done
  return 1
}
