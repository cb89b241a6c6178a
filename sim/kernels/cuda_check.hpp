// Return-code checks for the CUDA runtime, cuBLASLt and NCCL.
//
// Every call into those libraries goes through one of these macros. A failure throws CudaError
// whose message is "FILE:LINE: LIBRARY error: <library's error string> in <expression>"; main()
// prints it and exits 1. Kernel launches are followed by CUDA_CHECK(cudaGetLastError()).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace sim::kernels {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_library_error(const char* library, const char* message, const char* expr, const char* file,
                                      int line);

}  // namespace sim::kernels

#define CUDA_CHECK(expr)                                                                                         \
  do {                                                                                                           \
    const cudaError_t trainsim_err_ = (expr);                                                                    \
    if (trainsim_err_ != cudaSuccess)                                                                            \
      ::sim::kernels::throw_library_error("CUDA", cudaGetErrorString(trainsim_err_), #expr, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: configuration errors surface here, execution errors at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(expr)                                                                                    \
  do {                                                                                                        \
    const cublasStatus_t trainsim_st_ = (expr);                                                               \
    if (trainsim_st_ != CUBLAS_STATUS_SUCCESS)                                                                \
      ::sim::kernels::throw_library_error("cuBLASLt", cublasLtGetStatusString(trainsim_st_), #expr, __FILE__, \
                                          __LINE__);                                                          \
  } while (0)

#define NCCL_CHECK(expr)                                                                                        \
  do {                                                                                                          \
    const ncclResult_t trainsim_nr_ = (expr);                                                                   \
    if (trainsim_nr_ != ncclSuccess)                                                                            \
      ::sim::kernels::throw_library_error("NCCL", ncclGetErrorString(trainsim_nr_), #expr, __FILE__, __LINE__); \
  } while (0)
