// The shapes file: problem sizes the kernel suite measures besides its built-in sweeps.
//
// One shape per line; '#' starts a comment; blank lines are ignored. Fields are whole numbers
// separated by spaces or tabs:
//
//   gemm M N K BATCH                              # D[M,N] = A[M,K] B[K,N], BATCH times
//   attention BATCH HEADS SEQ HEAD_DIM CAUSAL     # CAUSAL is 0 or 1
//
// Every dimension must be at least 1 (and below 2^31). A malformed line throws ShapesError
// "FILE:LINE: what (expected ...)"; nothing is skipped silently.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim::kernels {

class ShapesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GemmShape {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool operator==(const GemmShape& o) const { return m == o.m && n == o.n && k == o.k && batch == o.batch; }
};

struct AttentionShape {
  int64_t batch = 0, heads = 0, seq_len = 0, head_dim = 0;
  bool causal = false;
  bool operator==(const AttentionShape& o) const {
    return batch == o.batch && heads == o.heads && seq_len == o.seq_len && head_dim == o.head_dim && causal == o.causal;
  }
};

struct ShapeList {
  std::vector<GemmShape> gemm;
  std::vector<AttentionShape> attention;
};

// Parses the text of a shapes file; `file` names it in messages.
ShapeList parse_shapes(std::istream& in, const std::string& file);
// Reads and parses a shapes file; throws ShapesError when it cannot be opened.
ShapeList load_shapes(const std::string& path);

}  // namespace sim::kernels
