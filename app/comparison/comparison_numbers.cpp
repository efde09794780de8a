#include "comparison/comparison_numbers.hpp"

#include <chrono>
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

bool is_gpu_method(int method) {
  return method >= 0 && method_registry().at(static_cast<std::size_t>(method)).info.backend == Backend::Cuda;
}

std::string slot_name(int method) {
  if (method == kOriginalPicture) return "the original picture";
  if (method == kExactGaussian) return "the exact Gaussian";
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
  Method* instance(int method) {
    if (instances.size() != method_registry().size()) instances.resize(method_registry().size());
    auto& made = instances.at(static_cast<std::size_t>(method));
    if (!made) {
      const MethodEntry& entry = method_registry()[static_cast<std::size_t>(method)];
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
                           std::shared_ptr<const ExactResult> exact) {
  thread_.submit(Job{key, std::move(picture), std::move(exact)});
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

void NumbersWorker::compute(Job& job, const std::atomic<bool>& superseded) {
  State& s = *state_;
  use_background_cpu_share(false);  // its CPU paths leave cores free; it makes CUDA calls: priority stays
  const auto start = std::chrono::steady_clock::now();
  const ImageRgba8& picture = *job.picture;
  const int width = picture.width(), height = picture.height();
  ComparisonNumbers numbers;
  numbers.key = job.key;
  const bool gpu_reduction = gpu_ && (is_gpu_method(job.key.a.method) || is_gpu_method(job.key.b.method));
  numbers.on_gpu = gpu_reduction;
  try {
    if (s.picture != job.key.a.picture) {  // a new picture: nothing cached is of use
      s.cache.clear();
      s.spare_planes.clear();
      s.host_pool->clear();
      s.source_planes.reset();
      s.d_source_planes.release();
      s.d_picture.release();
      s.picture = job.key.a.picture;
    }
    if (!s.source_planes) {
      auto planes = std::make_shared<HostPlanes>();
      split_channels(picture, *planes);
      s.source_planes = std::move(planes);
    }
    if (gpu_) s.ensure_cuda();
    // Large copies go one piece per frame the viewer draws (staged_copy.hpp), for this job only.
    s.between_pieces = [this, &superseded] { wait_for_next_frame(superseded); };
    struct ForgetPieceWait {
      State& state;
      ~ForgetPieceWait() { state.between_pieces = nullptr; }
    } forget_piece_wait{s};

    // 1. Each slot's values (a method's float planes are computed once per setting).
    std::vector<std::unique_ptr<State::Values>> keep;
    // However the job ends (superseded included), the device planes it made go to the spares: a
    // cudaFree here waits for the whole device and holds the driver's locks, and the frame's own
    // CUDA calls wait with it (holds of 15–24 ms at a superseded job's end in the H100 sessions).
    struct RetireKept {
      State& state;
      std::vector<std::unique_ptr<State::Values>>& kept;
      ~RetireKept() { state.retire(kept); }
    } retire_kept{s, keep};
    std::vector<std::string> eight_bit_only;
    const auto values_of = [&](const SlotSetting& setting) -> State::Values* {
      if (setting.method < 0) return nullptr;  // original, exact: used as they are
      for (auto& kept : keep)
        if (kept->setting == setting) return kept.get();
      std::unique_ptr<State::Values> values;
      for (auto& cached : s.cache)
        if (cached && cached->setting == setting) values = std::move(cached);
      if (!values) {
        values = std::make_unique<State::Values>();
        values->setting = setting;
        Method* method = s.instance(setting.method);
        const FilterProblem problem{width, height, PixelFormat::F32, setting.params};
        std::shared_ptr<HostPlanes> host = s.host_pool->make(width, height);
        if (!method->unsupported_reason(problem).empty()) {
          // A method with no float path (lut_2d works on 8-bit values only): its 8-bit result.
          const FilterProblem problem8{width, height, PixelFormat::Rgba8, setting.params};
          method->prepare(problem8);
          set_activity("running " + slot_name(setting.method) + " (8-bit only)");
          ImageRgba8 result(width, height);
          if (is_gpu_method(setting.method)) {
            if (!gpu_) throw std::runtime_error(slot_name(setting.method) + " needs a CUDA device");
            if (s.d_picture.empty()) s.upload(picture.view(), s.d_picture);
            s.d_result8.resize(width, height, PixelFormat::Rgba8);
            method->run(s.d_picture.view(), s.d_result8.view(), nullptr, s.stream);
            s.download(s.d_result8, result.view());
          } else {
            method->run(picture.view(), result.view(), nullptr, nullptr);
          }
          split_channels(result, *host);
          values->host = std::move(host);
          eight_bit_only.push_back(slot_name(setting.method));
          keep.push_back(std::move(values));
          return keep.back().get();
        }
        // A slow window method runs its planes in tiles (numbers_tiles.hpp), prepared there.
        const int tile_core =
            gpu_ && is_gpu_method(setting.method)
                ? numbers_tile_core(method->info(), width, height, setting.params.radius())
                : 0;
        if (tile_core == 0) method->prepare(problem);
        set_activity("running " + slot_name(setting.method) + " on the float planes" +
                     (tile_core > 0 ? " in tiles" : ""));
        if (is_gpu_method(setting.method)) {
          if (!gpu_) throw std::runtime_error(slot_name(setting.method) + " needs a CUDA device");
          if (s.d_source_planes.empty())
            s.upload(ConstImageView{s.source_planes->values.data(), width, height * 4,
                                    sizeof(float) * static_cast<std::size_t>(width), PixelFormat::F32},
                     s.d_source_planes);
          s.planes_for(*values, width, height);
          const std::size_t pitch = values->d_planes.view().pitch_bytes, src_pitch = s.d_source_planes.view().pitch_bytes;
          for (int c = 0; c < 4; ++c) {
            const ConstImageView src{static_cast<const char*>(s.d_source_planes.view().data) + src_pitch * height * c,
                                     width, height, src_pitch, PixelFormat::F32};
            const ImageView dst{static_cast<char*>(values->d_planes.view().data) + pitch * height * c, width, height,
                                pitch, PixelFormat::F32};
            if (tile_core == 0) {
              // One plane per frame drawn, as the tiles below: four planes at once kept the GPU busy
              // for the frames' kernels to wait behind.
              if (c > 0) {
                GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
                wait_for_next_frame(superseded);
              }
              method->run(src, dst, nullptr, s.stream);
              continue;
            }
            if (!run_plane_in_tiles(*method, setting.params, src, dst, tile_core, s.stream, s.tiles, superseded,
                                    [&] { wait_for_next_frame(superseded); })) {
              keep.push_back(std::move(values));  // superseded: its planes go to the spares with the others
              return nullptr;                     // and the caller returns without keeping anything
            }
          }
          const ImageView all_host{host->values.data(), width, height * 4, sizeof(float) * static_cast<std::size_t>(width),
                                   PixelFormat::F32};
          s.download(values->d_planes, all_host);
        } else {
          HostPlanes& source = const_cast<HostPlanes&>(*s.source_planes);
          for (int c = 0; c < 4 && !superseded; ++c) method->run(source.plane(c), host->plane(c), nullptr, nullptr);
        }
        values->host = std::move(host);
      }
      keep.push_back(std::move(values));
      return keep.back().get();
    };
    const auto traced = [&](const char* what, auto&& fn) {
      const auto t0 = std::chrono::steady_clock::now();
      FrameTrace::instance().note(std::string("numbers ") + what + " begins");
      auto result = fn();
      FrameTrace::instance().note(std::string("numbers ") + what + " took " +
                                  std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()) + " ms");
      return result;
    };
    State::Values* a = traced("values a", [&] { return values_of(job.key.a); });
    if (superseded) return;
    State::Values* b = traced("values b", [&] { return values_of(job.key.b); });
    if (superseded) return;
    s.retire(s.cache);  // what this job did not use goes (its device planes kept for reuse)
    s.cache = std::move(keep);

    // 2. Operands on the host (and the inspector's values).
    const ExactResult* exact = job.exact.get();
    const auto host_values = [&](int method, State::Values* values) -> std::shared_ptr<const SlotValues> {
      auto out = std::make_shared<SlotValues>();
      out->width = width;
      out->height = height;
      if (values) {
        out->operand = values->host->operand();
        out->owner = values->host;
      } else if (method == kOriginalPicture) {
        out->operand = rgba8_operand(picture.data(), picture.pitch_bytes());
        out->owner = job.picture;
      } else if (exact) {
        out->operand = interleaved_f64_operand(exact->values.data(), width, 4);
        out->owner = job.exact;
      } else {
        return nullptr;  // the exact Gaussian is not there yet
      }
      return out;
    };
    numbers.values_a = host_values(job.key.a.method, a);
    numbers.values_b = host_values(job.key.b.method, b);

    // 3. The reductions.
    const auto device_operand = [&](int method, State::Values* values) -> DifferenceOperand {
      if (values) {
        if (values->d_planes.empty()) {  // a CPU method's planes: uploaded for the GPU reduction
          s.planes_for(*values, width, height);
          s.upload(ConstImageView{values->host->values.data(), width, height * 4,
                                  sizeof(float) * static_cast<std::size_t>(width), PixelFormat::F32},
                   values->d_planes);
        }
        return planes_operand(values->d_planes.view().data, values->d_planes.view().pitch_bytes, height, OperandType::F32);
      }
      if (method == kOriginalPicture) {
        // The picture's float planes are on the device already when a GPU method's values were
        // computed: the same values as the 8-bit picture, and no 64 MiB allocation and upload from
        // pageable memory (which held the frame's own CUDA calls back for ~10 ms at 4096x4096).
        if (!s.d_source_planes.empty())
          return planes_operand(s.d_source_planes.view().data, s.d_source_planes.view().pitch_bytes, height,
                                OperandType::F32);
        if (s.d_picture.empty()) s.upload(picture.view(), s.d_picture);
        return rgba8_operand(s.d_picture.view().data, s.d_picture.view().pitch_bytes);
      }
      if (!s.d_exact_valid || s.d_exact_key != exact->key) {
        FrameTrace::instance().note("numbers uploads the exact Gaussian");
        s.d_exact.resize(exact->values.size() * sizeof(double));
        const std::size_t row = sizeof(double) * 4 * static_cast<std::size_t>(width);  // interleaved RGBA
        copy_rows_through_pinned(RowCopy{exact->values.data(), row, s.d_exact.data(), row, row, height},
                                 cudaMemcpyHostToDevice, s.staging, s.stream, kStagedPieceBytes, s.between_pieces);
        s.d_exact_key = exact->key;
        s.d_exact_valid = true;
      }
      return interleaved_f64_operand(s.d_exact.as<double>(), width, 4);
    };
    // reference: y is the exact Gaussian as the reference (not a slot showing it), so the rounded
    // figures compare x's 8-bit result with the exact values.
    const auto reduce = [&](int method_x, State::Values* x, const SlotValues& host_x, int method_y, State::Values* y,
                            const SlotValues& host_y, bool reference) -> DifferenceStats {
      DifferenceOperand host_y_operand = host_y.operand;
      host_y_operand.keep_unrounded = reference;
      if (!gpu_reduction) return image_difference_host(DifferenceInput{host_x.operand, host_y_operand, width, height, 4});
      DifferenceOperand d_y = device_operand(method_y, y);
      d_y.keep_unrounded = reference;
      const DifferenceInput d_input{device_operand(method_x, x), d_y, width, height, 4};
      image_difference_async(d_input, s.h_partial.as<DifferencePartial>(), s.scratch, s.done, s.stream);
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(s.done));  // this worker waits; no frame does
      return finish_difference(*s.h_partial.as<DifferencePartial>(), d_input, 255.0);
    };
    set_activity("comparing");
    if (numbers.values_a && numbers.values_b)
      numbers.a_vs_b = reduce(job.key.a.method, a, *numbers.values_a, job.key.b.method, b, *numbers.values_b, false);
    if (exact) {
      const SlotValues exact_values{width, height, interleaved_f64_operand(exact->values.data(), width, 4), job.exact};
      if (job.key.a.method != kExactGaussian && numbers.values_a && !superseded)
        numbers.a_vs_exact = reduce(job.key.a.method, a, *numbers.values_a, kExactGaussian, nullptr, exact_values, true);
      if (job.key.b.method != kExactGaussian && numbers.values_b && !superseded)
        numbers.b_vs_exact = reduce(job.key.b.method, b, *numbers.values_b, kExactGaussian, nullptr, exact_values, true);
    }
    if (!numbers.values_a || !numbers.values_b) numbers.error = "waiting for the exact Gaussian";
    for (const std::string& id : eight_bit_only)
      numbers.note += (numbers.note.empty() ? "" : "; ") + id + " has no float path: its figures are of its 8-bit result";
  } catch (const std::exception& error) {
    numbers.error = std::string("the numbers could not be worked out: ") + error.what();
    if (s.stream) cudaStreamSynchronize(s.stream);
    s.cache.clear();
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
