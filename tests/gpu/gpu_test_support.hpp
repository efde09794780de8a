#pragma once
// Support for the GPU test suite: the skip rule without a device, the image cases, host images of
// either format, the float64 reference shared by all methods of a case, comparison against a
// method's own accuracy bound, and the summary the lead reads at the end of the log.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <ostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab::gpu_test {

// ---- when to run ------------------------------------------------------------------------------

// Why GPU tests cannot run here ("" when they can): no CUDA device, or an earlier test left the
// CUDA context unusable (a kernel fault is sticky: every later CUDA call fails).
std::string skip_reason();

// Call after a CUDA-side exception: if the context is now unusable, later tests skip with a
// reason that names this failure, instead of failing for a cause that is not theirs.
void note_cuda_failure(const std::string& where, const std::string& what);

// GAUSSLAB_GPU_TESTS_QUICK=1: small sizes and few sigmas, for compute-sanitizer.
bool quick_mode();

// GAUSSLAB_GPU_TESTS_SIGMAS=0.1,1,8: these sigmas replace every case's own (empty when unset), for
// a sanitizer run whose largest sigmas would take too long (racecheck of shared_2d). Throws with
// the reason when the list is not a comma-separated list of sigmas in 0.1..200.
const std::vector<double>& sigma_override();

// A non-blocking stream for one test (the viewer's frame does not run on the legacy stream either).
class TestStream {
 public:
  TestStream();
  ~TestStream();
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Base fixture: skips with the reason when GPU tests cannot run, else gives a stream.
// The cases the band tests walk (SlicedRunGpu, NumbersTilesGpu): every band-exact GPU method
// (MethodInfo::same_bytes_in_bands), every border, sigma 2 and 8, where the method takes the
// source's size and format. For each, a fresh instance filters the whole source (device) into
// d_whole and the device is synchronised; then check(entry, params) compares the pieces with it.
// Returns the number of cases.
int for_each_band_exact_case(const ConstImageView& d_source, const ImageView& d_whole,
                             const std::function<void(const MethodEntry&, const FilterParams&)>& check);

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  cudaStream_t stream() const { return stream_ ? stream_->get() : nullptr; }

 private:
  std::unique_ptr<TestStream> stream_;
};

// ---- methods ----------------------------------------------------------------------------------

// Ids of the registry's CUDA methods, in registry order.
std::vector<std::string> gpu_method_ids();
std::unique_ptr<Method> create_method(const std::string& id);

// ---- images -----------------------------------------------------------------------------------

// A host image of any format.
class TestImage {
 public:
  TestImage() = default;
  TestImage(int width, int height, PixelFormat format) : image_(width, height, format) {}  // zero-filled
  // RGBA8 and F32 as make_random_rgba8 / make_random_f32 make them; the other formats over their
  // type's nominal range (every level; [0, 1) for floats).
  static TestImage random(int width, int height, PixelFormat format, std::uint32_t seed);
  // A test photo from tests/data: grey formats take its luminance, RGB its colours, alpha opaque;
  // 16-bit levels are its bytes × 257, floats its bytes / 255. Throws when the file is missing.
  static TestImage photo(const std::string& file, PixelFormat format);

  int width() const { return image_.width(); }
  int height() const { return image_.height(); }
  PixelFormat format() const { return image_.format(); }
  ConstImageView view() const { return image_.view(); }
  ImageView view() { return image_.view(); }
  std::size_t size_bytes() const { return image_.size_bytes(); }

 private:
  explicit TestImage(HostImage image) : image_(std::move(image)) {}
  HostImage image_;
};

// One image of the accuracy sweep and the sigmas to run on it.
struct ImageCase {
  std::string name;  // "rgba8_random_13x17", "f32_hubble_1000x872": also the test name suffix
  PixelFormat format = PixelFormat::Rgba8;
  int width = 0, height = 0;
  std::string photo;  // file in tests/data, or empty for a random image
  std::vector<double> sigmas;
};

// gtest prints a failing test's parameter with this.
void PrintTo(const ImageCase& image_case, std::ostream* out);

std::vector<ImageCase> accuracy_cases();  // the full sweep, or the quick subset
const TestImage& image_for(const ImageCase& image_case);  // made once, kept while the case repeats

// ---- comparison -------------------------------------------------------------------------------

// What to compare for this image and radius: every pixel when the float64 reference is
// affordable, else crops at the four corners, the four edge middles and the centre.
std::vector<Rect> comparison_regions(int width, int height, PixelFormat format, int radius);
// The multiply-adds a full reference may cost (default 1e9); the harness's own tests lower it.
double& full_reference_max_work();

// The reference of each region, computed once per (image, parameters) and shared by every method
// that runs the same case (tests of one case follow each other).
const std::vector<std::vector<double>>& cached_reference(const std::string& image_key, const ConstImageView& src,
                                                         const FilterParams& params, const std::vector<Rect>& regions);

struct Comparison {
  PixelFormat format = PixelFormat::Rgba8;
  AccuracyStats stats;  // max_abs_error, max_relative_error and nonfinite of the compared regions
  AccuracyBound promise;
  bool every_pixel = false;
  std::string worst_at;  // "pixel (x, y) channel c: 0.1234 vs reference 0.1230"
  double error() const { return bounded_error(stats, format); }  // relative (floats) or levels (integers)
  double bound() const { return bound_for(promise, format); }
  bool passed() const { return meets(stats, promise, format); }
  // "max relative error 3.1e-06 <= bound 1e-05 (every pixel)" or with NaN counts and the worst pixel.
  std::string describe() const;
};

// Compares `result` (host, whole image) on `regions` with their references against `bound`.
Comparison compare(const ConstImageView& result, const std::vector<Rect>& regions,
                   const std::vector<std::vector<double>>& references, const AccuracyBound& bound);

// Everything in one call: regions, cached reference, comparison.
Comparison compare_with_reference_of(const std::string& image_key, const ConstImageView& src,
                                     const ConstImageView& result, const FilterParams& params,
                                     const AccuracyBound& bound);

// "naive_2d, rgba8 127x61, sigma 2.5, truncate 4, radius 10, mirror": for every failure message.
std::string where(const std::string& method_id, const FilterProblem& problem, const std::string& image = {});

// ---- refusals and the summary -----------------------------------------------------------------

// For a problem the method refuses: prepare must throw std::invalid_argument carrying the reason.
void expect_refused_up_front(Method& method, const FilterProblem& problem, const std::string& reason,
                             const std::string& context);

// Of `candidates`, the first problem the method accepts; otherwise nullopt and `reasons` lists why.
std::optional<FilterProblem> first_supported(const Method& method, const std::vector<FilterProblem>& candidates,
                                             std::string& reasons);

enum class Outcome { Passed, Failed, Refused };

// One line per (method, image, parameters) for the end-of-run summary and the optional CSV
// (GAUSSLAB_GPU_TESTS_CSV=path; never overwrites: a free name next to it is used instead).
void record(const std::string& method_id, const std::string& image, const FilterProblem& problem, Outcome outcome,
            const std::string& detail, const Comparison* comparison = nullptr);

// Prints the per-method summary (and writes the CSV); called once at the end of the run.
void print_summary();

}  // namespace gausslab::gpu_test
