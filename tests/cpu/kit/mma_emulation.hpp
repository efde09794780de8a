#pragma once
// One warp's mma.sync.m16n8k16 (fp16 A and B, fp32 C and D) on the CPU, from the 32 lanes' fragments
// and the PTX ISA's fragment layouts (separable_mma_common.cuh): the models of separable_mma and of
// multires's tensor-core row reduce run their lane code through it. Products and sums in float64,
// rounded to float once per mma (the hardware keeps at least float precision). emulate_mma_tf32 does
// the same for mma.sync.m16n8k8 with tf32 A and B (separable_tf32), and refuses an operand that is
// not a tf32 number (the kernel passes only tf32_round's results).
#include "separable_mma_common.cuh"
#include "separable_tf32_common.cuh"

#include <stdexcept>

namespace gausslab::test {

// D = C + A B for one warp, A (16 × K) and B (K × 8) already gathered from the lanes' fragments: C
// gathered from d by the C/D layout (the same for both shapes), products and sums in float64,
// rounded to float once.
template <int K, class FragC, class CCoord>
void warp_product(FragC (&d)[32], const float (&A)[16][K], const float (&B)[K][8], CCoord c_coord) {
  float C[16][8];
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const auto c = c_coord(lane, i);
      C[c.row][c.col] = d[lane].v[i];
    }
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const auto c = c_coord(lane, i);
      double sum = C[c.row][c.col];
      for (int k = 0; k < K; ++k) sum += static_cast<double>(A[c.row][k]) * B[k][c.col];
      d[lane].v[i] = static_cast<float>(sum);
    }
}

inline void emulate_mma(mma_fir::FragC (&d)[32], const mma_fir::FragA (&a)[32], const mma_fir::FragB (&b)[32]) {
  using namespace mma_fir;
  float A[16][16], B[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 8; ++i) {
      const Coord c = a_coord(lane, i);
      A[c.row][c.col] = half_value(static_cast<unsigned short>(a[lane].r[i / 2] >> (16 * (i % 2))));
    }
    for (int i = 0; i < 4; ++i) {
      const Coord c = b_coord(lane, i);
      B[c.row][c.col] = half_value(static_cast<unsigned short>(b[lane].r[i / 2] >> (16 * (i % 2))));
    }
  }
  warp_product(d, A, B, c_coord);
}

inline void emulate_mma_tf32(tf32_fir::FragC (&d)[32], const tf32_fir::FragA (&a)[32], const tf32_fir::FragB (&b)[32]) {
  using namespace tf32_fir;
  auto operand = [](float v) {
    if (tf32_round(v) != v && v == v) throw std::logic_error("an mma operand that is not a tf32 number");
    return v;
  };
  float A[16][8], B[8][8];
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      const Coord c = a_coord(lane, i);
      A[c.row][c.col] = operand(a[lane].r[i]);
    }
    for (int i = 0; i < 2; ++i) {
      const Coord c = b_coord(lane, i);
      B[c.row][c.col] = operand(b[lane].r[i]);
    }
  }
  warp_product(d, A, B, c_coord);
}

}  // namespace gausslab::test
