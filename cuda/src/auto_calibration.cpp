#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"

#include "gausslab/build_id.h"  // GAUSSLAB_BUILD_ID, written at build time (cuda/build_id.cmake)

namespace gausslab {

namespace {

// The calibration: these sigmas, both formats, reflect, every method at 2048² and the contenders
// again at 4096². 2048² is small enough that the whole table takes a few seconds on an H100, but
// not large enough for every ranking: a method of several kernels, or one whose last wave of blocks
// is partial, is slower there relative to the others than on larger images. Sigma 6 (radius 24) is separable_tf32's largest and
// lies where separable_fused leaves its compiled kernels: without it a method whose last point is
// sigma 4 was predicted at its sigma-4 time up to sigma 8.
constexpr int kCalibrationSide = 2048;
// The large size, for the methods within kContenderFactor of the fastest at some sigma at 2048²
// (H100: multires, three kernels, is 7 % slower than separable_int8 at sigma 8 at 2048² and 8 %
// faster at 4096²; separable_fused against separable_int8 at sigma 0.5 the same way).
constexpr int kLargeCalibrationSide = 4096;
constexpr double kContenderFactor = 2.0;
constexpr double kCalibrationSigmas[] = {0.5, 1, 2, 4, 6, 8, 16, 32, 64};
constexpr int kTimedRuns = 5;
// A method slower than this at some sigma is not measured at larger ones (its time only grows,
// and something else is far faster there).
constexpr double kGiveUpMs = 20.0;
constexpr const char* kMagic = "gausslab-auto-calibration 4";
// The check before timing: a small odd-sized image, against the float64 reference.
constexpr int kCheckWidth = 97, kCheckHeight = 61;

bool is_auto(const std::string& id) { return id == "auto" || id == "auto_exact"; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

AccuracyBound accuracy_cap(AccuracyClass accuracy) {
  return accuracy == AccuracyClass::Exact ? kFloatRoundingBound : kApproximationCap;
}

CalibrationKey current_calibration_key() {
  const CudaDeviceStatus& device = cuda_device_status();
  if (!device.available) return {};
  return {device.name, device.kernel_driver + " / CUDA " + device.driver_string, GAUSSLAB_BUILD_ID};
}

bool calibration_matches(const CalibrationTable& table, const CalibrationKey& key) {
  return !key.gpu.empty() && table.gpu == key.gpu && table.driver == key.driver && table.build == key.build &&
         !table.formats.empty();
}

bool calibrated_for(const CalibrationTable& table, PixelFormat format) {
  return std::find(table.formats.begin(), table.formats.end(), format) != table.formats.end();
}

namespace {

// The time at `sigma` from one size's entries of a method (log-sigma interpolation, clamped).
std::optional<double> time_at_sigma(std::vector<const CalibrationEntry*> points, double sigma) {
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->sigma < b->sigma; });
  if (sigma <= points.front()->sigma) return points.front()->ms;
  if (sigma >= points.back()->sigma) return points.back()->ms;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (sigma <= points[i]->sigma) {
      const double a = std::log(points[i - 1]->sigma), b = std::log(points[i]->sigma);
      const double t = (std::log(sigma) - a) / (b - a);
      return points[i - 1]->ms + t * (points[i]->ms - points[i - 1]->ms);
    }
  return points.back()->ms;
}

// The sigma a problem costs like: its own for the Gaussian; for a custom kernel the Gaussian's of the
// same reach (radius = 4 sigma), whose taps the FIR methods' times follow.
double cost_sigma(const FilterParams& params) {
  if (!params.custom_kernel()) return params.sigma;
  return std::max(kMinSigma, params.radius() / kDefaultTruncate);
}

}  // namespace

std::optional<double> predict_ms(const CalibrationTable& table, const std::string& method_id,
                                 const FilterProblem& problem) {
  std::vector<const CalibrationEntry*> small, large;
  for (const CalibrationEntry& e : table.entries)
    if (e.method_id == method_id && e.format == problem.format) (e.large ? large : small).push_back(&e);
  if (table.width <= 0 || table.height <= 0) return std::nullopt;
  const std::optional<double> t1 = time_at_sigma(small, cost_sigma(problem.params));
  if (!t1) return std::nullopt;
  const double p = static_cast<double>(problem.pixel_count());
  const double p1 = static_cast<double>(table.width) * table.height;
  const double p2 = static_cast<double>(table.large_width) * table.large_height;
  const std::optional<double> t2 = p2 > p1 ? time_at_sigma(large, cost_sigma(problem.params)) : std::nullopt;
  if (!t2 || p <= p1) return *t1 * p / p1;
  if (p >= p2) return *t2 * p / p2;
  return *t1 + (*t2 - *t1) * (p - p1) / (p2 - p1);
}

AutoChoice choose_fastest(const CalibrationTable& table, const std::vector<std::string>& candidates,
                          const FilterProblem& problem) {
  AutoChoice best;
  for (const std::string& id : candidates) {
    const std::optional<double> ms = predict_ms(table, id, problem);
    if (ms && (best.method_id.empty() || *ms < best.predicted_ms)) best = {id, *ms, {}};
  }
  if (best.method_id.empty()) {
    if (candidates.empty()) return {};
    return {candidates.front(), 0.0, "no calibrated time for any method that can run this: the first that can"};
  }
  char why[160];
  std::snprintf(why, sizeof why, "fastest measured on %s: %.3g ms predicted at %d×%d", table.gpu.c_str(),
                best.predicted_ms, problem.width, problem.height);
  best.why = why;
  return best;
}

std::vector<std::string> auto_candidates(const FilterProblem& problem, AccuracyClass accuracy, bool gpu) {
  const AccuracyBound cap = accuracy_cap(accuracy);
  std::vector<std::string> ids;
  for (const MethodEntry& entry : method_registry()) {
    if (is_auto(entry.info.id) || (entry.info.backend == Backend::Cuda) != gpu) continue;
    const std::unique_ptr<Method> method = entry.create();
    if (!method->unsupported_reason(problem).empty()) continue;
    const AccuracyBound bound = method->accuracy_bound(problem);
    // Floor and ceil lose up to a level where half up loses half of one: the user's choice, not
    // the method's error.
    const bool directed = problem.params.rounding != IntegerRounding::Nearest && is_integer(sample_type(problem.format));
    const double rounding_allowance = directed ? 0.5 : 0.0;
    if (bound_for(bound, problem.format) <= bound_for(cap, problem.format) + rounding_allowance)
      ids.push_back(entry.info.id);
  }
  return ids;
}

AutoChoice choose_without_gpu(const FilterProblem&, const std::string& why_no_gpu) {
  if (std::thread::hardware_concurrency() > 1) return {"cpu_openmp", 0.0, why_no_gpu + ": the CPU filter on every core"};
  return {"cpu_separable", 0.0, why_no_gpu + " and one hardware thread: the single-thread CPU filter"};
}

// ---- the cache file ---------------------------------------------------------------------------------

std::string calibration_cache_path() {
  namespace fs = std::filesystem;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "gausslab" / "auto-calibration.txt").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "gausslab" / "auto-calibration.txt").string();
  return {};
}

std::optional<CalibrationTable> read_calibration(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return std::nullopt;
  CalibrationTable table;
  auto rest = [](const std::string& l, const char* key) -> std::optional<std::string> {
    const std::string prefix = std::string(key) + " ";
    if (l.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    return l.substr(prefix.size());
  };
  while (std::getline(in, line)) {
    if (auto v = rest(line, "gpu")) {
      table.gpu = *v;
    } else if (auto v = rest(line, "driver")) {
      table.driver = *v;
    } else if (auto v = rest(line, "build")) {
      table.build = *v;
    } else if (auto v = rest(line, "size")) {
      std::istringstream s(*v);
      if (!(s >> table.width >> table.height)) return std::nullopt;
    } else if (auto v = rest(line, "large-size")) {
      std::istringstream s(*v);
      if (!(s >> table.large_width >> table.large_height)) return std::nullopt;
    } else if (auto v = rest(line, "rejected")) {
      table.rejected.push_back(*v);
    } else if (auto v = rest(line, "formats")) {
      std::istringstream s(*v);
      std::string name;
      while (s >> name) {
        const std::optional<PixelFormat> f = pixel_format_from_string(name);
        if (!f) return std::nullopt;
        table.formats.push_back(*f);
      }
    } else if (auto v = rest(line, "time"), w = rest(line, "time-large"); v || w) {
      std::istringstream s(v ? *v : *w);
      CalibrationEntry e;
      e.large = !v;
      std::string format;
      if (!(s >> e.method_id >> format >> e.sigma >> e.ms)) return std::nullopt;
      const std::optional<PixelFormat> f = pixel_format_from_string(format);
      if (!f || !(e.sigma > 0) || !(e.ms > 0)) return std::nullopt;
      e.format = *f;
      table.entries.push_back(e);
    } else if (!line.empty()) {
      return std::nullopt;
    }
  }
  return table;
}

void write_calibration(const std::string& path, const CalibrationTable& table) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string temporary = path + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kMagic << "\n"
        << "gpu " << table.gpu << "\n"
        << "driver " << table.driver << "\n"
        << "build " << table.build << "\n"
        << "size " << table.width << " " << table.height << "\n"
        << "large-size " << table.large_width << " " << table.large_height << "\n";
    out << "formats";
    for (PixelFormat format : table.formats) out << " " << to_string(format);
    out << "\n";
    out.precision(6);
    for (const CalibrationEntry& e : table.entries)
      out << (e.large ? "time-large " : "time ") << e.method_id << " " << to_string(e.format) << " " << e.sigma << " " << e.ms << "\n";
    for (const std::string& r : table.rejected) out << "rejected " << r << "\n";
    if (!out.flush()) {
      fs::remove(temporary, ec);
      throw std::runtime_error("cannot write the auto calibration to " + path);
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw std::runtime_error("cannot write the auto calibration to " + path + ": " + ec.message());
  }
}

// ---- measuring ----------------------------------------------------------------------------------------

namespace {

// A random image over the format's nominal range (RGBA8 and F32 as make_random_* make them).
HostImage check_image(PixelFormat format) {
  if (format == PixelFormat::Rgba8) return HostImage::from(make_random_rgba8(kCheckWidth, kCheckHeight, 17));
  if (format == PixelFormat::F32) return HostImage::from(make_random_f32(kCheckWidth, kCheckHeight, 17));
  HostImage image(kCheckWidth, kCheckHeight, format);
  std::uint32_t state = 17u;
  const SampleType sample = sample_type(format);
  for (int y = 0; y < kCheckHeight; ++y)
    for (int x = 0; x < kCheckWidth; ++x)
      for (int c = 0; c < channel_count(format); ++c) {
        state = state * 1664525u + 1013904223u;
        const float unit = static_cast<float>(state >> 8) / 16777216.0f;  // [0, 1)
        image.set_sample(x, y, c, unit * static_cast<float>(nominal_max(sample)));
      }
  return image;
}

// Empty when `method` meets its bound on a small random image at this sigma on this GPU; else why.
std::string check_on_device(Method& method, PixelFormat format, double sigma, cudaStream_t stream) {
  FilterProblem problem{kCheckWidth, kCheckHeight, format, {}};
  problem.params.sigma = sigma;
  if (!method.unsupported_reason(problem).empty()) return {};  // not checkable at this size: timed as is
  DeviceImage src(kCheckWidth, kCheckHeight, format), dst(kCheckWidth, kCheckHeight, format);
  const HostImage host = check_image(format);
  HostImage result(kCheckWidth, kCheckHeight, format);
  src.upload(host.view(), stream);
  method.prepare(problem);
  method.run(src.view(), dst.view(), nullptr, stream);
  dst.download(result.view(), stream);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const AccuracyStats stats =
      compare_with_reference(result.view(), reference_gaussian(host.view(), problem.params), default_peak(format));
  const AccuracyBound bound = method.accuracy_bound(problem);
  if (meets(stats, bound, format)) return {};
  char why[200];
  std::snprintf(why, sizeof why, "sigma %g: max error %.3g %s, bound %.3g", sigma, bounded_error(stats, format),
                is_integer(sample_type(format)) ? "levels" : "relative", bound_for(bound, format));
  return why;
}

}  // namespace

void measure_calibration(CalibrationTable& table, PixelFormat format) {
  if (calibrated_for(table, format)) return;
  cudaStream_t stream = nullptr;
  GAUSSLAB_CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  GAUSSLAB_CUDA_CHECK(cudaEventCreate(&start));
  GAUSSLAB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<const MethodEntry*> methods;
  for (const MethodEntry& entry : method_registry())
    if (entry.info.backend == Backend::Cuda && !is_auto(entry.info.id) && entry.info.formats.contains(format))
      methods.push_back(&entry);
  {
    DeviceImage src(kCalibrationSide, kCalibrationSide, format), dst(kCalibrationSide, kCalibrationSide, format);
    DeviceImage large_src(kLargeCalibrationSide, kLargeCalibrationSide, format);
    DeviceImage large_dst(kLargeCalibrationSide, kLargeCalibrationSide, format);
    // A grey ramp (the kernels' times do not depend on the values; zero would hide nothing either).
    for (DeviceImage* image : {&src, &large_src})
      GAUSSLAB_CUDA_CHECK(cudaMemset2D(image->view().data, image->view().pitch_bytes, 0x5a, image->view().pitch_bytes,
                                       image->view().height));
    // The median of kTimedRuns runs after a warm-up, for one method at one sigma and size.
    auto time_ms = [&](Method& method, double sigma, bool large) {
      const int side = large ? kLargeCalibrationSide : kCalibrationSide;
      FilterProblem problem{side, side, format, {}};
      problem.params.sigma = sigma;
      method.prepare(problem);
      std::vector<double> times;
      for (int run = 0; run <= kTimedRuns; ++run) {  // run 0 warms up
        GAUSSLAB_CUDA_CHECK(cudaEventRecord(start, stream));
        method.run(large ? large_src.view() : src.view(), large ? large_dst.view() : dst.view(), nullptr, stream);
        GAUSSLAB_CUDA_CHECK(cudaEventRecord(stop, stream));
        GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (run > 0) times.push_back(ms);
      }
      return median(times);
    };
    const std::size_t first_entry = table.entries.size();
    for (const MethodEntry* entry : methods) {
      const std::unique_ptr<Method> method = entry->create();
      const std::size_t method_entries = table.entries.size();
      for (double sigma : kCalibrationSigmas) {
        FilterProblem problem{kCalibrationSide, kCalibrationSide, format, {}};
        problem.params.sigma = sigma;
        if (!method->unsupported_reason(problem).empty()) continue;
        if (std::string why = check_on_device(*method, format, sigma, stream); !why.empty()) {
          table.rejected.push_back(entry->info.id + " " + to_string(format) + ": " + why);
          std::fprintf(stderr, "gausslab: auto will not use %s for %s: its result on this GPU missed its bound (%s)\n",
                       entry->info.id.c_str(), to_string(format), why.c_str());
          // None of its times for this format: auto must not choose it.
          table.entries.resize(method_entries);
          break;
        }
        const double ms = time_ms(*method, sigma, false);
        table.entries.push_back({entry->info.id, format, sigma, ms});
        if (ms > kGiveUpMs) break;
      }
    }
    // The contenders (within kContenderFactor of the fastest at some sigma) again at the large size,
    // at every sigma they were timed at.
    const std::size_t small_end = table.entries.size();
    for (const MethodEntry* entry : methods) {
      bool contender = false;
      for (std::size_t i = first_entry; i < small_end && !contender; ++i) {
        const CalibrationEntry& e = table.entries[i];
        if (e.method_id != entry->info.id) continue;
        double fastest = e.ms;
        for (std::size_t j = first_entry; j < small_end; ++j)
          if (table.entries[j].sigma == e.sigma) fastest = std::min(fastest, table.entries[j].ms);
        contender = e.ms <= kContenderFactor * fastest;
      }
      if (!contender) continue;
      const std::unique_ptr<Method> method = entry->create();
      for (std::size_t i = first_entry; i < small_end; ++i)
        if (table.entries[i].method_id == entry->info.id) {
          const CalibrationEntry e = table.entries[i];
          table.entries.push_back({e.method_id, format, e.sigma, time_ms(*method, e.sigma, true), true});
        }
    }
    // Every time again, the methods in the opposite order, keeping the faster of the two: a slow
    // spell of the GPU (seen on an H100: separable_fused F32 timed at 2.5× its time for a few
    // sigmas) then costs a method its place only if it comes back at the same method, and near
    // ties (separable_fused and separable_tf32 at small sigmas) are decided on both passes.
    for (auto m = methods.rbegin(); m != methods.rend(); ++m) {
      const std::unique_ptr<Method> method = (*m)->create();
      for (std::size_t i = first_entry; i < table.entries.size(); ++i) {
        CalibrationEntry& e = table.entries[i];
        if (e.method_id == (*m)->info.id) e.ms = std::min(e.ms, time_ms(*method, e.sigma, e.large));
      }
    }
  }
  table.formats.push_back(format);
  GAUSSLAB_CUDA_LOG(cudaEventDestroy(start));
  GAUSSLAB_CUDA_LOG(cudaEventDestroy(stop));
  GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream));
}

CalibrationTable auto_calibration(PixelFormat format) {
  static std::mutex mutex;
  static std::optional<CalibrationTable> table;
  const std::lock_guard<std::mutex> lock(mutex);
  const CalibrationKey key = current_calibration_key();
  const std::string path = calibration_cache_path();
  if (!table) {
    if (!path.empty())
      if (std::optional<CalibrationTable> cached = read_calibration(path); cached && calibration_matches(*cached, key))
        table = std::move(cached);
    if (!table) {
      if (key.gpu.empty()) throw std::runtime_error("auto calibration: no CUDA device");
      table = CalibrationTable{key.gpu, key.driver, key.build, kCalibrationSide, kCalibrationSide, {}, {}, {}};
      table->large_width = table->large_height = kLargeCalibrationSide;
    }
  }
  if (calibrated_for(*table, format)) return *table;
  std::fprintf(stderr, "gausslab: measuring the auto method's table for %s images on %s (once per GPU, driver, build "
                       "and format)...\n",
               to_string(format), key.gpu.c_str());
  measure_calibration(*table, format);
  if (path.empty()) {
    std::fprintf(stderr, "gausslab: neither XDG_CACHE_HOME nor HOME is set: the auto table is not cached\n");
  } else {
    try {
      write_calibration(path, *table);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gausslab: %s (the table is used for this run only)\n", e.what());
    }
  }
  return *table;
}

}  // namespace gausslab
