#pragma once
// The accumulator layout that every mma.sync.m16n8k* shape shares (PTX ISA, "Matrix Fragments for
// mma.m16n8k8 / k16 / k32"): C and D are a 16 × 8 tile, four elements a lane; with g = lane / 4 and
// t = lane % 4, element i sits at row g + 8 (i / 2), column 2 t + i % 2, whatever the operands' type
// (tf32, f16, u8) and so whatever their own A and B layouts, which stay with each method.
#include "gausslab/core/host_device.hpp"

namespace gausslab::mma_layout {

struct Coord {
  int row, col;
};

// C and D (16 × 8): elements i = 0..3 of lane `lane`.
GAUSSLAB_HD Coord c_coord(int lane, int i) {
  const int group = lane >> 2, in_group = lane & 3;
  return {group + ((i & 2) ? 8 : 0), in_group * 2 + (i & 1)};
}

}  // namespace gausslab::mma_layout
