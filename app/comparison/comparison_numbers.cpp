#include "comparison/comparison_numbers.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/image_difference.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/cuda/staged_copy.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/stream_priority.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "comparison/background_threads.hpp"
#include "viewer/frame_trace.hpp"
#include "comparison/numbers_tiles.hpp"

namespace gausslab {

namespace {

std::string slot_name(int method) {
  if (method == kOriginalPicture) return "the original picture";
  if (method == kExactGaussian) return "the exact Gaussian";
  if (is_reference_file(method)) return method == kReferenceFileA ? "A's file" : "B's file";
  return method_registry().at(static_cast<std::size_t>(method)).info.id;
}

// Four float planes stacked vertically (plane c = rows c*H .. c*H+H-1), on the host.
struct HostPlanes {
  int width = 0, height = 0;
  std::vector<float> values;
  ImageView plane(int c) {
    return {values.data() + static_cast<std::size_t>(c) * width * height, width, height,
            sizeof(float) * static_cast<std::size_t>(width), PixelFormat::F32};
  }
  DifferenceOperand operand() const {
    return planes_operand(values.data(), sizeof(float) * static_cast<std::size_t>(width), height, OperandType::F32);
  }
};

void split_channels(const ImageRgba8& picture, HostPlanes& planes) {
  planes.width = picture.width();
  planes.height = picture.height();
  const std::size_t n = static_cast<std::size_t>(picture.width()) * picture.height();
  planes.values.resize(n * 4);
  const std::uint8_t* bytes = &picture.data()->r;
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 4; ++c) planes.values[c * n + i] = bytes[i * 4 + c];
}

// Spare host memory for the methods' float planes. Freeing a set (256 MiB at 4096x4096) unmaps its
// pages, ~15 ms of the thread that drops the last reference, whichever it is (the worker, or the UI
// thread letting go of old numbers); the planes come back here instead, for the next setting.
class HostPlanesPool : public std::enable_shared_from_this<HostPlanesPool> {
 public:
  std::shared_ptr<HostPlanes> make(int width, int height) {
    std::vector<float> values;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!spare_.empty()) {
        values = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    values.resize(static_cast<std::size_t>(width) * height * 4);  // no new memory when the size is kept
    const std::weak_ptr<HostPlanesPool> pool = weak_from_this();
    return std::shared_ptr<HostPlanes>(new HostPlanes{width, height, std::move(values)}, [pool](HostPlanes* planes) {
      if (const auto alive = pool.lock()) alive->give_back(std::move(planes->values));
      delete planes;
    });
  }
  void clear() {
    std::vector<std::vector<float>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(spare_);
  }

 private:
  static constexpr std::size_t kMaxSpare = 2;  // a job makes at most two sets
  void give_back(std::vector<float>&& values) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_.size() < kMaxSpare) spare_.push_back(std::move(values));
  }
  std::mutex mutex_;
  std::vector<std::vector<float>> spare_;
};

}  // namespace

// Everything the worker thread keeps between jobs; touched by that thread only.
struct NumbersWorker::State {
  struct Values {
    SlotSetting setting;
    std::shared_ptr<HostPlanes> host;  // methods' planes on the host
    DeviceImage d_planes;              // the same on the device (GPU methods, or uploaded for a GPU reduction)
    std::optional<AutoChoice> auto_choice;  // an auto entry's choice for these planes
  };
  // Device planes of dropped values, reused by the next ones: freeing device memory (cudaFree) waits
  // for the whole device and holds the driver's locks, so the frame's CUDA calls would wait with it.
  // Up to four: a job's two and the two of the job before, so that the usual switches of one slot
  // free nothing.
  std::vector<DeviceImage> spare_planes;
  static constexpr std::size_t kMaxSparePlanes = 4;
  void planes_for(Values& values, int width, int height) {
    if (values.d_planes.empty() && !spare_planes.empty()) {
      values.d_planes = std::move(spare_planes.back());
      spare_planes.pop_back();
    }
    values.d_planes.resize(width, height * 4, PixelFormat::F32);  // no reallocation at the same size
  }
  void retire(std::vector<std::unique_ptr<Values>>& dropped) {
    for (auto& values : dropped)
      if (values && !values->d_planes.empty() && spare_planes.size() < kMaxSparePlanes)
        spare_planes.push_back(std::move(values->d_planes));
  }
  std::shared_ptr<HostPlanesPool> host_pool = std::make_shared<HostPlanesPool>();
  std::uint64_t picture = 0;
  std::shared_ptr<const HostPlanes> source_planes;
  DeviceImage d_source_planes, d_picture;
  DeviceImage d_reference[2];                     // the reference slots' files, for a GPU reduction
  std::uint64_t d_reference_number[2] = {};       // the version uploaded there (SlotSetting::reference)
  ExactKey d_exact_key;
  DeviceBuffer d_exact;
  bool d_exact_valid = false;
  std::vector<std::unique_ptr<Values>> cache;  // the slots' values of the latest job
  std::vector<std::unique_ptr<Method>> instances;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  PinnedBuffer h_partial;  // where the reduction's result lands
  PinnedBuffer staging;    // large copies go through it a piece at a time (staged_copy.hpp)
  std::function<void()> between_pieces;  // set per job: one piece per frame drawn
  // A host image up to the device, or back, through `staging`, one piece per frame (waits for each).
  void upload(const ConstImageView& host, DeviceImage& device) {
    device.resize(host.width, host.height, host.format);
    const std::size_t row = static_cast<std::size_t>(host.width) * bytes_per_pixel(host.format);
    copy_rows_through_pinned(RowCopy{host.data, host.pitch_bytes, device.view().data, device.view().pitch_bytes, row,
                                     host.height},
                             cudaMemcpyHostToDevice, staging, stream, kStagedPieceBytes, between_pieces);
  }
  void download(const DeviceImage& device, const ImageView& host) {
    const std::size_t row = static_cast<std::size_t>(host.width) * bytes_per_pixel(host.format);
    copy_rows_through_pinned(RowCopy{device.view().data, device.view().pitch_bytes, host.data, host.pitch_bytes, row,
                                     host.height},
                             cudaMemcpyDeviceToHost, staging, stream, kStagedPieceBytes, between_pieces);
  }
  DeviceImage d_result8;  // an 8-bit-only method's result, kept (no allocation and free per job)
  DeviceBuffer scratch;
  SlicedRun tiles;  // a slow window method's planes in tiles (numbers_tiles.hpp)

  ~State() {
    if (stream) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream));
    if (done) GAUSSLAB_CUDA_LOG(cudaEventDestroy(done));
    if (stream) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream));
  }
  void ensure_cuda() {
    if (stream) return;
    GAUSSLAB_CUDA_CHECK(cudaSetDevice(cuda_device_status().device));
    // Non-blocking: the worker's work never orders itself after the frames' stream, nor the reverse.
    // The least priority: the frames' kernels get in before further blocks of the worker's.
    stream = create_stream_with_priority(StreamPriority::Least, cudaStreamNonBlocking);
    GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    h_partial.resize(sizeof(DifferencePartial));
  }
  Method* instance(int method, bool gpu_methods_run) {
    const std::vector<MethodEntry>& registry = method_registry(gpu_methods_run);
    if (instances.size() != registry.size()) instances.resize(registry.size());
    auto& made = instances.at(static_cast<std::size_t>(method));
    if (!made) {
      const MethodEntry& entry = registry[static_cast<std::size_t>(method)];
      made = entry.create_for_worker ? entry.create_for_worker() : entry.create();
    }
    return made.get();
  }
  Values* find(const SlotSetting& setting) {
    for (auto& values : cache)
      if (values->setting == setting) return values.get();
    return nullptr;
  }
};

NumbersWorker::NumbersWorker(bool gpu)
    : gpu_(gpu),
      state_(std::make_unique<State>()),
      thread_([this](Job& job, const std::atomic<bool>& superseded) { compute(job, superseded); }) {}

NumbersWorker::~NumbersWorker() = default;  // thread_ goes first (declared last), then the state

void NumbersWorker::submit(const NumbersKey& key, std::shared_ptr<const ImageRgba8> picture,
                           std::shared_ptr<const ExactResult> exact, std::shared_ptr<const PictureLevels> levels,
                           ReferenceLevels references) {
  thread_.submit(Job{key, std::move(picture), std::move(exact), std::move(levels), std::move(references)});
}

std::optional<ComparisonNumbers> NumbersWorker::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

std::string NumbersWorker::activity() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return activity_;
}

void NumbersWorker::frame_drawn() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++frames_drawn_;
  }
  frame_changed_.notify_all();
}

void NumbersWorker::wait_for_next_frame(const std::atomic<bool>& superseded) {
  std::unique_lock<std::mutex> lock(mutex_);
  const long long seen = frames_drawn_;
  // Bounded: without frames (a minimised window, a test) the tiles still go on.
  frame_changed_.wait_for(lock, std::chrono::milliseconds(kTilePaceMs),
                          [&] { return frames_drawn_ != seen || superseded.load(); });
}

void NumbersWorker::set_activity(std::string text) {
  std::lock_guard<std::mutex> lock(mutex_);
  activity_ = std::move(text);
}

// One job's work on the worker, in its three steps: each slot's unrounded values (a method's float
// planes are computed once per setting and cached), the operands (on the host for the inspector,
// on the device for a GPU reduction) and the reductions.
class NumbersWorker::JobRun {
 public:
  JobRun(State& state, const Job& job, bool gpu, const std::atomic<bool>& superseded,
         std::function<void()> wait_for_frame, std::function<void(std::string)> set_activity)
      : s_(state),
        job_(job),
        picture_(*job.picture),
        width_(picture_.width()),
        height_(picture_.height()),
        gpu_(gpu),
        gpu_reduction_(gpu && (runs_on_gpu(job.key.a.method, gpu) || runs_on_gpu(job.key.b.method, gpu))),
        superseded_(superseded),
        wait_for_frame_(std::move(wait_for_frame)),
        set_activity_(std::move(set_activity)) {}

  bool gpu_reduction() const { return gpu_reduction_; }
  // Fills `numbers`; false when superseded (nothing kept).
  bool run(ComparisonNumbers& numbers);

 private:
  using Values = State::Values;
  // A new picture: nothing cached is of use; the picture's float planes.
  void follow_the_picture();
  // The reductions of step 3 (a and b: the slots' values, null for the original and the exact).
  void measure(ComparisonNumbers& numbers, Values* a, Values* b);
  // A slot's values: null for the original picture and the exact Gaussian (used as they are), and
  // when superseded.
  Values* values_of(const SlotSetting& setting);
  // A method with no float path (lut_2d works on 8-bit values only): its 8-bit result.
  void eight_bit_values(Method& method, const SlotSetting& setting, HostPlanes& host);
  // A GPU method's float planes, one plane per frame drawn (or in tiles: numbers_tiles.hpp); false
  // when superseded.
  bool gpu_planes(Method& method, const SlotSetting& setting, Values& values, HostPlanes& host, int tile_core);
  std::shared_ptr<const SlotValues> host_values(int method, Values* values) const;
  DifferenceOperand device_operand(int method, Values* values);
  // x against y; reference: y is the exact Gaussian as the reference (not a slot showing it), so the
  // rounded figures compare x's 8-bit result with the exact values.
  DifferenceStats reduce(int method_x, Values* x, const SlotValues& host_x, int method_y, Values* y,
                         const SlotValues& host_y, bool reference);

  State& s_;
  const Job& job_;
  const ImageRgba8& picture_;
  const int width_, height_;
  const bool gpu_, gpu_reduction_;
  const std::atomic<bool>& superseded_;
  std::function<void()> wait_for_frame_;
  std::function<void(std::string)> set_activity_;
  std::vector<std::unique_ptr<Values>> keep_;  // this job's values (the cache once it is done)
  std::vector<std::string> eight_bit_only_;
};

void NumbersWorker::JobRun::eight_bit_values(Method& method, const SlotSetting& setting, HostPlanes& host) {
  const FilterProblem problem8{width_, height_, PixelFormat::Rgba8, setting.params};
  method.prepare(problem8);
  set_activity_("running " + slot_name(setting.method) + " (8-bit only)");
  ImageRgba8 result(width_, height_);
  if (runs_on_gpu(setting.method, gpu_)) {
    if (!gpu_) throw std::runtime_error(slot_name(setting.method) + " needs a CUDA device");
    if (s_.d_picture.empty()) s_.upload(picture_.view(), s_.d_picture);
    s_.d_result8.resize(width_, height_, PixelFormat::Rgba8);
    method.run(s_.d_picture.view(), s_.d_result8.view(), nullptr, s_.stream);
    s_.download(s_.d_result8, result.view());
  } else {
    method.run(picture_.view(), result.view(), nullptr, nullptr);
  }
  split_channels(result, host);
  eight_bit_only_.push_back(slot_name(setting.method));
}

bool NumbersWorker::JobRun::gpu_planes(Method& method, const SlotSetting& setting, Values& values, HostPlanes& host,
                                       int tile_core) {
  if (!gpu_) throw std::runtime_error(slot_name(setting.method) + " needs a CUDA device");
  if (s_.d_source_planes.empty())
    s_.upload(ConstImageView{s_.source_planes->values.data(), width_, height_ * 4,
                             sizeof(float) * static_cast<std::size_t>(width_), PixelFormat::F32},
              s_.d_source_planes);
  s_.planes_for(values, width_, height_);
  const std::size_t pitch = values.d_planes.view().pitch_bytes, src_pitch = s_.d_source_planes.view().pitch_bytes;
  for (int c = 0; c < 4; ++c) {
    const ConstImageView src{static_cast<const char*>(s_.d_source_planes.view().data) + src_pitch * height_ * c, width_,
                             height_, src_pitch, PixelFormat::F32};
    const ImageView dst{static_cast<char*>(values.d_planes.view().data) + pitch * height_ * c, width_, height_, pitch,
                        PixelFormat::F32};
    if (tile_core == 0) {
      // One plane per frame drawn, as the tiles below: four planes at once kept the GPU busy for the
      // frames' kernels to wait behind.
      if (c > 0) {
        GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(s_.stream));
        wait_for_frame_();
      }
      method.run(src, dst, nullptr, s_.stream);
      continue;
    }
    if (!run_plane_in_tiles(method, setting.params, src, dst, tile_core, s_.stream, s_.tiles, superseded_, wait_for_frame_))
      return false;
  }
  const ImageView all_host{host.values.data(), width_, height_ * 4, sizeof(float) * static_cast<std::size_t>(width_),
                           PixelFormat::F32};
  s_.download(values.d_planes, all_host);
  return true;
}

NumbersWorker::State::Values* NumbersWorker::JobRun::values_of(const SlotSetting& setting) {
  if (setting.method < 0) return nullptr;  // original, exact: used as they are
  for (auto& kept : keep_)
    if (kept->setting == setting) return kept.get();
  std::unique_ptr<Values> values;
  for (auto& cached : s_.cache)
    if (cached && cached->setting == setting) values = std::move(cached);
  if (values) {
    keep_.push_back(std::move(values));
    return keep_.back().get();
  }
  values = std::make_unique<Values>();
  values->setting = setting;
  Method* method = s_.instance(setting.method, gpu_);
  const FilterProblem problem{width_, height_, PixelFormat::F32, setting.params};
  std::shared_ptr<HostPlanes> host = s_.host_pool->make(width_, height_);
  const bool eight_bit_only = !method->unsupported_reason(problem).empty();
  if (eight_bit_only) {
    eight_bit_values(*method, setting, *host);
  } else {
    // A slow window method runs its planes in tiles (numbers_tiles.hpp), prepared there.
    const int tile_core = gpu_ && runs_on_gpu(setting.method, gpu_)
                              ? numbers_tile_core(method->info(), width_, height_, setting.params.radius())
                              : 0;
    if (tile_core == 0) method->prepare(problem);
    set_activity_("running " + slot_name(setting.method) + " on the float planes" + (tile_core > 0 ? " in tiles" : ""));
    if (runs_on_gpu(setting.method, gpu_)) {
      if (!gpu_planes(*method, setting, *values, *host, tile_core)) {
        keep_.push_back(std::move(values));  // superseded: its planes go to the spares with the others
        return nullptr;                      // and the caller returns without keeping anything
      }
    } else {
      HostPlanes& source = const_cast<HostPlanes&>(*s_.source_planes);
      for (int c = 0; c < 4 && !superseded_; ++c) method->run(source.plane(c), host->plane(c), nullptr, nullptr);
    }
  }
  if (!eight_bit_only) values->auto_choice = auto_choice_of(*method);
  values->host = std::move(host);
  keep_.push_back(std::move(values));
  return keep_.back().get();
}

std::shared_ptr<const SlotValues> NumbersWorker::JobRun::host_values(int method, Values* values) const {
  auto out = std::make_shared<SlotValues>();
  out->width = width_;
  out->height = height_;
  if (values) {
    out->operand = values->host->operand();
    out->owner = values->host;
  } else if (is_reference_file(method)) {
    const std::shared_ptr<const PictureLevels>& file = job_.references[reference_file_slot(method)];
    if (!file || file->width != width_ || file->height != height_) return nullptr;  // none, or not of this picture
    out->operand = planes_operand(file->planes.data(), sizeof(float) * static_cast<std::size_t>(width_), height_,
                                  OperandType::F32);
    out->owner = file;
  } else if (method == kOriginalPicture && job_.levels) {
    out->operand = planes_operand(job_.levels->planes.data(), sizeof(float) * static_cast<std::size_t>(width_), height_,
                                  OperandType::F32);
    out->owner = job_.levels;
  } else if (method == kOriginalPicture) {
    out->operand = rgba8_operand(picture_.data(), picture_.pitch_bytes());
    out->owner = job_.picture;
  } else if (job_.exact) {
    out->operand = interleaved_f64_operand(job_.exact->values.data(), width_, 4);
    out->owner = job_.exact;
  } else {
    return nullptr;  // the exact Gaussian is not there yet
  }
  return out;
}

DifferenceOperand NumbersWorker::JobRun::device_operand(int method, Values* values) {
  if (values) {
    if (values->d_planes.empty()) {  // a CPU method's planes: uploaded for the GPU reduction
      s_.planes_for(*values, width_, height_);
      s_.upload(ConstImageView{values->host->values.data(), width_, height_ * 4,
                               sizeof(float) * static_cast<std::size_t>(width_), PixelFormat::F32},
                values->d_planes);
    }
    return planes_operand(values->d_planes.view().data, values->d_planes.view().pitch_bytes, height_, OperandType::F32);
  }
  if (is_reference_file(method)) {
    const int slot = reference_file_slot(method);
    const PictureLevels& file = *job_.references[slot];
    const std::uint64_t number = (job_.key.a.method == method ? job_.key.a : job_.key.b).reference;
    if (s_.d_reference_number[slot] != number || s_.d_reference[slot].empty()) {
      s_.upload(ConstImageView{file.planes.data(), width_, height_ * 4, sizeof(float) * static_cast<std::size_t>(width_),
                               PixelFormat::F32},
                s_.d_reference[slot]);
      s_.d_reference_number[slot] = number;
    }
    return planes_operand(s_.d_reference[slot].view().data, s_.d_reference[slot].view().pitch_bytes, height_,
                          OperandType::F32);
  }
  if (method == kOriginalPicture) {
    // The picture's float planes are on the device already when a GPU method's values were
    // computed: the same values as the 8-bit picture, and no 64 MiB allocation and upload from
    // pageable memory (which held the frame's own CUDA calls back for ~10 ms at 4096x4096).
    if (!s_.d_source_planes.empty() || job_.levels) {
      if (s_.d_source_planes.empty())  // a picture of more than 8 bits is measured as its own samples
        s_.upload(ConstImageView{s_.source_planes->values.data(), width_, height_ * 4,
                                 sizeof(float) * static_cast<std::size_t>(width_), PixelFormat::F32},
                  s_.d_source_planes);
      return planes_operand(s_.d_source_planes.view().data, s_.d_source_planes.view().pitch_bytes, height_,
                            OperandType::F32);
    }
    if (s_.d_picture.empty()) s_.upload(picture_.view(), s_.d_picture);
    return rgba8_operand(s_.d_picture.view().data, s_.d_picture.view().pitch_bytes);
  }
  const ExactResult& exact = *job_.exact;
  if (!s_.d_exact_valid || s_.d_exact_key != exact.key) {
    FrameTrace::instance().note("numbers uploads the exact Gaussian");
    s_.d_exact.resize(exact.values.size() * sizeof(double));
    const std::size_t row = sizeof(double) * 4 * static_cast<std::size_t>(width_);  // interleaved RGBA
    copy_rows_through_pinned(RowCopy{exact.values.data(), row, s_.d_exact.data(), row, row, height_},
                             cudaMemcpyHostToDevice, s_.staging, s_.stream, kStagedPieceBytes, s_.between_pieces);
    s_.d_exact_key = exact.key;
    s_.d_exact_valid = true;
  }
  return interleaved_f64_operand(s_.d_exact.as<double>(), width_, 4);
}

DifferenceStats NumbersWorker::JobRun::reduce(int method_x, Values* x, const SlotValues& host_x, int method_y, Values* y,
                                              const SlotValues& host_y, bool reference) {
  DifferenceOperand host_y_operand = host_y.operand;
  host_y_operand.keep_unrounded = reference;
  if (!gpu_reduction_) return image_difference_host(DifferenceInput{host_x.operand, host_y_operand, width_, height_, 4});
  DifferenceOperand d_y = device_operand(method_y, y);
  d_y.keep_unrounded = reference;
  const DifferenceInput d_input{device_operand(method_x, x), d_y, width_, height_, 4};
  image_difference_async(d_input, s_.h_partial.as<DifferencePartial>(), s_.scratch, s_.done, s_.stream);
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(s_.done));  // this worker waits; no frame does
  return finish_difference(*s_.h_partial.as<DifferencePartial>(), d_input, 255.0);
}

std::string levels_text(double value, bool with_sign) {
  char text[32];
  const bool tiny = value != 0 && std::abs(value) < 0.0005;  // "0.000" would read as no difference
  std::snprintf(text, sizeof text, tiny ? (with_sign ? "%+.2e" : "%.2e") : (with_sign ? "%+.3f" : "%.3f"), value);
  return text;
}

std::shared_ptr<const std::vector<float>> rgba_floats(const SlotValues& values) {
  auto out = std::make_shared<std::vector<float>>(static_cast<std::size_t>(values.width) * values.height * 4);
  float* v = out->data();
  for (int y = 0; y < values.height; ++y)
    for (int x = 0; x < values.width; ++x)
      for (int c = 0; c < 4; ++c) *v++ = static_cast<float>(values.value(x, y, c));
  return out;
}

std::shared_ptr<const std::vector<float>> difference_floats(const SlotValues& a, const SlotValues& b) {
  const int width = a.width, height = a.height;
  auto out = std::make_shared<std::vector<float>>(static_cast<std::size_t>(width) * height * 4);
  float* d = out->data();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 4; ++c) *d++ = static_cast<float>(a.value(x, y, c) - b.value(x, y, c));
  return out;
}

void NumbersWorker::JobRun::follow_the_picture() {
  if (s_.picture != job_.key.a.picture) {  // a new picture: nothing cached is of use
    s_.cache.clear();
    s_.spare_planes.clear();
    s_.host_pool->clear();
    s_.source_planes.reset();
    s_.d_source_planes.release();
    s_.d_picture.release();
    s_.picture = job_.key.a.picture;
  }
  if (!s_.source_planes) {
    auto planes = std::make_shared<HostPlanes>();
    if (const PictureLevels* levels = job_.levels.get())  // the file's own samples, not the 8-bit copy
      *planes = HostPlanes{levels->width, levels->height, levels->planes};
    else
      split_channels(picture_, *planes);
    s_.source_planes = std::move(planes);
  }
}

void NumbersWorker::JobRun::measure(ComparisonNumbers& numbers, Values* a, Values* b) {
  set_activity_("comparing");
  if (numbers.values_a && numbers.values_b)
    numbers.a_vs_b = reduce(job_.key.a.method, a, *numbers.values_a, job_.key.b.method, b, *numbers.values_b, false);
  if (const ExactResult* exact = job_.exact.get()) {
    const SlotValues exact_values{width_, height_, interleaved_f64_operand(exact->values.data(), width_, 4), job_.exact};
    if (job_.key.a.method != kExactGaussian && numbers.values_a && !superseded_)
      numbers.a_vs_exact = reduce(job_.key.a.method, a, *numbers.values_a, kExactGaussian, nullptr, exact_values, true);
    if (job_.key.b.method != kExactGaussian && numbers.values_b && !superseded_)
      numbers.b_vs_exact = reduce(job_.key.b.method, b, *numbers.values_b, kExactGaussian, nullptr, exact_values, true);
  }
  if (!numbers.values_a || !numbers.values_b)
    numbers.error = is_reference_file(job_.key.a.method) || is_reference_file(job_.key.b.method)
                        ? "waiting for the exact Gaussian or the file"
                        : "waiting for the exact Gaussian";
  for (const std::string& id : eight_bit_only_)
    numbers.note += (numbers.note.empty() ? "" : "; ") + id + " has no float path: its figures are of its 8-bit result";
}

bool NumbersWorker::JobRun::run(ComparisonNumbers& numbers) {
  follow_the_picture();
  if (gpu_) s_.ensure_cuda();
  // Large copies go one piece per frame the viewer draws (staged_copy.hpp), for this job only.
  s_.between_pieces = wait_for_frame_;
  struct ForgetPieceWait {
    State& state;
    ~ForgetPieceWait() { state.between_pieces = nullptr; }
  } forget_piece_wait{s_};
  // However the job ends (superseded included), the device planes it made go to the spares: a
  // cudaFree here waits for the whole device and holds the driver's locks, and the frame's own CUDA
  // calls wait with it (holds of 15–24 ms at a superseded job's end in the H100 sessions).
  struct RetireKept {
    State& state;
    std::vector<std::unique_ptr<Values>>& kept;
    ~RetireKept() { state.retire(kept); }
  } retire_kept{s_, keep_};

  // 1. Each slot's values.
  const auto traced = [&](const char* what, const SlotSetting& setting) {
    const auto t0 = std::chrono::steady_clock::now();
    FrameTrace::instance().note(std::string("numbers ") + what + " begins");
    Values* values = values_of(setting);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    FrameTrace::instance().note(std::string("numbers ") + what + " took " + std::to_string(ms) + " ms");
    return values;
  };
  Values* a = traced("values a", job_.key.a);
  if (superseded_) return false;
  Values* b = traced("values b", job_.key.b);
  if (superseded_) return false;
  s_.retire(s_.cache);  // what this job did not use goes (its device planes kept for reuse)
  s_.cache = std::move(keep_);
  keep_.clear();

  // 2. Operands on the host (and the inspector's values).
  numbers.values_a = host_values(job_.key.a.method, a);
  numbers.values_b = host_values(job_.key.b.method, b);
  if (a) numbers.auto_a = a->auto_choice;
  if (b) numbers.auto_b = b->auto_choice;

  // 3. The reductions, and A - B for the difference view.
  measure(numbers, a, b);
  if (numbers.values_a && numbers.values_b && !superseded_) {
    set_activity_("A - B for the difference view");
    numbers.difference = difference_floats(*numbers.values_a, *numbers.values_b);
    if (job_.levels && !superseded_) {
      numbers.shown_a = rgba_floats(*numbers.values_a);
      numbers.shown_b = rgba_floats(*numbers.values_b);
    }
  }
  return true;
}

void NumbersWorker::compute(Job& job, const std::atomic<bool>& superseded) {
  use_background_cpu_share(false);  // its CPU paths leave cores free; it makes CUDA calls: priority stays
  const auto start = std::chrono::steady_clock::now();
  ComparisonNumbers numbers;
  numbers.key = job.key;
  try {
    JobRun run(*state_, job, gpu_, superseded, [this, &superseded] { wait_for_next_frame(superseded); },
               [this](std::string text) { set_activity(std::move(text)); });
    numbers.on_gpu = run.gpu_reduction();
    if (!run.run(numbers)) return;  // superseded
  } catch (const std::exception& error) {
    numbers.error = std::string("the numbers could not be worked out: ") + error.what();
    if (state_->stream) cudaStreamSynchronize(state_->stream);
    state_->cache.clear();
  }
  set_activity({});
  if (superseded) return;
  numbers.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  FrameTrace::instance().note("numbers done in " + std::to_string(numbers.seconds) + " s");
  std::optional<ComparisonNumbers> previous;  // freed after the lock (its planes may be the last reference)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    previous = std::move(latest_);
    latest_ = std::move(numbers);
  }
}

}  // namespace gausslab
