#include "gpu_test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "gausslab/core/image_io.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "support/test_support.hpp"

namespace gausslab::gpu_test {

// ---- when to run ------------------------------------------------------------------------------

namespace {
std::string& lost_context_reason() {
  static std::string reason;
  return reason;
}
}  // namespace

std::string skip_reason() {
  const CudaDeviceStatus& status = cuda_device_status();
  if (!status.available) return status.reason;
  return lost_context_reason();
}

void note_cuda_failure(const std::string& where, const std::string& what) {
  if (!lost_context_reason().empty() || !cuda_device_status().available) return;
  const std::string broken = broken_context_reason();
  if (broken.empty()) return;
  lost_context_reason() = broken + " since an earlier failure (" + where + ": " + what +
                          "); fix that one first, or rerun this test alone with --gtest_filter "
                          "(GAUSSLAB_CUDA_SYNC=1 pins a fault on its kernel)";
}

bool quick_mode() {
  static const bool quick = [] {
    const char* value = std::getenv("GAUSSLAB_GPU_TESTS_QUICK");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return quick;
}

const std::vector<double>& sigma_override() {
  static const std::vector<double> sigmas = [] {
    std::vector<double> parsed;
    const char* value = std::getenv("GAUSSLAB_GPU_TESTS_SIGMAS");
    if (!value || !*value) return parsed;
    std::stringstream list(value);
    std::string item;
    while (std::getline(list, item, ',')) {
      char* end = nullptr;
      const double sigma = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || !(sigma >= 0.1 && sigma <= 200.0))
        throw std::invalid_argument("GAUSSLAB_GPU_TESTS_SIGMAS='" + std::string(value) +
                                    "': each item must be a sigma from 0.1 to 200, comma-separated (e.g. 0.1,1,8)");
      parsed.push_back(sigma);
    }
    return parsed;
  }();
  return sigmas;
}

TestStream::TestStream() { GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

TestStream::~TestStream() {
  if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream_));
}

void GpuTest::SetUp() {
  if (const std::string reason = skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  stream_ = std::make_unique<TestStream>();
}

void GpuTest::TearDown() {
  if (stream_) {
    const cudaError_t code = cudaStreamSynchronize(stream_->get());
    if (code != cudaSuccess) {
      ADD_FAILURE() << "the test's stream ended with " << cudaGetErrorName(code) << ": " << cudaGetErrorString(code);
      note_cuda_failure(::testing::UnitTest::GetInstance()->current_test_info()->name(), cudaGetErrorName(code));
    }
  }
  stream_.reset();
}

// ---- methods ----------------------------------------------------------------------------------

std::vector<std::string> gpu_method_ids() {
  std::vector<std::string> ids;
  for (const MethodEntry& entry : method_registry())
    if (entry.info.backend == Backend::Cuda) ids.push_back(entry.info.id);
  return ids;
}

std::unique_ptr<Method> create_method(const std::string& id) {
  const MethodEntry* entry = find_method(id);
  if (!entry) throw std::invalid_argument("no method '" + id + "' in the registry (" + method_id_list() + ")");
  return entry->create();
}

// ---- images -----------------------------------------------------------------------------------

TestImage::TestImage(int width, int height, PixelFormat format) : width_(width), height_(height), format_(format) {
  if (format == PixelFormat::F32)
    f32_ = ImageF32(width, height);
  else
    rgba8_ = ImageRgba8(width, height);
}

TestImage TestImage::random(int width, int height, PixelFormat format, std::uint32_t seed) {
  TestImage image;
  image.width_ = width;
  image.height_ = height;
  image.format_ = format;
  if (format == PixelFormat::F32)
    image.f32_ = make_random_f32(width, height, seed);
  else
    image.rgba8_ = make_random_rgba8(width, height, seed);
  return image;
}

TestImage TestImage::photo(const std::string& file, PixelFormat format) {
  LoadedRgba8 loaded = load_image_rgba8(test::test_data_path(file));
  TestImage image;
  image.width_ = loaded.image.width();
  image.height_ = loaded.image.height();
  image.format_ = format;
  if (format == PixelFormat::F32)
    image.f32_ = to_grey_f32(loaded.image);
  else
    image.rgba8_ = std::move(loaded.image);
  return image;
}

ConstImageView TestImage::view() const { return format_ == PixelFormat::F32 ? f32_.view() : rgba8_.view(); }
ImageView TestImage::view() { return format_ == PixelFormat::F32 ? f32_.view() : rgba8_.view(); }
std::size_t TestImage::size_bytes() const {
  return static_cast<std::size_t>(width_) * height_ * bytes_per_pixel(format_);
}

namespace {

std::string case_name(PixelFormat format, const std::string& source, int width, int height) {
  return std::string(to_string(format)) + "_" + source + "_" + std::to_string(width) + "x" + std::to_string(height);
}

// FNV-1a: a seed that depends on the case name only, the same on every machine.
std::uint32_t seed_of(const std::string& name) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
  return hash;
}

}  // namespace

namespace {
std::vector<ImageCase> with_sigma_override(std::vector<ImageCase> cases) {
  if (!sigma_override().empty())
    for (ImageCase& image_case : cases) image_case.sigmas = sigma_override();
  return cases;
}
}  // namespace

void PrintTo(const ImageCase& image_case, std::ostream* out) { *out << image_case.name; }

std::vector<ImageCase> accuracy_cases() {
  const std::vector<double> all_sigmas = {0.1, 0.5, 1.0, 2.5, 8.0, 33.0, 200.0};
  std::vector<ImageCase> cases;
  auto add_random = [&](int width, int height, const std::vector<double>& sigmas) {
    for (PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
      cases.push_back({case_name(format, "random", width, height), format, width, height, "", sigmas});
  };
  if (quick_mode()) {
    // Small enough for compute-sanitizer (about 100× slower); sigma 33 still reaches past every side.
    const std::vector<double> sigmas = {0.1, 1.0, 8.0, 33.0};
    for (auto [w, h] : {std::pair{1, 1}, {1, 37}, {37, 1}, {7, 5}, {13, 17}, {127, 61}}) add_random(w, h, sigmas);
    return with_sigma_override(cases);
  }
  for (auto [w, h] : {std::pair{1, 1}, {1, 263}, {263, 1}, {7, 5}, {13, 17}, {127, 61}, {4099, 17}, {17, 4099},
                      {1920, 1080}})
    add_random(w, h, all_sigmas);
  add_random(4096, 4096, {1.0, 8.0, 200.0});
  // Real photos: hard edges, smooth areas and point sources behave unlike noise.
  cases.push_back({case_name(PixelFormat::Rgba8, "astronaut", 512, 512), PixelFormat::Rgba8, 512, 512, "astronaut.png", all_sigmas});
  cases.push_back({case_name(PixelFormat::Rgba8, "chelsea", 451, 300), PixelFormat::Rgba8, 451, 300, "chelsea.png", all_sigmas});
  cases.push_back({case_name(PixelFormat::F32, "hubble", 1000, 872), PixelFormat::F32, 1000, 872, "hubble_deep_field.jpg", all_sigmas});
  return with_sigma_override(cases);
}

const TestImage& image_for(const ImageCase& image_case) {
  static std::string cached_name;
  static TestImage cached;
  if (cached_name != image_case.name) {
    cached_name.clear();
    cached = image_case.photo.empty()
                 ? TestImage::random(image_case.width, image_case.height, image_case.format, seed_of(image_case.name))
                 : TestImage::photo(image_case.photo, image_case.format);
    if (cached.width() != image_case.width || cached.height() != image_case.height)
      throw std::runtime_error(image_case.photo + " is " + std::to_string(cached.width()) + "x" +
                               std::to_string(cached.height()) + ", the test expects " + image_case.name);
    cached_name = image_case.name;
  }
  return cached;
}

// ---- comparison -------------------------------------------------------------------------------

namespace {
// Beyond this many values (128 MB of reference) always crops.
constexpr double kFullReferenceMaxValues = 16e6;
constexpr int kCropSide = 48;  // more than a 32-wide tile: every crop spans a tile boundary
}  // namespace

double& full_reference_max_work() {
  static double max_work = 1e9;  // a fraction of a second on 16 cores
  return max_work;
}

std::vector<Rect> comparison_regions(int width, int height, PixelFormat format, int radius) {
  const double values = static_cast<double>(width) * height * channel_count(format);
  if (2.0 * values * (2.0 * radius + 1) <= full_reference_max_work() && values <= kFullReferenceMaxValues)
    return {Rect{0, 0, width, height}};
  const int crop_w = std::min(width, kCropSide), crop_h = std::min(height, kCropSide);
  std::set<int> xs = {0, (width - crop_w) / 2, width - crop_w};
  std::set<int> ys = {0, (height - crop_h) / 2, height - crop_h};
  std::vector<Rect> regions;
  for (int y : ys)
    for (int x : xs) regions.push_back(Rect{x, y, crop_w, crop_h});
  return regions;
}

const std::vector<std::vector<double>>& cached_reference(const std::string& image_key, const ConstImageView& src,
                                                         const FilterParams& params, const std::vector<Rect>& regions) {
  static std::string cached_image;
  static std::map<std::string, std::vector<std::vector<double>>> entries;
  if (cached_image != image_key) {
    entries.clear();
    cached_image = image_key;
  }
  char key[256];
  std::snprintf(key, sizeof key, "%.17g/%.17g/%d/%d/%d/%zu", params.sigma, params.truncate, params.fixed_radius,
                static_cast<int>(params.border), static_cast<int>(params.axes), regions.size());
  auto found = entries.find(key);
  if (found != entries.end()) return found->second;
  std::vector<std::vector<double>> references;
  for (const Rect& region : regions) references.push_back(reference_gaussian_region(src, params, region));
  return entries.emplace(key, std::move(references)).first->second;
}

std::string Comparison::describe() const {
  char text[512];
  std::snprintf(text, sizeof text, "%s %.3g %s bound %.3g (%s)%s%s",
                format == PixelFormat::F32 ? "max relative error" : "max 8-bit error", error(),
                error() <= bound() ? "within" : "EXCEEDS", bound(),
                every_pixel ? "every pixel compared" : "crops at corners, edge middles and centre compared",
                worst_at.empty() ? "" : "; worst at ", worst_at.c_str());
  std::string result = text;
  if (stats.nonfinite > 0) result += "; " + std::to_string(stats.nonfinite) + " NaN/inf values (unwritten or broken pixels)";
  return result;
}

Comparison compare(const ConstImageView& result, const std::vector<Rect>& regions,
                   const std::vector<std::vector<double>>& references, const AccuracyBound& bound) {
  const bool is_f32 = result.format == PixelFormat::F32;
  const int channels = channel_count(result.format);
  Comparison comparison;
  comparison.format = result.format;
  comparison.promise = bound;
  comparison.every_pixel = regions.size() == 1 && regions[0].width == result.width && regions[0].height == result.height;

  // NaN anywhere (f32: the poison is NaN, so an unwritten pixel shows even outside the crops).
  std::string first_nonfinite;
  if (is_f32)
    for (int y = 0; y < result.height; ++y)
      for (int x = 0; x < result.width; ++x)
        if (!std::isfinite(result.row<float>(y)[x]) && comparison.stats.nonfinite++ == 0)
          first_nonfinite = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ")";

  double max_error = -1.0, max_reference = 0.0;
  char worst[160] = "";
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const Rect& region = regions[r];
    const std::vector<double>& reference = references[r];
    std::size_t i = 0;
    for (int y = region.y; y < region.y + region.height; ++y)
      for (int x = region.x; x < region.x + region.width; ++x)
        for (int c = 0; c < channels; ++c, ++i) {
          const double value = channel_value(result, x, y, c);
          max_reference = std::max(max_reference, std::abs(reference[i]));
          if (!std::isfinite(value)) continue;
          const double error = std::abs(value - reference[i]);
          if (error > max_error) {
            max_error = error;
            std::snprintf(worst, sizeof worst, "pixel (%d, %d)%s%s: %.9g vs reference %.9g", x, y,
                          is_f32 ? "" : " channel ", is_f32 ? "" : std::to_string(c).c_str(), value, reference[i]);
          }
        }
  }
  max_error = std::max(max_error, 0.0);
  comparison.stats.max_abs_error = max_error;
  comparison.stats.max_relative_error = max_reference > 0 ? max_error / max_reference : max_error;
  comparison.worst_at = comparison.stats.nonfinite > 0 ? "first NaN at " + first_nonfinite + "; largest finite error at " + worst
                                                 : std::string(worst);
  return comparison;
}

Comparison compare_with_reference_of(const std::string& image_key, const ConstImageView& src,
                                     const ConstImageView& result, const FilterParams& params,
                                     const AccuracyBound& bound) {
  const std::vector<Rect> regions = comparison_regions(src.width, src.height, src.format, params.radius());
  return compare(result, regions, cached_reference(image_key, src, params, regions), bound);
}

std::string where(const std::string& method_id, const FilterProblem& problem, const std::string& image) {
  return method_id + ", " + to_string(problem.format) + " " + std::to_string(problem.width) + "x" +
         std::to_string(problem.height) + (image.empty() ? "" : " (" + image + ")") + ", " + describe(problem.params);
}

// ---- refusals and the summary -----------------------------------------------------------------

void expect_refused_up_front(Method& method, const FilterProblem& problem, const std::string& reason,
                             const std::string& context) {
  try {
    method.prepare(problem);
    ADD_FAILURE() << context << ": unsupported_reason says '" << reason
                  << "' but prepare() accepted the problem; prepare must throw std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos)
        << context << ": prepare's message '" << e.what() << "' does not carry the reason '" << reason << "'";
  } catch (const std::exception& e) {
    ADD_FAILURE() << context << ": prepare() refused with another exception than std::invalid_argument: " << e.what();
  }
}

std::optional<FilterProblem> first_supported(const Method& method, const std::vector<FilterProblem>& candidates,
                                             std::string& reasons) {
  reasons.clear();
  for (const FilterProblem& problem : candidates) {
    const std::string reason = method.unsupported_reason(problem);
    if (reason.empty()) return problem;
    reasons += (reasons.empty() ? "" : "; ") + where(method.info().id, problem) + ": " + reason;
  }
  return std::nullopt;
}

namespace {

struct Row {
  std::string method, image;
  FilterProblem problem;
  Outcome outcome;
  std::string detail;
  double error = 0, bound = 0;
  bool every_pixel = false;
};

std::vector<Row>& rows() {
  static std::vector<Row> all;
  return all;
}

std::string csv_field(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void write_csv(const std::string& requested) {
  const std::string path = first_free_path(requested);  // never overwrite an existing file
  std::ofstream out(path);
  if (!out) {
    std::cout << "could not write the CSV to '" << path << "'\n";
    return;
  }
  out << "method,image,format,width,height,sigma,truncate,radius,border,outcome,error,bound,compared,detail\n";
  // Errors with 4 significant digits (std::to_string's fixed 6 decimals would print 2e-7 as 0).
  const auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return std::string(text);
  };
  for (const Row& row : rows()) {
    const FilterParams& p = row.problem.params;
    out << row.method << ',' << row.image << ',' << to_string(row.problem.format) << ',' << row.problem.width << ','
        << row.problem.height << ',' << p.sigma << ',' << p.truncate << ',' << p.radius() << ',' << to_string(p.border)
        << ',' << (row.outcome == Outcome::Passed ? "passed" : row.outcome == Outcome::Failed ? "FAILED" : "refused")
        << ',' << (row.outcome == Outcome::Refused ? "" : number(row.error)) << ','
        << (row.outcome == Outcome::Refused ? "" : number(row.bound)) << ','
        << (row.outcome == Outcome::Refused ? "" : row.every_pixel ? "every pixel" : "crops") << ','
        << csv_field(row.detail) << '\n';
  }
  std::cout << "Per-case results written to " << path << "\n";
}

}  // namespace

void record(const std::string& method_id, const std::string& image, const FilterProblem& problem, Outcome outcome,
            const std::string& detail, const Comparison* comparison) {
  Row row{method_id, image, problem, outcome, detail};
  if (comparison) {
    row.error = comparison->error();
    row.bound = comparison->bound();
    row.every_pixel = comparison->every_pixel;
  }
  rows().push_back(std::move(row));
}

void print_summary() {
  const std::vector<std::string> ids = gpu_method_ids();
  const bool any = std::any_of(rows().begin(), rows().end(), [&](const Row& row) {
    return std::find(ids.begin(), ids.end(), row.method) != ids.end();
  });
  if (!any) return;  // no device: nothing ran
  std::cout << "\nGPU accuracy summary (each method against the float64 reference, with its own bound):\n";
  for (const std::string& id : ids) {
    int passed = 0, failed = 0, refused = 0;
    double worst_ratio = -1;
    std::string worst_case;
    std::map<std::string, int> reasons;
    for (const Row& row : rows()) {
      if (row.method != id) continue;
      if (row.outcome == Outcome::Refused) {
        ++refused;
        ++reasons[row.detail];
        continue;
      }
      (row.outcome == Outcome::Passed ? passed : failed)++;
      const double ratio = row.bound > 0 ? row.error / row.bound : row.error;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst_case = where(id, row.problem, row.image);
      }
    }
    char line[256];
    std::snprintf(line, sizeof line, "  %-20s %5d passed, %4d FAILED, %5d refused", id.c_str(), passed, failed, refused);
    std::cout << line;
    if (worst_ratio >= 0)
      std::cout << "; worst error " << worst_ratio << " of its bound (" << worst_case << ")";
    std::cout << "\n";
    for (const auto& [reason, count] : reasons)
      std::cout << "      refused " << count << "x: " << reason.substr(0, 160) << (reason.size() > 160 ? "..." : "") << "\n";
  }
  if (const char* csv = std::getenv("GAUSSLAB_GPU_TESTS_CSV"); csv && *csv) write_csv(csv);
}

int for_each_band_exact_case(const ConstImageView& d_source, const ImageView& d_whole,
                             const std::function<void(const MethodEntry&, const FilterParams&)>& check) {
  int cases = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || !entry.info.same_bytes_in_bands) continue;
    for (BorderMode border : kAllBorderModes) {
      for (double sigma : {2.0, 8.0}) {
        FilterParams params;
        params.sigma = sigma;
        params.border = border;
        const FilterProblem problem{d_source.width, d_source.height, d_source.format, params};
        std::unique_ptr<Method> whole = entry.create();
        if (!whole->unsupported_reason(problem).empty()) continue;
        whole->prepare(problem);
        whole->run(d_source, d_whole, nullptr, nullptr);
        GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
        check(entry, params);
        ++cases;
      }
    }
  }
  return cases;
}

}  // namespace gausslab::gpu_test
