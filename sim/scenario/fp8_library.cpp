#include "sim/scenario/fp8_library.hpp"

#include "sim/scenario/named_choice.hpp"

namespace sim {

const std::vector<Fp8LibraryEntry>& fp8_libraries() {
  // Transformer Engine: module/linear.py and layernorm_linear.py save the FP8 input (saved_inputmat
  // is the FP8 tensor when fp8) and gather the FP8 norm output; module/base.py's
  // grad_output_preprocess casts the output gradient before it gathers it ("FP8 case with gather:
  // unfused bgrad, cast, transpose for efficient gather").
  // torchao (float8/float8_linear.py, matmul_with_hp_or_float8_args: save_for_backward(input_hp,
  // weight_hp_t), cast again in the backward; float8/float8_tensor_parallel.py: Float8ColwiseParallel
  // casts its input before redistributing it, Float8RowwiseParallel's output gradient is gathered
  // as the 16-bit tensor it is and cast inside the matmul's backward).
  static const std::vector<Fp8LibraryEntry> libraries{
      {Fp8Library::TRANSFORMER_ENGINE, "te",
       "NVIDIA Transformer Engine: keeps FP8 inputs, gathers inputs and output gradients in FP8 (Megatron-Core, "
       "NeMo, llm-foundry)",
       1.0, true},
      {Fp8Library::TORCHAO, "torchao",
       "torchao Float8Linear: keeps 16-bit inputs and casts again in backward, gathers inputs in FP8 and output "
       "gradients in 16 bits (torchtitan)",
       2.0, false},
  };
  return libraries;
}

const Fp8LibraryEntry& fp8_library(Fp8Library kind) { return registry_entry(fp8_libraries(), kind); }

}  // namespace sim
