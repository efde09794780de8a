#include "numbers_tiles.hpp"

#include <algorithm>
#include <cmath>

#include "gausslab/core/border.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/staged_copy.hpp"
#include "gausslab/render/slicing.hpp"

namespace gausslab {

int numbers_tile_core(const MethodInfo& info, int width, int height, int radius) {
  if (info.backend != Backend::Cuda || !info.same_bytes_in_bands) return 0;
  const double cost = window_cost(info.id, radius);
  if (static_cast<double>(width) * height * cost <= kNumbersWholeRunUnits) return 0;
  const int side = static_cast<int>(std::floor(std::sqrt(kNumbersTileUnits / cost)));
  const int core = std::max(side - 2 * radius, std::max(64, 2 * radius));
  return core >= width && core >= height ? 0 : core;
}

std::vector<float> extend_plane(const ConstImageView& plane, int radius, BorderMode border) {
  const int width = plane.width, height = plane.height;
  const int ext_width = width + 2 * radius, ext_height = height + 2 * radius;
  std::vector<int> columns(static_cast<std::size_t>(ext_width));
  for (int x = 0; x < ext_width; ++x) columns[static_cast<std::size_t>(x)] = border_index(x - radius, width, border);
  std::vector<float> out(static_cast<std::size_t>(ext_width) * ext_height, 0.0f);
  for (int y = 0; y < ext_height; ++y) {
    const int sy = border_index(y - radius, height, border);
    if (sy < 0) continue;  // 'constant': a row of zeros
    const float* row = plane.row<float>(sy);
    float* ext_row = out.data() + static_cast<std::size_t>(y) * ext_width;
    for (int x = 0; x < ext_width; ++x) {
      const int sx = columns[static_cast<std::size_t>(x)];
      ext_row[x] = sx < 0 ? 0.0f : row[sx];
    }
  }
  return out;
}

bool run_plane_in_tiles(Method& method, const FilterParams& params, const ConstImageView& host_plane,
                        const ImageView& d_dst, int core, cudaStream_t stream, NumbersTileBuffers& buffers,
                        const std::atomic<bool>& superseded, const std::function<void()>& before_tile) {
  const int width = host_plane.width, height = host_plane.height, r = params.radius();
  const TilePlan plan = plan_tiles(width, height, r, TileSize{core, core});
  const int in_w = plan.tile.width + 2 * r, in_h = plan.tile.height + 2 * r;
  const std::vector<float> extended = extend_plane(host_plane, r, params.border);
  const int ext_w = width + 2 * r, ext_h = height + 2 * r;
  buffers.extended.resize(ext_w, ext_h, PixelFormat::F32);
  // Up to ~75 MiB: through pinned memory a piece per frame, not in one pageable copy that holds the
  // copy engine while the frame's pixel buffers wait.
  const std::size_t row = sizeof(float) * static_cast<std::size_t>(ext_w);
  copy_rows_through_pinned(RowCopy{extended.data(), row, buffers.extended.view().data,
                                   buffers.extended.view().pitch_bytes, row, ext_h},
                           cudaMemcpyHostToDevice, buffers.staging, stream, kStagedPieceBytes, before_tile);
  buffers.tile_out.resize(in_w, in_h, PixelFormat::F32);
  method.prepare(FilterProblem{in_w, in_h, PixelFormat::F32, params});
  const ImageView ext = buffers.extended.view(), out = buffers.tile_out.view();
  bool first = true;
  for (const Tile& tile : plan.tiles) {
    if (!first && before_tile) before_tile();
    first = false;
    if (superseded) return false;
    // The tile's core starts at (tile.x, tile.y) of the plane, i.e. (tile.x + r, tile.y + r) of the
    // extended plane: its input, halo included, starts at (tile.x, tile.y) there.
    const ConstImageView src{static_cast<const char*>(ext.data) + static_cast<std::size_t>(tile.y) * ext.pitch_bytes +
                                 sizeof(float) * static_cast<std::size_t>(tile.x),
                             in_w, in_h, ext.pitch_bytes, PixelFormat::F32};
    method.run(src, out, nullptr, stream);
    const char* kept = static_cast<const char*>(out.data) +
                       static_cast<std::size_t>(tile.own_y - tile.y + r) * out.pitch_bytes +
                       sizeof(float) * static_cast<std::size_t>(tile.own_x - tile.x + r);
    char* target = static_cast<char*>(d_dst.data) + static_cast<std::size_t>(tile.own_y) * d_dst.pitch_bytes +
                   sizeof(float) * static_cast<std::size_t>(tile.own_x);
    GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(target, d_dst.pitch_bytes, kept, out.pitch_bytes,
                                          sizeof(float) * static_cast<std::size_t>(tile.own_w), tile.own_h,
                                          cudaMemcpyDeviceToDevice, stream));
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the next tile waits: the frame's work goes between
  }
  return true;
}

}  // namespace gausslab
