#pragma once
// The numbers worker's float planes of a slow window method, in tiles: a whole run of shared_2d at
// radius 128 on a 4096² plane is one grid of about 0.3 s, and while the GPU runs it the frame's
// own kernels (and any device-wide wait in the frame) wait behind it, whatever the streams'
// priorities. Cut into square tiles of a few ms each, with the worker waiting for each tile before
// it sends the next, the frame's work gets the GPU between two tiles.
// Only for the FIR window methods (MethodInfo::same_bytes_in_bands): the tiles are a SlicedRun's
// (render/sliced_run.hpp), each gathered with its halo from the device plane by the border rule, so
// a tile's kept pixels are the whole run's values (the same sums over the same values; tests/gpu
// NumbersTilesGpu checks it on float planes, SlicedRunGpu on 8-bit pictures).
#include <atomic>
#include <functional>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

class SlicedRun;

// Work (computed pixels × window_cost) above which a plane is tiled, and the work of one tile. The
// frame's own GPU work takes ~2.5 ms in the 4096² H100 session, so a worker's piece that lands in
// a frame must stay well under that: with 4e9, 9 of 10 frames over 5.5 ms came while a numbers job
// ran and 4 of 4 sessions had a slow frame after a switch; with 1e9, 1 of 4 (the numbers of a
// setting arrive as soon: 0.06–0.9 s); with 2.5e8, 0 of 4, but jobs took so long that fewer
// finished before the next switch.
inline constexpr double kNumbersWholeRunUnits = 1e9;
inline constexpr double kNumbersTileUnits = 1e9;
// The longest a tile waits for the next frame before it goes anyway.
inline constexpr int kTilePaceMs = 20;

// The side of the square tile core for a method on a width × height plane, or 0 to run it whole
// (not a window method, cheap enough, or a tile would cover the plane anyway). Tiles whose halo
// outweighs them are not made smaller than max(64, 2 × radius), except for a method that computes
// the core alone (MethodInfo::computes_core_from_halo): its tiles cost their core, at least 64².
int numbers_tile_core(const MethodInfo& info, int width, int height, int radius);
// The work of one tile for a method: kNumbersTileUnits, four times that for shared_2d.
double numbers_tile_units(const MethodInfo& info);

// Filters the device float plane `d_plane` into `d_dst` with `method` (GPU, window) in tiles of
// `core`, one after another through `run` (started here for float planes, its buffers reused from
// plane to plane), waiting for each step (a tile, or some bands of its window: SlicedRun) on
// `stream`. False when `superseded` stopped it between two steps (d_dst then unchanged). before_tile
// runs before every step but the first (the worker waits there for the next frame).
bool run_plane_in_tiles(Method& method, const FilterParams& params, const ConstImageView& d_plane,
                        const ImageView& d_dst, int core, cudaStream_t stream, SlicedRun& run,
                        const std::atomic<bool>& superseded, const std::function<void()>& before_tile = {});

}  // namespace gausslab
