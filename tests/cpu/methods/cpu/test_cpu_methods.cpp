// The registry and the CPU methods behind the method interface (cpu_separable, cpu_openmp through
// run_on_host), plus what every registered method must do without any device: refuse invalid
// problems up front with a reason.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "kit/method_tests.hpp"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("cpu_separable", CpuMethods);
GAUSSLAB_METHOD_TESTS("cpu_openmp", CpuMethods);

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Registry, IdsAreUniqueAndEveryEntryIsDescribed) {
  const std::vector<MethodEntry>& registry = method_registry();
  ASSERT_GE(registry.size(), 2u);
  std::set<std::string> ids;
  for (const MethodEntry& entry : registry) {
    EXPECT_FALSE(entry.info.id.empty());
    EXPECT_TRUE(ids.insert(entry.info.id).second) << "duplicate id " << entry.info.id;
    for (char c : entry.info.id)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')
          << "id '" << entry.info.id << "' is not a lower_case name (it is used on command lines and in test names)";
    EXPECT_FALSE(entry.info.label.empty()) << entry.info.id;
    EXPECT_FALSE(entry.info.summary.empty()) << entry.info.id;
    ASSERT_TRUE(entry.create) << entry.info.id;
    const std::unique_ptr<Method> method = entry.create();
    ASSERT_NE(method, nullptr) << entry.info.id;
    EXPECT_EQ(method->info().id, entry.info.id) << "the created method reports another id";
    EXPECT_EQ(method->info().backend, entry.info.backend) << entry.info.id;
    EXPECT_EQ(method->prepared_problem().width, 0) << entry.info.id << " claims a prepared problem before prepare()";
  }
  EXPECT_NE(find_method("cpu_separable"), nullptr);
  EXPECT_NE(find_method("cpu_openmp"), nullptr);
  EXPECT_EQ(find_method("no_such_method"), nullptr);
  EXPECT_TRUE(contains(method_id_list(), "cpu_separable, cpu_openmp")) << method_id_list();
}

TEST(Registry, CpuMethodsAreAlwaysAvailable) {
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend == Backend::Cpu) {
      EXPECT_EQ(method_unavailable_reason(entry), "") << entry.info.id;
    }
  }
}

TEST(Registry, EveryMethodRefusesInvalidProblemsUpFrontWithAReason) {
  // unsupported_reason never needs a device, and prepare must throw before touching one.
  FilterProblem nan_sigma{16, 16, PixelFormat::Rgba8, {}};
  nan_sigma.params.sigma = std::nan("");
  const FilterProblem empty{0, 16, PixelFormat::F32, {}};
  FilterProblem huge_radius{16, 16, PixelFormat::F32, {}};
  huge_radius.params.fixed_radius = kMaxRadius + 1;
  for (const MethodEntry& entry : method_registry())
    for (const FilterProblem& problem : {nan_sigma, empty, huge_radius}) {
      const std::unique_ptr<Method> method = entry.create();
      const std::string reason = method->unsupported_reason(problem);
      EXPECT_FALSE(reason.empty()) << entry.info.id << " accepts an invalid problem";
      try {
        method->prepare(problem);
        ADD_FAILURE() << entry.info.id << ": prepare accepted an invalid problem";
      } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(contains(e.what(), reason)) << entry.info.id << ": prepare's message '" << e.what()
                                                << "' does not carry the reason '" << reason << "'";
      }
    }
}

TEST(Registry, AccuracyBoundsAreFiniteAndPositive) {
  const FilterProblem problem{64, 48, PixelFormat::Rgba8, {}};
  for (const MethodEntry& entry : method_registry()) {
    const AccuracyBound bound = entry.create()->accuracy_bound(problem);
    EXPECT_TRUE(std::isfinite(bound.max_relative_error) && bound.max_relative_error > 0) << entry.info.id;
    EXPECT_TRUE(std::isfinite(bound.max_error_8bit) && bound.max_error_8bit > 0) << entry.info.id;
  }
}

// ---- the CPU entries through run_on_host -----------------------------------------------------

struct Size {
  int width, height;
};

TEST(CpuMethods, RunOnHostMatchesTheReferenceAndTheCoreFilter) {
  const Size sizes[] = {{1, 1}, {1, 23}, {23, 1}, {7, 5}, {13, 17}, {101, 67}};
  for (const char* id : {"cpu_separable", "cpu_openmp"}) {
    const MethodEntry* entry = find_method(id);
    ASSERT_NE(entry, nullptr) << id;
    const std::unique_ptr<Method> method = entry->create();
    const CpuThreading threading = std::string(id) == "cpu_openmp" ? CpuThreading::OpenMP : CpuThreading::Single;
    for (const Size size : sizes)
      for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32}) {
        const ImageRgba8 rgba8 = make_random_rgba8(size.width, size.height, 11);
        const ImageF32 f32 = make_random_f32(size.width, size.height, 12);
        const bool is_f32 = format == PixelFormat::F32;
        const ConstImageView src = is_f32 ? ConstImageView(f32.view()) : ConstImageView(rgba8.view());
        ImageRgba8 out_rgba8(size.width, size.height), core_rgba8(size.width, size.height);
        ImageF32 out_f32(size.width, size.height), core_f32(size.width, size.height);
        const ImageView out = is_f32 ? out_f32.view() : out_rgba8.view();
        const ImageView core = is_f32 ? core_f32.view() : core_rgba8.view();
        for (const double sigma : {0.1, 0.8, 3.0, 40.0})
          for (const BorderMode border : kAllBorderModes) {
            FilterParams params;
            params.sigma = sigma;
            params.border = border;
            const std::string where = std::string(id) + " " + to_string(format) + " " + std::to_string(size.width) +
                                      "x" + std::to_string(size.height) + ", " + describe(params);
            const FilterProblem problem{size.width, size.height, format, params};
            ASSERT_EQ(method->unsupported_reason(problem), "") << where;
            run_on_host(*method, src, out, params);
            EXPECT_EQ(method->prepared_problem(), problem) << where;

            const AccuracyBound bound = method->accuracy_bound(problem);
            const AccuracyStats stats = compare_with_reference(out, reference_gaussian(src, params), default_peak(format));
            ASSERT_EQ(stats.nonfinite, 0u) << where;
            if (is_f32)
              EXPECT_LE(stats.max_relative_error, bound.max_relative_error) << where << ": " << describe(stats);
            else
              EXPECT_LE(stats.max_abs_error, bound.max_error_8bit) << where << ": " << describe(stats);

            cpu_gaussian_filter(src, core, params, threading);
            EXPECT_EQ(std::memcmp(out.data, core.data,
                                  static_cast<std::size_t>(size.width) * size.height * bytes_per_pixel(format)),
                      0)
                << where << ": the registry entry differs from cpu_gaussian_filter";
          }
      }
  }
}

TEST(CpuMethods, RecordAHostStageWhenGivenATimer) {
  const std::unique_ptr<Method> method = find_method("cpu_openmp")->create();
  const ImageF32 src = make_random_f32(32, 16, 3);
  StageTimer timer;
  RunOptions options;
  options.timer = &timer;
  for (int frame = 0; frame < 3; ++frame) {
    timer.begin_frame();
    run_on_host(*method, src, FilterParams{}, options);
    timer.end_frame();
  }
  timer.flush();
  EXPECT_EQ(timer.completed_frames(), 3);
  const std::vector<StageTiming> stages = timer.stages();
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_FALSE(stages[0].name.empty());
  EXPECT_GE(stages[0].last_ms, 0.0);
}

TEST(CpuMethods, RunChecksViewsAgainstThePreparedProblem) {
  const std::unique_ptr<Method> method = find_method("cpu_separable")->create();
  ImageF32 a(8, 8, 0.5f), b(8, 8), c(9, 8);
  EXPECT_THROW(method->run(a.view(), b.view(), nullptr, nullptr), std::logic_error) << "run before prepare";
  method->prepare(FilterProblem{8, 8, PixelFormat::F32, {}});
  EXPECT_NO_THROW(method->run(a.view(), b.view(), nullptr, nullptr));
  EXPECT_THROW(method->run(a.view(), c.view(), nullptr, nullptr), std::invalid_argument);
}

TEST(CpuMethods, RefuseWorkThatWouldTakeMinutes) {
  // 16384² RGBA at sigma 200: 2 * 801 * 2^28 * 4 = 1.7e12 multiply-adds.
  FilterProblem problem{16384, 16384, PixelFormat::Rgba8, {}};
  problem.params.sigma = 200.0;
  for (const char* id : {"cpu_separable", "cpu_openmp"}) {
    const std::string reason = find_method(id)->create()->unsupported_reason(problem);
    EXPECT_TRUE(contains(reason, "multiply-adds")) << id << ": '" << reason << "'";
  }
}

}  // namespace
}  // namespace gausslab
