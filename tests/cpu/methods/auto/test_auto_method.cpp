// auto and auto_exact without timing: the choice from a given table, the candidates each accuracy
// class allows, the cache file, and the fixed rule of a machine without a CUDA device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gausslab/core/image.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "kit/method_tests.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

// auto's own code is the choice and the cache (here) and the delegation (AutoWithoutGpu); the
// methods it chooses have their own model tests.
GAUSSLAB_METHOD_TESTS("auto", AutoChoice);
GAUSSLAB_METHOD_TESTS("auto_exact", AutoChoice);

FilterProblem problem(int w, int h, PixelFormat f, double sigma) {
  FilterProblem p{w, h, f, {}};
  p.params.sigma = sigma;
  return p;
}

CalibrationTable table_of(std::vector<CalibrationEntry> entries) {
  return {"Test GPU", "driver 1", "build 1", 1000, 1000, std::move(entries), {}, {}};
}

TEST(AutoChoice, PredictsByLogSigmaAndPixelCount) {
  const CalibrationTable t = table_of({{"m", PixelFormat::Rgba8, 2, 1.0}, {"m", PixelFormat::Rgba8, 8, 3.0}});
  EXPECT_DOUBLE_EQ(*predict_ms(t, "m", problem(1000, 1000, PixelFormat::Rgba8, 4)), 2.0);  // halfway in log sigma
  EXPECT_DOUBLE_EQ(*predict_ms(t, "m", problem(2000, 1000, PixelFormat::Rgba8, 4)), 4.0);  // twice the pixels
  EXPECT_DOUBLE_EQ(*predict_ms(t, "m", problem(1000, 1000, PixelFormat::Rgba8, 0.5)), 1.0);  // clamped below
  EXPECT_DOUBLE_EQ(*predict_ms(t, "m", problem(1000, 1000, PixelFormat::Rgba8, 100)), 3.0);  // and above
  EXPECT_FALSE(predict_ms(t, "m", problem(1000, 1000, PixelFormat::F32, 4)));  // no time for F32
  EXPECT_FALSE(predict_ms(t, "other", problem(1000, 1000, PixelFormat::Rgba8, 4)));
}

// With a second, larger size: the times at both sizes, linear in the pixel count between them,
// scaled from the nearer size outside them; a method timed at the small size only scales from it.
TEST(AutoChoice, PredictsBetweenAndBeyondTheTwoSizes) {
  CalibrationTable t = table_of({{"few_kernels", PixelFormat::Rgba8, 8, 1.0},
                                 {"many_kernels", PixelFormat::Rgba8, 8, 1.1},
                                 {"few_kernels", PixelFormat::Rgba8, 8, 4.0, true},
                                 {"many_kernels", PixelFormat::Rgba8, 8, 3.6, true}});
  t.large_width = t.large_height = 2000;  // four times the pixels of the small 1000 × 1000
  EXPECT_DOUBLE_EQ(*predict_ms(t, "many_kernels", problem(1000, 1000, PixelFormat::Rgba8, 8)), 1.1);
  EXPECT_DOUBLE_EQ(*predict_ms(t, "many_kernels", problem(500, 1000, PixelFormat::Rgba8, 8)), 0.55);
  EXPECT_DOUBLE_EQ(*predict_ms(t, "many_kernels", problem(2000, 1000, PixelFormat::Rgba8, 8)), 1.1 + 2.5 / 3);
  EXPECT_DOUBLE_EQ(*predict_ms(t, "many_kernels", problem(2000, 2000, PixelFormat::Rgba8, 8)), 3.6);
  EXPECT_DOUBLE_EQ(*predict_ms(t, "many_kernels", problem(4000, 2000, PixelFormat::Rgba8, 8)), 7.2);
  // The ranking follows the size: the faster at 1000² loses at 2000² and beyond.
  EXPECT_EQ(choose_fastest(t, {"few_kernels", "many_kernels"}, problem(1000, 1000, PixelFormat::Rgba8, 8)).method_id,
            "few_kernels");
  EXPECT_EQ(choose_fastest(t, {"few_kernels", "many_kernels"}, problem(3840, 2160, PixelFormat::Rgba8, 8)).method_id,
            "many_kernels");
  // Timed at the small size only: scaled from it at every size.
  t.entries.push_back({"small_only", PixelFormat::Rgba8, 8, 0.9});
  EXPECT_DOUBLE_EQ(*predict_ms(t, "small_only", problem(2000, 2000, PixelFormat::Rgba8, 8)), 3.6);
}

TEST(AutoChoice, TakesTheFastestCandidateWithATime) {
  const CalibrationTable t = table_of({{"slow", PixelFormat::F32, 4, 2.0},
                                       {"fast", PixelFormat::F32, 4, 0.5},
                                       {"excluded", PixelFormat::F32, 4, 0.1}});
  const AutoChoice c = choose_fastest(t, {"untimed", "slow", "fast"}, problem(1000, 1000, PixelFormat::F32, 4));
  EXPECT_EQ(c.method_id, "fast");
  EXPECT_DOUBLE_EQ(c.predicted_ms, 0.5);
  EXPECT_NE(c.why.find("Test GPU"), std::string::npos);
  // A tie goes to the earlier candidate; no time at all, to the first candidate.
  const CalibrationTable tie = table_of({{"a", PixelFormat::F32, 4, 1.0}, {"b", PixelFormat::F32, 4, 1.0}});
  EXPECT_EQ(choose_fastest(tie, {"b", "a"}, problem(10, 10, PixelFormat::F32, 4)).method_id, "b");
  EXPECT_EQ(choose_fastest(table_of({}), {"x", "y"}, problem(10, 10, PixelFormat::F32, 4)).method_id, "x");
  EXPECT_EQ(choose_fastest(table_of({}), {}, problem(10, 10, PixelFormat::F32, 4)).method_id, "");
}

TEST(AutoChoice, ExactClassLeavesOutTheApproximations) {
  const FilterProblem p = problem(4096, 4096, PixelFormat::Rgba8, 16);
  const std::vector<std::string> approximate = auto_candidates(p, AccuracyClass::Approximate, true);
  const std::vector<std::string> exact = auto_candidates(p, AccuracyClass::Exact, true);
  auto has = [](const std::vector<std::string>& v, const char* id) { return std::find(v.begin(), v.end(), id) != v.end(); };
  EXPECT_TRUE(has(approximate, "multires"));
  EXPECT_TRUE(has(approximate, "separable_shared"));
  EXPECT_FALSE(has(exact, "multires"));
  EXPECT_FALSE(has(exact, "recursive"));
  EXPECT_TRUE(has(exact, "separable_shared"));
  EXPECT_FALSE(has(approximate, "auto"));
  EXPECT_FALSE(has(approximate, "cpu_openmp"));  // GPU candidates only when there is a GPU
  // multires refuses sigma below 4 and F32 recursive's bound (2e-3) exceeds auto's 1e-3.
  EXPECT_FALSE(has(auto_candidates(problem(64, 64, PixelFormat::Rgba8, 2), AccuracyClass::Approximate, true), "multires"));
  EXPECT_FALSE(has(auto_candidates(problem(64, 64, PixelFormat::F32, 16), AccuracyClass::Approximate, true), "recursive"));
  // Without a GPU, the CPU methods.
  EXPECT_TRUE(has(auto_candidates(p, AccuracyClass::Exact, false), "cpu_openmp"));
}

// auto and auto_exact choose per format: among the methods that take it, by their bound in its own unit.
TEST(AutoChoice, CandidatesArePerFormatAndJudgedInTheFormatsOwnUnit) {
  auto has = [](const std::vector<std::string>& v, const char* id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  // 16-bit images get the FIR class in both (an approximation's 1e-3 would be 66 of their levels).
  const FilterProblem u16 = problem(512, 512, PixelFormat::Rgba16, 8);
  EXPECT_EQ(auto_candidates(u16, AccuracyClass::Approximate, true), auto_candidates(u16, AccuracyClass::Exact, true));
  EXPECT_TRUE(has(auto_candidates(u16, AccuracyClass::Exact, true), "separable_fused"));
  EXPECT_FALSE(has(auto_candidates(u16, AccuracyClass::Approximate, true), "multires"));
  EXPECT_FALSE(has(auto_candidates(u16, AccuracyClass::Approximate, true), "separable_int8"));
  // Grey bytes: the byte-exact tensor cores and the table through RGBA8, multires as an approximation.
  const FilterProblem grey8 = problem(512, 512, PixelFormat::Grey8, 1.5);
  EXPECT_TRUE(has(auto_candidates(grey8, AccuracyClass::Exact, true), "separable_int8"));
  EXPECT_TRUE(has(auto_candidates(grey8, AccuracyClass::Exact, true), "lut_2d"));
  const FilterProblem grey8_wide = problem(512, 512, PixelFormat::Grey8, 8);
  EXPECT_TRUE(has(auto_candidates(grey8_wide, AccuracyClass::Approximate, true), "multires"));
  EXPECT_FALSE(has(auto_candidates(grey8_wide, AccuracyClass::Exact, true), "multires"));
  // Half RGB: the float tensor cores, not the byte ones.
  const FilterProblem half = problem(512, 512, PixelFormat::Rgb16F, 3);
  EXPECT_TRUE(has(auto_candidates(half, AccuracyClass::Exact, true), "separable_tf32"));
  EXPECT_FALSE(has(auto_candidates(half, AccuracyClass::Exact, true), "separable_int8"));
}

// The cache: written and read back, replaced when the GPU, driver or build differ, and a damaged file
// is treated as missing.
TEST(AutoCache, RoundTripAndInvalidation) {
  test::ScratchFolder folder;
  const std::string path = (folder.path() / "sub" / "auto-calibration.txt").string();
  CalibrationTable t = table_of({{"separable_fused", PixelFormat::Rgba8, 2, 0.053},
                                 {"multires", PixelFormat::F32, 32, 0.0125},
                                 {"multires", PixelFormat::F32, 32, 0.0431, true}});
  t.large_width = 4096;
  t.large_height = 2048;
  t.rejected = {"separable_mma rgba8: sigma 2: max error 3 levels, bound 0.51"};
  t.formats = {PixelFormat::Rgba8, PixelFormat::F32, PixelFormat::Rgba16};  // RGBA16 measured, no method timed
  write_calibration(path, t);
  const std::optional<CalibrationTable> back = read_calibration(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->gpu, "Test GPU");
  EXPECT_EQ(back->large_width, 4096);
  EXPECT_EQ(back->large_height, 2048);
  ASSERT_EQ(back->entries.size(), 3u);
  EXPECT_EQ(back->entries[1].method_id, "multires");
  EXPECT_EQ(back->entries[1].format, PixelFormat::F32);
  EXPECT_DOUBLE_EQ(back->entries[1].ms, 0.0125);
  EXPECT_FALSE(back->entries[1].large);
  EXPECT_TRUE(back->entries[2].large);
  EXPECT_DOUBLE_EQ(back->entries[2].ms, 0.0431);
  EXPECT_EQ(back->rejected, t.rejected);
  EXPECT_EQ(back->formats, t.formats);
  EXPECT_TRUE(calibrated_for(*back, PixelFormat::Rgba16));
  EXPECT_FALSE(calibrated_for(*back, PixelFormat::Grey16));  // measured the first time auto is asked for it
  EXPECT_TRUE(calibration_matches(*back, {"Test GPU", "driver 1", "build 1"}));
  EXPECT_FALSE(calibration_matches(*back, {"Other GPU", "driver 1", "build 1"}));
  EXPECT_FALSE(calibration_matches(*back, {"Test GPU", "driver 2", "build 1"}));
  EXPECT_FALSE(calibration_matches(*back, {"Test GPU", "driver 1", "build 2"}));
  EXPECT_FALSE(calibration_matches(*back, {}));  // no device: never a match
  std::ofstream(path, std::ios::app) << "time multires rgba8 nonsense\n";
  EXPECT_FALSE(read_calibration(path));
  EXPECT_FALSE(read_calibration((folder.path() / "missing.txt").string()));
}

TEST(AutoCache, LivesInTheUsersCacheFolder) {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(calibration_cache_path(), "/tmp/xdg-test/gausslab/auto-calibration.txt");
  unsetenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (home) {
    EXPECT_EQ(calibration_cache_path(), std::string(home) + "/.cache/gausslab/auto-calibration.txt");
  }
  if (old_xdg) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

// Without a CUDA device (this test's premise; skipped on the GPU machine) auto runs the CPU rule and
// its result is that method's, bit for bit.
TEST(AutoWithoutGpu, RunsTheCpuRuleAndSaysSo) {
  if (cuda_device_status().available) GTEST_SKIP() << "a CUDA device is present: the GPU tests cover auto there";
  const MethodEntry* entry = find_method("auto");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->info.backend, Backend::Cpu);
  const FilterProblem p = problem(37, 21, PixelFormat::Rgba8, 3.0);
  const ImageRgba8 src = make_random_rgba8(37, 21, 4);
  std::unique_ptr<Method> a = entry->create();
  ImageRgba8 got(37, 21), want(37, 21);
  a->prepare(p);
  a->run(src.view(), got.view(), nullptr, nullptr);
  const std::optional<AutoChoice> c = auto_choice_of(*a);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->method_id, choose_without_gpu(p).method_id);
  std::unique_ptr<Method> direct = find_method(c->method_id)->create();
  direct->prepare(p);
  direct->run(src.view(), want.view(), nullptr, nullptr);
  EXPECT_EQ(got.pixels(), want.pixels());
  EXPECT_FALSE(auto_choice_of(*direct));
}

// auto's CPU form (method_registry(false), the viewer's --path cpu beside a device) runs the CPU rule
// on host memory whether or not this machine has a device, says why, and gives the chosen method's
// result bit for bit; every other entry of that registry is the registry's own.
TEST(AutoOnHost, RunsTheCpuRuleOnAnyMachineAndSaysWhy) {
  for (const char* id : {"auto", "auto_exact"}) {
    SCOPED_TRACE(id);
    const std::optional<MethodEntry> host = auto_on_host(*find_method(id));
    ASSERT_TRUE(host);
    EXPECT_EQ(host->info.id, id);
    EXPECT_EQ(host->info.backend, Backend::Cpu);
    const FilterProblem p = problem(29, 17, PixelFormat::Rgba8, 2.0);
    const ImageRgba8 src = make_random_rgba8(29, 17, 9);
    std::unique_ptr<Method> a = host->create();
    ImageRgba8 got(29, 17), want(29, 17);
    a->prepare(p);
    a->run(src.view(), got.view(), nullptr, nullptr);
    const std::optional<AutoChoice> c = auto_choice_of(*a);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->method_id, choose_without_gpu(p).method_id);
    EXPECT_NE(c->why.find("the CPU methods only"), std::string::npos) << c->why;
    std::unique_ptr<Method> direct = find_method(c->method_id)->create();
    direct->prepare(p);
    direct->run(src.view(), want.view(), nullptr, nullptr);
    EXPECT_EQ(got.pixels(), want.pixels());
  }
  EXPECT_FALSE(auto_on_host(*find_method("cpu_openmp")));
  const std::vector<MethodEntry>& cpu_only = method_registry(false);
  ASSERT_EQ(cpu_only.size(), method_registry().size());
  for (std::size_t i = 0; i < cpu_only.size(); ++i) {
    EXPECT_EQ(cpu_only[i].info.id, method_registry()[i].info.id);  // the same indices
    if (!auto_on_host(cpu_only[i])) EXPECT_EQ(cpu_only[i].info.backend, method_registry()[i].info.backend);
    else EXPECT_EQ(cpu_only[i].info.backend, Backend::Cpu);
  }
  EXPECT_EQ(&method_registry(true), &method_registry());
}

// runs_on_gpu reads the path's registry: the viewer's slots that are not methods (negative indices)
// never run there, a CUDA method runs there on a GPU path, a CPU method never, and auto follows its
// entry in the registry of the path (its CPU form on --path cpu beside a device).
TEST(RunsOnGpu, FollowsTheRegistryOfThePath) {
  const auto index_of = [](const char* id) {
    return static_cast<int>(find_method(id) - method_registry().data());
  };
  for (const bool gpu : {true, false}) {
    SCOPED_TRACE(gpu);
    EXPECT_FALSE(runs_on_gpu(-1, gpu));
    EXPECT_FALSE(runs_on_gpu(-3, gpu));
    EXPECT_FALSE(runs_on_gpu(index_of("cpu_openmp"), gpu));
    EXPECT_EQ(runs_on_gpu(index_of("auto"), gpu),
              method_registry(gpu)[static_cast<std::size_t>(index_of("auto"))].info.backend == Backend::Cuda);
  }
  EXPECT_TRUE(runs_on_gpu(index_of("naive_2d"), true));
  if (cuda_device_status().available) {
    EXPECT_FALSE(runs_on_gpu(index_of("auto"), false));
  }
}

}  // namespace
}  // namespace gausslab
