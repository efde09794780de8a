#include "bench_batch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "bench_output.hpp"
#include "gausslab/batch/batch_report.hpp"
#include "gausslab/batch/cpu_share.hpp"
#include "gausslab/batch/default_method.hpp"
#include "gausslab/batch/distributed.hpp"
#include "gausslab/batch/memory_budget.hpp"
#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/statistics.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string fmt(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// Host↔device copy bandwidth of this machine, GB/s: 256 MiB copies timed with CUDA events, the
// median of 5 after a warm-up, from pinned (cudaHostAlloc) and pageable (malloc, touched) memory.
struct Bandwidth {
  double pinned_h2d = 0, pinned_d2h = 0, pageable_h2d = 0, pageable_d2h = 0;
};

Bandwidth measure_bandwidth() {
  Bandwidth bw;
  if (!cuda_device_status().available) return bw;
  const std::size_t bytes = std::size_t(256) << 20;
  std::vector<unsigned char> pageable(bytes, 1);
  PinnedBuffer pinned_buffer(bytes);
  DeviceBuffer device_buffer(bytes);
  void* pinned = pinned_buffer.data();
  void* device = device_buffer.data();
  std::memset(pinned, 1, bytes);
  cudaEvent_t start, stop;
  GAUSSLAB_CUDA_CHECK(cudaEventCreate(&start));
  GAUSSLAB_CUDA_CHECK(cudaEventCreate(&stop));
  const auto time_copy = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    std::vector<double> gbs;
    for (int run = 0; run < 6; ++run) {
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(start));
      GAUSSLAB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(stop));
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (run > 0) gbs.push_back(bytes / (ms / 1000.0) / 1e9);
    }
    return median(gbs);
  };
  bw.pinned_h2d = time_copy(device, pinned, cudaMemcpyHostToDevice);
  bw.pinned_d2h = time_copy(pinned, device, cudaMemcpyDeviceToHost);
  bw.pageable_h2d = time_copy(device, pageable.data(), cudaMemcpyHostToDevice);
  bw.pageable_d2h = time_copy(pageable.data(), device, cudaMemcpyDeviceToHost);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return bw;
}

// One core's rate for each file stage, on the first generated file: the median of 3.
struct CodecRates {
  double file_mb = 0, megapixels = 0;
  double read_ms = 0, decode_ms = 0, encode_ms = 0, write_ms = 0, sync_ms = 0;
};

CodecRates measure_codec_rates(const std::string& path, const std::string& scratch) {
  CodecRates rates;
  std::vector<double> read, decode, encode;
  LoadedImage loaded;
  int channels = 0;
  for (int run = 0; run < 3; ++run) {
    // As the batch reads and decodes (BatchEngine's read_and_decode): the RGBA8 image as the
    // decoder made it.
    auto t0 = Clock::now();
    const UninitializedBytes bytes = read_image_bytes(path);
    read.push_back(seconds_since(t0) * 1000);
    t0 = Clock::now();
    loaded = load_image_from_memory(bytes.data(), bytes.size(), path, {}, channels);
    decode.push_back(seconds_since(t0) * 1000);
    rates.file_mb = bytes.size() / 1e6;
  }
  if (channels == 0) throw std::runtime_error("the batch's images are not BMP files here: " + path);
  std::vector<double> write, sync;
  for (int run = 0; run < 3; ++run) {
    // As the batch writes (BatchEngine's encode_to_temporary and commit_output): encoded straight
    // into the temporary file, the time inside AtomicFile counted as writing, then synced and
    // moved into place.
    const std::string out = scratch + "/rate-" + std::to_string(run) + ".bmp";
    const auto t0 = Clock::now();
    AtomicFile file(out, Overwrite::Allowed);
    double write_s = seconds_since(t0);
    encode_rgba8_to(loaded.image.view(), channels, ImageFormat::Bmp, 90, [&](const void* data, std::size_t size) {
      const auto start = Clock::now();
      file.write(data, size);
      write_s += seconds_since(start);
    });
    encode.push_back((seconds_since(t0) - write_s) * 1000);
    write.push_back(write_s * 1000);
    const auto t1 = Clock::now();
    file.commit();
    sync.push_back(seconds_since(t1) * 1000);
    fs::remove(out);
  }
  rates.megapixels = loaded.image.pixel_count() / 1e6;
  rates.read_ms = median(read);
  rates.decode_ms = median(decode);
  rates.encode_ms = median(encode);
  rates.write_ms = median(write);
  rates.sync_ms = median(sync);
  return rates;
}

// The disk's ceiling for this workload: `files` outputs of `bytes` each written by `threads` threads
// at once, each through AtomicFile (written, synced, moved into place, the folder synced) as the
// batch writes them. No batch of these files can finish more of them a second here.
struct DiskRate {
  int files = 0, threads = 0;
  double file_mb = 0, files_per_s = 0;
};

DiskRate measure_disk(const std::string& scratch, const std::vector<unsigned char>& bytes, int files, int threads) {
  DiskRate rate;
  rate.files = files;
  rate.threads = threads;
  rate.file_mb = bytes.size() / 1e6;
  const std::string dir = scratch + "/disk-rate";
  fs::create_directories(dir);
  std::atomic<int> next{0};
  std::mutex error_mutex;
  std::string error;
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = next++; i < files; i = next++) {
        try {
          write_file_atomically(dir + "/" + std::to_string(i) + ".bmp",
                                std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                Overwrite::Never);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(error_mutex);
          error = e.what();
        }
      }
    });
  for (std::thread& worker : workers) worker.join();
  rate.files_per_s = files / seconds_since(start);
  fs::remove_all(dir);
  if (!error.empty()) throw std::runtime_error("could not measure the disk: " + error);
  return rate;
}

// One core's encode (+ write) and read + decode time for each output format, on one image: a table
// for batch.md. The workload's noise is the worst case for PNG and JPEG (nothing to compress).
std::string codec_table(const std::string& path) {
  const LoadedRgba8 loaded = load_image_rgba8(path);
  const double megapixels = loaded.image.pixel_count() / 1e6;
  std::ostringstream out;
  out << "| format | file MB | encode ms | Mpixel/s | decode ms | Mpixel/s |\n|---|---:|---:|---:|---:|---:|\n";
  for (int f = 0; f < static_cast<int>(ImageFormat::Count); ++f) {
    const ImageFormat format = static_cast<ImageFormat>(f);
    if (!format_writes(format, SampleType::U8)) continue;  // the batch writes 8-bit images
    const std::string name = std::string("codec-rate") + file_extension(format);  // TGA is told by its name
    std::vector<double> encode, decode;
    double file_mb = 0;
    try {
      for (int run = 0; run < 3; ++run) {
        auto t0 = Clock::now();
        const std::vector<unsigned char> bytes = encode_image(loaded.image, loaded.source_channels, format, 90);
        encode.push_back(seconds_since(t0) * 1000);
        t0 = Clock::now();
        load_image_rgba8_from_memory(bytes.data(), bytes.size(), name);  // as the batch decodes
        decode.push_back(seconds_since(t0) * 1000);
        file_mb = bytes.size() / 1e6;
      }
    } catch (const std::exception& error) {
      out << "| " << to_string(format) << " | " << error.what() << " | | | | |\n";
      continue;
    }
    out << "| " << to_string(format) << " | " << fmt("%.1f", file_mb) << " | " << fmt("%.1f", median(encode)) << " | "
        << fmt("%.0f", megapixels / median(encode) * 1000) << " | " << fmt("%.1f", median(decode)) << " | "
        << fmt("%.0f", megapixels / median(decode) * 1000) << " |\n";
  }
  return out.str();
}

// The workload's inputs: noise images saved as 24-bit BMP, made by every core at once.
std::vector<BatchJob> generate_images(const BatchBenchOptions& options, const std::string& dir, std::ostream& log) {
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (int i = 0; i < options.images; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "image-%03d.bmp", i);
    paths.push_back((fs::path(dir) / name).string());
  }
  const auto start = Clock::now();
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  std::mutex error_mutex;
  std::string error;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = next++; i < options.images; i = next++) {
        std::error_code ec;
        if (fs::exists(paths[i], ec)) continue;  // kept from an earlier run in the same --batch-dir
        try {
          save_image(paths[i], make_random_rgba8(options.width, options.height, 1000u + static_cast<unsigned>(i)), 3);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(error_mutex);
          error = e.what();
        }
      }
    });
  for (std::thread& worker : workers) worker.join();
  if (!error.empty()) throw std::runtime_error("could not write the batch's images: " + error);
  log << "gausslab-bench: " << options.images << " images of " << options.width << "×" << options.height
      << " (24-bit BMP) in " << dir << " (" << fmt("%.1f s", seconds_since(start)) << ")\n";
  std::vector<BatchJob> jobs;
  for (const std::string& path : paths) jobs.push_back({path, "", static_cast<std::uint64_t>(fs::file_size(path))});
  return jobs;
}

// FNV-1a of every output, to tell which configurations wrote the same bytes.
std::uint64_t hash_outputs(const std::vector<BatchJob>& jobs) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const BatchJob& job : jobs) {
    std::ifstream file(job.output, std::ios::binary);
    char buffer[1 << 16];
    while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
      for (std::streamsize i = 0; i < file.gcount(); ++i) hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 1099511628211ull;
      if (!file) break;
    }
    hash = (hash ^ 0xFF) * 1099511628211ull;
  }
  return hash;
}

struct Row {
  std::string name, description;
  EngineReport report;  // every rank's combined
  double wall_s = 0;
  int ranks = 1;
  std::uint64_t output_hash = 0;
  std::string error;
  std::string ranks_text;  // under MPI: each rank's host, GPU, files and time
};

std::vector<BatchJob> with_outputs(const std::vector<BatchJob>& inputs, const std::string& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<BatchJob> jobs = inputs;
  for (BatchJob& job : jobs) job.output = (fs::path(dir) / fs::path(job.input).stem()).string() + ".bmp";
  return jobs;
}

bool wanted(const BatchBenchOptions& options, const std::string& name) {
  return options.configs.empty() || std::find(options.configs.begin(), options.configs.end(), name) != options.configs.end();
}

// One configuration in this process.
Row run_alone(const std::string& name, const std::string& description, BatchEngine& engine,
              const std::vector<BatchJob>& jobs, std::ostream& log) {
  Row row;
  row.name = name;
  row.description = description;
  const auto start = Clock::now();
  row.report = engine.run(jobs, [](std::size_t, const FileOutcome&) {});
  row.wall_s = seconds_since(start);
  row.report.wall_s = row.wall_s;
  row.output_hash = hash_outputs(jobs);
  if (row.report.failed) row.error = row.report.failures.front();
  log << "gausslab-bench: " << name << ": " << fmt("%.3f s", row.wall_s) << ", "
      << fmt("%.2f images/s", row.report.done / row.wall_s) << (row.error.empty() ? "" : "; FAILED: " + row.error) << "\n";
  return row;
}

std::string ms_per_image(const EngineReport& report, Stage stage) {
  const int s = static_cast<int>(stage);
  if (report.stages.count[s] == 0) return "–";
  return fmt("%.2f", report.stages.sum_ms[s] / std::max(1, report.done + report.failed));
}

std::string describe_environment(const Bandwidth& bw, const CodecRates& rates, const DiskRate& disk,
                                 const BatchBenchOptions& options, const std::string& gpu_method,
                                 const MpiSession& mpi) {
  std::ostringstream out;
  const CudaDeviceStatus& device = cuda_device_status();
  out << "- GPU: " << describe(device) << "\n";
  out << "- host: " << mpi.host_name() << ", " << std::thread::hardware_concurrency() << " CPU threads, "
      << format_bytes(static_cast<double>(host_physical_bytes())) << " of memory";
  if (mpi.size() > 1) out << "; " << mpi.size() << " MPI ranks (" << MpiSession::library_version() << ")";
  out << "\n";
  out << "- workload: " << options.images << " images of " << options.width << "×" << options.height
      << " 24-bit BMP (" << fmt("%.1f MB", rates.file_mb) << " each), a " << options.kernel << "×" << options.kernel
      << " Gaussian (sigma " << fmt("%g", options.sigma) << ", radius " << (options.kernel - 1) / 2 << ")"
      << (options.kernel == 5 && options.sigma == kOriginalBatchSigma ? ": the original system's weights" : "")
      << ", border " << to_string(options.border)
      << (options.border == BorderMode::Constant ? " (zero, as the original)" : "")
      << ", rounded half up where the original truncates (so the bytes are not the original's)"
      << "; GPU method " << (cuda_device_status().available ? gpu_method : std::string("none (no CUDA device)"))
      << ", outputs 24-bit BMP\n";
  if (bw.pinned_h2d > 0)
    out << "- host↔device bandwidth (256 MiB cudaMemcpy, median of 5): pinned " << fmt("%.1f", bw.pinned_h2d) << " GB/s up, "
        << fmt("%.1f", bw.pinned_d2h) << " GB/s down; pageable " << fmt("%.1f", bw.pageable_h2d) << " GB/s up, "
        << fmt("%.1f", bw.pageable_d2h) << " GB/s down\n";
  else
    out << "- host↔device bandwidth: no CUDA device here\n";
  const double image_mb = rates.megapixels * 4;  // RGBA8 in memory
  out << "- one core, one image (median of 3): read " << fmt("%.2f ms", rates.read_ms) << " ("
      << fmt("%.0f MB/s", rates.file_mb / rates.read_ms * 1000) << "), decode " << fmt("%.1f ms", rates.decode_ms) << " ("
      << fmt("%.0f MB/s", rates.file_mb / rates.decode_ms * 1000) << " of BMP, "
      << fmt("%.0f Mpixel/s", rates.megapixels / rates.decode_ms * 1000) << "), encode "
      << fmt("%.1f ms", rates.encode_ms) << " (" << fmt("%.0f MB/s", rates.file_mb / rates.encode_ms * 1000) << ", "
      << fmt("%.0f Mpixel/s", rates.megapixels / rates.encode_ms * 1000) << "), write " << fmt("%.1f ms", rates.write_ms)
      << " (" << fmt("%.0f MB/s", rates.file_mb / rates.write_ms * 1000) << ", into a temporary file), sync "
      << fmt("%.1f ms", rates.sync_ms) << " (fsync, rename, the folder's fsync)";
  if (bw.pinned_h2d > 0)
    out << "; an image's " << fmt("%.1f MB", image_mb) << " of RGBA8 take " << fmt("%.2f ms", image_mb / 1e3 / bw.pinned_h2d * 1e3)
        << " up and " << fmt("%.2f ms", image_mb / 1e3 / bw.pinned_d2h * 1e3) << " down pinned, "
        << fmt("%.2f ms", image_mb / 1e3 / bw.pageable_h2d * 1e3) << " and "
        << fmt("%.2f ms", image_mb / 1e3 / bw.pageable_d2h * 1e3) << " pageable";
  out << "\n";
  if (disk.files > 0)
    out << "- the disk: " << disk.files << " outputs of " << fmt("%.1f MB", disk.file_mb) << " written by "
        << disk.threads << " thread" << (disk.threads == 1 ? "" : "s") << " at once, each synced and moved into place: "
        << fmt("%.1f files/s", disk.files_per_s) << " (" << fmt("%.0f MB/s", disk.files_per_s * disk.file_mb)
        << "): about the most images/s a run here can write\n";
  return out.str();
}

std::string table(const std::vector<Row>& rows, const Row* baseline) {
  std::ostringstream out;
  out << "| configuration | images/s | MB/s | ms/image | bound (ms/image) | × bound | read | decode | upload | filter | "
         "download | encode | write | sync | vs GPU pageable |\n";
  out << "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& row : rows) {
    const EngineReport& r = row.report;
    const int images = std::max(1, r.done + r.failed);
    const BoundCheck check = check_bound(r);
    std::string bound = "sum of stages", times = "–";
    if (r.pipelined && !check.bound.name.empty()) {
      bound = check.bound.name + " " + fmt("%.2f", check.bound.per_image_ms);
      times = fmt("%.2f", check.ratio);
    }
    out << "| " << row.name << " (" << row.description << ") | " << fmt("%.2f", r.done / row.wall_s) << " | "
        << fmt("%.0f", r.input_bytes / 1e6 / row.wall_s) << " | " << fmt("%.1f", row.wall_s * 1000 / images) << " | "
        << bound << " | " << times;
    for (int s = 0; s < kStageCount; ++s) out << " | " << ms_per_image(r, static_cast<Stage>(s));
    out << " | " << (baseline ? fmt("%.2f×", baseline->wall_s / row.wall_s) : "–") << " |\n";
  }
  return out.str();
}

std::string csv(const std::vector<Row>& rows) {
  std::ostringstream out;
  out << "config,description,ranks,method,device,threads,streams,pinned,images,done,wall_s,images_per_s,mb_per_s,"
         "bound,bound_ms_per_image,ratio_to_bound,read_ms,decode_ms,upload_ms,filter_ms,download_ms,encode_ms,write_ms,sync_ms,"
         "peak_host_bytes,peak_pinned_bytes,peak_device_bytes,output_hash\n";
  for (const Row& row : rows) {
    const EngineReport& r = row.report;
    const int images = std::max(1, r.done + r.failed);
    const BoundCheck check = check_bound(r);
    std::string bound = check.bound.name;
    std::replace(bound.begin(), bound.end(), ',', ';');
    out << row.name << ",\"" << row.description << "\"," << row.ranks << "," << r.method_id << ",\"" << r.device_name
        << "\"," << r.threads << "," << r.lanes << "," << (r.pinned ? 1 : 0) << "," << images << "," << r.done << ","
        << fmt("%.4f", row.wall_s) << "," << fmt("%.3f", r.done / row.wall_s) << ","
        << fmt("%.2f", r.input_bytes / 1e6 / row.wall_s) << ",\"" << (r.pipelined ? bound : "sum of stages") << "\","
        << fmt("%.3f", r.pipelined ? check.bound.per_image_ms : 0) << "," << fmt("%.3f", r.pipelined ? check.ratio : 0);
    for (int s = 0; s < kStageCount; ++s) out << "," << fmt("%.3f", r.stages.sum_ms[s] / images);
    out << "," << r.peak_host_bytes << "," << r.peak_pinned_bytes << "," << r.peak_device_bytes << ","
        << fmt("%.0f", static_cast<double>(row.output_hash % 1000000007ull)) << "\n";
  }
  return out.str();
}

std::string identical_groups(const std::vector<Row>& rows) {
  std::map<std::uint64_t, std::vector<std::string>> groups;
  for (const Row& row : rows) groups[row.output_hash].push_back(row.name);
  std::string text;
  for (const auto& [hash, names] : groups) {
    std::string group;
    for (const std::string& name : names) group += (group.empty() ? "" : " = ") + name;
    text += (text.empty() ? "" : "; ") + group;
  }
  return text;
}

}  // namespace

FilterParams batch_workload_params(const BatchBenchOptions& options) {
  FilterParams params;
  params.fixed_radius = (options.kernel - 1) / 2;
  params.sigma = options.sigma;
  params.border = options.border;
  return params;
}

int make_test_image(int width, int height, const std::string& path, bool overwrite, std::ostream& log) {
  // What the writer would refuse (an unknown extension, a missing folder, an existing file, a format
  // that cannot hold RGBA8) is a usage error, said before the noise is made (minutes at 32768²).
  SaveOptions save;
  save.overwrite = overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (std::string problem = check_output_path(path, save, PixelFormat::Rgba8); !problem.empty())
    throw UsageError("--make-image: " + problem);
  const auto start = Clock::now();
  const ImageRgba8 image = make_random_rgba8(width, height, 32768u);
  const double made = seconds_since(start);
  save_image(path, image, 4, overwrite ? Overwrite::Allowed : Overwrite::Never);
  log << "gausslab-bench: " << path << ": " << width << "×" << height << " RGBA8 noise ("
      << format_bytes(static_cast<double>(image.pixel_count() * 4)) << "), made in " << fmt("%.1f s", made)
      << ", written in " << fmt("%.1f s", seconds_since(start) - made) << "\n";
  return 0;
}

int run_batch_bench(const BatchBenchOptions& options, const std::string& out_dir, bool overwrite, MpiSession& mpi,
                    std::ostream& out, std::ostream& log) {
  const bool device = cuda_device_status().available;
  const FilterParams params = batch_workload_params(options);
  const std::string gpu_method =
      !options.gpu_method.empty() ? options.gpu_method : choose_default_method(params, device).id;
  if (device && !find_method(gpu_method)) throw UsageError("--batch-method: unknown method '" + gpu_method + "'");

  // What of --batch-configs can run here, decided before any image is made: every rank alike (under
  // mpirun only mpi-files and mpi-rows run, whatever each rank's device).
  std::vector<std::string> not_here;
  int runnable = 0;
  for (const std::string& name : batch_config_names()) {
    if (!wanted(options, name)) continue;
    const bool mpi_config = name.rfind("mpi-", 0) == 0;
    std::string reason;
    if (mpi_config && mpi.size() == 1)
      reason = "runs only under mpirun -np N with N >= 2";
    else if (!mpi_config && mpi.size() > 1)
      reason = "runs only in one process, without mpirun";
    else if (name.rfind("gpu-", 0) == 0 && !device)
      reason = "needs a CUDA device: " + cuda_device_status().reason;
    if (reason.empty())
      ++runnable;
    else
      not_here.push_back(name + " " + reason);
  }
  std::string not_here_text;
  for (const std::string& item : not_here) not_here_text += (not_here_text.empty() ? "" : "; ") + item;
  if (runnable == 0) {
    if (mpi.root())
      log << "gausslab-bench --batch: nothing to measure here: of --batch-configs, " << not_here_text
          << "; choose configurations that run here (cpu-1-thread, cpu-openmp and cpu-pool run anywhere alone)\n";
    return 1;
  }
  if (mpi.root())
    for (const std::string& item : not_here) log << "gausslab-bench --batch: not run here: " << item << "\n";

  // The images: made by rank 0 in a folder every rank sees (--batch-dir on a shared file system for
  // several hosts), kept when --batch-dir is given.
  const bool own_dir = options.work_dir.empty();
  std::string dir = options.work_dir;
  if (own_dir) {
    std::string base = (fs::temp_directory_path() / "gausslab-batch-bench-XXXXXX").string();
    if (mpi.root() && !mkdtemp(base.data())) throw std::runtime_error("cannot make a temporary folder under /tmp");
    dir = base;
    mpi.broadcast(dir);
  } else if (std::error_code ec; fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw UsageError("--batch-dir '" + dir + "' is a file, not a folder; give a folder (made when missing)");
  }
  std::vector<BatchJob> inputs;
  std::string error;
  if (mpi.root()) {
    try {
      inputs = generate_images(options, (fs::path(dir) / "in").string(), log);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  mpi.broadcast(error);
  if (!error.empty()) throw std::runtime_error(error);
  std::string packed = mpi.root() ? serialize_jobs(inputs) : std::string();
  mpi.broadcast(packed);
  inputs = deserialize_jobs(packed);

  Bandwidth bw;
  CodecRates rates;
  DiskRate disk;
  std::string codecs;
  if (mpi.root()) {
    bw = measure_bandwidth();
    rates = measure_codec_rates(inputs.front().input, dir);
    const LoadedRgba8 first = load_image_rgba8(inputs.front().input);
    disk = measure_disk(dir, encode_image(first.image, first.source_channels, ImageFormat::Bmp), options.images,
                        cpu_threads_per_rank(options.threads, 1));
    if (mpi.size() == 1) codecs = codec_table(inputs.front().input);
  }

  std::vector<Row> rows;
  int status = 0;
  const auto out_folder = [&](const std::string& name) { return (fs::path(dir) / ("out-" + name)).string(); };
  if (mpi.size() == 1) {
    EngineOptions base;
    base.params = params;
    base.threads = options.threads;
    base.overwrite = Overwrite::Allowed;
    const auto add = [&](const std::string& name, const std::string& description, EngineOptions engine_options) {
      if (!wanted(options, name)) return;
      BatchEngine engine(engine_options);
      rows.push_back(run_alone(name, description, engine, with_outputs(inputs, out_folder(name)), log));
    };
    EngineOptions cpu1 = base;
    cpu1.method_id = "cpu_separable";
    cpu1.pipelined = false;
    add("cpu-1-thread", "cpu_separable, one file at a time", cpu1);
    EngineOptions openmp = base;
    openmp.method_id = "cpu_openmp";
    openmp.pipelined = false;
    const int openmp_threads = cpu_threads_per_rank(options.threads, 1);
    add("cpu-openmp",
        "cpu_openmp on " + std::to_string(openmp_threads) + " thread" + (openmp_threads == 1 ? "" : "s") +
            ", one file at a time",
        openmp);
    EngineOptions pool = base;
    pool.method_id = "cpu_separable";
    add("cpu-pool", "cpu_separable, a file per pool thread", pool);
    if (device) {
      EngineOptions pageable = base;
      pageable.method_id = gpu_method;
      pageable.pipelined = false;
      pageable.pinned = false;
      add("gpu-pageable", "one file at a time, pageable memory: the original baseline", pageable);
      EngineOptions pipelined = base;
      pipelined.method_id = gpu_method;
      if (wanted(options, "gpu-pipelined-cold") || wanted(options, "gpu-pipelined")) {
        BatchEngine engine(pipelined);
        if (wanted(options, "gpu-pipelined-cold"))
          rows.push_back(run_alone("gpu-pipelined-cold", "pipelined, first run: pinned buffers allocated", engine,
                                   with_outputs(inputs, out_folder("gpu-pipelined-cold")), log));
        else  // allocate the pools outside the timed run
          engine.run(with_outputs(inputs, out_folder("warm-up")), [](std::size_t, const FileOutcome&) {});
        if (wanted(options, "gpu-pipelined"))
          rows.push_back(run_alone("gpu-pipelined", "pipelined, pinned buffers pooled", engine,
                                   with_outputs(inputs, out_folder("gpu-pipelined")), log));
      }
    }
  } else {
    for (const std::string name : {"mpi-files", "mpi-rows"}) {
      if (!wanted(options, name)) continue;
      BatchRunOptions run;
      run.engine.method_id = device ? gpu_method : "cpu_separable";
      run.engine.params = params;
      run.engine.threads = options.threads;
      run.engine.overwrite = Overwrite::Allowed;
      run.split = name == std::string("mpi-files") ? SplitMode::Files : SplitMode::Bands;
      run.share_gpus = true;  // measuring: ranks may share a GPU (said in the table)
      run.quiet = true;
      const std::vector<BatchJob> jobs = mpi.root() ? with_outputs(inputs, out_folder(name)) : [&] {
        std::vector<BatchJob> named = inputs;
        for (BatchJob& job : named) job.output = (fs::path(out_folder(name)) / fs::path(job.input).stem()).string() + ".bmp";
        return named;
      }();
      mpi.barrier();  // the output folder exists
      const auto start = Clock::now();
      const BatchResult result = run_batch(mpi, jobs, run, log);
      const double wall = seconds_since(start);
      if (!mpi.root()) continue;
      Row row;
      row.name = name;
      row.description = name == std::string("mpi-files")
                            ? std::to_string(mpi.size()) + " ranks, files dealt by size, each pipelined"
                            : std::to_string(mpi.size()) + " ranks, each image's rows scattered and gathered";
      row.report = combine(result.per_rank);
      row.report.wall_s = wall;
      row.report.threads = 0;
      for (const RankSummary& rank : result.per_rank) row.report.threads += rank.report.threads;
      row.report.pipelined = name == std::string("mpi-files");
      row.wall_s = wall;
      row.ranks = mpi.size();
      row.output_hash = hash_outputs(jobs);
      if (row.report.failed) row.error = row.report.failures.front();
      for (const RankSummary& rank : result.per_rank) {
        row.ranks_text += "  - rank " + std::to_string(rank.rank) + " on " + rank.host + ": " + resources_line(rank);
        if (run.split == SplitMode::Files)
          row.ranks_text += ", " + std::to_string(rank.report.files) + " files in " + fmt("%.3f s", rank.report.wall_s);
        row.ranks_text += "\n";
      }
      if (run.split == SplitMode::Bands) {
        const RankSummary& root = result.per_rank.front();
        row.description += ": rank 0 moved the rows in " +
                           fmt("%.1f ms", (root.scatter_ms + root.gather_ms) / std::max<std::size_t>(1, jobs.size())) +
                           " per image (scatter + gather)";
      }
      log << "gausslab-bench: " << name << ": " << fmt("%.3f s", wall) << "\n";
      rows.push_back(row);
    }
  }

  if (mpi.root()) {
    const Row* baseline = nullptr;
    const Row* pipelined = nullptr;
    for (const Row& row : rows) {
      if (row.name == "gpu-pageable") baseline = &row;
      if (row.name == "gpu-pipelined") pipelined = &row;
      if (!row.error.empty()) status = 1;
    }
    std::ostringstream md;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
    md << "# gausslab-bench --batch" << (mpi.size() > 1 ? " under mpirun -np " + std::to_string(mpi.size()) : "") << "\n\n"
       << "Measured " << date << ".\n\n"
       << describe_environment(bw, rates, disk, options, gpu_method, mpi) << "\n"
       << "Stage columns: ms per image summed over the images (CPU stages run on several threads at once, so they add "
          "up to more than the wall time); GPU stages from CUDA events. Write is the kernel's copy into the output's "
          "temporary file, sync the wait for the disk (fsync, rename, the folder's fsync): pipelined runs sync on "
          "threads of their own, so sync is a resource of its own there, as a GPU stage is. Bound: the CPU pool's share "
          "of the CPU stages (read, decode, encode, write: their sum / threads) or the busy time of a GPU stage or of "
          "sync, whichever is larger; × bound is the run's time per image over it (1.00: the overlap hides everything "
          "else). Decode includes the copy into the pinned buffer of an image that could not be decoded into "
          "one; the encoder reads the pinned buffer.\n\n"
       << table(rows, baseline) << "\n"
       << (codecs.empty() ? "" : "One core, each output format, into and from memory, on the first image (noise: the worst "
                                 "case for PNG and JPEG), median of 3:\n\n" + codecs + "\n")
       << "Identical outputs (byte for byte): " << identical_groups(rows) << "\n";
    if (!not_here.empty()) md << "\nAsked for and not run here: " << not_here_text << ".\n";
    if (baseline && pipelined) {
      const double speedup = baseline->wall_s / pipelined->wall_s;
      const BoundCheck check = check_bound(pipelined->report);
      md << "\nChecks: the pipelined GPU run is " << fmt("%.2f", speedup) << "× the one-image-at-a-time pageable run "
         << (speedup >= 3 ? "(≥ 3: yes)" : "(≥ 3: NO)") << "; its time per image is " << fmt("%.2f", check.ratio)
         << "× its slowest stage, " << check.bound.name << " " << (check.ratio <= 1.3 ? "(≤ 1.3: yes)" : "(≤ 1.3: NO)")
         << "; once the first image was done, one finished every " << fmt("%.2f ms", check.steady_ms) << " ("
         << fmt("%.2f", check.bound.per_image_ms > 0 ? check.steady_ms / check.bound.per_image_ms : 0)
         << "× the bound: the first image's latency and the last ones' tail are the rest)";
      if (disk.files_per_s > 0)
        md << "; " << fmt("%.2f images/s", pipelined->report.done / pipelined->wall_s) << " is "
           << fmt("%.0f %%", 100.0 * pipelined->report.done / pipelined->wall_s / disk.files_per_s)
           << " of what the disk takes (" << fmt("%.1f files/s", disk.files_per_s) << ")";
      md << ".\n";
    }
    for (const Row& row : rows)
      if (!row.ranks_text.empty()) md << "\n" << row.name << ":\n" << row.ranks_text;
    for (const Row& row : rows)
      if (!row.error.empty()) md << "\n" << row.name << " failed: " << row.error << "\n";
    out << md.str() << std::flush;
    const std::string stem = mpi.size() > 1 ? "batch-mpi" + std::to_string(mpi.size()) : "batch";
    fs::create_directories(out_dir);
    const std::string table = csv(rows);
    const std::vector<std::string> unwritten =
        write_result_files(out_dir, {{stem + ".md", md.str()}, {stem + ".csv", table}}, overwrite);
    for (const std::string& failure : unwritten) log << "gausslab-bench: " << failure << "\n";
    if (unwritten.empty()) {
      log << "gausslab-bench: " << out_dir << "/" << stem << ".md and .csv written\n";
    } else {  // never lose the measurements: the CSV goes to standard output too
      out << table << std::flush;
      status = 1;
    }
  }
  mpi.barrier();
  if (mpi.root()) {
    for (const Row& row : rows) fs::remove_all(out_folder(row.name));
    fs::remove_all(out_folder("warm-up"));
    if (own_dir) fs::remove_all(dir);
  }
  mpi.broadcast(status);
  return status;
}

}  // namespace gausslab
