#pragma once
// 2×2 pooling of stored pixels as the kernels hold them (uchar4 for RGBA8, float for F32), with
// core/pooling.hpp's rule per channel: the separate pooling kernel (cuda/src/pooling.cu) and the
// pooling fused into a method's last pass use these, and so give the same bits.
#include <cuda_runtime.h>  // uchar4 and make_uchar4 for the host compiler too

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pooling.hpp"

namespace gausslab {

// The pooled pixel of the block a b / c d (a, b the upper row).
GAUSSLAB_HD uchar4 pool_stored(uchar4 a, uchar4 b, uchar4 c, uchar4 d, PoolMode mode) {
  return make_uchar4(pool_channel(a.x, b.x, c.x, d.x, mode), pool_channel(a.y, b.y, c.y, d.y, mode),
                     pool_channel(a.z, b.z, c.z, d.z, mode), pool_channel(a.w, b.w, c.w, d.w, mode));
}
GAUSSLAB_HD float pool_stored(float a, float b, float c, float d, PoolMode mode) { return pool_channel(a, b, c, d, mode); }

}  // namespace gausslab
