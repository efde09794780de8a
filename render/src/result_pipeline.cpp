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
#include "gausslab/cuda/surface_copy.hpp"
#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/run_clock.hpp"
#include "gausslab/render/texture.hpp"
#include "gausslab/render/texture_ring.hpp"

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
  return stage == "map" || stage == "map_wait" || stage == "to_texture" || stage == "unmap" || stage == "map_next" ||
         stage == "download" || stage == "wait";
}

namespace {

std::string cuda_error_text(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

struct Slot {
  // Host results (CPU methods, pooled results, results made elsewhere), and every result on the
  // staging and cpu paths: uploaded by GL.
  Texture texture;
  bool has_result = false;
  // interop: the textures CUDA writes the slot's results into, and their registrations
  // (resources[i] is ring->texture(i)); shows_ring: the slot's result is ring's shown texture,
  // not `texture`.
  std::unique_ptr<TextureRing> ring;  // made by the constructor
  std::vector<cudaGraphicsResource_t> resources;
  std::vector<cudaEvent_t> map_done;  // map_done[i]: recorded on the map stream after texture i's map ahead
  // The surface over each mapped texture's array (what the copy writes through), made again when a
  // map hands out another array.
  std::vector<cudaArray_t> arrays;
  std::vector<cudaSurfaceObject_t> surfaces;
  bool shows_ring = false;
  // GPU methods' output on the device (then copied into the ring's texture, or to h_staging)
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

  // The slot now shows its host texture (or nothing): the ring's texture is drawn no more.
  void show_host_texture() {
    shows_ring = false;
    ring->forget_shown();
  }
};

}  // namespace

// What a GPU slot produces this frame: its result on the device, written into the scratch image it
// is given (a method's run) or a view of a result made elsewhere; empty: the slot is left alone.
using Writer = std::function<ConstImageView(DeviceImage& scratch)>;
using Writers = std::array<Writer, ResultPipeline::kSlots>;
using Results = std::array<ConstImageView, ResultPipeline::kSlots>;
using Timers = std::array<StageTimer*, ResultPipeline::kSlots>;

struct ResultPipeline::Impl {
  OutputPath path = OutputPath::Cpu;
  RunClock run_clock;  // each GPU job's whole run, tagged (ResultPipeline::take_run_times)
  std::string reason;
  cudaStream_t stream = nullptr;
  // Where the textures of later frames are mapped ahead: the map's wait for GL holds up this stream
  // only, and the main stream waits for it (map_done) just before the copy into that texture.
  cudaStream_t map_stream = nullptr;
  cudaEvent_t staging_done = nullptr;
  // Maps ahead that failed (each such texture is mapped when written instead), and the last error.
  long long map_ahead_failures = 0;
  std::string map_ahead_error;

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
    if (!slot.ring->mapped().empty() && map_stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(map_stream));
    for (int index : slot.ring->mapped()) {  // a texture mapped ahead: unmapped before it is unregistered
      GAUSSLAB_CUDA_LOG(cudaGraphicsUnmapResources(1, &slot.resources.at(static_cast<std::size_t>(index)), stream));
      slot.ring->mark_unmapped(index, false);
    }
    if (stream && !slot.surfaces.empty()) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));  // the last copies
    for (cudaSurfaceObject_t surface : slot.surfaces)
      if (surface) GAUSSLAB_CUDA_LOG(cudaDestroySurfaceObject(surface));
    slot.surfaces.clear();
    slot.arrays.clear();
    for (cudaEvent_t event : slot.map_done)
      if (event) GAUSSLAB_CUDA_LOG(cudaEventDestroy(event));
    slot.map_done.clear();
    for (cudaGraphicsResource_t resource : slot.resources)
      if (resource) GAUSSLAB_CUDA_LOG(cudaGraphicsUnregisterResource(resource));
    slot.resources.clear();
    if (slot.shows_ring) slot.has_result = false;  // its texture goes
    slot.shows_ring = false;
    slot.ring->release();
  }

  void fall_back_to_staging(const std::string& why) {
    if (stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));
    if (map_stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(map_stream));
    for (Slot& slot : slots) release_interop(slot);
    path = OutputPath::Staging;
    reason = why + "; results are copied through host memory instead (staging)";
  }

  // The slot's textures for the current size, each registered once; false after falling back.
  bool ensure_interop(Slot& slot) {
    // resources is non-empty only while every texture of the ring is registered: a failed
    // registration falls back to staging, which releases every slot (release_interop empties it).
    if (!slot.resources.empty() && slot.ring->width() == width() && slot.ring->height() == height()) return true;
    release_interop(slot);
    // Errors left by earlier GL calls must not be taken for this allocation's: report and clear them.
    if (std::string earlier = gl_error_message("earlier drawing"); !earlier.empty())
      std::fprintf(stderr, "gausslab: %s\n", earlier.c_str());
    try {
      slot.ring->allocate(width(), height());
    } catch (const GlError& error) {
      fall_back_to_staging(error.what());
      return false;
    }
    slot.resources.assign(static_cast<std::size_t>(slot.ring->count()), nullptr);
    slot.arrays.assign(static_cast<std::size_t>(slot.ring->count()), nullptr);
    slot.surfaces.assign(static_cast<std::size_t>(slot.ring->count()), 0);
    slot.map_done.assign(static_cast<std::size_t>(slot.ring->count()), nullptr);
    for (cudaEvent_t& event : slot.map_done) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    for (int i = 0; i < slot.ring->count(); ++i) {
      cudaGraphicsResource_t& resource = slot.resources[static_cast<std::size_t>(i)];
      // For surface stores: the copy is a kernel (cuda/surface_copy.hpp), 0.030 ms at 3840x2160 on
      // the H200 against 0.082 ms for cudaMemcpy2DToArrayAsync into a write-discard registration.
      const cudaError_t code = cudaGraphicsGLRegisterImage(&resource, slot.ring->texture(i).id(), GL_TEXTURE_2D,
                                                           cudaGraphicsRegisterFlagsSurfaceLoadStore);
      if (code != cudaSuccess) {
        cudaGetLastError();  // registration errors are not sticky; clear them
        resource = nullptr;
        fall_back_to_staging("cudaGraphicsGLRegisterImage failed (" + cuda_error_text(code) + ")" + gl_device_hint());
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
  // Delivers the results into the slots' textures on the interop path; false when mapping failed
  // (the path is then staging, and the results are still to deliver).
  bool deliver_interop(const Results& results, StageTimer* timer);
  void map_ahead(StageTimer* timer);
  void deliver_staging(const Results& results, const Timers& timers, StageTimer* timer, GlTimer* gl_timer);
  // Runs every GPU slot's writer and delivers its result on the current path (interop, or staging
  // after a fallback).
  void write_gpu_results(const Writers& writers, const Timers& timers, StageTimer* timer, GlTimer* gl_timer);
};

// What the stages recorded here measure. Each is a pair of CUDA events around one call on the
// stream, so it is the time the *stream* spends there: mostly waiting, not working. The host spends
// little in the map calls (6 µs for a map ahead, 28 µs for a cold map, H100, with pixel buffers);
// but when the stream is idle as the call begins, the start event is stamped at once and the host's
// time counts too.
//   map         only in a frame whose textures were not mapped ahead (the first frame, a new size,
//               B newly shown, a ring of one): the stream's wait for the GL work issued before the
//               call plus the map's own latency (0.32 ms on the H200 with GL idle). Issued after the
//               methods' runs, which write device memory of their own and wait for no GL.
//   map_wait    the main stream's wait for the maps ahead of this frame's textures (map_done),
//               issued one or two frames before: ~0 when the map was done in time.
//   to_texture  the copy of the results into the mapped textures (a kernel through surface objects).
//   unmap       handing the written textures back to GL (GL's wait for it falls in GL's timeline:
//               the first GL command that reads the texture, the image's "draw", waits there).
//   map_next    mapping the textures of later frames (see map_ahead) on the map stream, recorded in
//               this frame: as that stream is idle, from the call until the map is done, i.e. the
//               map's wait for GL. It delays only map_wait in a later frame, and overlaps everything
//               else: it is not a cost to add to the others (so is_pipeline_stage keeps it out of
//               method times).
// The methods' own stages come before them all.
bool ResultPipeline::Impl::deliver_interop(const Results& results, StageTimer* timer) {
  std::array<int, kSlots> write{};  // the ring texture each GPU slot's result goes into this frame
  std::vector<cudaGraphicsResource_t> cold, written;
  std::vector<int> cold_slots;
  std::vector<cudaEvent_t> mapped_ahead;  // the maps ahead this frame's copies wait for
  for (int i = 0; i < kSlots; ++i) {
    if (!results[i].data) continue;
    Slot& slot = slots[i];
    write[i] = slot.ring->write_index();
    written.push_back(slot.resources.at(static_cast<std::size_t>(write[i])));
    if (slot.ring->state(write[i]) != TextureRing::State::Mapped) {
      cold.push_back(written.back());
      cold_slots.push_back(i);
    } else {
      mapped_ahead.push_back(slot.map_done.at(static_cast<std::size_t>(write[i])));
    }
  }
  if (written.empty()) return true;

  if (!cold.empty()) {
    cudaError_t mapped;
    {
      ScopedStage stage(timer, "map", stream);
      mapped = cudaGraphicsMapResources(static_cast<int>(cold.size()), cold.data(), stream);  // one call for every slot
    }
    glFlush();  // see map_ahead
    if (mapped != cudaSuccess) {
      cudaGetLastError();
      fall_back_to_staging("mapping the display texture failed (" + cuda_error_text(mapped) + ")");
      return false;
    }
    for (int i : cold_slots) {
      // The only texture, shown until now: it is being written again.
      if (slots[i].ring->shown_index() == write[i]) slots[i].has_result = false;
      slots[i].ring->mark_mapped(write[i]);
    }
  }
  mark("pipeline_map");
  if (!mapped_ahead.empty()) {
    ScopedStage stage(timer, "map_wait", stream);
    for (cudaEvent_t event : mapped_ahead) GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, event, 0));
  }

  try {
    ScopedStage stage(timer, "to_texture", stream);
    for (int i = 0; i < kSlots; ++i) {
      if (!results[i].data) continue;
      cudaArray_t array = nullptr;
      GAUSSLAB_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(
          &array, slots[i].resources.at(static_cast<std::size_t>(write[i])), 0, 0));
      const auto index = static_cast<std::size_t>(write[i]);
      Slot& slot = slots[i];
      if (slot.arrays.at(index) != array) {
        if (slot.surfaces[index]) {
          GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // no copy may still use the old surface
          GAUSSLAB_CUDA_CHECK(cudaDestroySurfaceObject(slot.surfaces[index]));
          slot.surfaces[index] = 0;
        }
        cudaResourceDesc desc{};
        desc.resType = cudaResourceTypeArray;
        desc.res.array.array = array;
        GAUSSLAB_CUDA_CHECK(cudaCreateSurfaceObject(&slot.surfaces[index], &desc));
        slot.arrays[index] = array;
      }
      launch_copy_to_surface(results[i], slot.surfaces[index], stream);
    }
  } catch (...) {
    // No result: the textures go back to GL unwritten and are written again next frame.
    GAUSSLAB_CUDA_LOG(cudaGraphicsUnmapResources(static_cast<int>(written.size()), written.data(), stream));
    for (int i = 0; i < kSlots; ++i) {
      if (!results[i].data) continue;
      slots[i].ring->mark_unmapped(write[i], false);
      if (slots[i].shows_ring && slots[i].ring->shown_index() < 0) slots[i].shows_ring = slots[i].has_result = false;
    }
    throw;
  }

  mark("pipeline_to_texture");
  cudaError_t unmapped;
  {
    ScopedStage stage(timer, "unmap", stream);
    unmapped = cudaGraphicsUnmapResources(static_cast<int>(written.size()), written.data(), stream);
  }
  for (int i = 0; i < kSlots; ++i)
    if (results[i].data) slots[i].ring->mark_unmapped(write[i], unmapped == cudaSuccess);
  GAUSSLAB_CUDA_CHECK(unmapped);
  for (int i = 0; i < kSlots; ++i) {
    if (!results[i].data) continue;
    Slot& slot = slots[i];
    slot.host_upload.cancel();  // a newer result than a host result on its way
    slot.ring->show();
    slot.shows_ring = true;
    slot.pooled = false;
    slot.has_result = true;
  }
  mark("pipeline_unmap");

  map_ahead(timer);
  mark("pipeline_map_next");
  return true;
}

// Maps every texture that is drawn no more now, while this frame's drawing is not yet issued: the
// map orders the map stream after the GL commands issued so far (earlier frames' drawing, among
// them the last reader of that texture), not after this frame's; the main stream waits for it
// (map_done) only before the copy into that texture, one frame later with two textures per slot,
// two with three. A slot that was not written this frame keeps what it had mapped ahead.
void ResultPipeline::Impl::map_ahead(StageTimer* timer) {
  std::vector<cudaGraphicsResource_t> ahead;
  std::vector<std::pair<int, int>> which;  // (slot, texture) of each entry of ahead
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].resources.empty()) continue;
    for (int index : slots[i].ring->ahead_indices()) {
      ahead.push_back(slots[i].resources.at(static_cast<std::size_t>(index)));
      which.emplace_back(i, index);
    }
  }
  if (ahead.empty()) return;  // a ring of one texture: it is mapped after the next frame's runs
  cudaError_t mapped;
  {
    ScopedStage stage(timer, "map_next", map_stream);
    mapped = cudaGraphicsMapResources(static_cast<int>(ahead.size()), ahead.data(), map_stream);
  }
  // Hands GL's queued commands, the map's ordering point among them, to the GPU now rather than at
  // the frame's end.
  glFlush();
  if (mapped != cudaSuccess) {
    // This frame's results are fine; the next frame maps its textures itself (and falls back to
    // staging if that fails too). Counted, so the run's summary says so.
    cudaGetLastError();
    ++map_ahead_failures;
    map_ahead_error = cuda_error_text(mapped);
    return;
  }
  for (const auto& [slot, index] : which) {
    slots[slot].ring->mark_mapped(index);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(slots[slot].map_done.at(static_cast<std::size_t>(index)), map_stream));
  }
}

void ResultPipeline::Impl::deliver_staging(const Results& results, const Timers& timers, StageTimer* timer,
                                           GlTimer* gl_timer) {
  bool any = false;
  for (int i = 0; i < kSlots; ++i) {
    if (!results[i].data) continue;
    any = true;
    Slot& slot = slots[i];
    slot.h_staging.resize(image_bytes());
    ScopedStage stage(timers[i], "download", stream);
    copy_image_async(results[i], pinned_view(slot.h_staging), cudaMemcpyDeviceToHost, stream);
  }
  if (!any) return;
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(staging_done, stream));
  const auto start = std::chrono::steady_clock::now();
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(staging_done));  // the host copy must be complete to upload it
  const std::chrono::duration<double, std::milli> waited = std::chrono::steady_clock::now() - start;
  if (timer) timer->record_host("wait", waited.count());
  for (int i = 0; i < kSlots; ++i) {
    if (!results[i].data) continue;
    Slot& slot = slots[i];
    slot.host_upload.cancel();  // a newer result than a host result on its way
    slot.texture.resize(width(), height());  // back from a pooled result
    if (gl_timer) gl_timer->begin(i == 0 ? "upload" : "upload_b");
    slot.texture.upload(pinned_view(slot.h_staging));
    if (gl_timer) gl_timer->end();
    slot.show_host_texture();
    slot.pooled = false;
    slot.has_result = true;
  }
}

ResultPipeline::ResultPipeline(OutputPath best_allowed, int textures_per_slot) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  for (Slot& slot : p.slots) slot.ring = std::make_unique<TextureRing>(textures_per_slot);
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
  p.map_stream = create_stream_with_priority(StreamPriority::Greatest, cudaStreamNonBlocking);
  GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&p.staging_done, cudaEventDisableTiming));
  if (best_allowed == OutputPath::Staging) {
    p.path = OutputPath::Staging;
    p.reason = "the staging path was chosen (--path staging): results are copied through host memory";
    return;
  }
  // Registration with the first image decides; this is the hopeful start.
  p.path = OutputPath::Interop;
  p.reason = "CUDA writes straight into the OpenGL textures on " + device.name + " (no host copies)";
}

ResultPipeline::~ResultPipeline() {
  Impl& p = *impl_;
  if (p.stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(p.stream));
  p.run_clock.release();
  for (Slot& slot : p.slots) p.release_interop(slot);
  if (p.staging_done) GAUSSLAB_CUDA_LOG(cudaEventDestroy(p.staging_done));
  if (p.map_stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(p.map_stream));
  if (p.stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(p.stream));
}

OutputPath ResultPipeline::path() const { return impl_->path; }
const std::string& ResultPipeline::path_reason() const { return impl_->reason; }

std::string ResultPipeline::map_ahead_problem() const {
  if (impl_->map_ahead_failures == 0) return {};
  return std::to_string(impl_->map_ahead_failures) + " maps ahead failed (" + impl_->map_ahead_error +
         "); those textures were mapped when written";
}

const ImageRgba8& ResultPipeline::source() const { return impl_->source; }
int ResultPipeline::width() const { return impl_->width(); }
int ResultPipeline::height() const { return impl_->height(); }
cudaStream_t ResultPipeline::stream() const { return impl_->stream; }
unsigned ResultPipeline::source_texture() const { return impl_->source_texture.id(); }
namespace {
const Texture& shown_texture(const Slot& slot) {
  return slot.shows_ring && slot.ring->shown_index() >= 0 ? slot.ring->texture(slot.ring->shown_index()) : slot.texture;
}
}  // namespace

unsigned ResultPipeline::result_texture(int slot) const { return shown_texture(impl_->slots.at(slot)).id(); }
bool ResultPipeline::has_result(int slot) const { return impl_->slots.at(slot).has_result; }
bool ResultPipeline::result_is_pooled(int slot) const { return impl_->slots.at(slot).pooled; }
ImageRgba8 ResultPipeline::read_result(int slot) const { return shown_texture(impl_->slots.at(slot)).read(); }

void ResultPipeline::fall_back_to_cpu(const std::string& why) {
  Impl& p = *impl_;
  if (p.path == OutputPath::Cpu) return;
  if (p.stream) cudaStreamSynchronize(p.stream);  // errors expected: the device is gone
  if (p.map_stream) cudaStreamSynchronize(p.map_stream);
  cudaGetLastError();
  for (Slot& slot : p.slots) {
    for (int index : slot.ring->mapped()) {  // mapped ahead: handed back as far as the device still can
      cudaGraphicsUnmapResources(1, &slot.resources.at(static_cast<std::size_t>(index)), nullptr);
      slot.ring->mark_unmapped(index, false);
    }
    for (cudaSurfaceObject_t surface : slot.surfaces)
      if (surface) cudaDestroySurfaceObject(surface);
    slot.surfaces.clear();
    slot.arrays.clear();
    for (cudaEvent_t event : slot.map_done)
      if (event) cudaEventDestroy(event);
    slot.map_done.clear();
    for (cudaGraphicsResource_t resource : slot.resources)
      if (resource) cudaGraphicsUnregisterResource(resource);
    slot.resources.clear();
    slot.shows_ring = false;
    slot.ring->release();
    slot.d_result.release();
    slot.h_staging.release();
    slot.has_result = false;
  }
  p.d_source.release();
  p.run_clock.release();
  if (p.staging_done) cudaEventDestroy(p.staging_done);
  if (p.stream) cudaStreamDestroy(p.stream);
  if (p.map_stream) cudaStreamDestroy(p.map_stream);
  cudaGetLastError();
  p.staging_done = nullptr;
  p.stream = nullptr;
  p.map_stream = nullptr;
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
  slot.show_host_texture();
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
  slot.show_host_texture();
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
  impl_->slots.at(slot).show_host_texture();
  impl_->slots.at(slot).has_result = false;
}

void ResultPipeline::synchronize() {
  if (impl_->stream) GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  if (impl_->map_stream) GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(impl_->map_stream));
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
    slot.show_host_texture();
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

  // GPU methods: into device images, then into the displayed textures on the device (interop) or
  // through host memory (staging). Each run is timed as a whole by the run clock (tagged with the
  // job's tag).
  Writers writers;
  Timers timers{};
  for (int i = 0; i < kSlots; ++i) {
    if (!on_gpu[i]) continue;
    timers[i] = jobs[i].timer;
    writers[i] = [&p, &job = jobs[i], i](DeviceImage& scratch) {
      scratch.resize(p.width(), p.height(), PixelFormat::Rgba8);
      const bool timed = job.tag != 0 && p.run_clock.begin(job.tag, p.stream);
      job.method->run(p.d_source.view(), scratch.view(), job.timer, p.stream);
      if (timed) p.run_clock.end(p.stream);
      p.mark(i == 0 ? "pipeline_write_a" : "pipeline_write_b");
      return ConstImageView(scratch.view());
    };
  }
  if (on_gpu[0] || on_gpu[1]) p.write_gpu_results(writers, timers, first_gpu_timer, gl_timer);

  // Upload every CPU result into its display texture.
  p.mark("pipeline_cpu_and_writes");
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method || on_gpu[i]) continue;
    Slot& slot = p.slots[i];
    slot.texture.resize(p.width(), p.height());  // back from a pooled result
    slot.pooled = false;
    if (gl_timer) gl_timer->begin(i == 0 ? "upload" : "upload_b");
    slot.texture.upload(slot.host_result.view());
    if (gl_timer) gl_timer->end();
    slot.show_host_texture();
    slot.has_result = true;
  }
}

void ResultPipeline::Impl::write_gpu_results(const Writers& writers, const Timers& timers, StageTimer* timer,
                                             GlTimer* gl_timer) {
  if (path == OutputPath::Interop)
    for (int i = 0; i < kSlots; ++i)
      if (writers[i] && !ensure_interop(slots[i])) break;
  // The runs first: they write device memory of the pipeline's own, so none waits for GL.
  Results results{};
  for (int i = 0; i < kSlots; ++i)
    if (writers[i]) results[i] = writers[i](slots[i].d_result);
  if (path == OutputPath::Interop && deliver_interop(results, timer)) return;
  deliver_staging(results, timers, timer, gl_timer);
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
  writers.at(static_cast<std::size_t>(slot_index)) = [&image](DeviceImage&) { return image; };  // copied from where it is
  p.write_gpu_results(writers, Timers{}, nullptr, gl_timer);
}

std::vector<ClockReading> ResultPipeline::take_run_times() {
  return impl_->path == OutputPath::Cpu ? std::vector<ClockReading>() : impl_->run_clock.poll();
}

}  // namespace gausslab
