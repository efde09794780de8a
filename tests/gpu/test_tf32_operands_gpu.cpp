// How the tensor cores read a tf32 operand whose lower 13 bits are not zero. separable_tf32's source
// splits each sample into big = the sample toward zero to tf32 (its low 13 bits cleared) and the
// rest, but ptxas drops the clearing: the SASS of SeparableTf32Kernel feeds the loaded samples to
// HMMA.1688.F32.TF32 as they are, relying on the tensor cores to ignore those bits. Its accuracy
// analysis (and the CPU model, which multiplies tf32 numbers) holds only if they do, as truncation:
// 1 + 2^-11 + 2^-12 times 1 must give 1, not 1 + 2^-10 (rounding to nearest) nor the float product.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gausslab/cuda/device.hpp"
#include "gpu_test_support.hpp"
#include "tf32_operand_probe.hpp"

namespace gausslab::gpu_test {
namespace {

class Tf32Operands : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    const std::string refusal = tensor_core_refusal("this test", "the tensor cores' tf32 mma");
    if (!refusal.empty()) GTEST_SKIP() << refusal;
  }
};

TEST_F(Tf32Operands, TheTensorCoresReadTheUpper19BitsOfEachOperand) {
  const float above_half_ulp = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);  // tf32 ulp of 1: 2^-10
  EXPECT_EQ(tf32_product_on_device(above_half_ulp, 1.0f, stream()), 1.0f) << "A operand";
  EXPECT_EQ(tf32_product_on_device(1.0f, above_half_ulp, stream()), 1.0f) << "B operand";
  EXPECT_EQ(tf32_product_on_device(-above_half_ulp, 3.0f, stream()), -3.0f) << "toward zero, negative";
  // A rest x - trunc(x) with more than 11 significant bits is read to 11 as well.
  const float rest = std::ldexp(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12), -20);
  EXPECT_EQ(tf32_product_on_device(rest, 1.0f, stream()), std::ldexp(1.0f, -20));
  // Bits the tensor cores keep are kept.
  const float tf32_exact = 1.0f + std::ldexp(1.0f, -10);
  EXPECT_EQ(tf32_product_on_device(tf32_exact, 1.0f, stream()), tf32_exact);
}

}  // namespace
}  // namespace gausslab::gpu_test
