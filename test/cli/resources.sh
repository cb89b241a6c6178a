#!/usr/bin/env bash
# Sizes that would exhaust the machine are refused before the simulation starts
# (sim/plan/resource_estimate.hpp): one line "trainsim: error: FILE: /cluster/gpus: simulating
# this plan would need ... more than --max-memory M" or "... would take ... more than the limit of
# T", exit code 2, within seconds -- for run and search (validate reports it as the row's failure,
# exit 1, and runs the next row), whatever field multiplies the
# work: GPUs (10^6 and 2^20 at class fidelity, 65,536 at full fidelity), microbatches, virtual
# stages, gradient buckets (layers with overlap_grad_reduce). The memory estimate is checked against
# the peak resident memory measured by the kernel (getrusage of the finished run), and --max-memory
# takes a quantity of bytes.
#
# Usage: bash resources.sh TRAINSIM REPO
#
# Expectation: the refusals come from arithmetic on the plan, so each returns in well under the
# 20 s allowed here (search first plans every candidate on the cluster: a few seconds). The
# estimate is calibrated to within a factor of about 1.7 of measured memory (resource_estimate.cpp);
# a factor of 2 either way is asserted.
set -u

trainsim=${1:?usage: resources.sh TRAINSIM REPO}
repo=${2:?usage: resources.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
llama="$repo/configs/llama3-70b-512xh100.json"
# Under AddressSanitizer (CI's build-asan) trainsim is several times slower and its shadow memory
# is not what the estimate models: the refusals are checked, the timing and the estimate's
# accuracy are not.
sanitized=false
if grep -q -a __asan_init "$trainsim"; then sanitized=true; fi

scenario() {  # OUT GPUS TP PP DP GLOBAL_BATCH [path=json ...]: gpt3-175b on a DGX A100 SuperPOD
  python3 - "$@" <<'PY'
import json, sys
out, gpus, tp, pp, dp, gb = sys.argv[1], *map(int, sys.argv[2:7])
s = {"kind": "scenario", "name": "resources", "seed": 1, "model": "gpt3-175b",
     "cluster": {"from": "dgx-a100-superpod", "gpus": gpus, "scale_out": {"pod_gpus": gpus}},
     "parallelism": {"tp": tp, "pp": pp, "dp": dp, "sequence_parallel": True, "zero": 1},
     "training": {"seq_len": 2048, "global_batch": gb, "micro_batch": 1, "recompute": "selective",
                  "precision": "bf16"}}
for kv in sys.argv[7:]:
    path, value = kv.split("=", 1)
    keys = path.split(".")
    node = s
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = json.loads(value)
json.dump(s, open(out, "w"))
PY
}

table() {  # OUT SCENARIO: a validation table of one row
  python3 - "$1" "$2" <<'PY'
import json, sys
json.dump({"kind": "validation", "description": "resources.sh",
           "runs": [{"name": "big", "group": "g", "published": {"step_time_s": 1.0}, "note": "",
                     "scenario": json.load(open(sys.argv[2]))}]}, open(sys.argv[1], "w"))
PY
}

# refused NAME LIMIT-PATTERN trainsim-args...: exit 2, one line naming the file, the estimate and a
# limit matching the pattern, within 20 s, nothing on stdout but search's header.
refused() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout -s KILL 60 "$trainsim" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$? took=$((SECONDS - start)) line
  line=$(head -n 1 "$work/$name.err")
  if [ $rc -ne 2 ]; then
    fail "$name" "exit $rc (expected 2) after $took s: $(head -c 300 "$work/$name.err")"
  elif [ "$(wc -l <"$work/$name.err")" -ne 1 ]; then
    fail "$name" "not one line: $(head -c 400 "$work/$name.err")"
  elif ! [[ $line =~ ^trainsim:\ error:\ .*:\ /cluster/gpus:\ (no\ plan\ can\ run\ on\ [0-9]+\ GPUs,\ whatever\ the\ plan:\ )?simulating\ (this|any)\ plan\ would\ (need|take)\ .*\ more\ than\ $limit ]]; then
    fail "$name" "the line does not name the estimate and the limit ($limit): $line"
  elif [ $took -gt 20 ] && ! $sanitized; then
    fail "$name" "took $took s"
  else
    pass "$name: exit 2, one line naming the limit, $took s"
  fi
}

# refused_row NAME LIMIT-PATTERN validate-args...: a validation row past a limit is that row's
# failure: exit 1, its line on stdout naming its place in the table, the estimate and
# the limit, one line on stderr naming it, within 20 s.
refused_row() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout -s KILL 60 "$trainsim" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$? took=$((SECONDS - start))
  if [ $rc -ne 1 ] || [ "$(wc -l <"$work/$name.err")" -ne 1 ]; then
    fail "$name" "exit $rc (expected 1) after $took s: $(head -c 300 "$work/$name.err")"
  elif ! grep -Eq "failed: .*: /runs/0/scenario/cluster/gpus: simulating this plan would (need|take) .* more than $limit" "$work/$name.out"; then
    fail "$name" "no failed row naming the estimate and the limit ($limit): $(head -c 400 "$work/$name.out")"
  elif [ $took -gt 20 ] && ! $sanitized; then
    fail "$name" "took $took s"
  else
    pass "$name: a failed row naming the limit, exit 1, $took s"
  fi
}

any_limit='(the limit of [0-9]+ s|--max-memory [0-9.]+ [KMGT]?i?B)'
wall_limit='the limit of [0-9]+ s'

# The issue's inputs. Since the engine folds the data-parallel rings' copies (a few
# flows in flight per rank instead of one per GPU, sim/engine/replay.cpp), 10^6 GPUs at class
# fidelity fit the default budget (about 30 s and 5.5 GiB on the 2-core machine) and run; a
# --max-memory below the platform's own memory (2 million hosts: over 5 GiB) still refuses them.
scenario "$work/million.json" 1000000 8 8 15625 125000
refused "class, 10^6 GPUs, --max-memory 2 GiB" '--max-memory 2.00 GiB' run "$work/million.json" -q --max-memory "2 GiB"
scenario "$work/mega.json" 1048576 8 8 16384 131072
refused "class, 2^20 GPUs, --max-memory 2 GiB" '--max-memory 2.00 GiB' \
  run "$work/mega.json" -q -o "$work/never.json" --max-memory "2 GiB"
# 65,536 actors each running 2 x 64 microbatches' tasks: past the default time (or, with glibc's
# malloc, memory) whichever allocator trainsim was linked with (resource_estimate.cpp).
scenario "$work/full.json" 65536 8 8 1024 65536
refused "full fidelity, 65,536 GPUs" "$any_limit" run "$work/full.json" --fidelity full -q
# Time allowed (--max-wall above the estimate), memory not: the 10^6 GPUs' platform alone (2
# million hosts) passes 4 GiB.
refused "class, 10^6 GPUs, --max-memory 4 GiB" '--max-memory 4.00 GiB' \
  run "$work/million.json" -q --max-wall 1000000 --max-memory "4 GiB"

# Other fields that multiply the work.
refused "full fidelity, 32,768 microbatches" "$wall_limit" \
  run "$llama" --fidelity full -q --set training.global_batch=524288
refused "full fidelity, 20 virtual stages" "$wall_limit" \
  run "$llama" --fidelity full -q --set training.global_batch=32768 --set parallelism.virtual_stages=20
python3 - "$work/layers.json" <<'PY'
import json, sys
# 100,000 tiny layers on 1,024 GPUs under ZeRO-3 (FSDP: a unit per layer), each layer's weights
# gathered for the forward and again for the backward and its gradients reduce-scattered, each as
# its own bucket: 3 x 10^5 collectives over 128 nodes launched before the step's end. (Without
# ZeRO-3, Megatron's buckets of 40 million parameters hold them all in a few.) At full fidelity
# every tree edge is a flow: refused. Folded, each of a tree's 8 channels x 2 trees is one pipeline
# (collective_flows.hpp, MemberFlow::pipe) and the chains inside the nodes fold by symmetry: at
# most 16 flows a bucket, whatever dp -- before the pipelines, 2 x 127 edges' flows a tree.
json.dump({"kind": "scenario", "name": "layers", "model": {"name": "tiny", "layers": 100000, "hidden": 16,
           "heads": 1, "ffn_hidden": 64, "vocab": 1000, "activation": "gelu"},
           "cluster": {"from": "dgx-a100-superpod", "gpus": 1024},
           "parallelism": {"tp": 1, "pp": 1, "dp": 1024, "zero": 3, "overlap_grad_reduce": True},
           "training": {"seq_len": 128, "global_batch": 1024, "micro_batch": 1}}, open(sys.argv[1], "w"))
PY
refused "100,000 layers as gradient buckets, full fidelity" "$any_limit" run "$work/layers.json" -q --fidelity full
if "$trainsim" run "$work/layers.json" -q -o "$work/layers-report.json" 2>"$work/layers.err" &&
  python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['simulation']['transfers'] <= 16 * 300000 else 1)" \
    "$work/layers-report.json"; then
  pass "100,000 layers as gradient buckets, folded: runs, at most 16 flows a bucket"
else
  fail "100,000 layers as gradient buckets, folded" "$(head -c 300 "$work/layers.err")"
fi

# Tensor-parallel groups that span two nodes run their collectives live (replay.cpp, run_live):
# 16,000 microbatches of a 76-layer model make 3.2e8 live flows at about 0.5 us each, over the
# limit although the task count is modest (fuzz_scenario's regression live-tp-collectives-took-seconds,
# its global batch x 1,000).
python3 - "$work/live.json" <<'PY'
import json, sys
json.dump({"kind": "scenario", "name": "live", "seed": 1,
           "model": {"activation": "swiglu", "ffn_hidden": 192, "heads": 56, "hidden": 56, "kv_heads": 8,
                     "layers": 76, "norm": "rmsnorm", "tied_embeddings": False, "vocab": 1},
           "cluster": {"gpu": "b200", "gpus": 192, "gpus_per_node": 4,
                       "scale_out": {"kind": "fat-tree", "latency": "1 us", "nic_bandwidth": "400 Gb/s",
                                     "nics_per_node": 2, "oversubscription": 4, "pod_gpus": 64},
                       "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s", "latency": "1 us"}},
           "parallelism": {"cp": 1, "dp": 3, "pp": 8, "tp": 8, "sequence_parallel": True, "virtual_stages": 2,
                           "layers_per_stage": [1, 1, 1, 3, 5, 1, 8, 8, 6, 6, 6, 6, 6, 6, 6, 6],
                           "overlap_grad_reduce": True, "zero": 3},
           "training": {"attention": "unfused", "global_batch": 192000, "micro_batch": 4, "precision": "bf16",
                        "recompute": "selective", "seq_len": 1296}}, open(sys.argv[1], "w"))
PY
refused "live tensor-parallel collectives, 16,000 microbatches" "$wall_limit" run "$work/live.json" -q
if grep -q "live tensor/context-parallel flows" "$work/live tensor-parallel collectives, 16,000 microbatches.err"; then
  pass "the refusal counts the live flows"
else
  fail "live flows" "not named: $(head -c 300 "$work/live tensor-parallel collectives, 16,000 microbatches.err")"
fi

# Gradient reductions whose trees cross an oversubscribed pod uplink fold too: the fold splits each
# shared uplink into one link per group of flows (sim/comm/shared_links.hpp), so the groups are
# alike again and one is simulated. Llama 3 405B on 16,384 H100 with tp 4, cp 8, pp 32, dp 16 in fp8
# reduces over NVLS trees whose 64,512 flows share the 1:7 uplinks: unsplit, one component of
# 4.16e9 pairs of flows (14.6 s at jemalloc's 3.5 ns a pair, 170 s at glibc's 41 ns:
# resource_estimate.cpp); split, a few hundred flows per component. Its estimate (every term) stays
# under the pairs' cost alone, and the run is allowed at --max-wall 10.
python3 - "$repo/configs/recovery/llama3-405b-16384xh100-spares.json" "$work/l405.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for key in ("failures", "recovery"):  # the step alone
    del s[key]
json.dump(s, open(sys.argv[2], "w"))
PY
l405=(run "$work/l405.json" -q
  --set parallelism.tp=4 --set parallelism.cp=8 --set parallelism.pp=32 --set parallelism.dp=16
  --set parallelism.virtual_stages=2 --set training.precision=fp8 --set training.micro_batch=1)
for over in 7 1; do
  if "$trainsim" "${l405[@]}" --set cluster.scale_out.oversubscription=$over -o "$work/l405-$over.json" \
    --max-wall 10 2>"$work/l405-$over.err" &&
    python3 -c "import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))['simulation']['estimated_wall_s'] < 4.16e9 * 3.5e-9 else 1)" \
      "$work/l405-$over.json"; then
    pass "trees across 1:$over pod uplinks fold: allowed at --max-wall 10, estimate under the unsplit pairs' cost"
  else
    fail "trees across 1:$over pod uplinks" "$(head -c 300 "$work/l405-$over.err")"
  fi
done

# validate and search.
table "$work/table.json" "$work/mega.json"
refused_row "validate, 2^20 GPUs, --max-memory 2 GiB" '--max-memory 2.00 GiB' validate "$work/table.json" --max-memory "2 GiB"
scenario "$work/big.json" 131072 8 8 2048 16384
# 131,072 GPUs: their platform alone needs about 0.7 GiB, so search refuses every plan before
# planning any (resource_estimate.hpp, platform_floor).
refused "search, 131,072 GPUs, --max-memory 256 MiB" '--max-memory 256.00 MiB' search "$work/big.json" \
  --max-memory "256 MiB"
table "$work/quick-table.json" "$repo/configs/quickstart.json"
refused_row "validate --max-memory 1 MiB" '--max-memory 1.00 MiB' validate "$work/quick-table.json" --max-memory "1 MiB"

# The memory estimate (read from the refusal at --max-memory 1 MiB) against the peak resident
# memory the kernel measured for the same run (the larger of trainsim and its simulation child).
scenario "$work/mid.json" 8192 8 8 128 1024
scenario "$work/small.json" 4096 8 8 64 512
for spec in "quickstart|$repo/configs/quickstart.json|class" "gpt3-1024|$repo/configs/gpt3-175b-1024xa100.json|class" \
  "8192 GPUs|$work/mid.json|class" "4096 GPUs, full fidelity|$work/small.json|full"; do
  IFS='|' read -r name config fidelity <<<"$spec"
  if $sanitized; then
    pass "memory estimate, $name: not compared (AddressSanitizer build)"
    continue
  fi
  "$trainsim" run "$config" -q --fidelity "$fidelity" --max-memory "1 MiB" 2>"$work/est.err"
  estimate=$(sed -n 's/.*would need \(at least \)\{0,1\}about \([0-9.]*\) \([KMG]iB\) of memory.*/\2 \3/p' "$work/est.err")
  measured=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)' \
    timeout 120 "$trainsim" run "$config" -q --fidelity "$fidelity" 2>"$work/run.err")
  verdict=$(python3 - "$estimate" "$measured" <<'PY'
import sys
value, unit = sys.argv[1].split()
est = float(value) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]
ratio = est / float(sys.argv[2])
print(f"{'ok' if 0.5 <= ratio <= 2 else 'off'} estimate {est / 2**20:.0f} MiB, measured {float(sys.argv[2]) / 2**20:.0f} MiB ({ratio:.2f}x)")
PY
)
  if [ -z "$estimate" ] || [ -z "$measured" ]; then
    fail "memory estimate, $name" "no estimate or measurement: $(head -c 300 "$work/est.err") $(head -c 200 "$work/run.err")"
  elif [ "${verdict%% *}" = ok ]; then
    pass "memory estimate, $name: ${verdict#ok }"
  else
    fail "memory estimate, $name" "${verdict#off }"
  fi
done

# --max-memory takes a quantity of bytes of at least 1 MiB: anything else is a usage error.
for bad in lots 0 "-1 GiB" "1 KiB" "nan GiB" "1e999 GiB"; do
  "$trainsim" run "$repo/configs/quickstart.json" -q --max-memory "$bad" >/dev/null 2>"$work/bad.err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/bad.err")" -eq 1 ] && grep -q -- "--max-memory" "$work/bad.err"; then
    pass "--max-memory '$bad' is rejected"
  else
    fail "--max-memory '$bad'" "exit $rc: $(head -c 300 "$work/bad.err")"
  fi
done
# A generous bound changes nothing.
"$trainsim" run "$repo/configs/quickstart.json" -q -o "$work/free.json" &&
  "$trainsim" run "$repo/configs/quickstart.json" -q --max-memory "64 GiB" -o "$work/bounded.json"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/free.json" "$work/bounded.json"; then
  pass "a bound the run stays within changes nothing"
else
  fail "generous --max-memory" "exit $rc, or the reports differ"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
