// One mma.sync.m16n8k8 with tf32 operands on the device, for the test of how the tensor cores read
// an operand whose lower 13 bits are not zero (test_tf32_operands_gpu.cpp): D[0][0] of A × B with a
// at A[0][0], b at B[0][0] and zeros elsewhere.
#include "tf32_operand_probe.hpp"

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "separable_tf32_common.cuh"

namespace gausslab::gpu_test {
namespace {

__global__ void Tf32ProductKernel(float a, float b, float* d00) {
  using namespace tf32_fir;
  const int lane = static_cast<int>(threadIdx.x);
  FragA fa{};
  FragB fb{};
  if (lane == 0) {  // lane 0 holds A[0][0] in a0 and B[0][0] in b0 (g = t = 0)
    fa.r[0] = a;
    fb.r[0] = b;
  }
  FragC d{};
  mma_1688(d, fa, fb);
  if (lane == 0) *d00 = d.v[0];  // c0 of lane 0 is D[0][0]
}

}  // namespace

float tf32_product_on_device(float a, float b, cudaStream_t stream) {
  DeviceBuffer out(sizeof(float));
  Tf32ProductKernel<<<1, 32, 0, stream>>>(a, b, out.as<float>());
  GAUSSLAB_CUDA_CHECK_LAUNCH("Tf32ProductKernel", stream);
  float d00 = 0.0f;
  GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(&d00, out.data(), sizeof d00, cudaMemcpyDeviceToHost, stream));
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return d00;
}

}  // namespace gausslab::gpu_test
