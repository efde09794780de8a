#pragma once
// A GPU method run in tiles over several frames (render/slicing.hpp plans them), or one tile at a
// time by the numbers worker (app/comparison/numbers_tiles.hpp). Per tile, on the
// stream: the tile with its halo is gathered from the device source by the border rule
// (gather_with_border), the method (an instance of its own, prepared once for the tile with its
// halo) filters it, and the tile's own pixels are copied into the run's device result. When every
// tile is done the caller shows result() (ResultPipeline::show_device_result). Device memory is
// allocated in start() only (and kept while the sizes stay), never per tile; nothing here waits.
// The unit of work is a step: a whole tile, or, for a core-only method whose window is long
// (bands_per_step, render/slicing.hpp), some bands of the tile's window sum, its running totals kept
// on the device until the tile's last step (cuda/window_bands.hpp).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/render/run_clock.hpp"
#include "gausslab/render/slicing.hpp"

namespace gausslab {

class HaloReads;

class SlicedRun {
 public:
  SlicedRun() = default;
  ~SlicedRun();
  SlicedRun(const SlicedRun&) = delete;
  SlicedRun& operator=(const SlicedRun&) = delete;

  // Prepares `method` (not the slot's whole-image instance: a separate one, kept by the caller) for
  // plan's tile with its halo in `format` (the viewer's RGBA8, the numbers worker's float planes), and
  // sizes the device images. Throws what Method::prepare throws (std::invalid_argument when the method
  // refuses the tile, CudaOutOfMemory, CudaError).
  void start(Method& method, const TilePlan& plan, const FilterParams& params,
             PixelFormat format = PixelFormat::Rgba8);
  // Allocates the assembled result for a width × height picture now (a picture's load), so that the
  // first start() for it allocates only the small tile images: allocations can hold up other
  // threads' CUDA calls (a start's allocations held up its frame's calls 12 ms on the H100 before
  // starts moved to a worker: app/comparison/slot_slicer.cpp). Only while no tiles are queued (not busy()).
  void reserve_result(int width, int height, PixelFormat format = PixelFormat::Rgba8);
  bool started() const { return method_ != nullptr; }
  const TilePlan& plan() const { return plan_; }
  // Steps per tile (1 unless the window is summed in bands) and in the whole run.
  int steps_per_tile() const { return steps_per_tile_; }
  int steps() const { return static_cast<int>(plan_.tiles.size()) * steps_per_tile_; }

  // Enqueues steps [first, first + count) on `stream` (tile k / steps_per_tile(), part k %
  // steps_per_tile()), reading `source` (the whole picture on the device, plan's size and the start's
  // format), with one RunClock span around them tagged `tag` (untimed when the ring is full or the tag
  // is 0: then it returns false). Throws std::invalid_argument for a wrong source or range, CudaError
  // on a failed launch.
  bool run_steps(const ConstImageView& source, int first, int count, std::uint64_t tag, cudaStream_t stream);
  // True while the tiles enqueued last have not finished (an event query, no waiting). The caller
  // enqueues no more until they have: nothing in a sliced frame waits for the GPU, so without this
  // check tiles slower than predicted would pile up on the stream, and the next wait for it (a
  // setting change) would take as long as all of them.
  bool busy() const;
  // The GPU times of finished spans (no waiting).
  std::vector<ClockReading> poll() { return clock_.poll(); }

  // The assembled result (complete once every tile's work has run on the stream).
  ConstImageView result() const;
  // Forgets the method (the caller frees its instances) and the device memory (queued work must be done).
  void release();

 private:
  Method* method_ = nullptr;
  HaloReads* halo_reads_ = nullptr;  // the method's, for a core-only plan
  TilePlan plan_;
  FilterParams params_;
  DeviceImage input_, output_, result_;
  int steps_per_tile_ = 1;
  int bands_per_step_ = 0;  // of the window's bands (0: the whole window in one step)
  DeviceBuffer running_totals_;  // a tile core's running totals between its steps
  std::size_t totals_pitch_bytes_ = 0;
  // Tile images a larger plan replaced (a few at most: DeviceImage::fit only grows), freed by
  // release() or the destructor, not while frames run.
  std::vector<DeviceImage> outgrown_;
  std::vector<DeviceBuffer> outgrown_totals_;
  RunClock clock_;
  cudaEvent_t done_ = nullptr;  // recorded after each run_steps
  bool done_recorded_ = false;
};

}  // namespace gausslab
