#!/usr/bin/env bash
# Speed guarded without timing: the transfers the engine simulates (report `simulation.transfers`,
# deterministic for a config and seed) for scripts/bench's scale case -- GPT-3 175B, TP 8, PP 8,
# 96 microbatches per replica, one stage per rank, dp = GPUs / 64, class fidelity -- on A100 nodes
# (dgx-a100-superpod, where NCCL's model picks rings for the gradient all-reduce) and on H100 nodes
# (dgx-h100-superpod: NVLS trees), at 16,384 and (A100) 131,072 GPUs, under ZeRO-1, ZeRO-2 with
# overlapped reduction and ZeRO-3. A change that stops a fold makes a count grow, and the test fails.
#
# Usage: bash flow_counts.sh TRAINSIM REPO
#
# Expectations:
# - Each count is at most its ceiling below: the count the engine simulated when the ceiling was
#   written (a fold that improves lowers the count and passes; lower the ceiling with it).
# - Independent of those numbers: where rings fold (A100 nodes, ZeRO-1 and ZeRO-3, whose gradients
#   are reduced once per step), the transfers do not depend on the data-parallel degree, so 131,072
#   GPUs simulate exactly as many as 16,384 (sim/engine/replay.cpp, "Folding"); and on H100 nodes,
#   where the DP all-reduce runs NVLS trees, which fold less, at least as many as on A100 nodes.
# - Left out, because the engine takes too long on them for CI (trees are not folded like rings:
#   a tree's edges are not copies of each other, so a group's tree is one component of O(dp) flows,
#   simulated whole): H100 at 131,072 GPUs, ZeRO-1 (and 2, 3): 132,378 transfers, 36 s on the
#   2-core development machine with jemalloc. Folding trees and ZeRO buckets brings
#   them back into this matrix.
# - The A100 cases at 131,072 GPUs build a platform of 262,144 hosts (about 1 GiB, 5 to 9 s each on
#   the development machine): the test takes about a minute there.
set -u

trainsim=${1:?usage: flow_counts.sh TRAINSIM REPO}
repo=${2:?usage: flow_counts.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
config="$repo/configs/gpt3-175b-1024xa100.json"

declare -A count
# run NAME GPUS NODES ZERO: the scale case; records its transfers in count[NAME].
run() {
  local name=$1 gpus=$2 nodes=$3 zero=$4 dp=$(($2 / 64))
  local args=(--set cluster.gpus="$gpus" --set parallelism.dp=$dp --set training.global_batch=$((dp * 96))
    --set parallelism.virtual_stages=1 --set cluster.from="$nodes" --set parallelism.zero="$zero")
  # ZeRO-1/3 as the scale case has them, the reduction exposed; ZeRO-2 with overlapped buckets.
  if [ "$zero" = 2 ]; then
    args+=(--set parallelism.overlap_grad_reduce=true)
  else
    args+=(--set parallelism.overlap_grad_reduce=false)
  fi
  if ! "$trainsim" run "$config" "${args[@]}" -q -o "$work/$name.json" 2>"$work/$name.err"; then
    fail "$name" "$(head -c 300 "$work/$name.err")"
    return
  fi
  count[$name]=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["simulation"]["transfers"])' "$work/$name.json")
}
# at_most NAME CEILING
at_most() {
  local n=${count[$1]:-}
  if [ -z "$n" ]; then
    fail "$1" "no count"
  elif [ "$n" -le "$2" ]; then
    pass "$1: $n transfers, at most $2"
  else
    fail "$1" "$n transfers, more than $2: a fold stopped applying"
  fi
}
# same A B: the same count (rings fold whatever dp)
same() {
  if [ -n "${count[$1]:-}" ] && [ "${count[$1]}" = "${count[$2]:-}" ]; then
    pass "$1 simulates as many transfers as $2 (${count[$1]})"
  else
    fail "$1 vs $2" "${count[$1]:-none} against ${count[$2]:-none}: the count grows with dp"
  fi
}

for zero in 1 2 3; do
  run "A100 16384 ZeRO-$zero" 16384 dgx-a100-superpod $zero
  run "A100 131072 ZeRO-$zero" 131072 dgx-a100-superpod $zero
done
for zero in 1 2 3; do
  run "H100 16384 ZeRO-$zero" 16384 dgx-h100-superpod $zero
done

at_most "A100 16384 ZeRO-1" 1394
at_most "A100 131072 ZeRO-1" 1394
at_most "A100 16384 ZeRO-2" 9063
# With overlapped buckets the count still grows with dp (9,063 at 16,384 GPUs): the buckets' rings
# fold less than one reduction's.
at_most "A100 131072 ZeRO-2" 21863
at_most "A100 16384 ZeRO-3" 1394
at_most "A100 131072 ZeRO-3" 1394
at_most "H100 16384 ZeRO-1" 17690
at_most "H100 16384 ZeRO-3" 17690
# The overlapped buckets' trees, each launch's flows in flight at once: 40,130 transfers.
at_most "H100 16384 ZeRO-2" 40130
same "A100 131072 ZeRO-1" "A100 16384 ZeRO-1"
same "A100 131072 ZeRO-3" "A100 16384 ZeRO-3"
for zero in 1 2 3; do
  if [ "${count[H100 16384 ZeRO-$zero]:-0}" -ge "${count[A100 16384 ZeRO-$zero]:-1}" ]; then
    pass "H100 16384 ZeRO-$zero: NVLS trees fold less than rings (${count[H100 16384 ZeRO-$zero]} against ${count[A100 16384 ZeRO-$zero]})"
  else
    fail "H100 16384 ZeRO-$zero" "fewer transfers than on A100 nodes: does the DP all-reduce still run NVLS trees?"
  fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
