#pragma once
// tf32_operand_probe.cu: one tf32 tensor-core product a × b on the device.
#include <cuda_runtime.h>

namespace gausslab::gpu_test {

// D[0][0] of mma.sync.m16n8k8 (tf32) with a at A[0][0], b at B[0][0], zeros elsewhere; the bits of
// a and b go to the tensor cores as they are. Throws on a CUDA error.
float tf32_product_on_device(float a, float b, cudaStream_t stream);

}  // namespace gausslab::gpu_test
