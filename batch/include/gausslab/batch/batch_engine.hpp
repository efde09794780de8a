#pragma once
// The batch engine: files in, filtered files out, as fast as the slowest resource allows.
//
// Pipelined (the default): a pool of CPU threads reads and decodes files (normal priority) and
// encodes and writes results into their temporary files (urgent: finishing an image frees its
// memory first); a publisher of its own threads then syncs each output and moves it into place
// (AtomicFile::commit, the wait for the disk, off the pool's threads) and only then reports the
// file. Those file stages are read_and_decode and encode_and_write below, which the MPI layer's
// bands use too (there the sync is on the calling thread). With a GPU method, a dispatcher thread
// feeds decoded images, held in pooled pinned buffers (a BMP decoded straight into one when one is
// free, any other image copied in once), to a few GPU lanes (CUDA streams): while one image
// uploads another is filtered and a third downloads, the download lands in the same pinned buffer
// and the encoder reads it there. With a CPU method the pool's threads filter too
// (cpu_separable one image per thread; cpu_openmp one image at a time on as many OpenMP threads
// as the pool has: this process's share of the cores, cpu_share.hpp). At most
// max_in_flight images are held at once, and no new one is started while those held use more than
// the host budget. Images that do not fit the GPU (or that --bands asks to split) go through in
// horizontal bands with a halo (band_plan.hpp), byte-identical to a single pass.
//
// Every image keeps its own pixel type and channels (u8, u16, f16, f32; 1-4 channels) from the
// decoder to the encoder (BatchPixels): 16-bit, half and float images are held and filtered in
// their own format (a method refusing it refuses the file, with its reason, before it is
// filtered); 8-bit images are held and filtered as RGBA8, as before types (every method's native
// 8-bit layout, the 8-bit decoders' and encoders' fast path; channels are filtered independently,
// so the file's channels come out the same) and written with the file's channels. The memory
// budgets count the bytes held. The output keeps the type unless EngineOptions::output_type
// converts it (output_conversion_rule).
//
// Sequential (pipelined = false): one file at a time, each stage after the other, on the calling
// thread: the baselines of the benchmark (one CPU thread, OpenMP, the GPU with pageable memory).
//
// A file that fails (unreadable, refused, out of host or device memory, a failed launch, a write
// error) is reported with its reason and the others go on. After a GPU error that leaves the device
// unusable, the remaining files fail with that reason.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gausslab/batch/band_plan.hpp"
#include "gausslab/batch/stage_stats.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pooling.hpp"

namespace gausslab {

struct BatchJob {
  std::string input;
  std::string output;
  std::uint64_t size_bytes = 0;  // of the input file, for balancing and MB/s
};

struct EngineOptions {
  std::string method_id;
  FilterParams params;
  Overwrite overwrite = Overwrite::Never;
  int jpeg_quality = 90;    // for .jpg outputs (1..100)
  int threads = 0;          // CPU pool and cpu_openmp's OpenMP threads; 0: this rank's share of the cores
  int max_in_flight = 0;    // 0: threads + lanes + 2
  int lanes = 3;            // CUDA streams
  bool pipelined = true;
  bool pinned = true;       // false: transfers from pageable memory (the baseline)
  int bands = 0;            // > 1: every image in this many bands; 0: only images that do not fit
  std::size_t max_device_bytes = 0;  // 0: kDeviceMemoryShare of the free device memory / gpu_sharers
  std::size_t host_budget_bytes = 0; // 0: kHostMemoryShare of the physical memory / host_sharers
  int device = 0;           // CUDA device ordinal
  PoolMode pool = PoolMode::None;  // 2×2 pooling of each result before it is written (pooled_result)
  int gpu_sharers = 1;      // processes sharing this GPU
  int host_sharers = 1;     // processes sharing this host
  // The written files' sample type; empty: each input's own (a float64 source written back as
  // float64 where the format holds it, FITS and NPY).
  std::optional<SampleType> output_type;
};

// How a sample of `from` is written as `to` (--output-type), in one line for the run's notes and
// the help: integer to integer scaled by the ratio of the maxima (u16 → u8: × 255/65535) and
// rounded half up; float to integer clamped to [0, 1], × the maximum, rounded half up; integer to
// float divided by the maximum (exact for u8 and u16 in f32); float to float as IEEE converts
// (f32 → f16 rounds to nearest even, beyond 65504 infinite). Empty when from == to.
std::string output_conversion_rule(SampleType from, SampleType to);

// An image's pixels in the batch: an 8-bit image as RGBA8 (whatever its channels: the file's are
// kept beside it), any other in its own format (never u8: is_rgba8 is the format). Held in an
// image of their own, or in memory lent to them (a pooled pinned buffer: decoded there, filtered
// in place and encoded from there, never copied in or out), which `keeper` holds until the pixels
// are cleared. Copies share lent memory and copy their own.
class BatchPixels {
 public:
  BatchPixels() = default;
  explicit BatchPixels(HostImage image) : owned_(std::move(image)) {}
  explicit BatchPixels(const ImageRgba8& rgba8) : owned_(HostImage::from(rgba8)) {}  // a copy
  BatchPixels(const ImageView& lent, std::shared_ptr<void> keeper) : keeper_(std::move(keeper)), lent_(lent) {}
  // The same size and format in memory of its own, not zero-filled: for an output written whole.
  static BatchPixels like(const BatchPixels& other);
  bool is_rgba8() const { return format() == PixelFormat::Rgba8; }
  bool lent() const { return keeper_ != nullptr; }
  int width() const { return view().width; }
  int height() const { return view().height; }
  PixelFormat format() const { return view().format; }
  std::size_t pitch_bytes() const { return view().pitch_bytes; }
  std::size_t size_bytes() const { return pitch_bytes() * static_cast<std::size_t>(height()); }
  unsigned char* data() { return static_cast<unsigned char*>(view().data); }
  const unsigned char* data() const { return static_cast<const unsigned char*>(view().data); }
  ImageView view() { return keeper_ ? lent_ : owned_.view(); }
  ConstImageView view() const { return keeper_ ? ConstImageView(lent_) : owned_.view(); }
  void clear() { *this = BatchPixels{}; }

 private:
  HostImage owned_;
  std::shared_ptr<void> keeper_;  // set: the pixels are in lent_
  ImageView lent_;
};

// A file as the batch decoded it.
struct DecodedFile {
  BatchPixels pixels;
  PixelFormat file_format = PixelFormat::Rgba8;  // the file's own type and channels
  bool float64_source = false;                   // filtered in float32; written back as float64 where it can be
  std::uint32_t pnm_maxval = 0;                  // a 16-bit PNM's own maxval (0: 65535), written back to PNM
  int channels() const { return channel_count(file_format); }
};

// One file's outcome, passed to the caller as soon as the file is finished.
struct FileOutcome {
  bool ok = false;
  bool refused = false;  // the method refused the image (its size): not a failure of the file itself
  std::string message;   // the reason, naming the file, when not ok
  int width = 0, height = 0, channels = 0;
  PixelFormat format = PixelFormat::Rgba8;  // the file's own (as decoded)
  bool banded = false;
  double ms = 0;  // from the start of its read to the end of its write
};

struct EngineReport {
  int files = 0, done = 0, failed = 0, banded = 0, refused = 0;
  std::uint64_t input_bytes = 0;   // of the files done
  double megapixels = 0;           // of the files done
  double wall_s = 0;
  // When the first and the last file were finished, seconds from the start: (last - first) /
  // (files - 1) is the pipeline's steady interval, without the first image's latency.
  double first_finished_s = 0, last_finished_s = 0;
  StageTotals stages;
  std::vector<Stage> cpu_stages;   // the stages the CPU pool ran (for find_bound)
  int threads = 1;                 // the CPU pool's (1 when not pipelined)
  int openmp_threads = 0;          // the OpenMP threads cpu_openmp filtered with (0: another method)
  int lanes = 0;                   // 0 for a CPU method
  bool pipelined = true, pinned = false;
  std::string method_id, device_name;
  std::size_t peak_pinned_bytes = 0, peak_device_bytes = 0, peak_device_in_use = 0, peak_host_bytes = 0;
  std::size_t device_budget_bytes = 0, host_budget_bytes = 0;
  double pinned_allocation_ms = 0;
  std::vector<std::string> failures;  // each names its file
  std::vector<std::string> notes;     // once-per-run remarks (bands not byte-exact for this method ...)
};

class BatchEngine {
 public:
  // Creates the method's lanes (GPU) or instances (CPU), the pools and the budgets. Throws
  // std::invalid_argument for an unknown method, CudaError when a GPU method cannot use its device.
  explicit BatchEngine(const EngineOptions& options);
  ~BatchEngine();
  BatchEngine(const BatchEngine&) = delete;
  BatchEngine& operator=(const BatchEngine&) = delete;

  using OnFile = std::function<void(std::size_t index, const FileOutcome& outcome)>;
  // Filters every job. on_file is called once per job as it finishes (from engine threads, one call
  // at a time). `poll` (if given) is called on the calling thread about every 50 ms while it waits:
  // the MPI layer forwards progress there.
  EngineReport run(const std::vector<BatchJob>& jobs, const OnFile& on_file, const std::function<void()>& poll = {});

  // Filters rows of one image already in host memory: `plan`'s bands of `source` into `dst` (row
  // 0 = global row dst_first_row), through the GPU lanes or the CPU method, further split so each
  // band fits the device budget. For the bands of an image spread over MPI ranks. Throws on failure.
  void filter_rows(const ExtendedRows& source, const BandPlan& plan, const ImageView& dst, int dst_first_row);

  // The two file stages, timed into the engine's clock (stage_totals() returns everything recorded
  // so far), with their remarks in the report's notes; run() uses them for each file, and the MPI
  // layer around filter_rows. read_and_decode: the file read with bounded effort (core's
  // read_image_bytes: a regular file only, never more than its size at the start) and decoded
  // into BatchPixels (its note, and a float64 source's "filtered in float32", go into the notes
  // naming the file); throws ImageLoadError naming it (std::bad_alloc when memory runs out).
  // check_item: the refusals of a decoded image before it is filtered (the method refusing its
  // format, the output's format not holding the type to be written); throws FormatRefusal with
  // the reason. encode_and_write: the image pooled (options().pool), converted to
  // options().output_type when given, written with the file's channels, encoded in the format of
  // the output's extension straight into core's AtomicFile (timed as the encode and write
  // stages), then synced and moved into place (the sync stage): never a partial file, never an
  // existing one replaced unless options().overwrite allows; throws ImageSaveError or
  // FileWriteError naming the file, std::invalid_argument for a size --pool cannot pool.
  DecodedFile read_and_decode(const std::string& path);
  void check_item(const BatchJob& job, const DecodedFile& decoded) const;
  void encode_and_write(const std::string& path, const BatchPixels& image, const DecodedFile& source);
  StageTotals stage_totals() const;
  // A report without files: the resources (threads, lanes, device, budgets, peaks so far).
  EngineReport resources() const;

  // Allocates `count` pinned buffers of `bytes` now, outside any timed region (the benchmark).
  void reserve_pinned(int count, std::size_t bytes);

  const EngineOptions& options() const { return options_; }
  bool uses_gpu() const;
  std::string device_name() const;
  int threads() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  EngineOptions options_;
};

// An image --pool cannot pool (a side below 2): the file is refused, as a method refuses a size.
class PoolRefusal : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A decoded image the run refuses before filtering it: the method does not take its pixel format,
// or the output's format cannot hold the type to be written. what() is the reason (without the file).
class FormatRefusal : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `image` as `to` (sample type) by output_conversion_rule; `clamped` counts the samples clamped.
HostImage convert_for_output(const ConstImageView& image, SampleType to, std::size_t* clamped = nullptr);

// The 2×2 pooling of a filtered image before it is written (core/pooling.hpp, on the CPU thread
// that encodes it: a memory-bound pass much cheaper than the encoding). Throws PoolRefusal for an
// image with a side below 2.
BatchPixels pooled_result(const BatchPixels& filtered, PoolMode pool);

// The message for a file that failed with `error`, naming the file (and its size when `outcome`
// has one); sets outcome.refused when the method refused the image or --pool its size.
std::string file_failure_message(const std::string& input, const std::string& method_id, FileOutcome& outcome,
                                 const std::exception_ptr& error);

// The fault the test switch GAUSSLAB_BATCH_FAULT injects for `input` ("" when none). The variable
// holds comma-separated KIND:TEXT items; a file whose path contains TEXT gets KIND: device-oom (its
// every device allocation fails), device-oom-once (its whole-image allocation fails, so it goes
// through in bands), launch (its kernel launch fails), bad-alloc (std::bad_alloc while decoding).
std::string injected_fault(const std::string& input);

}  // namespace gausslab
