// The interop class (see the header for the three paths). Everything that touches both CUDA and
// OpenGL lives here; methods only ever see ImageViews.
#include "gausslab/render/result_pipeline.hpp"

#include "gl_util.hpp"  // glad first: it keeps cuda_gl_interop.h from including the system GL header

#include <cuda_gl_interop.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/pooling.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/render/banded_upload.hpp"
#include "gausslab/cuda/stream_priority.hpp"
#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/pixel_buffer_ring.hpp"
#include "gausslab/render/run_clock.hpp"
#include "gausslab/render/texture.hpp"

namespace gausslab {

const char* to_string(OutputPath path) {
  switch (path) {
    case OutputPath::Interop: return "interop";
    case OutputPath::Staging: return "staging";
    case OutputPath::Cpu: return "cpu";
    default: return "?";
  }
}

std::optional<OutputPath> output_path_from_string(std::string_view name) {
  for (int i = 0; i < static_cast<int>(OutputPath::Count); ++i)
    if (name == to_string(static_cast<OutputPath>(i))) return static_cast<OutputPath>(i);
  return std::nullopt;
}

bool is_pipeline_stage(std::string_view stage) {
  return stage == "map" || stage == "unmap" || stage == "map_next" || stage == "download" || stage == "wait";
}

namespace {

std::string cuda_error_text(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

struct Slot {
  Texture texture;
  bool has_result = false;
  // interop: the slot's pixel buffers, and their registrations (resources[i] is ring->buffer(i))
  std::unique_ptr<PixelBufferRing> ring;  // made by the constructor
  std::vector<cudaGraphicsResource_t> resources;
  // staging: the method's output on the device and its host copy
  DeviceImage d_result;
  PinnedBuffer h_staging;
  // CPU methods, on any path
  ImageRgba8 host_result;
  // pooling: the pooled result on the device and on the host
  DeviceImage d_pooled;
  ImageRgba8 host_pooled;
  bool pooled = false;  // the texture holds a pooled result
  // a host result on its way to the texture, a band per frame (show_host_result)
  BandedUpload host_upload;
};

}  // namespace

// What a GPU slot writes this frame into the device view it is given (a method's run, or the copy
// of a result made elsewhere); empty: the slot is left alone.
using Writer = std::function<void(const ImageView& d_output)>;
using Writers = std::array<Writer, ResultPipeline::kSlots>;
using Timers = std::array<StageTimer*, ResultPipeline::kSlots>;

struct ResultPipeline::Impl {
  OutputPath path = OutputPath::Cpu;
  RunClock run_clock;  // each GPU job's whole run, tagged (ResultPipeline::take_run_times)
  std::string reason;
  cudaStream_t stream = nullptr;
  cudaEvent_t staging_done = nullptr;

  ImageRgba8 source;
  DeviceImage d_source;
  Texture source_texture;
  std::array<Slot, kSlots> slots;

  int width() const { return source.width(); }
  int height() const { return source.height(); }
  // The next band of a slot's host result (show_host_result); the texture takes it after the last.
  void continue_host_upload(int slot, GlTimer* gl_timer);
  // A host image into the slot's texture in one call (pooled results: a quarter of the pixels).
  void show_host_now(int slot, const ImageRgba8& image, GlTimer* gl_timer);
  std::size_t image_bytes() const { return static_cast<std::size_t>(width()) * height() * sizeof(Rgba8); }
  ImageView pinned_view(const PinnedBuffer& buffer) const {
    return {buffer.data(), width(), height(), static_cast<std::size_t>(width()) * sizeof(Rgba8), PixelFormat::Rgba8};
  }

  void release_interop(Slot& slot) {
    for (int index : slot.ring->mapped()) {  // a buffer mapped ahead: unmapped before it is unregistered
      GAUSSLAB_CUDA_LOG(cudaGraphicsUnmapResources(1, &slot.resources.at(static_cast<std::size_t>(index)), stream));
      slot.ring->mark_unmapped(index, false);
    }
    for (cudaGraphicsResource_t resource : slot.resources)
      if (resource) GAUSSLAB_CUDA_LOG(cudaGraphicsUnregisterResource(resource));
    slot.resources.clear();
    slot.ring->release();
  }

  void fall_back_to_staging(const std::string& why) {
    if (stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));
    for (Slot& slot : slots) release_interop(slot);
    path = OutputPath::Staging;
    reason = why + "; results are copied through host memory instead (staging)";
  }

  // The slot's pixel buffers for the current size, each registered once; false after falling back.
  bool ensure_interop(Slot& slot) {
    // resources is non-empty only while every buffer of the ring is registered: a failed
    // registration falls back to staging, which releases every slot (release_interop empties it).
    if (!slot.resources.empty() && slot.ring->width() == width() && slot.ring->height() == height()) return true;
    release_interop(slot);
    // Errors left by earlier GL calls must not be taken for this allocation's: report and clear them.
    if (std::string earlier = gl_error_message("earlier drawing"); !earlier.empty())
      std::fprintf(stderr, "gausslab: %s\n", earlier.c_str());
    try {
      slot.ring->allocate(width(), height(), pixel_buffer_row_pixels(width()));
    } catch (const GlError& error) {
      fall_back_to_staging(error.what());
      return false;
    }
    slot.resources.assign(static_cast<std::size_t>(slot.ring->count()), nullptr);
    for (int i = 0; i < slot.ring->count(); ++i) {
      cudaGraphicsResource_t& resource = slot.resources[static_cast<std::size_t>(i)];
      const cudaError_t code =
          cudaGraphicsGLRegisterBuffer(&resource, slot.ring->buffer(i), cudaGraphicsRegisterFlagsWriteDiscard);
      if (code != cudaSuccess) {
        cudaGetLastError();  // registration errors are not sticky; clear them
        resource = nullptr;
        fall_back_to_staging("cudaGraphicsGLRegisterBuffer failed (" + cuda_error_text(code) + ")" + gl_device_hint());
        return false;
      }
    }
    return true;
  }

  // Why registration may have failed, from CUDA's view of the current GL context.
  static std::string gl_device_hint() {
    unsigned int count = 0;
    int devices[8] = {};
    const cudaError_t code = cudaGLGetDevices(&count, devices, 8, cudaGLDeviceListAll);
    if (code != cudaSuccess) {
      cudaGetLastError();
      return ": the OpenGL context is not on a CUDA device (" + std::string(cudaGetErrorName(code)) + ")";
    }
    if (count == 0) return ": the OpenGL context is not on a CUDA device";
    int current = 0;
    cudaGetDevice(&current);
    for (unsigned i = 0; i < count && i < 8; ++i)
      if (devices[i] == current) return {};
    return ": OpenGL runs on CUDA device " + std::to_string(devices[0]) + ", the methods on device " +
           std::to_string(current);
  }

  std::function<void(const char*)> trace_mark;  // set_trace_marks: host time per step, or empty
  void mark(const char* step) const {
    if (trace_mark) trace_mark(step);
  }
  void run_interop(const Writers& writers, const Timers& timers, StageTimer* timer);
  void map_ahead(const std::array<bool, kSlots>& on_gpu, StageTimer* timer);
  void run_staging(const Writers& writers, const Timers& timers, StageTimer* timer);
  // Writes every GPU slot's result on the current path (interop, or staging after a fallback).
  void write_gpu_results(const Writers& writers, const Timers& timers, StageTimer* timer);
  // Uploads the slot's GPU result just written into its display texture.
  void upload_gpu_result(int slot_index, GlTimer* gl_timer);
};

// What the stages recorded here measure. Each is a pair of CUDA events around one call on the
// stream, so it is the time the *stream* spends there: mostly waiting, not working. The host spends
// little in these calls (6 µs for map_next, 28 µs for a cold map, H100); but when the stream is idle
// as the call begins, the start event is stamped at once and the host's time counts too.
//   map       only in a frame whose buffers were not mapped ahead (the first frame, a new size, B
//             newly shown): the stream's wait for the GL work issued before the call (for a frame
//             after another, the previous frame's upload and drawing) plus the driver's latency.
//   unmap     handing the written buffers back to GL (GL's wait for it falls in GL's timeline).
//   map_next  mapping the next frame's buffers (see map_ahead), recorded in this frame: from the end
//             of this frame's writes until the stream may go on, i.e. the stream's wait for GL.
//             It delays only the next frame's writes, and overlaps GL's work on this frame: it is
//             not a cost to add to the others (so is_pipeline_stage keeps it out of method times).
// Everything between map and unmap is the methods' own stages. Measured on the H100 with the
// rows unpadded (pitch a multiple of 64 bytes, see pixel_buffer_row_pixels), map / map_next took
// the frame's whole GL time plus ~0.35 ms (1.21 ms at 3840x2160) wherever the map was issued;
// with padded rows map_next is 0.59 ms and the frame 0.83 ms instead of 1.45 ms.
void ResultPipeline::Impl::run_interop(const Writers& writers, const Timers& timers, StageTimer* timer) {
  std::array<bool, kSlots> on_gpu{};
  for (int i = 0; i < kSlots; ++i) on_gpu[i] = static_cast<bool>(writers[i]);
  std::array<int, kSlots> write{};  // the ring buffer each GPU slot writes this frame
  std::vector<cudaGraphicsResource_t> cold, written;
  std::vector<int> cold_slots;
  for (int i = 0; i < kSlots; ++i) {
    if (!on_gpu[i]) continue;
    Slot& slot = slots[i];
    write[i] = slot.ring->write_index();
    written.push_back(slot.resources.at(static_cast<std::size_t>(write[i])));
    if (slot.ring->state(write[i]) != PixelBufferRing::State::Mapped) {
      cold.push_back(written.back());
      cold_slots.push_back(i);
    }
  }

  if (!cold.empty()) {
    cudaError_t mapped;
    {
      ScopedStage stage(timer, "map", stream);
      mapped = cudaGraphicsMapResources(static_cast<int>(cold.size()), cold.data(), stream);  // one call for every slot
    }
    glFlush();  // see map_ahead
    if (mapped != cudaSuccess) {
      cudaGetLastError();
      fall_back_to_staging("mapping the pixel buffer failed (" + cuda_error_text(mapped) + ")");
      run_staging(writers, timers, timer);
      return;
    }
    for (int i : cold_slots) slots[i].ring->mark_mapped(write[i]);
  }
  mark("pipeline_map");

  try {
    for (int i = 0; i < kSlots; ++i) {
      if (!on_gpu[i]) continue;
      void* d_pixels = nullptr;
      std::size_t mapped_bytes = 0;
      GAUSSLAB_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(
          &d_pixels, &mapped_bytes, slots[i].resources.at(static_cast<std::size_t>(write[i]))));
      if (mapped_bytes < slots[i].ring->buffer_bytes())
        throw std::logic_error("the mapped pixel buffer holds " + std::to_string(mapped_bytes) + " bytes, not " +
                               std::to_string(slots[i].ring->buffer_bytes()));
      const ImageView d_output{d_pixels, width(), height(), slots[i].ring->pitch_bytes(), PixelFormat::Rgba8};
      writers[i](d_output);
    }
  } catch (...) {
    // No result: the buffers go back to GL unwritten and are written again next frame.
    GAUSSLAB_CUDA_LOG(cudaGraphicsUnmapResources(static_cast<int>(written.size()), written.data(), stream));
    for (int i = 0; i < kSlots; ++i)
      if (on_gpu[i]) slots[i].ring->mark_unmapped(write[i], false);
    throw;
  }

  mark("pipeline_runs");
  cudaError_t unmapped;
  {
    ScopedStage stage(timer, "unmap", stream);
    unmapped = cudaGraphicsUnmapResources(static_cast<int>(written.size()), written.data(), stream);
  }
  for (int i = 0; i < kSlots; ++i)
    if (on_gpu[i]) slots[i].ring->mark_unmapped(write[i], unmapped == cudaSuccess);
  GAUSSLAB_CUDA_CHECK(unmapped);
  mark("pipeline_unmap");

  map_ahead(on_gpu, timer);
  mark("pipeline_map_next");
}

// Maps each GPU slot's next buffer now, while this frame's upload and drawing are not yet issued:
// the map orders the stream after the GL commands issued so far (earlier frames' uploads and
// drawing, among them the last reader of that buffer), not after this frame's. The next frame then
// writes at once, and the stream's wait for GL overlaps GL's work on this frame. On the H100 this
// holds only when the upload takes GL's fast path (padded rows): from rows whose pitch is a
// multiple of 64 bytes the map waited for the frame's later GL work too, ring or not.
void ResultPipeline::Impl::map_ahead(const std::array<bool, kSlots>& on_gpu, StageTimer* timer) {
  std::vector<cudaGraphicsResource_t> ahead;
  std::array<int, kSlots> next{};
  for (int i = 0; i < kSlots; ++i) {
    next[i] = on_gpu[i] ? slots[i].ring->ahead_index() : -1;
    if (next[i] >= 0) ahead.push_back(slots[i].resources.at(static_cast<std::size_t>(next[i])));
  }
  if (ahead.empty()) return;  // a ring of one buffer: it is mapped at the start of the next frame
  cudaError_t mapped;
  {
    ScopedStage stage(timer, "map_next", stream);
    mapped = cudaGraphicsMapResources(static_cast<int>(ahead.size()), ahead.data(), stream);
  }
  // Hands GL's queued commands, the map's ordering point among them, to the GPU now rather than at
  // the frame's end. Cheap (one submission); the H100 numbers in this file were measured with it,
  // its own share was not isolated (without padded rows it changed nothing there).
  glFlush();
  if (mapped != cudaSuccess) {
    // This frame's results are fine; the next frame maps its buffers itself (and falls back to
    // staging if that fails too).
    cudaGetLastError();
    return;
  }
  for (int i = 0; i < kSlots; ++i)
    if (next[i] >= 0) slots[i].ring->mark_mapped(next[i]);
}

void ResultPipeline::Impl::run_staging(const Writers& writers, const Timers& timers, StageTimer* timer) {
  for (int i = 0; i < kSlots; ++i) {
    if (!writers[i]) continue;
    Slot& slot = slots[i];
    slot.d_result.resize(width(), height(), PixelFormat::Rgba8);
    writers[i](slot.d_result.view());
    slot.h_staging.resize(image_bytes());
    ScopedStage stage(timers[i], "download", stream);
    copy_image_async(slot.d_result.view(), pinned_view(slot.h_staging), cudaMemcpyDeviceToHost, stream);
  }
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(staging_done, stream));
  const auto start = std::chrono::steady_clock::now();
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(staging_done));  // the host copy must be complete to upload it
  const std::chrono::duration<double, std::milli> waited = std::chrono::steady_clock::now() - start;
  if (timer) timer->record_host("wait", waited.count());
}

ResultPipeline::ResultPipeline(OutputPath best_allowed, int buffers_per_slot) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  for (Slot& slot : p.slots) slot.ring = std::make_unique<PixelBufferRing>(buffers_per_slot);
  const CudaDeviceStatus& device = cuda_device_status();
  if (best_allowed == OutputPath::Cpu) {
    p.path = OutputPath::Cpu;
    p.reason = "the cpu path was chosen (--path cpu): only the CPU methods run";
    return;
  }
  if (!device.available) {
    p.path = OutputPath::Cpu;
    p.reason = device.reason;
    return;
  }
  // A blocking stream: it stays ordered with work a method's prepare() may put on the legacy
  // default stream (weight uploads), at no cost when nothing else uses that stream. The greatest
  // priority: the frame's kernels (the sliced runs' tiles are enqueued here too) go before further
  // blocks of the workers' long runs, which are on least-priority streams.
  p.stream = create_stream_with_priority(StreamPriority::Greatest, cudaStreamDefault);
  GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&p.staging_done, cudaEventDisableTiming));
  if (best_allowed == OutputPath::Staging) {
    p.path = OutputPath::Staging;
    p.reason = "the staging path was chosen (--path staging): results are copied through host memory";
    return;
  }
  // Registration with the first image decides; this is the hopeful start.
  p.path = OutputPath::Interop;
  p.reason = "CUDA writes straight into the OpenGL pixel buffer on " + device.name + " (no host copies)";
}

ResultPipeline::~ResultPipeline() {
  Impl& p = *impl_;
  if (p.stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(p.stream));
  p.run_clock.release();
  for (Slot& slot : p.slots) p.release_interop(slot);
  if (p.staging_done) GAUSSLAB_CUDA_LOG(cudaEventDestroy(p.staging_done));
  if (p.stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(p.stream));
}

OutputPath ResultPipeline::path() const { return impl_->path; }
const std::string& ResultPipeline::path_reason() const { return impl_->reason; }
const ImageRgba8& ResultPipeline::source() const { return impl_->source; }
int ResultPipeline::width() const { return impl_->width(); }
int ResultPipeline::height() const { return impl_->height(); }
cudaStream_t ResultPipeline::stream() const { return impl_->stream; }
unsigned ResultPipeline::source_texture() const { return impl_->source_texture.id(); }
unsigned ResultPipeline::result_texture(int slot) const { return impl_->slots.at(slot).texture.id(); }
bool ResultPipeline::has_result(int slot) const { return impl_->slots.at(slot).has_result; }
bool ResultPipeline::result_is_pooled(int slot) const { return impl_->slots.at(slot).pooled; }
ImageRgba8 ResultPipeline::read_result(int slot) const { return impl_->slots.at(slot).texture.read(); }

void ResultPipeline::fall_back_to_cpu(const std::string& why) {
  Impl& p = *impl_;
  if (p.path == OutputPath::Cpu) return;
  if (p.stream) cudaStreamSynchronize(p.stream);  // errors expected: the device is gone
  cudaGetLastError();
  for (Slot& slot : p.slots) {
    for (cudaGraphicsResource_t resource : slot.resources)
      if (resource) cudaGraphicsUnregisterResource(resource);
    slot.resources.clear();
    slot.ring->release();
    slot.d_result.release();
    slot.h_staging.release();
    slot.has_result = false;
  }
  p.d_source.release();
  p.run_clock.release();
  if (p.staging_done) cudaEventDestroy(p.staging_done);
  if (p.stream) cudaStreamDestroy(p.stream);
  cudaGetLastError();
  p.staging_done = nullptr;
  p.stream = nullptr;
  p.path = OutputPath::Cpu;
  p.reason = why + "; only the CPU methods run now (cpu path)";
}

void ResultPipeline::show_host_result(int slot_index, std::shared_ptr<const ImageRgba8> image, GlTimer* gl_timer) {
  Impl& p = *impl_;
  if (!image) throw std::invalid_argument("ResultPipeline::show_host_result: no image");
  const bool full = image->width() == p.width() && image->height() == p.height();
  const bool pooled = image->width() == pooled_side(p.width()) && image->height() == pooled_side(p.height());
  if (!full && !pooled)
    throw std::invalid_argument("ResultPipeline::show_host_result: a " + std::to_string(image->width()) + "x" +
                                std::to_string(image->height()) + " result for a " + std::to_string(p.width()) + "x" +
                                std::to_string(p.height()) + " source");
  Slot& slot = p.slots.at(slot_index);
  slot.host_upload.start(std::move(image));
  p.continue_host_upload(slot_index, gl_timer);  // the first band now: a small image is in at once
}

void ResultPipeline::continue_host_uploads(GlTimer* gl_timer) {
  for (int i = 0; i < kSlots; ++i) impl_->continue_host_upload(i, gl_timer);
}

bool ResultPipeline::host_upload_pending(int slot) const { return impl_->slots.at(slot).host_upload.pending(); }

void ResultPipeline::Impl::continue_host_upload(int slot_index, GlTimer* gl_timer) {
  Slot& slot = slots.at(slot_index);
  if (!slot.host_upload.pending()) return;
  if (gl_timer) gl_timer->begin(slot_index == 0 ? "upload" : "upload_b");
  const bool done = slot.host_upload.step(slot.texture);
  if (gl_timer) gl_timer->end();
  if (!done) return;
  slot.pooled = slot.texture.width() != width() || slot.texture.height() != height();  // the texture took its size
  slot.has_result = true;
}

void ResultPipeline::Impl::show_host_now(int slot_index, const ImageRgba8& image, GlTimer* gl_timer) {
  Slot& slot = slots.at(slot_index);
  slot.host_upload.cancel();
  if (gl_timer) gl_timer->begin(slot_index == 0 ? "upload" : "upload_b");
  slot.texture.resize(image.width(), image.height());
  slot.texture.upload(image.view());
  if (gl_timer) gl_timer->end();
  slot.pooled = image.width() != width() || image.height() != height();
  slot.has_result = true;
}

void ResultPipeline::process_pooled(const std::array<Job, kSlots>& jobs, PoolMode mode, GlTimer* gl_timer) {
  Impl& p = *impl_;
  if (p.source.empty()) throw std::logic_error("ResultPipeline::process_pooled before set_source");
  if (std::string problem = pool_problem(p.width(), p.height()); !problem.empty()) throw std::invalid_argument(problem);
  const int pw = pooled_side(p.width()), ph = pooled_side(p.height());
  bool any_gpu = false;
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method) continue;
    Slot& slot = p.slots[i];
    slot.host_pooled = ImageRgba8(pw, ph);
    if (jobs[i].method->info().backend != Backend::Cuda) {
      if (slot.host_result.width() != p.width() || slot.host_result.height() != p.height())
        slot.host_result = ImageRgba8(p.width(), p.height());
      jobs[i].method->run(p.source.view(), slot.host_result.view(), jobs[i].timer, nullptr);
      pool_2x2(slot.host_result.view(), slot.host_pooled.view(), mode);
      continue;
    }
    if (p.path == OutputPath::Cpu)
      throw std::logic_error(jobs[i].method->info().id + " is a GPU method, and this is the cpu path");
    any_gpu = true;
    slot.d_result.resize(p.width(), p.height(), PixelFormat::Rgba8);
    slot.d_pooled.resize(pw, ph, PixelFormat::Rgba8);
    run_and_pool(*jobs[i].method, p.d_source.view(), slot.d_result.view(), slot.d_pooled.view(), mode, jobs[i].timer,
                 p.stream);
    slot.h_staging.resize(static_cast<std::size_t>(pw) * ph * sizeof(Rgba8));
    ScopedStage stage(jobs[i].timer, "download", p.stream);
    copy_image_async(slot.d_pooled.view(), slot.h_staging.image_view(pw, ph, PixelFormat::Rgba8), cudaMemcpyDeviceToHost,
                     p.stream);
  }
  if (any_gpu) {
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(p.staging_done, p.stream));
    const auto start = std::chrono::steady_clock::now();
    GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(p.staging_done));
    const std::chrono::duration<double, std::milli> waited = std::chrono::steady_clock::now() - start;
    for (int i = 0; i < kSlots; ++i)
      if (jobs[i].method && jobs[i].method->info().backend == Backend::Cuda && jobs[i].timer) {
        jobs[i].timer->record_host("wait", waited.count());
        break;
      }
  }
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method) continue;
    Slot& slot = p.slots[i];
    if (jobs[i].method->info().backend == Backend::Cuda)
      std::memcpy(slot.host_pooled.data(), slot.h_staging.data(), static_cast<std::size_t>(pw) * ph * sizeof(Rgba8));
    p.show_host_now(i, slot.host_pooled, gl_timer);
  }
}

void ResultPipeline::set_trace_marks(std::function<void(const char*)> mark) { impl_->trace_mark = std::move(mark); }

void ResultPipeline::clear_result(int slot) {
  impl_->slots.at(slot).host_upload.cancel();
  impl_->slots.at(slot).has_result = false;
}

void ResultPipeline::synchronize() {
  if (impl_->stream) GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

void ResultPipeline::set_source(ImageRgba8 image) {
  Impl& p = *impl_;
  if (image.empty()) throw std::invalid_argument("ResultPipeline::set_source: the image is empty");
  synchronize();  // nothing queued may still read the old source or write the old buffers
  const bool resized = image.width() != p.width() || image.height() != p.height();
  p.source = std::move(image);
  p.source_texture.resize(p.width(), p.height());
  p.source_texture.upload(p.source.view());
  if (p.path != OutputPath::Cpu) {
    p.d_source.upload(p.source.view(), p.stream);  // pageable memory: effectively synchronous, once per load
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(p.stream));
  }
  for (Slot& slot : p.slots) {
    slot.has_result = false;
    slot.host_upload.cancel();  // a result of the old source
    slot.host_upload.reserve(p.image_bytes());  // now, not in the frame of the first host result
    if (!resized) continue;
    p.release_interop(slot);
    slot.d_result.release();
    slot.h_staging.release();
    slot.host_result = ImageRgba8();
    slot.texture.resize(p.width(), p.height());
  }
  if (p.path == OutputPath::Interop) p.ensure_interop(p.slots[0]);  // register A now: the path is known early
}

void ResultPipeline::process(const std::array<Job, kSlots>& jobs, GlTimer* gl_timer) {
  Impl& p = *impl_;
  if (p.source.empty()) throw std::logic_error("ResultPipeline::process before set_source");
  std::array<bool, kSlots> on_gpu{};
  StageTimer* first_gpu_timer = nullptr;
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method) continue;
    on_gpu[i] = jobs[i].method->info().backend == Backend::Cuda;
    if (on_gpu[i] && p.path == OutputPath::Cpu)
      throw std::logic_error(jobs[i].method->info().id + " is a GPU method, and this is the cpu path");
    if (on_gpu[i] && !first_gpu_timer) first_gpu_timer = jobs[i].timer;
  }

  // A newer result than a host result still on its way: that upload goes.
  for (int i = 0; i < kSlots; ++i)
    if (jobs[i].method) p.slots[i].host_upload.cancel();

  // CPU methods: host source into host memory.
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method || on_gpu[i]) continue;
    Slot& slot = p.slots[i];
    if (slot.host_result.width() != p.width() || slot.host_result.height() != p.height())
      slot.host_result = ImageRgba8(p.width(), p.height());
    jobs[i].method->run(p.source.view(), slot.host_result.view(), jobs[i].timer, nullptr);
  }

  // GPU methods: into the mapped pixel buffers, or into device images and through host memory. Each
  // run is timed as a whole by the run clock (tagged with the job's tag).
  Writers writers;
  Timers timers{};
  for (int i = 0; i < kSlots; ++i) {
    if (!on_gpu[i]) continue;
    timers[i] = jobs[i].timer;
    writers[i] = [&p, &job = jobs[i], i](const ImageView& d_output) {
      const bool timed = job.tag != 0 && p.run_clock.begin(job.tag, p.stream);
      job.method->run(p.d_source.view(), d_output, job.timer, p.stream);
      if (timed) p.run_clock.end(p.stream);
      p.mark(i == 0 ? "pipeline_write_a" : "pipeline_write_b");
    };
  }
  if (on_gpu[0] || on_gpu[1]) p.write_gpu_results(writers, timers, first_gpu_timer);

  // Upload every new result into its display texture.
  p.mark("pipeline_cpu_and_writes");
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method) continue;
    if (on_gpu[i]) {
      p.upload_gpu_result(i, gl_timer);
      continue;
    }
    Slot& slot = p.slots[i];
    slot.texture.resize(p.width(), p.height());  // back from a pooled result
    slot.pooled = false;
    if (gl_timer) gl_timer->begin(i == 0 ? "upload" : "upload_b");
    slot.texture.upload(slot.host_result.view());
    if (gl_timer) gl_timer->end();
    slot.has_result = true;
  }
}

void ResultPipeline::Impl::write_gpu_results(const Writers& writers, const Timers& timers, StageTimer* timer) {
  if (path == OutputPath::Interop)
    for (int i = 0; i < kSlots; ++i)
      if (writers[i] && !ensure_interop(slots[i])) break;
  if (path == OutputPath::Interop)
    run_interop(writers, timers, timer);
  else
    run_staging(writers, timers, timer);
}

void ResultPipeline::Impl::upload_gpu_result(int slot_index, GlTimer* gl_timer) {
  Slot& slot = slots[slot_index];
  slot.texture.resize(width(), height());  // back from a pooled result
  slot.pooled = false;
  if (gl_timer) gl_timer->begin(slot_index == 0 ? "upload" : "upload_b");
  if (path == OutputPath::Interop)
    slot.ring->upload(slot.texture);  // the buffer just written; the ring moves on
  else
    slot.texture.upload(pinned_view(slot.h_staging));
  if (gl_timer) gl_timer->end();
  slot.has_result = true;
}

ConstImageView ResultPipeline::device_source() const {
  return impl_->path == OutputPath::Cpu ? ConstImageView() : ConstImageView(impl_->d_source.view());
}

void ResultPipeline::show_device_result(int slot_index, const ConstImageView& image, GlTimer* gl_timer) {
  Impl& p = *impl_;
  if (p.path == OutputPath::Cpu) throw std::logic_error("ResultPipeline::show_device_result on the cpu path");
  if (image.width != p.width() || image.height != p.height() || image.format != PixelFormat::Rgba8)
    throw std::invalid_argument("ResultPipeline::show_device_result: a " + std::to_string(image.width) + "x" +
                                std::to_string(image.height) + " result for a " + std::to_string(p.width()) + "x" +
                                std::to_string(p.height()) + " source");
  p.slots.at(slot_index).host_upload.cancel();  // a newer result than a host result on its way
  Writers writers;
  writers.at(static_cast<std::size_t>(slot_index)) = [&p, &image](const ImageView& d_output) {
    copy_image_async(image, d_output, cudaMemcpyDeviceToDevice, p.stream);
  };
  p.write_gpu_results(writers, Timers{}, nullptr);
  p.upload_gpu_result(slot_index, gl_timer);
}

std::vector<ClockReading> ResultPipeline::take_run_times() {
  return impl_->path == OutputPath::Cpu ? std::vector<ClockReading>() : impl_->run_clock.poll();
}

}  // namespace gausslab
