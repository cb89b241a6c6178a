#include "sim/scenario/fp8_library.hpp"

#include "sim/scenario/named_choice.hpp"

namespace sim {

const std::vector<Fp8LibraryEntry>& fp8_libraries() {
  // Transformer Engine: layernorm_linear.py and layernorm_mlp.py gather the FP8 norm output;
  // module/base.py's grad_output_preprocess casts the output gradient before it gathers it ("FP8
  // case with gather: unfused bgrad, cast, transpose for efficient gather").
  // torchao: float8/float8_tensor_parallel.py's Float8ColwiseParallel casts its input before it
  // redistributes it; a Float8RowwiseParallel layer's output gradient is gathered by the
  // redistribute's backward as the 16-bit tensor it is, and cast after, by the
  // NoopFwToFloat8BwDynamic that Float8Linear.forward (float8/float8_linear.py) wraps its output in.
  // Both keep the FP8 input for the weight gradient (Transformer Engine's saved_inputmat; torchao's
  // tensorwise manual_float8_matmul_with_args_in_float8 saves input_fp8).
  // Transformer Engine keeps each weight's FP8 cast and transpose in module buffers (weight_fp8,
  // weight_t_fp8), filled by fp8_cast_transpose_fused at the first microbatch (layernorm_linear.py,
  // update_fp8_weights); with primary weights in FP8 (fp8_model_init; Megatron-Core's
  // --fp8-param-gather, NeMo's fp8_params) the weight itself is the FP8 tensor, with its transpose
  // cached. torchao's Float8Linear casts the weight at each forward (cast_weight_to_float8_t).
  // Transformer Engine makes the transposed copies only where the FP8 GEMM needs "TN" operands:
  // its quantizer creates one when `columnwise_usage && !non_tn_fp8_gemm_supported()`, which is
  // compute capability < 10 (csrc/extensions/quantizer.cpp and util.cpp at v2.0 and v2.1; linear.py:
  // "FP8 GEMM on Hopper only supports TN layout"). torchao calls torch._scaled_mm, whose contract
  // is a row-major first and a column-major second operand on every device
  // (torch/_meta_registrations.py, meta_scaled_mm: "self must be row_major", "mat2 must be
  // col_major"), so Float8Linear makes them everywhere.
  static const std::vector<Fp8LibraryEntry> libraries{
      {Fp8Library::TRANSFORMER_ENGINE, "te",
       "NVIDIA Transformer Engine: gathers inputs and output gradients in FP8, keeps FP8 weights (Megatron-Core, "
       "NeMo, llm-foundry)",
       true, true, true},
      {Fp8Library::TORCHAO, "torchao",
       "torchao Float8Linear: gathers inputs in FP8, output gradients in 16 bits, casts weights at each use "
       "(torchtitan)",
       false, false, false},
  };
  return libraries;
}

const Fp8LibraryEntry& fp8_library(Fp8Library kind) { return registry_entry(fp8_libraries(), kind); }

}  // namespace sim
