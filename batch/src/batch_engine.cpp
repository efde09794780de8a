#include "gausslab/batch/batch_engine.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <sstream>
#include <string_view>
#include <thread>

#include "gausslab/batch/cpu_share.hpp"
#include "gausslab/batch/gpu_lanes.hpp"
#include "gausslab/batch/host_buffer_pool.hpp"
#include "gausslab/batch/memory_budget.hpp"
#include "gausslab/batch/thread_pool.hpp"
#include "gausslab/core/atomic_file.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

using Lease = HostBufferPool::Lease;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string size_text(int width, int height) { return std::to_string(width) + "×" + std::to_string(height); }

std::size_t image_bytes(const BatchPixels& image) { return image.size_bytes(); }

// The file's `channels` of an image held as RGBA8 (and converted to another type for writing):
// grey = channel 0, grey + alpha = 0 and 3, RGB = 0..2.
HostImage convert_channels_as_file(const HostImage& rgba, int channels) {
  if (channels == 4) return rgba;
  HostImage out(rgba.width(), rgba.height(), with_channels(rgba.format(), channels));
  const std::size_t sample = bytes_per_sample(sample_type(rgba.format()));
  static constexpr int kPick[3][3] = {{0}, {0, 3}, {0, 1, 2}};
  for (int y = 0; y < rgba.height(); ++y) {
    const unsigned char* in = rgba.row<unsigned char>(y);
    unsigned char* o = out.row<unsigned char>(y);
    for (int x = 0; x < rgba.width(); ++x)
      for (int c = 0; c < channels; ++c)
        std::memcpy(o + (static_cast<std::size_t>(x) * channels + c) * sample,
                    in + (static_cast<std::size_t>(x) * 4 + kPick[channels - 1][c]) * sample, sample);
  }
  return out;
}

const char* sample_words(SampleType sample) {
  switch (sample) {
    case SampleType::U8: return "u8";
    case SampleType::U16: return "u16";
    case SampleType::F16: return "f16";
    default: return "f32";
  }
}

GpuFault gpu_fault_of(const std::string& kind) {
  if (kind == "device-oom") return GpuFault::DeviceOutOfMemory;
  if (kind == "launch") return GpuFault::LaunchFailure;
  return GpuFault::None;
}

// Bands of at most max_rows rows covering each band of `plan` (global rows, same halo).
BandPlan subdivide(const BandPlan& plan, int max_rows) {
  BandPlan finer{plan.height, plan.halo, {}};
  for (const Band& band : plan.bands) {
    if (band.rows == 0) continue;
    const BandPlan pieces = bands_of_at_most(band.rows, plan.halo, max_rows);
    for (const Band& piece : pieces.bands) finer.bands.push_back({band.first_row + piece.first_row, piece.rows});
  }
  return finer;
}

bool is_out_of_memory(const CudaError& error) { return error.code() == cudaErrorMemoryAllocation; }

// The image copied into a pinned buffer, which holds its pixels from then on (filtered in place and
// encoded from there); its own memory goes back.
void move_into_pinned(BatchPixels& image, Lease lease) {
  std::memcpy(lease->data, image.data(), image_bytes(image));
  const ImageView pinned{lease->data, image.width(), image.height(), image.pitch_bytes(), image.format()};
  image = BatchPixels(pinned, std::move(lease));
}

}  // namespace

BatchPixels BatchPixels::like(const BatchPixels& other) {
  return BatchPixels(HostImage::uninitialized(other.width(), other.height(), other.format()));
}

BatchPixels pooled_result(const BatchPixels& filtered, PoolMode pool) {
  if (pool == PoolMode::None) return filtered;
  if (std::string problem = pool_problem(filtered.width(), filtered.height()); !problem.empty())
    throw PoolRefusal("--pool " + std::string(to_string(pool)) + ": " + problem);
  HostImage pooled = HostImage::uninitialized(pooled_side(filtered.width()), pooled_side(filtered.height()), filtered.format());
  pool_2x2(filtered.view(), pooled.view(), pool);
  return BatchPixels(std::move(pooled));
}

std::string output_conversion_rule(SampleType from, SampleType to) {
  if (from == to) return {};
  const std::string arrow = std::string(sample_words(from)) + " written as " + sample_words(to) + ": ";
  const std::string max_to = is_integer(to) ? std::to_string(static_cast<int>(nominal_max(to))) : "";
  const std::string max_from = is_integer(from) ? std::to_string(static_cast<int>(nominal_max(from))) : "";
  if (is_integer(from) && is_integer(to))
    return arrow + "levels × " + max_to + "/" + max_from + ", rounded half up";
  if (is_float(from) && is_integer(to))
    return arrow + "values clamped to [0, 1], × " + max_to + ", rounded half up (NaN as 0)";
  if (is_integer(from) && is_float(to))
    return arrow + "levels ÷ " + max_from + " (0..1)" + (to == SampleType::F16 ? ", rounded to the nearest half" : ", exact");
  return arrow + (to == SampleType::F16 ? "rounded to the nearest half (beyond ±65504: infinite)" : "exact (every half is a float32)");
}

HostImage convert_for_output(const ConstImageView& image, SampleType to, std::size_t* clamped) {
  return convert_samples(image, to, SampleScaling::Nominal, IntegerRounding::Nearest, clamped);
}

std::string file_failure_message(const std::string& input, const std::string& method_id, FileOutcome& outcome,
                                 const std::exception_ptr& error) {
  const std::string size = outcome.width ? " (" + size_text(outcome.width, outcome.height) + ")" : "";
  try {
    std::rethrow_exception(error);
  } catch (const ImageLoadError& e) {
    return e.what();  // names the file
  } catch (const ImageSaveError& e) {
    return e.what();  // names the output
  } catch (const std::bad_alloc&) {
    return quoted(input) + ": out of host memory" + (outcome.width ? " filtering" + size : " while decoding") +
           "; free memory or lower --max-in-flight";
  } catch (const CudaError& e) {
    if (is_out_of_memory(e))
      return quoted(input) + ": out of device memory" + size + ": " + e.what() +
             "; lower --max-device-memory or --max-in-flight, or use another method";
    return quoted(input) + ": the GPU failed" + size + ": " + e.what();
  } catch (const PoolRefusal& e) {
    outcome.refused = true;
    return quoted(input) + ": " + e.what();
  } catch (const FormatRefusal& e) {
    outcome.refused = true;
    return quoted(input) + ": " + e.what();
  } catch (const std::invalid_argument& e) {  // a method refusing the problem
    outcome.refused = true;
    return quoted(input) + ": " + method_id + " refuses this" + size + " image: " + e.what();
  } catch (const std::exception& e) {
    return quoted(input) + ": " + e.what();
  }
}

std::string injected_fault(const std::string& input) {
  const char* value = std::getenv("GAUSSLAB_BATCH_FAULT");
  if (!value || !*value) return {};
  std::stringstream items(value);
  std::string item;
  while (std::getline(items, item, ',')) {
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos || colon + 1 >= item.size()) continue;
    if (input.find(item.substr(colon + 1)) != std::string::npos) return item.substr(0, colon);
  }
  return {};
}

class BatchEngine::Impl {
 public:
  explicit Impl(const EngineOptions& options);
  ~Impl();

  EngineReport run(const std::vector<BatchJob>& jobs, const OnFile& on_file, const std::function<void()>& poll);
  void filter_rows(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst, int dst_first_row,
                   const std::string& fault_kind);
  void fill_resources(EngineReport& report);

  // The file stages (BatchEngine::read_and_decode, encode_and_write). encode_and_write is
  // encode_to_temporary (the encode and write stages) then commit_output (the sync stage), which
  // the pipelined run does on the publisher's threads. `pinned` (when given) may lend a pinned
  // buffer for an image of that size and format to decode into (a null lease: none).
  using PinnedTarget = std::function<Lease(int width, int height, PixelFormat format)>;
  DecodedFile read_and_decode(const std::string& path, const PinnedTarget& pinned = {});
  void check_item(const BatchJob& job, const DecodedFile& decoded) const;
  void encode_and_write(const std::string& path, const BatchPixels& image, const DecodedFile& source);
  std::unique_ptr<AtomicFile> encode_to_temporary(const std::string& path, const BatchPixels& image,
                                                  const DecodedFile& source);
  void commit_output(AtomicFile& file);

  EngineOptions options_;
  const MethodEntry* entry_ = nullptr;
  bool gpu_ = false;
  int threads_ = 1;                     // the pool's, and cpu_openmp's OpenMP threads
  std::atomic<int> openmp_threads_{0};  // what OpenMP said it would use, for the report
  StageRecorder clock_;
  std::unique_ptr<GpuLanes> lanes_;
  std::unique_ptr<HostBufferPool> buffers_;
  std::unique_ptr<ThreadPool> pool_;
  // Pipelined: the threads that commit the outputs (AtomicFile::commit waits for the disk, and on
  // the pool's threads that wait kept them from decoding and encoding), and how many outputs may
  // be written and waiting for them at once.
  std::unique_ptr<ThreadPool> publisher_;
  int max_syncing_ = 0;
  std::size_t host_budget_ = 0;
  // Each thread's kept read buffer (read_and_decode), and all of them together: counted as held.
  std::size_t kept_read_bytes_ = 0, kept_read_total_ = 0;
  std::vector<std::string> notes_;
  mutable std::mutex notes_mutex_;

 private:
  struct Item {
    std::size_t index = 0;
    const BatchJob* job = nullptr;
    std::string fault;
    DecodedFile decoded;  // the file's pixels (8-bit as RGBA8), type and channels
    BatchPixels result;   // the output of a CPU or banded image (others download in place)
    std::unique_ptr<AtomicFile> output;  // written, waiting for the publisher to commit it
    bool banded = false;
    bool released = false;  // its memory and its place among the images in flight given back
    std::size_t held_bytes = 0;
    double start_s = 0;
    FileOutcome outcome;
  };
  using ItemPtr = std::shared_ptr<Item>;

  void note(const std::string& text);
  std::unique_ptr<Method> take_cpu_method();
  void give_cpu_method(std::unique_ptr<Method> method);
  // Before a CPU method filters on the calling thread: this process's share of the cores for OpenMP.
  void use_cpu_share();

  // Stages, each timed into clock_. Each throws what the stage throws. read_item decodes into a
  // pinned buffer when `pinned` lends one.
  void read_item(Item& item, const PinnedTarget& pinned = {});
  void filter_on_cpu(Item& item);
  void filter_on_gpu_in_bands(Item& item);
  void write_item(Item& item, const BatchPixels& image);
  // Pipelined: encodes and writes the output, gives the item's memory back, and hands the file to
  // the publisher, which commits it and then reports the file (waits while max_syncing_ files
  // wait for the publisher: the disk is then the bottleneck).
  void write_and_publish(const ItemPtr& item, const BatchPixels& image);

  // The pipelined run's steps.
  void start_item(const ItemPtr& item);
  // A pinned buffer for a whole image the lanes take, if one is free now (never waits: the pool's
  // threads must not block on buffers that only the pool's encoding gives back).
  Lease pinned_now(int width, int height, PixelFormat format);
  void stage_in(const ItemPtr& item, Lease lease);
  void dispatcher();
  void harvest(int lane);
  // Filters a whole image through every lane in bands (drained first); `remark` goes in the notes.
  void run_in_bands(const ItemPtr& item, const char* remark);
  // A GPU failure: the file fails with its reason; a device left unusable fails the rest too.
  void fail_on_gpu(const ItemPtr& item, const std::exception_ptr& error);
  void finish_gpu_item(const ItemPtr& item);
  void fail(const ItemPtr& item, const std::string& message);
  // finish = record (its outcome, the counts and on_file) + release (the item's memory and its
  // place in flight; once). Nothing may touch the run after its last file left both the images in
  // flight and the files syncing: run() returns then, and on_file with it.
  void finish(const ItemPtr& item);
  void release(const ItemPtr& item);
  void record(const ItemPtr& item);

  void run_sequential(const std::vector<BatchJob>& jobs);
  std::string failure_message(Item& item, const std::exception_ptr& error) {
    return file_failure_message(item.job->input, options_.method_id, item.outcome, error);
  }
  int band_rows_limit(int width, PixelFormat format, int height);

  // Per-run state.
  const OnFile* on_file_ = nullptr;
  std::mutex mutex_;  // guards the fields below
  std::condition_variable changed_;
  int in_flight_ = 0;
  int syncing_ = 0;  // outputs handed to the publisher and not yet reported
  std::size_t held_bytes_ = 0;
  std::deque<ItemPtr> gpu_queue_;
  bool inputs_done_ = false;
  std::vector<ItemPtr> lane_items_;
  std::string gpu_broken_;  // why the device can no longer be used
  EngineReport report_;
  double run_start_s_ = 0;
  std::mutex report_mutex_;

  std::mutex cpu_methods_mutex_, openmp_mutex_;
  mutable std::mutex probe_mutex_;
  mutable std::unique_ptr<Method> probe_;  // asked before an image is filtered (check_item)
  std::vector<std::unique_ptr<Method>> cpu_methods_;
};

BatchEngine::Impl::Impl(const EngineOptions& options) : options_(options) {
  entry_ = find_method(options.method_id);
  if (!entry_) throw std::invalid_argument("unknown method '" + options.method_id + "'; use one of: " + method_id_list());
  gpu_ = entry_->info.backend == Backend::Cuda;
  threads_ = cpu_threads_per_rank(options.threads, options.host_sharers);
  const std::size_t physical = host_physical_bytes();
  const std::size_t sharers = static_cast<std::size_t>(std::max(1, options.host_sharers));
  host_budget_ = options.host_budget_bytes ? options.host_budget_bytes
                                           : static_cast<std::size_t>(physical * kHostMemoryShare) / sharers;
  if (host_budget_ == 0) host_budget_ = std::size_t(8) << 30;
  // The pool's threads and the caller's (a sequential run, the MPI layer) read files.
  const int readers = threads_ + 1;
  kept_read_bytes_ = kept_read_buffer_bytes(host_budget_, readers);
  kept_read_total_ = kept_read_bytes_ * static_cast<std::size_t>(readers);
  const std::size_t pinned_budget =
      physical ? static_cast<std::size_t>(physical * kPinnedMemoryShare) / sharers : std::size_t(4) << 30;

  if (gpu_) {
    GAUSSLAB_CUDA_CHECK(cudaSetDevice(options.device));
    std::size_t budget = options.max_device_bytes;
    if (budget == 0) {
      std::size_t free_bytes = 0, total_bytes = 0;
      GAUSSLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      budget = static_cast<std::size_t>(free_bytes * kDeviceMemoryShare) / static_cast<std::size_t>(std::max(1, options.gpu_sharers));
    }
    lanes_ = std::make_unique<GpuLanes>(*entry_, options.pipelined ? options.lanes : 1, options.device, budget, clock_);
  }
  buffers_ = std::make_unique<HostBufferPool>(
      gpu_ && options.pinned ? HostBufferPool::Kind::Pinned : HostBufferPool::Kind::Pageable, pinned_budget);
  if (options.pipelined) {
    const int device = options.device;
    const bool gpu = gpu_;
    pool_ = std::make_unique<ThreadPool>(threads_, [device, gpu] {
      if (gpu) (void)cudaSetDevice(device);  // pinned allocations belong to this rank's device
    });
    // Threads that wait for the disk cost no CPU: as many as the pool, from 2 to 8 (more syncing at
    // once did not sync more files a second: docs/batch.md), and at most twice as many outputs
    // waiting, so that no more than 16 temporary files wait for their sync (AtomicFile's 32 slots
    // for SIGINT/SIGTERM's clean-up also hold the files the pool is writing).
    const int sync_threads = std::clamp(threads_, 2, 8);
    publisher_ = std::make_unique<ThreadPool>(sync_threads);
    max_syncing_ = 2 * sync_threads;
  }
  if (gpu_ && options_.bands > 1 && !bands_match_single_pass(options_.method_id))
    note(options_.method_id + "'s bands agree with a single pass within its accuracy bound, not byte for byte");
}

BatchEngine::Impl::~Impl() {
  pool_.reset();       // joins: no task is left to touch the lanes or the buffers
  publisher_.reset();  // after the pool, whose tasks hand it files
  lanes_.reset();
  buffers_.reset();
}

void BatchEngine::Impl::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(notes_mutex_);
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
}

std::unique_ptr<Method> BatchEngine::Impl::take_cpu_method() {
  {
    std::lock_guard<std::mutex> lock(cpu_methods_mutex_);
    if (!cpu_methods_.empty()) {
      std::unique_ptr<Method> method = std::move(cpu_methods_.back());
      cpu_methods_.pop_back();
      return method;
    }
  }
  return entry_->create();
}

void BatchEngine::Impl::give_cpu_method(std::unique_ptr<Method> method) {
  std::lock_guard<std::mutex> lock(cpu_methods_mutex_);
  cpu_methods_.push_back(std::move(method));
}

void BatchEngine::Impl::use_cpu_share() {
  // The pool's threads, the caller's in a sequential run and the MPI layer's all filter: each
  // sets its own OpenMP thread count (cheap: one value in the thread's OpenMP state).
  if (options_.method_id != "cpu_openmp") return;
  const int used = use_openmp_threads(threads_);
  if (used > openmp_threads_.load()) openmp_threads_.store(used);
}

DecodedFile BatchEngine::Impl::read_and_decode(const std::string& path, const PinnedTarget& pinned) {
  const double t0 = clock_.now_s();
  // One buffer per thread for the files' bytes, kept from file to file (a fresh one cost every
  // file 7,000 page faults, the kernel zeroing each page: docs/batch.md), but not beyond
  // kept_read_bytes_ (kept_read_buffer_bytes: within a share of the host budget), so that one
  // huge file does not stay in memory.
  thread_local UninitializedBytes bytes;
  struct Trim {
    std::size_t keep;
    ~Trim() {
      if (bytes.capacity() > keep) UninitializedBytes().swap(bytes);
    }
  } trim{kept_read_bytes_};
  read_image_bytes(path, bytes);
  const double t1 = clock_.now_s();
  clock_.add(Stage::Read, t0, t1);
  if (injected_fault(path) == "bad-alloc") throw std::bad_alloc();
  // The 8-bit decoders that decode into RGBA8 hand it over as it is, the BMP decoder into a
  // pinned buffer when `pinned` lends one (the lease then goes with the pixels).
  int rgba8_channels = 0;
  Lease lease;
  const PixelTarget target = [&](int width, int height, PixelFormat format) {
    if (pinned) lease = pinned(width, height, format);
    return lease ? ImageView{lease->data, width, height, static_cast<std::size_t>(width) * bytes_per_pixel(format), format}
                 : ImageView{};
  };
  LoadedImage loaded = load_image_from_memory(bytes.data(), bytes.size(), path, {}, rgba8_channels, target);
  DecodedFile decoded;
  decoded.float64_source = loaded.source_is_float64();
  decoded.pnm_maxval = loaded.maxval;
  if (rgba8_channels > 0) {
    decoded.file_format = make_pixel_format(SampleType::U8, rgba8_channels);
    decoded.pixels = loaded.decoded_into.empty() ? BatchPixels(std::move(loaded.image))
                                                 : BatchPixels(loaded.decoded_into, std::move(lease));
  } else if (sample_type(loaded.image.format()) == SampleType::U8) {
    decoded.file_format = loaded.image.format();
    decoded.pixels = BatchPixels(to_rgba8(loaded.image.view()));  // as reduce_to_rgba8: exact for 8 bits
  } else {
    decoded.file_format = loaded.image.format();
    decoded.pixels = BatchPixels(std::move(loaded.image));
  }
  clock_.add(Stage::Decode, t1, clock_.now_s());
  if (!loaded.note.empty()) note(quoted(path) + ": " + loaded.note);  // float64's names it too
  if (decoded.float64_source && loaded.note.find("float64") == std::string::npos)
    note(quoted(path) + ": float64 samples, filtered in float32");
  if (decoded.float64_source && !options_.output_type)
    note("float64 sources are written back as float64 where the output format holds it (fits, npy)");
  return decoded;
}

void BatchEngine::Impl::check_item(const BatchJob& job, const DecodedFile& decoded) const {
  // The format (and kernel, rounding) asked on a small piece of the image: a size the method refuses
  // whole may still go through in bands, and is answered where it is prepared.
  const FilterProblem problem{std::min(decoded.pixels.width(), 64), std::min(decoded.pixels.height(), 64),
                              decoded.pixels.format(), options_.params};
  // The method's own answer (auto's says what its candidates take), from an instance kept for it.
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(probe_mutex_);
    if (!probe_) probe_ = entry_->create();
    reason = probe_->unsupported_reason(problem);
  }
  if (!reason.empty())
    throw FormatRefusal(options_.method_id + " refuses this " + describe(decoded.file_format) + " image: " + reason);
  const SampleType written = options_.output_type.value_or(sample_type(decoded.file_format));
  const std::optional<ImageFormat> format = image_format_from_path(job.output);
  if (!format) return;  // encode_to_temporary names it
  SaveOptions save;
  save.float64 = !options_.output_type && decoded.float64_source && format_writes_float64(*format);
  if (std::string why = check_output_type(*format, make_pixel_format(written, decoded.channels()), save); !why.empty())
    throw FormatRefusal("not filtered: " + why);
}

void BatchEngine::Impl::encode_and_write(const std::string& path, const BatchPixels& image, const DecodedFile& source) {
  commit_output(*encode_to_temporary(path, image, source));
}

std::unique_ptr<AtomicFile> BatchEngine::Impl::encode_to_temporary(const std::string& path, const BatchPixels& image,
                                                                   const DecodedFile& source) {
  const std::optional<ImageFormat> format = image_format_from_path(path);
  if (!format) throw ImageSaveError(quoted(path) + ": no image format for this extension; use " + image_format_list());
  SaveOptions save;
  save.jpeg_quality = options_.jpeg_quality;
  save.float64 = source.float64_source && !options_.output_type && format_writes_float64(*format);
  const int channels = source.channels();
  // Straight into the temporary file, piece by piece as the encoder makes them (never the whole
  // file in memory, never copied): the time inside AtomicFile (creating the file, the kernel's
  // copies into its page cache) is the write stage, the rest the encode stage.
  const double t0 = clock_.now_s();
  auto file = std::make_unique<AtomicFile>(path, options_.overwrite);
  double write_s = clock_.now_s() - t0;
  const auto write = [&](const void* data, std::size_t size) {
    const double start = clock_.now_s();
    file->write(data, size);
    write_s += clock_.now_s() - start;
  };
  // Pooling and converting count as encoding; each makes a copy only when it applies.
  BatchPixels pooled;
  const BatchPixels* out = &image;
  if (options_.pool != PoolMode::None) out = &(pooled = pooled_result(image, options_.pool));
  const SampleType from = sample_type(source.file_format);
  if (options_.output_type && *options_.output_type != from) {
    std::size_t clamped = 0;
    HostImage converted = convert_for_output(out->view(), *options_.output_type, &clamped);
    if (out->is_rgba8()) converted = convert_channels_as_file(converted, channels);
    note(output_conversion_rule(from, *options_.output_type));
    if (clamped > 0)
      note(quoted(path) + ": " + std::to_string(clamped) + " samples clamped to the range of " +
           sample_words(*options_.output_type));
    encode_image_to(converted.view(), *format, save, write);
  } else if (out->is_rgba8()) {  // the 8-bit encoders take the file's channels of RGBA8 where it is
    encode_rgba8_to(out->view(), channels, *format, save.jpeg_quality, write);
  } else if (source.pnm_maxval != 0 && !options_.output_type) {
    // A PNM whose 16-bit samples run to a maxval of its own (12-bit data): a PNM output keeps that
    // maxval (samples beyond it, from a kernel with negative weights, clamped to it); another
    // format holds the samples as they are, in 0..65535, and the note says so.
    if (*format == ImageFormat::Pnm) {
      HostImage clamped = HostImage::copy_of(out->view());
      const int channels_held = clamped.channels();
      for (int y = 0; y < clamped.height(); ++y) {
        std::uint16_t* row = clamped.row<std::uint16_t>(y);
        for (int i = 0; i < clamped.width() * channels_held; ++i)
          row[i] = static_cast<std::uint16_t>(std::min<std::uint32_t>(row[i], source.pnm_maxval));
      }
      save.pnm_maxval = source.pnm_maxval;
      encode_image_to(clamped.view(), *format, save, write);
    } else {
      note(quoted(path) + ": its PNM maxval " + std::to_string(source.pnm_maxval) +
           " is not kept: the samples are written as they are, in 0.." + std::to_string(source.pnm_maxval) +
           " of 65535 (write .pgm or .ppm to keep it)");
      encode_image_to(out->view(), *format, save, write);
    }
  } else {
    if (!options_.output_type)  // what became of a file that is not 8-bit, once per format
      note(describe(out->format()) + (save.float64 ? " (float64 source)" : "") + " images filtered in " +
           // The CPU methods sum 16-bit samples in float64 (cuda/methods/cpu_methods.cpp: float32 sums
           // cannot promise 0.51 levels at 16 bits); everything else is summed in float32.
           (!gpu_ && sample_type(out->format()) == SampleType::U16 ? "float64" : "float32") + " and written in their own type");
    encode_image_to(out->view(), *format, save, write);
  }
  const double t1 = clock_.now_s();
  clock_.add(Stage::Encode, t0, t1 - write_s);
  clock_.add(Stage::Write, t1 - write_s, t1);
  return file;
}

void BatchEngine::Impl::commit_output(AtomicFile& file) {
  // The last piece under AtomicFile's 1 MiB buffer goes out here too, counted as syncing.
  const double t0 = clock_.now_s();
  file.commit();
  clock_.add(Stage::Sync, t0, clock_.now_s());
}

void BatchEngine::Impl::read_item(Item& item, const PinnedTarget& pinned) {
  item.start_s = clock_.now_s();
  item.decoded = read_and_decode(item.job->input, pinned);
  item.outcome.width = item.decoded.pixels.width();
  item.outcome.height = item.decoded.pixels.height();
  item.outcome.channels = item.decoded.channels();
  item.outcome.format = item.decoded.file_format;
  check_item(*item.job, item.decoded);
}

void BatchEngine::Impl::filter_on_cpu(Item& item) {
  const double t0 = clock_.now_s();
  if (item.fault == "device-oom" || item.fault == "device-oom-once")
    throw CudaOutOfMemory("cudaMalloc failed: out of memory (injected by GAUSSLAB_BATCH_FAULT)", 0);
  if (item.fault == "launch")
    throw CudaError(cudaErrorLaunchFailure, "kernel launch failed (injected by GAUSSLAB_BATCH_FAULT)");
  const BatchPixels& source = item.decoded.pixels;
  item.result = BatchPixels::like(source);
  std::unique_ptr<Method> method = take_cpu_method();
  struct GiveBack {
    Impl* impl;
    std::unique_ptr<Method>& method;
    ~GiveBack() { impl->give_cpu_method(std::move(method)); }
  } give_back{this, method};
  use_cpu_share();
  // cpu_openmp spreads one image over this process's cores: one at a time, or they would be oversubscribed.
  std::unique_lock<std::mutex> exclusive(openmp_mutex_, std::defer_lock);
  if (options_.method_id == "cpu_openmp" && options_.pipelined) exclusive.lock();
  if (options_.bands > 1) {
    const ExtendedRows rows(source.view(), 0, source.height(), options_.params.border);
    filter_bands_on_host(*method, options_.params, rows, split_rows(source.height(), band_halo(options_.params), options_.bands),
                         item.result.view(), 0);
    item.banded = true;
  } else {
    method->prepare(FilterProblem{source.width(), source.height(), source.format(), options_.params});
    method->run(source.view(), item.result.view(), nullptr, nullptr);
  }
  clock_.add(Stage::Filter, t0, clock_.now_s());
}

int BatchEngine::Impl::band_rows_limit(int width, PixelFormat format, int height) {
  int rows = lanes_->band_rows_for_budget(width, format, options_.params);
  if (options_.bands > 1) rows = std::min(rows, (height + options_.bands - 1) / options_.bands);
  return rows;
}

void BatchEngine::Impl::filter_rows(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst,
                                    int dst_first_row, const std::string& fault_kind) {
  if (!gpu_) {
    std::unique_ptr<Method> method = take_cpu_method();
    use_cpu_share();
    int rows = 0;
    for (const Band& band : plan.bands) rows = std::max(rows, band.rows);
    const int pieces = std::max(1, options_.bands);
    const BandPlan finer = subdivide(plan, std::max(1, (rows + pieces - 1) / pieces));
    const double t0 = clock_.now_s();
    filter_bands_on_host(*method, options_.params, source, finer, dst, dst_first_row);
    clock_.add(Stage::Filter, t0, clock_.now_s());
    give_cpu_method(std::move(method));
    return;
  }
  int total_rows = 0;
  for (const Band& band : plan.bands) total_rows = std::max(total_rows, band.rows);
  int rows = band_rows_limit(source.width(), source.format(), std::max(1, total_rows));
  if (rows == 0)
    throw std::runtime_error("even a band of one row with its " + std::to_string(plan.halo) + "-row halo needs " +
                             format_bytes(static_cast<double>(lanes_->lane_bytes(source.width(), 1 + 2 * plan.halo,
                                                                                 source.format(), options_.params) *
                                                              static_cast<std::size_t>(lanes_->count()))) +
                             " of device memory, more than the budget of " +
                             format_bytes(static_cast<double>(lanes_->budget_bytes())) + "; raise --max-device-memory");
  GpuFault fault = gpu_fault_of(fault_kind);
  for (;;) {
    try {
      lanes_->filter_bands(source, subdivide(plan, rows), dst, dst_first_row, options_.params, clock_, fault);
      return;
    } catch (const CudaError& error) {
      // Out of memory: smaller bands, down to one row (the estimate of the method's scratch was low,
      // or another process took the memory).
      if (!is_out_of_memory(error) || rows == 1 || !lanes_->device_usable()) throw;
      lanes_->release_buffers();
      rows = std::max(1, rows / 2);
    }
  }
}

void BatchEngine::Impl::filter_on_gpu_in_bands(Item& item) {
  const BatchPixels& source = item.decoded.pixels;
  item.result = BatchPixels::like(source);
  const ExtendedRows rows(source.view(), 0, source.height(), options_.params.border);
  const BandPlan whole = split_rows(source.height(), band_halo(options_.params), 1);
  item.banded = true;
  if (!bands_match_single_pass(options_.method_id))
    note(options_.method_id + "'s bands agree with a single pass within its accuracy bound, not byte for byte");
  filter_rows(rows, whole, item.result.view(), 0, item.fault == "device-oom-once" ? "" : item.fault);
}

void BatchEngine::Impl::write_item(Item& item, const BatchPixels& image) {
  encode_and_write(item.job->output, image, item.decoded);
  item.outcome.ok = true;
}

void BatchEngine::Impl::fail(const ItemPtr& item, const std::string& message) {
  item->outcome.ok = false;
  item->outcome.message = message;
  finish(item);
}

void BatchEngine::Impl::finish(const ItemPtr& item) {
  record(item);   // first: once the item leaves the images in flight, run() may return
  release(item);
}

void BatchEngine::Impl::release(const ItemPtr& item) {
  if (item->released) return;
  item->released = true;
  const std::size_t held = item->held_bytes;
  item->decoded.pixels.clear();  // a pinned buffer lent to them goes back
  item->result.clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_flight_;
    held_bytes_ -= held;
  }
  changed_.notify_all();
}

void BatchEngine::Impl::record(const ItemPtr& item) {
  item->outcome.banded = item->banded;
  const double now = clock_.now_s();
  item->outcome.ms = (now - item->start_s) * 1000.0;
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    const double since_start = now - run_start_s_;
    if (report_.done + report_.failed == 0) report_.first_finished_s = since_start;
    report_.last_finished_s = since_start;
    if (item->outcome.ok) {
      ++report_.done;
      report_.input_bytes += item->job->size_bytes;
      report_.megapixels += item->outcome.width * static_cast<double>(item->outcome.height) / 1e6;
      report_.banded += item->banded;
    } else {
      ++report_.failed;
      report_.refused += item->outcome.refused;
      report_.failures.push_back(item->outcome.message);
    }
    (*on_file_)(item->index, item->outcome);
  }
}

void BatchEngine::Impl::write_and_publish(const ItemPtr& item, const BatchPixels& image) {
  item->output = encode_to_temporary(item->job->output, image, item->decoded);
  {
    // Counted as syncing before it leaves the images in flight: run() waits until neither count
    // holds a file, and must not see this one in neither.
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return syncing_ < max_syncing_; });
    ++syncing_;
  }
  release(item);  // the pixels are in the file now
  publisher_->submit([this, item] {
    try {
      commit_output(*item->output);
      item->outcome.ok = true;
    } catch (...) {
      item->outcome.ok = false;
      item->outcome.message = failure_message(*item, std::current_exception());
    }
    item->output.reset();  // a file that failed is removed here
    record(item);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --syncing_;
    }
    changed_.notify_all();
  });
}

void BatchEngine::Impl::start_item(const ItemPtr& item) {
  try {
    if (gpu_)
      read_item(*item, [this](int width, int height, PixelFormat format) { return pinned_now(width, height, format); });
    else
      read_item(*item);
    const std::size_t bytes = image_bytes(item->decoded.pixels);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      item->held_bytes = bytes;
      held_bytes_ += bytes;
    }
    if (!gpu_) {
      filter_on_cpu(*item);
      item->decoded.pixels.clear();  // the input is no longer needed
      write_and_publish(item, item->result);
      return;
    }
    const BatchPixels& image = item->decoded.pixels;
    item->banded = options_.bands > 1 || !lanes_->fits_whole(image.width(), image.height(), image.format(), options_.params) ||
                   bytes > buffers_->budget_bytes();
    if (item->banded || image.lent()) {  // decoded into a pinned buffer: on to the lanes
      {
        std::lock_guard<std::mutex> lock(mutex_);
        gpu_queue_.push_back(item);
      }
    } else {
      buffers_->acquire(bytes, [this, item](Lease lease, const std::string& error) {
        if (!lease) {
          fail(item, quoted(item->job->input) + ": no host buffer for it: " + error);
          return;
        }
        stage_in(item, std::move(lease));
      });
      return;
    }
  } catch (...) {
    fail(item, failure_message(*item, std::current_exception()));
    return;
  }
  changed_.notify_all();
}

HostBufferPool::Lease BatchEngine::Impl::pinned_now(int width, int height, PixelFormat format) {
  const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * bytes_per_pixel(format);
  if (options_.bands > 1 || bytes > buffers_->budget_bytes() || !lanes_->fits_whole(width, height, format, options_.params))
    return nullptr;  // goes through in bands, from memory of its own
  return buffers_->try_acquire(bytes);
}

void BatchEngine::Impl::stage_in(const ItemPtr& item, Lease lease) {
  // Into the pinned buffer, where the copy engine reads it at full speed (counted as decoding): the
  // image decoded into memory of its own because no buffer was free then. From here on the pinned
  // buffer holds the pixels (filtered in place, encoded from there) and the image's memory goes.
  const double t0 = clock_.now_s();
  const std::size_t capacity = lease->capacity;
  move_into_pinned(item->decoded.pixels, std::move(lease));
  clock_.add(Stage::Decode, t0, clock_.now_s());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_bytes_ = held_bytes_ - item->held_bytes + capacity;
    item->held_bytes = capacity;
    gpu_queue_.push_back(item);
  }
  changed_.notify_all();
}

void BatchEngine::Impl::finish_gpu_item(const ItemPtr& item) {
  pool_->submit(
      [this, item] {
        try {
          if (!item->banded) {
            write_and_publish(item, item->decoded.pixels);  // encoded from the pinned buffer, downloaded in place
          } else {
            item->decoded.pixels.clear();
            write_and_publish(item, item->result);
          }
        } catch (...) {
          fail(item, failure_message(*item, std::current_exception()));
        }
      },
      ThreadPool::Priority::Urgent);
}

void BatchEngine::Impl::harvest(int lane) {
  ItemPtr item = std::move(lane_items_[static_cast<std::size_t>(lane)]);
  try {
    const LaneStages stages = lanes_->wait(lane);
    clock_.add(Stage::Upload, stages.upload.start_s, stages.upload.end_s);
    clock_.add(Stage::Filter, stages.filter.start_s, stages.filter.end_s);
    clock_.add(Stage::Download, stages.download.start_s, stages.download.end_s);
  } catch (...) {
    fail_on_gpu(item, std::current_exception());
    return;
  }
  finish_gpu_item(item);
}

void BatchEngine::Impl::dispatcher() {
  (void)cudaSetDevice(options_.device);
  const int lanes = lanes_->count();
  lane_items_.assign(static_cast<std::size_t>(lanes), nullptr);
  int next_lane = 0;
  for (;;) {
    // Finished lanes first: their images go on to be encoded.
    for (int lane = 0; lane < lanes; ++lane)
      if (lanes_->busy(lane) && lanes_->finished(lane)) harvest(lane);

    ItemPtr item;
    bool any_busy = false;
    for (int lane = 0; lane < lanes; ++lane) any_busy = any_busy || lanes_->busy(lane);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (gpu_queue_.empty()) {
        if (inputs_done_ && in_flight_ == 0 && !any_busy) return;
        if (any_busy)
          changed_.wait_for(lock, std::chrono::microseconds(500));  // a lane may finish meanwhile
        else
          changed_.wait(lock, [&] { return !gpu_queue_.empty() || (inputs_done_ && in_flight_ == 0); });
        continue;
      }
      item = gpu_queue_.front();
      gpu_queue_.pop_front();
    }
    if (!gpu_broken_.empty()) {
      fail(item, quoted(item->job->input) + ": not filtered: the GPU failed on an earlier file and cannot be used (" +
                     gpu_broken_ + ")");
      continue;
    }
    if (item->banded) {
      run_in_bands(item, nullptr);
      continue;
    }
    // The next lane in turn; wait for it if it is still busy (the oldest image in flight).
    if (lanes_->busy(next_lane)) harvest(next_lane);
    GpuFault fault = gpu_fault_of(item->fault == "device-oom-once" ? "device-oom" : item->fault);
    try {
      const ImageView staged = item->decoded.pixels.view();  // pinned, filtered in place
      lanes_->submit(next_lane, staged, staged, options_.params, fault);
      lane_items_[static_cast<std::size_t>(next_lane)] = item;
      next_lane = (next_lane + 1) % lanes;
    } catch (const CudaError& error) {
      if (is_out_of_memory(error) && lanes_->device_usable())  // does not fit next to the others
        run_in_bands(item, "an image that did not fit in device memory went through in bands");
      else
        fail_on_gpu(item, std::current_exception());
    } catch (...) {
      fail(item, failure_message(*item, std::current_exception()));
    }
  }
}

void BatchEngine::Impl::run_in_bands(const ItemPtr& item, const char* remark) {
  // A band image uses every lane: the images in them are finished first, and their buffers freed.
  for (int lane = 0; lane < lanes_->count(); ++lane)
    if (lanes_->busy(lane)) harvest(lane);
  lanes_->release_buffers();
  try {
    filter_on_gpu_in_bands(*item);
    lanes_->release_buffers();  // the next images are likely smaller
  } catch (...) {
    fail_on_gpu(item, std::current_exception());
    return;
  }
  if (remark) note(remark);
  finish_gpu_item(item);
}

void BatchEngine::Impl::fail_on_gpu(const ItemPtr& item, const std::exception_ptr& error) {
  const std::string message = failure_message(*item, error);
  if (!lanes_->device_usable()) gpu_broken_ = message;  // every later file fails with this reason
  fail(item, message);
}

void BatchEngine::Impl::run_sequential(const std::vector<BatchJob>& jobs) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto item = std::make_shared<Item>();
    item->index = i;
    item->job = &jobs[i];
    item->fault = injected_fault(jobs[i].input);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++in_flight_;
    }
    try {
      read_item(*item);
      if (!gpu_) {
        filter_on_cpu(*item);
        write_item(*item, item->result);
      } else if (options_.bands > 1 ||
                 !lanes_->fits_whole(item->decoded.pixels.width(), item->decoded.pixels.height(),
                                     item->decoded.pixels.format(), options_.params)) {
        filter_on_gpu_in_bands(*item);
        write_item(*item, item->result);
      } else {
        BatchPixels& image = item->decoded.pixels;
        ConstImageView source = image.view();
        ImageView target;
        if (options_.pinned) {  // stage through a pinned buffer, download in place, encode from there
          Lease lease = buffers_->acquire_blocking(image_bytes(image));
          const double t0 = clock_.now_s();
          move_into_pinned(image, std::move(lease));
          target = image.view();
          clock_.add(Stage::Decode, t0, clock_.now_s());
          source = target;
        } else {  // the original: pageable memory both ways, a new output image per file
          item->result = BatchPixels::like(image);
          target = item->result.view();
        }
        lanes_->submit(0, source, target, options_.params, gpu_fault_of(item->fault));
        const LaneStages stages = lanes_->wait(0);
        clock_.add(Stage::Upload, stages.upload.start_s, stages.upload.end_s);
        clock_.add(Stage::Filter, stages.filter.start_s, stages.filter.end_s);
        clock_.add(Stage::Download, stages.download.start_s, stages.download.end_s);
        write_item(*item, options_.pinned ? image : item->result);
      }
      finish(item);
    } catch (...) {
      fail(item, failure_message(*item, std::current_exception()));
      if (gpu_ && !lanes_->device_usable()) {
        for (std::size_t j = i + 1; j < jobs.size(); ++j) {
          auto rest = std::make_shared<Item>();
          rest->index = j;
          rest->job = &jobs[j];
          {
            std::lock_guard<std::mutex> lock(mutex_);
            ++in_flight_;
          }
          fail(rest, quoted(jobs[j].input) + ": not filtered: the GPU failed on an earlier file and cannot be used");
        }
        return;
      }
    }
  }
}

EngineReport BatchEngine::Impl::run(const std::vector<BatchJob>& jobs, const OnFile& on_file,
                                    const std::function<void()>& poll) {
  report_ = EngineReport{};
  on_file_ = &on_file;
  in_flight_ = 0;
  syncing_ = 0;
  held_bytes_ = 0;
  inputs_done_ = false;
  gpu_queue_.clear();
  const double start_s = clock_.now_s();
  run_start_s_ = start_s;
  const StageTotals before = clock_.totals();

  if (!options_.pipelined) {
    run_sequential(jobs);
  } else {
    std::thread gpu_thread;
    if (gpu_) gpu_thread = std::thread([this] { dispatcher(); });
    const int lanes = gpu_ ? lanes_->count() : 0;
    const int max_in_flight = options_.max_in_flight > 0 ? options_.max_in_flight : threads_ + lanes + 2;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // Room for one more image: fewer than max_in_flight, and the ones held within the budget.
        while (!(in_flight_ == 0 || (in_flight_ < max_in_flight && held_bytes_ + kept_read_total_ < host_budget_))) {
          changed_.wait_for(lock, std::chrono::milliseconds(50));
          if (poll) {
            lock.unlock();
            poll();
            lock.lock();
          }
        }
        ++in_flight_;
      }
      auto item = std::make_shared<Item>();
      item->index = i;
      item->job = &jobs[i];
      item->fault = injected_fault(jobs[i].input);
      pool_->submit([this, item] { start_item(item); });
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      inputs_done_ = true;
      changed_.notify_all();
      while (in_flight_ > 0 || syncing_ > 0) {
        changed_.wait_for(lock, std::chrono::milliseconds(50));
        if (poll) {
          lock.unlock();
          poll();
          lock.lock();
        }
      }
    }
    changed_.notify_all();
    if (gpu_thread.joinable()) gpu_thread.join();
  }

  EngineReport report = report_;
  report.files = static_cast<int>(jobs.size());
  report.wall_s = clock_.now_s() - start_s;
  StageTotals totals = clock_.totals();
  for (int s = 0; s < kStageCount; ++s) {  // this run's share (filter_rows may have recorded before)
    totals.sum_ms[s] -= before.sum_ms[s];
    totals.busy_ms[s] -= before.busy_ms[s];
    totals.count[s] -= before.count[s];
  }
  report.stages = totals;
  if (options_.pipelined) {
    report.cpu_stages = {Stage::Read, Stage::Decode, Stage::Encode, Stage::Write};
    if (!gpu_) report.cpu_stages.push_back(Stage::Filter);
  }
  fill_resources(report);
  return report;
}

void BatchEngine::Impl::fill_resources(EngineReport& report) {
  report.threads = options_.pipelined ? threads_ : 1;
  report.openmp_threads = openmp_threads_.load();
  report.lanes = gpu_ ? lanes_->count() : 0;
  report.pipelined = options_.pipelined;
  report.pinned = gpu_ && buffers_->pinned();
  report.method_id = options_.method_id;
  report.device_name = gpu_ ? lanes_->device_name() : "CPU";
  report.peak_pinned_bytes = buffers_->peak_bytes();
  report.pinned_allocation_ms = buffers_->allocation_ms();
  report.peak_device_bytes = gpu_ ? lanes_->peak_bytes() : 0;
  report.peak_device_in_use = gpu_ ? lanes_->peak_device_in_use() : 0;
  report.device_budget_bytes = gpu_ ? lanes_->budget_bytes() : 0;
  report.host_budget_bytes = host_budget_;
  report.peak_host_bytes = peak_resident_bytes();
  std::lock_guard<std::mutex> lock(notes_mutex_);
  report.notes = notes_;
}

BatchEngine::BatchEngine(const EngineOptions& options) : impl_(std::make_unique<Impl>(options)), options_(options) {}
BatchEngine::~BatchEngine() = default;

EngineReport BatchEngine::run(const std::vector<BatchJob>& jobs, const OnFile& on_file,
                              const std::function<void()>& poll) {
  return impl_->run(jobs, on_file, poll);
}

void BatchEngine::filter_rows(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst, int dst_first_row) {
  impl_->filter_rows(source, plan, dst, dst_first_row, "");
}

DecodedFile BatchEngine::read_and_decode(const std::string& path) { return impl_->read_and_decode(path); }
void BatchEngine::check_item(const BatchJob& job, const DecodedFile& decoded) const { impl_->check_item(job, decoded); }
void BatchEngine::encode_and_write(const std::string& path, const BatchPixels& image, const DecodedFile& source) {
  impl_->encode_and_write(path, image, source);
}
StageTotals BatchEngine::stage_totals() const { return impl_->clock_.totals(); }

EngineReport BatchEngine::resources() const {
  EngineReport report;
  impl_->fill_resources(report);
  return report;
}

void BatchEngine::reserve_pinned(int count, std::size_t bytes) { impl_->buffers_->reserve(count, bytes); }

bool BatchEngine::uses_gpu() const { return impl_->gpu_; }
std::string BatchEngine::device_name() const { return impl_->gpu_ ? impl_->lanes_->device_name() : "CPU"; }
int BatchEngine::threads() const { return impl_->threads_; }

}  // namespace gausslab
