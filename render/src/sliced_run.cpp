#include "gausslab/render/sliced_run.hpp"

#include <stdexcept>
#include <string>

#include "gausslab/cuda/border_gather.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/halo_reads.hpp"

namespace gausslab {

namespace {

// The w × h rectangle at (x, y) of a view (same pitch).
ImageView part(const ImageView& view, int x, int y, int w, int h) {
  return {static_cast<char*>(view.data) + static_cast<std::size_t>(y) * view.pitch_bytes +
              static_cast<std::size_t>(x) * bytes_per_pixel(view.format),
          w, h, view.pitch_bytes, view.format};
}

}  // namespace

SlicedRun::~SlicedRun() {
  if (done_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(done_));
}

bool SlicedRun::busy() const {
  if (!done_recorded_) return false;
  const cudaError_t state = cudaEventQuery(done_);
  if (state == cudaErrorNotReady) return true;
  GAUSSLAB_CUDA_CHECK(state);
  return false;
}

void SlicedRun::start(Method& method, const TilePlan& plan, const FilterParams& params, PixelFormat format) {
  method_ = nullptr;
  halo_reads_ = nullptr;
  if (plan.core_only) {
    halo_reads_ = halo_reads(method);
    if (!halo_reads_)
      throw std::logic_error("SlicedRun: a core-only plan for " + method.info().id + ", which cannot read its halo");
  }
  if (!done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  // A core-only method is prepared for the core; the others for the gathered tile, halo included.
  if (plan.core_only)
    method.prepare(FilterProblem{plan.tile.width, plan.tile.height, format, params});
  else
    method.prepare(FilterProblem{plan.input_width(), plan.input_height(), format, params});
  // The tile's images keep their allocation while a new plan's tiles fit, and one that must grow
  // keeps its old allocation until release(): no cudaFree on this worker while frames run (it waits
  // for the whole device and holds the driver's locks; a frame's tile enqueue waited 9 ms behind one
  // on the H100, the numbers worker's tiles after a method change).
  for (DeviceImage* image : {&input_, &output_})
    if (DeviceImage outgrown = image->fit(plan.input_width(), plan.input_height(), format); !outgrown.empty())
      outgrown_.push_back(std::move(outgrown));
  result_.resize(plan.width, plan.height, format);
  steps_per_tile_ = 1;
  bands_per_step_ = 0;
  if (halo_reads_) {
    const WindowBands bands = halo_reads_->window_bands();
    bands_per_step_ = bands_per_step(bands.count, bands.rows_per_band, bands.taps);
    steps_per_tile_ = (bands.count + bands_per_step_ - 1) / bands_per_step_;
    if (steps_per_tile_ > 1) {
      totals_pitch_bytes_ = static_cast<std::size_t>(plan.tile.width) * bands.partial_bytes_per_pixel;
      const std::size_t bytes = totals_pitch_bytes_ * static_cast<std::size_t>(plan.tile.height);
      if (running_totals_.capacity_bytes() < bytes) {  // the outgrown one is kept, as the images' (above)
        outgrown_totals_.push_back(std::move(running_totals_));
        running_totals_ = DeviceBuffer(bytes);
      }
    }
  }
  plan_ = plan;
  params_ = params;
  method_ = &method;
}

void SlicedRun::reserve_result(int width, int height, PixelFormat format) {
  if (busy()) throw std::logic_error("SlicedRun::reserve_result while tiles are queued");
  result_.resize(width, height, format);
}

bool SlicedRun::run_steps(const ConstImageView& source, int first, int count, std::uint64_t tag, cudaStream_t stream) {
  if (!method_) throw std::logic_error("SlicedRun::run_steps before start");
  if (source.width != plan_.width || source.height != plan_.height || source.format != result_.format())
    throw std::invalid_argument("SlicedRun::run_steps: the source is not the planned picture");
  if (first < 0 || count < 0 || first + count > steps())
    throw std::invalid_argument("SlicedRun::run_steps: steps " + std::to_string(first) + " + " + std::to_string(count) +
                                " of " + std::to_string(steps()));
  const bool timed = tag != 0 && clock_.begin(tag, stream);
  for (int k = first; k < first + count; ++k) {
    const Tile& tile = plan_.tiles[static_cast<std::size_t>(k / steps_per_tile_)];
    const int step = k % steps_per_tile_;
    if (step == 0)
      gather_with_border(source, input_.view(), tile.x - plan_.halo_x, tile.y - plan_.halo_y, params_.border, stream);
    if (halo_reads_) {
      BandRange bands;  // every band
      if (steps_per_tile_ > 1) {
        bands.first = step * bands_per_step_;
        bands.end = step + 1 < steps_per_tile_ ? bands.first + bands_per_step_ : bands.end;
        bands.partial = running_totals_.as<void>();
        bands.partial_pitch_bytes = totals_pitch_bytes_;
      }
      halo_reads_->run_reading_halo(part(input_.view(), plan_.halo_x, plan_.halo_y, plan_.tile.width, plan_.tile.height),
                                    part(output_.view(), plan_.halo_x, plan_.halo_y, plan_.tile.width, plan_.tile.height),
                                    bands, stream);
    } else {
      method_->run(input_.view(), output_.view(), nullptr, stream);
    }
    if (step + 1 < steps_per_tile_) continue;  // the tile's output is complete after its last step
    const ImageView own = part(output_.view(), plan_.halo_x + tile.own_x - tile.x, plan_.halo_y + tile.own_y - tile.y,
                               tile.own_w, tile.own_h);
    copy_image_async(own, part(result_.view(), tile.own_x, tile.own_y, tile.own_w, tile.own_h), cudaMemcpyDeviceToDevice,
                     stream);
  }
  if (timed) clock_.end(stream);
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_, stream));
  done_recorded_ = true;
  return timed;
}

ConstImageView SlicedRun::result() const { return result_.view(); }

void SlicedRun::release() {
  method_ = nullptr;
  input_.release();
  output_.release();
  result_.release();
  running_totals_.release();
  outgrown_totals_.clear();
  outgrown_.clear();
}

}  // namespace gausslab
