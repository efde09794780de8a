#pragma once
// One block per tile of the image: the problem every tiled kernel is launched for, the number of its
// blocks and the tile of a block, written once for the kernels (device) and their CPU models (host).
// Blocks are numbered along rows of tiles, x fastest, in a one-dimensional grid: neighbours that share
// an apron run close together (the apron is then read from L2), and the grid has room for 2^31 - 1
// blocks (a 2D grid stops at 65535 rows of tiles). A launch policy P names its tile P::kTileW ×
// P::kTileH; those are compile-time constants, so the divisions by them cost what the hand-written
// ones did.
#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/cuda/kernel_common.cuh"

namespace gausslab {

// The image and the filter of one tiled launch.
struct TileProblem {
  int width = 0;
  int height = 0;
  int radius = 0;
  BorderMode border = BorderMode::Reflect;
};

// The top-left pixel of a block's tile.
struct TileOrigin {
  int x0 = 0;
  int y0 = 0;
};

// Blocks of a launch with tile_w × tile_h tiles over a width × height image.
GAUSSLAB_HD long long tile_block_count(int width, int height, int tile_w, int tile_h) {
  return static_cast<long long>(div_up(width, tile_w)) * div_up(height, tile_h);
}
template <class P>
GAUSSLAB_HD long long block_count(int width, int height) {
  return tile_block_count(width, height, P::kTileW, P::kTileH);
}
template <class P>
GAUSSLAB_HD long long block_count(const TileProblem& p) {
  return block_count<P>(p.width, p.height);
}

// The tile of block `block` when a row of the image holds `tiles_x` tiles (a launch that passes the
// count in its arguments saves the division; the sizes may then be run-time values).
GAUSSLAB_HD TileOrigin tile_at(int block, int tiles_x, int tile_w, int tile_h) {
  return {(block % tiles_x) * tile_w, (block / tiles_x) * tile_h};
}
template <class P>
GAUSSLAB_HD TileOrigin tile_of(const TileProblem& p, int block) {
  return tile_at(block, div_up(p.width, P::kTileW), P::kTileW, P::kTileH);
}

}  // namespace gausslab
