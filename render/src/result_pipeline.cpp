// The interop class (see the header for the three paths). Everything that touches both CUDA and
// OpenGL lives here; methods only ever see ImageViews.
#include "gausslab/render/result_pipeline.hpp"

#include "gl_util.hpp"  // glad first: it keeps cuda_gl_interop.h from including the system GL header

#include <cuda_gl_interop.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
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
  return stage == "map" || stage == "unmap" || stage == "download" || stage == "wait";
}

namespace {

std::string cuda_error_text(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

// Page-locked host memory: the only kind an asynchronous device-to-host copy really overlaps with.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void resize(std::size_t size_bytes) {
    if (size_bytes <= size_bytes_) return;
    release();
    GAUSSLAB_CUDA_CHECK(cudaMallocHost(&h_data_, size_bytes));
    size_bytes_ = size_bytes;
  }
  void release() {
    if (h_data_) GAUSSLAB_CUDA_LOG(cudaFreeHost(h_data_));
    h_data_ = nullptr;
    size_bytes_ = 0;
  }
  void* data() const { return h_data_; }

 private:
  void* h_data_ = nullptr;
  std::size_t size_bytes_ = 0;
};

struct Slot {
  Texture texture;
  bool has_result = false;
  // interop: the pixel buffer and its registration, for an image of buffer_width × buffer_height
  GLuint pixel_buffer = 0;
  cudaGraphicsResource_t resource = nullptr;
  int buffer_width = 0, buffer_height = 0;
  // staging: the method's output on the device and its host copy
  DeviceImage d_result;
  PinnedBuffer h_staging;
  // CPU methods, on any path
  ImageRgba8 host_result;
};

enum class CropState { Empty, InFlight, Ready };

}  // namespace

struct ResultPipeline::Impl {
  OutputPath path = OutputPath::Cpu;
  std::string reason;
  cudaStream_t stream = nullptr;
  cudaEvent_t staging_done = nullptr;
  cudaEvent_t crop_done = nullptr;

  ImageRgba8 source;
  DeviceImage d_source;
  Texture source_texture;
  std::array<Slot, kSlots> slots;

  CropState crop_state = CropState::Empty;
  Rect crop_rect;
  PinnedBuffer h_crop;
  ImageRgba8 crop_image;

  int width() const { return source.width(); }
  int height() const { return source.height(); }
  std::size_t image_bytes() const { return static_cast<std::size_t>(width()) * height() * sizeof(Rgba8); }
  ImageView pinned_view(const PinnedBuffer& buffer) const {
    return {buffer.data(), width(), height(), static_cast<std::size_t>(width()) * sizeof(Rgba8), PixelFormat::Rgba8};
  }

  void release_interop(Slot& slot) {
    if (slot.resource) GAUSSLAB_CUDA_LOG(cudaGraphicsUnregisterResource(slot.resource));
    slot.resource = nullptr;
    if (slot.pixel_buffer) glDeleteBuffers(1, &slot.pixel_buffer);
    slot.pixel_buffer = 0;
    slot.buffer_width = slot.buffer_height = 0;
  }

  void fall_back_to_staging(const std::string& why) {
    if (stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));
    for (Slot& slot : slots) release_interop(slot);
    path = OutputPath::Staging;
    reason = why + "; results are copied through host memory instead (staging)";
  }

  // The slot's pixel buffer for the current size, registered once; false after falling back.
  bool ensure_interop(Slot& slot) {
    if (slot.resource && slot.buffer_width == width() && slot.buffer_height == height()) return true;
    release_interop(slot);
    // Errors left by earlier GL calls must not be taken for this allocation's: report and clear them.
    if (std::string earlier = gl_error_message("earlier drawing"); !earlier.empty())
      std::fprintf(stderr, "gausslab: %s\n", earlier.c_str());
    glGenBuffers(1, &slot.pixel_buffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, slot.pixel_buffer);
    // Written by CUDA, read by GL: a "copy" usage keeps it in video memory.
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(image_bytes()), nullptr, GL_DYNAMIC_COPY);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (std::string gl_problem = gl_error_message("allocating the pixel buffer"); !gl_problem.empty()) {
      fall_back_to_staging(gl_problem);
      return false;
    }
    const cudaError_t code =
        cudaGraphicsGLRegisterBuffer(&slot.resource, slot.pixel_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (code != cudaSuccess) {
      cudaGetLastError();  // registration errors are not sticky; clear them
      slot.resource = nullptr;
      fall_back_to_staging("cudaGraphicsGLRegisterBuffer failed (" + cuda_error_text(code) + ")" + gl_device_hint());
      return false;
    }
    slot.buffer_width = width();
    slot.buffer_height = height();
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

  void copy_crop_from_host(const ConstImageView& full) {
    crop_image = ImageRgba8(crop_rect.width, crop_rect.height);
    for (int y = 0; y < crop_rect.height; ++y)
      std::memcpy(&crop_image.at(0, y), full.row<Rgba8>(crop_rect.y + y) + crop_rect.x,
                  static_cast<std::size_t>(crop_rect.width) * sizeof(Rgba8));
    crop_state = CropState::Ready;
  }

  void run_interop(const std::array<Job, kSlots>& jobs, const std::array<bool, kSlots>& on_gpu, bool crop_a,
                   StageTimer* timer);
  void run_staging(const std::array<Job, kSlots>& jobs, const std::array<bool, kSlots>& on_gpu, bool crop_a,
                   StageTimer* timer);
};

void ResultPipeline::Impl::run_interop(const std::array<Job, kSlots>& jobs, const std::array<bool, kSlots>& on_gpu,
                                       bool crop_a, StageTimer* timer) {
  cudaGraphicsResource_t resources[kSlots];
  int count = 0;
  for (int i = 0; i < kSlots; ++i)
    if (on_gpu[i]) resources[count++] = slots[i].resource;

  cudaError_t mapped;
  {
    ScopedStage stage(timer, "map", stream);
    mapped = cudaGraphicsMapResources(count, resources, stream);  // one call for every slot
  }
  if (mapped != cudaSuccess) {
    cudaGetLastError();
    fall_back_to_staging("mapping the pixel buffer failed (" + cuda_error_text(mapped) + ")");
    run_staging(jobs, on_gpu, crop_a, timer);
    return;
  }
  try {
    for (int i = 0; i < kSlots; ++i) {
      if (!on_gpu[i]) continue;
      void* d_pixels = nullptr;
      std::size_t mapped_bytes = 0;
      GAUSSLAB_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&d_pixels, &mapped_bytes, slots[i].resource));
      if (mapped_bytes < image_bytes())
        throw std::logic_error("the mapped pixel buffer holds " + std::to_string(mapped_bytes) + " bytes, not " +
                               std::to_string(image_bytes()));
      const ImageView d_output{d_pixels, width(), height(), static_cast<std::size_t>(width()) * sizeof(Rgba8),
                               PixelFormat::Rgba8};
      jobs[i].method->run(d_source.view(), d_output, jobs[i].timer, stream);
      if (i == 0 && crop_a) {
        // The pixel buffer is only readable while mapped: copy the crop out before unmapping.
        const std::size_t row_bytes = static_cast<std::size_t>(crop_rect.width) * sizeof(Rgba8);
        h_crop.resize(row_bytes * static_cast<std::size_t>(crop_rect.height));
        const char* d_first = static_cast<const char*>(d_pixels) +
                              static_cast<std::size_t>(crop_rect.y) * d_output.pitch_bytes +
                              static_cast<std::size_t>(crop_rect.x) * sizeof(Rgba8);
        GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(h_crop.data(), row_bytes, d_first, d_output.pitch_bytes, row_bytes,
                                              static_cast<std::size_t>(crop_rect.height), cudaMemcpyDeviceToHost,
                                              stream));
        GAUSSLAB_CUDA_CHECK(cudaEventRecord(crop_done, stream));
        crop_state = CropState::InFlight;
      }
    }
  } catch (...) {
    GAUSSLAB_CUDA_LOG(cudaGraphicsUnmapResources(count, resources, stream));
    throw;
  }
  ScopedStage stage(timer, "unmap", stream);
  GAUSSLAB_CUDA_CHECK(cudaGraphicsUnmapResources(count, resources, stream));
}

void ResultPipeline::Impl::run_staging(const std::array<Job, kSlots>& jobs, const std::array<bool, kSlots>& on_gpu,
                                       bool crop_a, StageTimer* timer) {
  for (int i = 0; i < kSlots; ++i) {
    if (!on_gpu[i]) continue;
    Slot& slot = slots[i];
    slot.d_result.resize(width(), height(), PixelFormat::Rgba8);
    jobs[i].method->run(d_source.view(), slot.d_result.view(), jobs[i].timer, stream);
    slot.h_staging.resize(image_bytes());
    ScopedStage stage(jobs[i].timer, "download", stream);
    copy_image_async(slot.d_result.view(), pinned_view(slot.h_staging), cudaMemcpyDeviceToHost, stream);
  }
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(staging_done, stream));
  const auto start = std::chrono::steady_clock::now();
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(staging_done));  // the host copy must be complete to upload it
  const std::chrono::duration<double, std::milli> waited = std::chrono::steady_clock::now() - start;
  if (timer) timer->record_host("wait", waited.count());
  if (crop_a) copy_crop_from_host(pinned_view(slots[0].h_staging));
}

ResultPipeline::ResultPipeline(OutputPath best_allowed) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
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
  // default stream (weight uploads), at no cost when nothing else uses that stream.
  GAUSSLAB_CUDA_CHECK(cudaStreamCreate(&p.stream));
  GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&p.staging_done, cudaEventDisableTiming));
  GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&p.crop_done, cudaEventDisableTiming));
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
  for (Slot& slot : p.slots) p.release_interop(slot);
  if (p.crop_done) GAUSSLAB_CUDA_LOG(cudaEventDestroy(p.crop_done));
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
ImageRgba8 ResultPipeline::read_result(int slot) const { return impl_->slots.at(slot).texture.read(); }
bool ResultPipeline::crop_in_flight() const { return impl_->crop_state == CropState::InFlight; }

void ResultPipeline::synchronize() {
  if (impl_->stream) GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

void ResultPipeline::set_source(ImageRgba8 image) {
  Impl& p = *impl_;
  if (image.empty()) throw std::invalid_argument("ResultPipeline::set_source: the image is empty");
  synchronize();  // nothing queued may still read the old source or write the old buffers
  p.crop_state = CropState::Empty;  // a crop of the old source is of no use
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
    if (!resized) continue;
    p.release_interop(slot);
    slot.d_result.release();
    slot.h_staging.release();
    slot.host_result = ImageRgba8();
    slot.texture.resize(p.width(), p.height());
  }
  if (p.path == OutputPath::Interop) p.ensure_interop(p.slots[0]);  // register A now: the path is known early
}

bool ResultPipeline::process(const std::array<Job, kSlots>& jobs, GlTimer* gl_timer, const Rect* crop) {
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

  bool crop_a = false;
  if (crop && jobs[0].method && p.crop_state == CropState::Empty) {
    if (crop->x < 0 || crop->y < 0 || crop->width < 1 || crop->height < 1 || crop->x + crop->width > p.width() ||
        crop->y + crop->height > p.height())
      throw std::invalid_argument("ResultPipeline::process: the crop lies outside the image");
    p.crop_rect = *crop;
    crop_a = true;
  }

  // CPU methods: host source into host memory.
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method || on_gpu[i]) continue;
    Slot& slot = p.slots[i];
    if (slot.host_result.width() != p.width() || slot.host_result.height() != p.height())
      slot.host_result = ImageRgba8(p.width(), p.height());
    jobs[i].method->run(p.source.view(), slot.host_result.view(), jobs[i].timer, nullptr);
    if (i == 0 && crop_a) p.copy_crop_from_host(slot.host_result.view());
  }

  // GPU methods: into the mapped pixel buffers, or into device images and through host memory.
  if (on_gpu[0] || on_gpu[1]) {
    if (p.path == OutputPath::Interop)
      for (int i = 0; i < kSlots; ++i)
        if (on_gpu[i] && !p.ensure_interop(p.slots[i])) break;
    if (p.path == OutputPath::Interop)
      p.run_interop(jobs, on_gpu, crop_a && on_gpu[0], first_gpu_timer);
    else
      p.run_staging(jobs, on_gpu, crop_a && on_gpu[0], first_gpu_timer);
  }

  // Upload every new result into its display texture.
  for (int i = 0; i < kSlots; ++i) {
    if (!jobs[i].method) continue;
    Slot& slot = p.slots[i];
    if (gl_timer) gl_timer->begin(i == 0 ? "upload" : "upload_b");
    if (!on_gpu[i])
      slot.texture.upload(slot.host_result.view());
    else if (p.path == OutputPath::Interop)
      slot.texture.upload_from_pixel_buffer(slot.pixel_buffer);
    else
      slot.texture.upload(p.pinned_view(slot.h_staging));
    if (gl_timer) gl_timer->end();
    slot.has_result = true;
  }
  return crop_a;
}

std::optional<ImageRgba8> ResultPipeline::take_crop(bool wait) {
  Impl& p = *impl_;
  if (p.crop_state == CropState::InFlight) {
    const cudaError_t state = wait ? cudaEventSynchronize(p.crop_done) : cudaEventQuery(p.crop_done);
    if (state == cudaErrorNotReady) return std::nullopt;
    if (state != cudaSuccess) {
      p.crop_state = CropState::Empty;
      GAUSSLAB_CUDA_CHECK(state);
    }
    const ImageView pinned{p.h_crop.data(), p.crop_rect.width, p.crop_rect.height,
                           static_cast<std::size_t>(p.crop_rect.width) * sizeof(Rgba8), PixelFormat::Rgba8};
    p.crop_image = copy_to_image<Rgba8>(pinned);
    p.crop_state = CropState::Ready;
  }
  if (p.crop_state != CropState::Ready) return std::nullopt;
  p.crop_state = CropState::Empty;
  return std::move(p.crop_image);
}

}  // namespace gausslab
