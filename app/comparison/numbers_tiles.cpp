#include "comparison/numbers_tiles.hpp"

#include <algorithm>
#include <cmath>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "gausslab/render/slicing.hpp"

namespace gausslab {

double numbers_tile_units(const MethodInfo& info) {
  // shared_2d sums a window ~7× faster than naive_2d (H100, 4096² F32 41×41: 2.85 against 20.2 ms),
  // so four times the work still takes less GPU time per tile.
  return info.id == "shared_2d" ? 4 * kNumbersTileUnits : kNumbersTileUnits;
}

int numbers_tile_core(const MethodInfo& info, int width, int height, int radius) {
  if (info.backend != Backend::Cuda || !info.same_bytes_in_bands) return 0;
  const double cost = window_cost(info.id, radius);
  if (static_cast<double>(width) * height * cost <= kNumbersWholeRunUnits) return 0;
  const int side = static_cast<int>(std::floor(std::sqrt(numbers_tile_units(info) / cost)));
  // A method that computes the core alone pays for the core only; the others for the halo too.
  const int core = info.computes_core_from_halo ? std::max(side, 64) : std::max(side - 2 * radius, std::max(64, 2 * radius));
  return core >= width && core >= height ? 0 : core;
}

bool run_plane_in_tiles(Method& method, const FilterParams& params, const ConstImageView& d_plane,
                        const ImageView& d_dst, int core, cudaStream_t stream, SlicedRun& run,
                        const std::atomic<bool>& superseded, const std::function<void()>& before_tile) {
  const TilePlan plan = plan_tiles(d_plane.width, d_plane.height, params.radius(), TileSize{core, core},
                                   method.info().computes_core_from_halo);
  run.start(method, plan, params, PixelFormat::F32);
  for (int k = 0; k < run.steps(); ++k) {
    if (k > 0 && before_tile) before_tile();
    if (superseded) return false;
    run.run_steps(d_plane, k, 1, 0, stream);
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the next step waits: the frame's work goes between
  }
  copy_image_async(run.result(), d_dst, cudaMemcpyDeviceToDevice, stream);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

}  // namespace gausslab
