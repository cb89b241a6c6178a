#!/usr/bin/env bash
# `trainsim shapes` lists what an MoE scenario's kernels run, for the kernel suite to measure: the
# experts' grouped GEMMs, one batch entry per expert, each of tokens x top_k / experts rows
# (forced balance), and latent attention at its query/key head width. On the quickstart's 16 A100
# (tp 4, sequence 2,048, FlashAttention), Mixtral 8x7B's experts take micro-batch x 2048 x 2 / 8 rows each, their
# FFN 14,336 / 4 wide per rank, twice that (gated) out of the first GEMM; DeepSeek-V3's attention
# heads are 128 + 64 wide for the scores.
# Usage: bash shapes_moe.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: shapes_moe.sh TRAINSIM REPO}
repo=${2:?usage: shapes_moe.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
for model in mixtral-8x7b deepseek-v3; do
  sed -e "s/\"gpt-7.5b\"/\"$model\"/" -e 's/"unfused"/"flash"/' configs/quickstart.json >"$work/$model.json"
  timeout 120 "$trainsim" shapes "$work/$model.json" >"$work/$model.shapes" 2>"$work/err" ||
    fail "$model shapes" "exit: $(cat "$work/err")"
done
python3 - "$work/mixtral-8x7b.shapes" <<'PY' && pass "Mixtral 8x7B: the experts' GEMMs grouped by 8, micro-batch x 512 rows each" ||
import sys
gemms = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[1]) if l.startswith("gemm ")]
fc1 = [m for m, n, k, b in gemms if (n, k, b) == (2 * 14336 // 4, 4096, 8)]
fc2 = [m for m, n, k, b in gemms if (n, k, b) == (4096, 14336 // 4, 8)]
sys.exit(0 if len(fc1) == 1 and fc1 == fc2 and fc1[0] % 512 == 0 else 1)
PY
  fail "Mixtral shapes" "$(grep ' 8$' "$work/mixtral-8x7b.shapes" | tr '\n' ';')"
grep -q '^attention [0-9]* 32 2048 192 1$' "$work/deepseek-v3.shapes" &&
  pass "DeepSeek-V3: 32 heads per rank, 192 wide" || fail "DeepSeek-V3 attention" "$(grep attention "$work/deepseek-v3.shapes")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
