#pragma once
// The numbers worker's float planes of a slow window method, in tiles: a whole run of shared_2d at
// radius 128 on a 4096² plane is one grid of about 0.3 s, and while the GPU runs it the frame's
// own kernels (and any device-wide wait in the frame) wait behind it, whatever the streams'
// priorities. Cut into square tiles of a few ms each, with the worker waiting for each tile before
// it sends the next, the frame's work gets the GPU between two tiles.
// Only for the FIR window methods (MethodInfo::same_bytes_in_bands): each tile is filtered from the
// plane extended by the border rule on every side (extend_plane), so a tile's kept pixels are the
// whole run's values (the same sums over the same values; tests/gpu SlicedRunGpu checks the same
// property on 8-bit pictures, NumbersTiles the planes).
#include <atomic>
#include <functional>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"

namespace gausslab {

// Work (computed pixels × window_cost) above which a plane is tiled, and the work of one tile.
inline constexpr double kNumbersWholeRunUnits = 4e9;
inline constexpr double kNumbersTileUnits = 4e9;
// The longest a tile waits for the next frame before it goes anyway.
inline constexpr int kTilePaceMs = 20;

// The side of the square tile core for a method on a width × height plane, or 0 to run it whole
// (not a window method, cheap enough, or a tile would cover the plane anyway). Tiles whose halo
// outweighs them are not made smaller than max(64, 2 × radius).
int numbers_tile_core(const MethodInfo& info, int width, int height, int radius);

// The plane extended by `radius` on every side: (width + 2r) × (height + 2r) values, each the
// plane's value that the border rule maps that position to ('constant': 0).
std::vector<float> extend_plane(const ConstImageView& plane, int radius, BorderMode border);

// The device buffers a tiled run reuses from plane to plane.
struct NumbersTileBuffers {
  DeviceImage extended, tile_out;
  PinnedBuffer staging;  // the extended plane goes up through it, a piece per frame (staged_copy.hpp)
};

// Filters the float plane `host_plane` into the device plane `d_dst` with `method` (GPU, window) in
// tiles of `core`, waiting for each tile on `stream`. False when `superseded` stopped it between
// two tiles (d_dst then holds part of the result).
// before_tile runs before every tile but the first, and between the pieces of the extended plane's
// upload (the worker waits there for the next frame).
bool run_plane_in_tiles(Method& method, const FilterParams& params, const ConstImageView& host_plane,
                        const ImageView& d_dst, int core, cudaStream_t stream, NumbersTileBuffers& buffers,
                        const std::atomic<bool>& superseded, const std::function<void()>& before_tile = {});

}  // namespace gausslab
