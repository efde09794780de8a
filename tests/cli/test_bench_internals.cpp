// gausslab-bench's pure parts: options, the list of configurations, run counts, statistics,
// the cost prediction behind the caps, accuracy crops and the output formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "bench_accuracy.hpp"
#include "bench_batch.hpp"
#include "bench_options.hpp"
#include "bench_plan.hpp"
#include "bench_report.hpp"
#include "bench_techniques.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gpu_timing.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

BenchOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gausslab-bench");
  return parse_bench_options(static_cast<int>(args.size()), args.data());
}

TEST(BenchOptions, DefaultsAreThePublishedSetup) {
  const BenchOptions options = parse({});
  EXPECT_EQ(options.sizes, (std::vector<int>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(options.kernels, (std::vector<int>{7, 41}));
  EXPECT_TRUE(options.sigmas.empty());
  ASSERT_FALSE(options.formats.empty());
  EXPECT_EQ(options.formats.front(), PixelFormat::F32);
  EXPECT_EQ(options.timing.max_runs, 50);
  EXPECT_EQ(options.timing.min_runs, 5);
  EXPECT_DOUBLE_EQ(options.timing.target_seconds, 0.5);
  EXPECT_FALSE(options.sigma_sweep);
}

TEST(BenchOptions, TheBatchWorkloadIsTheOriginalSystemsTable) {
  // The original BMP system's fixed 5×5 table: a Gaussian of sigma 1.5, radius 2, zero border.
  const FilterParams original = batch_workload_params(parse({"--batch"}).batch);
  EXPECT_DOUBLE_EQ(original.sigma, 1.5);
  EXPECT_EQ(original.radius(), 2);
  EXPECT_EQ(original.border, BorderMode::Constant);
  const FilterParams other =
      batch_workload_params(parse({"--batch", "--batch-kernel", "7", "--batch-sigma", "2", "--border", "mirror"}).batch);
  EXPECT_DOUBLE_EQ(other.sigma, 2.0);
  EXPECT_EQ(other.radius(), 3);
  EXPECT_EQ(other.border, BorderMode::Mirror);
  EXPECT_THROW(parse({"--batch", "--batch-sigma", "0"}), UsageError);
}

TEST(BenchOptions, KernelSizesFollowThePapersThreeSigmaRule) {
  EXPECT_EQ(kernel_radius(7), 3);
  EXPECT_DOUBLE_EQ(kernel_sigma(7), 1.0);
  EXPECT_EQ(kernel_radius(41), 20);
  EXPECT_NEAR(kernel_sigma(41), 6.6667, 1e-4);
}

TEST(BenchOptions, SigmasAloneReplaceTheKernels) {
  EXPECT_TRUE(parse({"--sigmas", "1,2.5"}).kernels.empty());
  const BenchOptions both = parse({"--sigmas", "1", "--kernels", "9"});
  EXPECT_EQ(both.kernels, std::vector<int>{9});
  EXPECT_EQ(both.sigmas, std::vector<double>{1.0});
}

TEST(BenchOptions, QuickShortensTheRuns) {
  const BenchOptions quick = parse({"--quick"});
  EXPECT_LT(quick.timing.max_runs, 50);
  EXPECT_LT(quick.timing.target_seconds, 0.5);
}

// The message of the UsageError that parsing `args` throws; "" (and a failure) when it is accepted.
std::string refusal(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(BenchOptions, AFlagTheChosenRunWouldIgnoreIsRefusedWithTheReason) {
  // --batch-images without --batch ran the whole default comparison (issue 40).
  std::string message = refusal({"--batch-images", "3"});
  EXPECT_NE(message.find("--batch-images applies to --batch (the batch workload), not to the default comparison"),
            std::string::npos) << message;
  message = refusal({"--sequence", "--sizes", "512"});
  EXPECT_NE(message.find("--sizes applies to the default comparison of the methods, not to --sequence"),
            std::string::npos) << message;
  EXPECT_NE(refusal({"--codecs", "a.png", "--border", "wrap"}).find("--border applies to the default comparison of "
                                                                    "the methods or --batch"), std::string::npos);
  EXPECT_NE(refusal({"--make-image", "8x8", "x.png", "--out", "d"}).find("--out applies to"), std::string::npos);
  // A section's settings without the section.
  message = refusal({"--sweep-sizes", "512"});
  EXPECT_NE(message.find("--sweep-sizes sets a section that is not asked for, and would be ignored; add --sigma-sweep"),
            std::string::npos) << message;
  EXPECT_NE(refusal({"--technique-size", "512"}).find("add --lut or --unrolled or --pooling"), std::string::npos);
  // Two runs at once (--batch won and --sequence was dropped).
  message = refusal({"--batch", "--sequence"});
  EXPECT_NE(message.find("--batch (the batch workload) and --sequence (the image-sequence benchmark) are two "
                         "different runs"), std::string::npos) << message;
  // What applies is accepted.
  EXPECT_NO_THROW(parse({"--batch", "--batch-images", "3", "--border", "wrap", "--threads", "2", "--overwrite"}));
  EXPECT_NO_THROW(parse({"--sigma-sweep", "--sweep-sizes", "512", "--quick", "--no-plot"}));
  EXPECT_NO_THROW(parse({"--sequence-sizes", "64x48", "--quick", "--out", "d"}));
}

TEST(BenchOptions, EveryFlagOfTheHelpTextSaysWhereItApplies) {
  const std::string usage = bench_usage("");
  int flags = 0;
  for (std::size_t at = usage.find("--"); at != std::string::npos; at = usage.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < usage.size() && (std::isalnum(static_cast<unsigned char>(usage[end])) || usage[end] == '-')) ++end;
    const std::string flag = usage.substr(at, end - at);
    if (flag == "--") continue;
    ++flags;
    EXPECT_TRUE(bench_flag_has_scope(flag)) << flag << " is in the help text but not in kFlagScopes (bench_options.cpp)";
  }
  EXPECT_GT(flags, 40);
}

// --make-image's path is checked as the writer would check it, as a usage error before the noise
// is made (an unknown extension exited 1).
TEST(BenchMakeImage, APathTheWriterWouldRefuseIsAUsageErrorBeforeAnyWork) {
  test::ScratchFolder scratch;
  std::ostringstream log;
  for (const std::string name : {"noise.xyz", "noise", "missing/noise.png", "noise.pfm"}) {
    EXPECT_THROW(make_test_image(8, 8, scratch.file(name), false, log), UsageError) << name;
    EXPECT_FALSE(std::filesystem::exists(scratch.file(name))) << name;
  }
  EXPECT_EQ(make_test_image(8, 8, scratch.file("noise.png"), false, log), 0);
  EXPECT_THROW(make_test_image(8, 8, scratch.file("noise.png"), false, log), UsageError);  // exists, no --overwrite
  EXPECT_EQ(make_test_image(8, 8, scratch.file("noise.png"), true, log), 0);
}

TEST(BenchOptions, BadValuesAreUsageErrors) {
  EXPECT_THROW(parse({"--kernels", "8"}), UsageError);    // even
  EXPECT_THROW(parse({"--kernels", "1"}), UsageError);    // sigma 0
  EXPECT_THROW(parse({"--sigmas", "0.05"}), UsageError);  // below 0.1
  EXPECT_THROW(parse({"--sigmas", "1,,2"}), UsageError);  // empty item
  EXPECT_THROW(parse({"--sequence-sizes", "8x8"}), UsageError);        // below the synthetic sky's 16
  EXPECT_THROW(parse({"--sequence-sizes", "512x20000"}), UsageError);  // above its 16384
  EXPECT_THROW(parse({"--sizes", "0"}), UsageError);
  EXPECT_THROW(parse({"--formats", "rgb12"}), UsageError);
  EXPECT_THROW(parse({"--sweep-formats", "rgba"}), UsageError);
  EXPECT_THROW(parse({"--cpu-cap-seconds", "-1"}), UsageError);
  EXPECT_THROW(parse({"--frobnicate"}), UsageError);
  EXPECT_THROW(parse({"results"}), UsageError);  // no positional arguments
  EXPECT_THROW(select_methods({"no_such_method"}), UsageError);
}

TEST(BenchPlan, EveryMethodOnEveryConfigurationGroupedByImage) {
  BenchOptions options = parse({"--sizes", "64,128", "--formats", "f32,rgba8", "--sigmas", "2", "--kernels", "7"});
  const std::vector<const MethodEntry*> methods = select_methods({});
  const std::vector<BenchCase> cases = plan_cases(options, methods);
  ASSERT_EQ(cases.size(), methods.size() * 2 * 2 * 2);
  // Methods innermost: one image (format, size) stays loaded while all methods run on it.
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].method, methods[i % methods.size()]);
    EXPECT_EQ(cases[i].problem.width, cases[i - i % methods.size()].problem.width);
  }
  EXPECT_EQ(cases.front().problem.format, PixelFormat::F32);
  EXPECT_EQ(cases.front().kernel_size, 7);
  EXPECT_EQ(cases.front().problem.params.fixed_radius, 3);
  EXPECT_EQ(cases.front().kernel_label(), "7x7");
  const BenchCase& sigma_case = cases[methods.size()];
  EXPECT_EQ(sigma_case.kernel_size, 0);
  EXPECT_EQ(sigma_case.problem.params.radius(), 8);  // floor(4 * 2 + 0.5)
  EXPECT_EQ(sigma_case.kernel_label(), "sigma 2");
  EXPECT_EQ(cases.back().problem.format, PixelFormat::Rgba8);
}

TEST(BenchOptions, EveryPixelFormatIsAFormatToTimeAndTheSweepTakesFourByDefault) {
  const BenchOptions options = parse({"--formats", "grey16,rgba16,rgba32f,rgb8"});
  EXPECT_EQ(options.formats, (std::vector<PixelFormat>{PixelFormat::Grey16, PixelFormat::Rgba16, PixelFormat::Rgba32F,
                                                       PixelFormat::Rgb8}));
  EXPECT_EQ(parse({}).sweep_formats, (std::vector<PixelFormat>{PixelFormat::Rgba8, PixelFormat::Rgba16,
                                                               PixelFormat::Rgba32F, PixelFormat::F32}));
  // The bytes moved follow the format: one read and one write of 8 (RGBA16) and 16 (RGBA32F) bytes a pixel.
  EXPECT_DOUBLE_EQ(effective_bytes(FilterProblem{100, 10, PixelFormat::Rgba16, {}}), 2.0 * 1000 * 8);
  EXPECT_DOUBLE_EQ(effective_bytes(FilterProblem{100, 10, PixelFormat::Rgba32F, {}}), 2.0 * 1000 * 16);
  EXPECT_DOUBLE_EQ(effective_bytes(FilterProblem{100, 10, PixelFormat::Rgb8, {}}), 2.0 * 1000 * 3);
}

TEST(BenchPlan, SigmaSweepIsEachSweepFormatAtEachSweepSizeThenTheScalingRows) {
  BenchOptions options = parse({"--sizes", "64", "--sigma-sweep", "--sweep-sizes", "256,512", "--sweep-sigmas", "1,8",
                                "--sweep-formats", "rgba16,rgba8"});
  const std::vector<const MethodEntry*> methods = select_methods({"cpu_separable", "cpu_openmp", "auto"});
  const std::vector<BenchCase> cases = plan_cases(options, methods);
  // main: 2 formats × 2 kernels × 3 methods; sweep: 2 formats × 2 sizes × 2 sigmas × 3; scaling: auto only,
  // 2 sigmas × 4 sizes
  ASSERT_EQ(cases.size(), 2u * 2 * 3 + 2 * 2 * 2 * 3 + 2 * 4);
  EXPECT_EQ(cases[2 * 2 * 3].section, kSweepSection);
  EXPECT_EQ(cases[2 * 2 * 3].problem.format, PixelFormat::Rgba16);
  const BenchCase& last_sweep = cases[cases.size() - 9];
  EXPECT_EQ(last_sweep.section, kSweepSection);
  EXPECT_EQ(last_sweep.problem.format, PixelFormat::Rgba8);
  EXPECT_EQ(last_sweep.problem.width, 512);
  EXPECT_EQ(last_sweep.problem.params.radius(), 32);
  const BenchCase& last = cases.back();
  EXPECT_EQ(last.section, kScalingSection);
  EXPECT_EQ(last.method->info.id, "auto");
  EXPECT_EQ(last.problem.width, 8192);
  EXPECT_DOUBLE_EQ(last.problem.params.sigma, 32);
}

TEST(BenchPlan, RunCountFillsTheTargetWithinTheLimits) {
  EXPECT_EQ(timed_run_count(0.0001, 5, 50, 0.5), 50);  // fast: 50 runs in 5 ms
  EXPECT_EQ(timed_run_count(0.02, 5, 50, 0.5), 25);    // 0.5 s of 20 ms runs
  EXPECT_EQ(timed_run_count(0.2, 5, 50, 0.5), 5);      // slow: never fewer than 5
  EXPECT_EQ(timed_run_count(0.0, 5, 50, 0.5), 50);
  EXPECT_EQ(timed_run_count(3.0, 1, 10, 1.0), 1);
}

TEST(BenchPlan, TimeStatsMedianMinAndNearestRankP90) {
  const TimeStats odd = time_stats({5, 1, 3});
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.p90, 5);
  const TimeStats even = time_stats({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  EXPECT_DOUBLE_EQ(time_stats(ten).p90, 9);  // ceil(0.9 × 10) = 9th smallest
  EXPECT_EQ(time_stats(ten).count, 10);
  EXPECT_TRUE(std::isnan(time_stats({}).median));
}

TEST(BenchPlan, PredictionScalesWithPixelsChannelsAndTapsSquared) {
  FilterProblem small{1024, 1024, PixelFormat::F32, {}};
  small.params.fixed_radius = 3;
  FilterProblem large = small;
  large.width = large.height = 2048;
  large.params.fixed_radius = 7;
  EXPECT_NEAR(predict_run_ms(1.0, small, large), 4.0 * (15.0 / 7.0) * (15.0 / 7.0), 1e-9);
  FilterProblem rgba = small;
  rgba.format = PixelFormat::Rgba8;
  EXPECT_NEAR(predict_run_ms(2.0, small, rgba), 8.0, 1e-9);
}

TEST(BenchPlan, EffectiveBytesReadOnceWrittenOnce) {
  const FilterProblem f32{4096, 4096, PixelFormat::F32, {}};
  EXPECT_DOUBLE_EQ(effective_bytes(f32), 2.0 * 4096 * 4096 * 4);
}

TEST(GpuTimingRules, RotationExceedsTheL2CacheThreeTimes) {
  const double l2 = 50.0 * (1 << 20), memory = 80.0 * (1 << 30);
  const double mib = 1 << 20;
  EXPECT_EQ(rotation_copies(64 * mib, l2, memory), 2);  // 4096² f32: two pairs are 256 MiB
  EXPECT_EQ(rotation_copies(4 * mib, l2, memory), 19);  // 1024² f32: ceil(150 / 8)
  EXPECT_EQ(rotation_copies(0.01 * mib, l2, memory), 64);
  EXPECT_EQ(rotation_copies(64 * mib, l2, 512 * mib), 1);  // a small device: what fits
}

TEST(BenchAccuracy, CornerCrops) {
  const std::vector<Rect> large = accuracy_crops(4096, 4096);
  ASSERT_EQ(large.size(), 2u);
  EXPECT_EQ(large[0].x, 0);
  EXPECT_EQ(large[0].width, 96);
  EXPECT_EQ(large[1].x, 4000);
  EXPECT_EQ(large[1].y, 4000);
  const std::vector<Rect> small = accuracy_crops(50, 70);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].width, 50);
  EXPECT_EQ(small[0].height, 70);
}

TEST(BenchAccuracy, CropViewPointsIntoTheImage) {
  ImageF32 image(10, 8);
  image.at(3, 2) = 7.0f;
  const ConstImageView crop = crop_view(image.view(), Rect{3, 2, 4, 4});
  EXPECT_EQ(crop.row<float>(0)[0], 7.0f);
  EXPECT_EQ(crop.pitch_bytes, image.pitch_bytes());
}

TEST(BenchAccuracy, ExactResultIsWithinBoundAndAWrongOneIsNot) {
  const ImageF32 input = make_random_f32(120, 100, 3);
  FilterParams params;
  params.sigma = 1.5;
  params.border = BorderMode::Mirror;
  const CropReference reference = make_crop_reference(input.view(), params);
  // The float32 CPU filter meets the 1e-5 bound; a result shifted by 1e-3 does not.
  ImageF32 result(120, 100);
  cpu_gaussian_filter(input.view(), result.view(), params, CpuThreading::Single);
  const AccuracyStats good = crop_accuracy(result.view(), reference);
  EXPECT_TRUE(meets(good, AccuracyBound{}, PixelFormat::F32)) << good.max_relative_error;
  result.at(0, 0) += 1e-3f;
  const AccuracyStats bad = crop_accuracy(result.view(), reference);
  EXPECT_FALSE(meets(bad, AccuracyBound{}, PixelFormat::F32));
  result.at(0, 0) = std::nanf("");
  EXPECT_EQ(crop_accuracy(result.view(), reference).nonfinite, 1u);
}

TEST(BenchReport, Quoting) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a, b"), "\"a, b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(json_string("a\"b\\c\n\x01×"), "\"a\\\"b\\\\c\\n\\u0001×\"");
  EXPECT_EQ(json_number(std::nan("")), "null");
  EXPECT_EQ(json_number(INFINITY), "null");
  EXPECT_EQ(json_number(0.25), "0.25");
}

BenchRow measured_row(const MethodEntry* method, int kernel, double ms) {
  BenchRow row;
  row.config.section = kMainSection;
  row.config.method = method;
  row.config.kernel_size = kernel;
  row.config.problem = FilterProblem{4096, 4096, PixelFormat::F32, {}};
  row.config.problem.params.fixed_radius = kernel_radius(kernel);
  row.config.problem.params.sigma = kernel_sigma(kernel);
  row.status = BenchRow::Status::Ok;
  row.kernel = time_stats({ms});
  row.within_bound = true;
  return row;
}

TEST(BenchReport, SpeedupOverBothCpuMethods) {
  const std::vector<BenchRow> rows = {
      measured_row(find_method("cpu_separable"), 41, 500.0), measured_row(find_method("cpu_openmp"), 41, 50.0),
      measured_row(find_method("separable_shared"), 41, 0.5), measured_row(find_method("separable_shared"), 7, 0.2)};
  const std::vector<Speedup> table = speedups(rows);
  ASSERT_EQ(table.size(), 2u);  // 7×7 first, then 41×41
  EXPECT_EQ(table[0].kernel_size, 7);
  EXPECT_TRUE(std::isnan(table[0].vs_cpu_separable));  // no CPU row at 7×7
  EXPECT_EQ(table[1].method, "separable_shared");
  EXPECT_DOUBLE_EQ(table[1].vs_cpu_separable, 1000.0);
  EXPECT_DOUBLE_EQ(table[1].vs_cpu_openmp, 100.0);
  const std::string markdown = speedup_markdown(rows);
  EXPECT_NE(markdown.find("1000.0×"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("n/a"), std::string::npos) << markdown;
}

TEST(BenchReport, CsvAndJsonHaveOneRowPerConfiguration) {
  std::vector<BenchRow> rows = {measured_row(find_method("cpu_openmp"), 7, 2.0)};
  BenchRow skipped = measured_row(find_method("fft"), 7, 0);
  skipped.status = BenchRow::Status::Skipped;
  skipped.note = "no CUDA device, \"quoted\"";
  rows.push_back(skipped);
  BenchHeader header;
  header.copy_gbs = 2000;
  const std::string csv = results_csv(header, rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_EQ(csv.rfind("section,method,backend,format,width,height,kernel,sigma,radius,taps", 0), 0u) << csv;
  EXPECT_NE(csv.find("\"no CUDA device, \"\"quoted\"\"\""), std::string::npos) << csv;
  const std::string json = results_json(header, rows);
  EXPECT_NE(json.find("\"ms_median\": 2,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ms_median\": null"), std::string::npos) << json;  // the skipped row
  EXPECT_NE(json.find("\"copy_bandwidth_gbs\": 2000"), std::string::npos) << json;
  // 4096² f32 read + written in 2 ms: 67.1 GB/s, 3.4 % of 2000 GB/s.
  EXPECT_NEAR(gigabytes_per_second(rows[0]), 67.108864, 1e-6);
  EXPECT_NE(csv.find(",67.109,3.355,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace gausslab

// ---- issue 13's sections -------------------------------------------------------------------------

namespace gausslab {
namespace {

int count_section(const std::vector<BenchCase>& cases, const char* section) {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [&](const BenchCase& c) { return c.section == section; }));
}

TEST(BenchPlan, SignalsAreEveryOneAxisGpuMethodOnEveryLengthAndRadius) {
  const BenchOptions options = parse({"--no-main", "--signals", "--signal-lengths", "16,26", "--signal-radii", "3,20,64"});
  const std::vector<BenchCase> cases = plan_cases(options, select_methods({}));
  std::vector<std::string> methods;
  for (const BenchCase& c : cases) {
    ASSERT_EQ(c.section, kSignalsSection);
    EXPECT_EQ(c.problem.height, 1);
    EXPECT_EQ(c.problem.format, PixelFormat::F32);
    EXPECT_EQ(c.problem.params.axes, FilterAxes::RowsOnly);
    EXPECT_TRUE(c.method->info.filters_along_x_only && c.is_gpu()) << c.method->info.id;
    if (std::find(methods.begin(), methods.end(), c.method->info.id) == methods.end()) methods.push_back(c.method->info.id);
  }
  EXPECT_NE(std::find(methods.begin(), methods.end(), "tiled_1d"), methods.end());
  EXPECT_NE(std::find(methods.begin(), methods.end(), "separable_shared"), methods.end());
  EXPECT_EQ(cases.size(), 2u * 3u * methods.size());
  EXPECT_EQ(cases.front().problem.width, 1 << 16);
  // One read and one write of 4 bytes per sample.
  EXPECT_DOUBLE_EQ(effective_bytes(cases.front()), 8.0 * (1 << 16));
}

TEST(BenchPlan, LutUnrolledAndPoolingSections) {
  const BenchOptions options =
      parse({"--no-main", "--lut", "--lut-radii", "1,8", "--unrolled", "--unrolled-kernels", "5,7", "--pooling",
             "--technique-size", "256", "--formats", "f32,rgba8"});
  const std::vector<BenchCase> cases = plan_cases(options, select_methods({}));
  EXPECT_EQ(count_section(cases, kMainSection), 0);
  EXPECT_EQ(count_section(cases, kLutSection), 2 * 3);  // lut_2d, naive_2d, shared_2d
  for (const BenchCase& c : cases)
    if (c.section == kLutSection) {
      EXPECT_EQ(c.problem.format, PixelFormat::Rgba8);
    }
  // naive_2d and shared_2d have compile-time kernels: unrolled and looped, 2 formats, 2 kernels.
  EXPECT_EQ(count_section(cases, kUnrolledSection), 2 * 2 * 2 * 2);
  const auto looped = std::find_if(cases.begin(), cases.end(), [](const BenchCase& c) { return c.looped; });
  ASSERT_NE(looped, cases.end());
  EXPECT_EQ(looped->variant(), "looped");
  // separable_fused fuses pooling: per format the blur alone, then max and avg, fused and separate.
  EXPECT_EQ(count_section(cases, kPoolingSection), 2 * 5);
  const auto pooled = std::find_if(cases.begin(), cases.end(), [](const BenchCase& c) { return c.pool != PoolMode::None; });
  ASSERT_NE(pooled, cases.end());
  EXPECT_EQ(pooled->method->info.id, "separable_fused");
  EXPECT_EQ(pooled->variant(), "max2x2 fused");
  EXPECT_DOUBLE_EQ(effective_bytes(*pooled), 256.0 * 256 * 4 * 1.25);  // the output is a quarter
  EXPECT_THROW(parse({"--no-main"}), UsageError);
}

BenchRow technique_row(const char* section, const char* method, FilterProblem problem, double ms) {
  BenchRow row;
  row.config.section = section;
  row.config.method = find_method(method);
  row.config.problem = problem;
  row.status = BenchRow::Status::Ok;
  row.kernel = time_stats({ms});
  row.within_bound = true;
  return row;
}

TEST(BenchReport, TechniqueTablesAnswerTheirQuestions) {
  BenchHeader header;
  header.copy_gbs = 3000;
  FilterProblem signal{1 << 26, 1, PixelFormat::F32, {}};
  signal.params.fixed_radius = 20;
  signal.params.axes = FilterAxes::RowsOnly;
  // 2^26 × 8 B in 0.25 ms: 2147 GB/s, 72 % of 3000.
  std::vector<BenchRow> rows = {technique_row(kSignalsSection, "tiled_1d", signal, 0.25),
                                technique_row(kSignalsSection, "separable_shared", signal, 5.0)};
  std::string md = techniques_markdown(header, rows);
  EXPECT_NE(md.find("| 2^26 | 20 |"), std::string::npos) << md;
  EXPECT_NE(md.find("72 % (lowest of those radii): met"), std::string::npos) << md;
  rows[0].kernel = time_stats({0.5});
  EXPECT_NE(techniques_markdown(header, rows).find("**not met**"), std::string::npos);

  FilterProblem image{4096, 4096, PixelFormat::Rgba8, {}};
  image.params.fixed_radius = 2;
  rows = {technique_row(kLutSection, "lut_2d", image, 3.0), technique_row(kLutSection, "naive_2d", image, 2.0),
          technique_row(kLutSection, "shared_2d", image, 1.0)};
  md = techniques_markdown(header, rows);
  EXPECT_NE(md.find("| 5×5 | 6 | 3 | 2 | 1 | 3.00× |"), std::string::npos) << md;

  BenchRow unrolled = technique_row(kUnrolledSection, "naive_2d", image, 1.0);
  unrolled.config.kernel_size = 5;
  BenchRow looped = unrolled;
  looped.config.looped = true;
  looped.kernel = time_stats({1.5});
  md = techniques_markdown(header, {unrolled, looped});
  EXPECT_NE(md.find("| naive_2d | rgba8 | 5x5 | 1 | 1.5 | 1.50× |"), std::string::npos) << md;

  BenchRow blur = technique_row(kPoolingSection, "separable_fused", image, 1.0);
  blur.config.kernel_size = 7;
  BenchRow fused = blur, separate = blur;
  fused.config.pool = separate.config.pool = PoolMode::Max2x2;
  fused.config.fused_pool = true;
  fused.kernel = time_stats({1.1});
  separate.kernel = time_stats({1.4});
  md = techniques_markdown(header, {blur, fused, separate});
  EXPECT_NE(md.find("| separable_fused | rgba8 | 7x7 | max2x2 | 1 | 1.1 | 1.4 | 1.27× |"), std::string::npos) << md;
}

}  // namespace
}  // namespace gausslab
