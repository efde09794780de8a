// gausslab-filter's argument checks and job planning: every refusal before any work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "filter_jobs.hpp"
#include "filter_options.hpp"
#include "filter_runner.hpp"
#include "gausslab/batch/progress.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/npy_io.hpp"
#include "gausslab/cuda/registry.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

FilterOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gausslab-filter");
  return parse_filter_options(static_cast<int>(args.size()), args.data());
}

std::string usage_message(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(FilterOptions, SingleFile) {
  const FilterOptions options =
      parse({"in.png", "-o", "out.png", "--method", "cpu_openmp", "--sigma", "3", "--border", "wrap", "--radius", "5"});
  EXPECT_EQ(options.mode, FilterOptions::Mode::Filter);
  EXPECT_FALSE(options.batch());
  EXPECT_EQ(options.inputs, std::vector<std::string>{"in.png"});
  EXPECT_EQ(options.params.sigma, 3.0);
  EXPECT_EQ(options.params.border, BorderMode::Wrap);
  EXPECT_EQ(options.params.radius(), 5);
  EXPECT_EQ(options.overwrite, Overwrite::Never);
}

TEST(FilterOptions, Batch) {
  const FilterOptions options =
      parse({"a.png", "b.jpg", "--out-dir=out", "--method", "cpu_separable", "--sigma=1.5", "--format", "bmp", "-q"});
  EXPECT_TRUE(options.batch());
  EXPECT_EQ(options.inputs.size(), 2u);
  EXPECT_EQ(options.batch_extension, ".bmp");
  EXPECT_TRUE(options.quiet);
}

TEST(FilterOptions, EachMistakeNamesItsFix) {
  EXPECT_NE(usage_message({"in.png", "--method", "cpu_openmp", "--sigma", "2"}).find("-o"), std::string::npos);
  EXPECT_NE(usage_message({"a.png", "b.png", "--method", "cpu_openmp", "--sigma", "2"}).find("--out-dir"),
            std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--out-dir", "d", "--method", "m", "--sigma", "2"}).find("not both"),
            std::string::npos);
  EXPECT_EQ(usage_message({"a.png", "-o", "x.png", "--sigma", "2"}), "(accepted)");  // the default method
  EXPECT_NE(usage_message({"a.png", "--out-dir", "d", "--sigma", "2", "--max-device-memory", "lots"}).find("1GiB"),
            std::string::npos);
  EXPECT_NE(usage_message({"a.png", "--out-dir", "d", "--sigma", "2", "--split", "rows"}).find("files, bands"),
            std::string::npos);
  EXPECT_NE(usage_message({"a.png", "--out-dir", "d", "--sigma", "2", "--format", "gif"}).find("png"),
            std::string::npos);
  EXPECT_NE(usage_message({"--from-list", "-", "-o", "x.png", "--sigma", "2"}).find("--out-dir"), std::string::npos);
  EXPECT_NE(usage_message({"--from-list", "-", "--sigma", "2"}).find("--out-dir"), std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m"}).find("--sigma"), std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "nan"}).find("0.1 and 200"),
            std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "250"}).find("outside"),
            std::string::npos);
  EXPECT_NE(
      usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2", "--truncate", "0.1"}).find("truncate"),
      std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2", "--radius", "3", "--truncate", "3"})
                .find("only one"),
            std::string::npos);
  EXPECT_NE(usage_message({"--list-methods", "--size", "10x10"}).find("--sigma"), std::string::npos);
  EXPECT_NE(usage_message({"--list-methods", "a.png"}).find("no input"), std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2", "--bogus"}).find("unknown option"),
            std::string::npos);
}

TEST(FilterOptions, HelpAndList) {
  EXPECT_EQ(parse({"--help"}).mode, FilterOptions::Mode::Help);
  const FilterOptions list = parse({"--list-methods", "--size", "64x32", "--sigma", "2"});
  EXPECT_EQ(list.mode, FilterOptions::Mode::ListMethods);
  ASSERT_TRUE(list.list_problem_size);
  EXPECT_EQ(list.list_problem_size->first, 64);
  EXPECT_NE(filter_usage("cpu_separable, cpu_openmp").find("cpu_openmp"), std::string::npos);
}

TEST(FilterJobs, UnknownMethodListsTheIds) {
  FilterOptions options = parse({"a.png", "-o", "x.png", "--method", "nope", "--sigma", "2"});
  try {
    resolve_method(options);
    FAIL() << "accepted an unknown method";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(method_id_list()), std::string::npos) << error.what();
  }
  options.method_id = "cpu_separable";
  EXPECT_EQ(resolve_method(options).id, "cpu_separable");
}

TEST(FilterJobs, WithoutMethodTheDefaultRuleChoosesOneThatRunsHere) {
  const FilterOptions options = parse({"a.png", "-o", "x.png", "--sigma", "2"});
  const MethodChoice choice = resolve_method(options);
  const MethodEntry* entry = find_method(choice.id);
  ASSERT_NE(entry, nullptr) << choice.id;
  EXPECT_TRUE(method_unavailable_reason(*entry).empty()) << choice.id;
  EXPECT_FALSE(choice.reason.empty());
}

TEST(FilterJobs, BatchOutputsAreNamedAfterTheInputs) {
  EXPECT_EQ(batch_output_path("cat", "out", ".png"), "out/cat.png");
  EXPECT_EQ(batch_output_path("a.b", "out", ".bmp"), "out/a.b.bmp");
  EXPECT_EQ(batch_output_path("trip/day1/cat", "out", ".png"), "out/trip/day1/cat.png");
}

TEST(FilterJobs, RefusesCollisionsExistingOutputsAndTheInputItself) {
  test::ScratchFolder scratch;
  const std::string dir = scratch.path().string();
  FilterOptions options =
      parse({"x/a.png", "y/a.jpg", "--out-dir", dir.c_str(), "--method", "cpu_openmp", "--sigma", "2"});
  const std::vector<InputFile> clash = {{"x/a.png", "a", 0}, {"y/a.jpg", "a", 0}};
  EXPECT_THROW(plan_filter_jobs(options, clash), UsageError);  // both become a.png

  const std::vector<InputFile> two = {{"x/a.png", "a", 0}, {"x/b.png", "b", 0}};
  ASSERT_EQ(plan_filter_jobs(options, two).size(), 2u);
  std::ofstream(scratch.file("b.png")) << "user file";
  EXPECT_THROW(plan_filter_jobs(options, two), UsageError);
  options.overwrite = Overwrite::Allowed;
  EXPECT_EQ(plan_filter_jobs(options, two).size(), 2u);

  // Its own input is never an output, even with --overwrite.
  const std::vector<InputFile> own = {{scratch.file("b.png"), "b", 0}};
  EXPECT_THROW(plan_filter_jobs(options, own), UsageError);

  // A missing output folder is made (with the subfolders of a recursive batch), not refused.
  options.out_dir = scratch.file("missing");
  const std::vector<InputFile> nested = {{"x/a.png", "trip/a", 0}};
  const std::vector<BatchJob> jobs = plan_filter_jobs(options, nested);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(scratch.file("missing")));  // planning creates nothing
  create_output_folders(options, jobs);
  EXPECT_TRUE(std::filesystem::is_directory(scratch.file("missing/trip")));

  std::ofstream(scratch.file("a-file")) << "x";
  options.out_dir = scratch.file("a-file");
  EXPECT_THROW(plan_filter_jobs(options, two), UsageError);  // --out-dir is a file

  FilterOptions single =
      parse({"a.png", "-o", scratch.file("b.png").c_str(), "--method", "cpu_openmp", "--sigma", "2"});
  EXPECT_THROW(plan_filter_jobs(single, {{"a.png", "a", 0}}), UsageError);  // exists, no --overwrite
}

// An --out-dir that is an input folder, or with --recursive inside one, is refused on the first run
// (it used to be refused only by the next run, once the outputs were found among the inputs).
TEST(FilterJobs, AnOutDirAmongTheInputsIsRefusedBeforeTheFirstRun) {
  test::ScratchFolder scratch;
  const std::string tree = scratch.file("photos");
  std::filesystem::create_directories(tree + "/trip");
  const std::vector<InputFile> found = {{tree + "/a.png", "a", 0, tree + "/"}, {tree + "/trip/b.png", "trip/b", 0, tree + "/"}};
  const auto refusal = [&](std::vector<const char*> args) {
    args.insert(args.end(), {"--method", "cpu_openmp", "--sigma", "2"});
    try {
      (void)plan_filter_jobs(parse(args), found);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string inside = tree + "/trip/out", beside = scratch.file("out");
  const std::string recursive = refusal({tree.c_str(), "--recursive", "--out-dir", inside.c_str()});
  EXPECT_NE(recursive.find("--out-dir '" + inside + "' is inside the input folder '" + tree + "/', which --recursive "
                           "reads"), std::string::npos) << recursive;
  EXPECT_NE(recursive.find("choose a folder outside"), std::string::npos) << recursive;
  const std::string dot_dot = tree + "/trip/../out";  // spelt another way, and not made yet
  EXPECT_NE(refusal({tree.c_str(), "--recursive", "--out-dir", dot_dot.c_str()}).find("is inside the input folder"),
            std::string::npos);
  const std::string same = tree + "/.";
  const std::string itself = refusal({tree.c_str(), "--out-dir", same.c_str(), "--format", "jpg"});
  EXPECT_NE(itself.find("is the input folder"), std::string::npos) << itself;
  // Without --recursive a subfolder is not read, so it may take the outputs; a folder beside is fine.
  EXPECT_EQ(refusal({tree.c_str(), "--out-dir", inside.c_str()}), "");
  EXPECT_EQ(refusal({tree.c_str(), "--recursive", "--out-dir", beside.c_str()}), "");
  const std::string prefix = tree + "-blurred";  // shares the name's start, not the folder
  EXPECT_EQ(refusal({tree.c_str(), "--recursive", "--out-dir", prefix.c_str()}), "");
  EXPECT_FALSE(std::filesystem::exists(inside));
}

TEST(FilterRunner, ProgressBar) {
  EXPECT_EQ(progress_bar(0, 4, 8), "[........]");
  EXPECT_EQ(progress_bar(1, 4, 8), "[##......]");
  EXPECT_EQ(progress_bar(4, 4, 8), "[########]");
}

TEST(FilterRunner, BadFileInABatchDoesNotStopTheOthers) {
  test::ScratchFolder scratch;
  const std::string good = test::test_data_path("camera.png");
  const std::string empty = scratch.file("empty.png");
  std::ofstream(empty).close();
  std::filesystem::create_directory(scratch.file("out"));
  const std::string out = scratch.file("out");
  FilterOptions options =
      parse({empty.c_str(), good.c_str(), "--out-dir", out.c_str(), "--method", "cpu_separable", "--sigma", "1"});
  MpiSession alone(nullptr, nullptr);
  std::istringstream no_input;
  std::ostringstream log;
  EXPECT_EQ(run_filter(options, alone, no_input, log), kExitFileFailed);
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out/camera.png"))) << log.str();
  EXPECT_FALSE(std::filesystem::exists(scratch.file("out/empty.png")));
  EXPECT_NE(log.str().find("1 of 2"), std::string::npos) << log.str();
  const LoadedImage written = load_image(scratch.file("out/camera.png"));
  EXPECT_EQ(written.channels(), 1);  // grey stays grey
}

TEST(FilterOptions, PoolModesAreParsedAndRefusedForSignals) {
  EXPECT_EQ(parse({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2", "--pool", "avg2x2"}).pool, PoolMode::Avg2x2);
  EXPECT_EQ(parse({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2"}).pool, PoolMode::None);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--method", "m", "--sigma", "2", "--pool", "max"}).find("max2x2"),
            std::string::npos);
  EXPECT_NE(usage_message({"s.npy", "-o", "x.npy", "--sigma", "2", "--pool", "max2x2"}).find("1D signal"),
            std::string::npos);
}

// One input file as the planner sees it (no folder expansion).
std::vector<InputFile> files(std::initializer_list<const char*> paths) {
  std::vector<InputFile> inputs;
  for (const char* path : paths) inputs.push_back({path, std::filesystem::path(path).stem().string(), 0});
  return inputs;
}

TEST(FilterJobs, SignalsAreWrittenAsNpyAndImagesInAnyImageFormat) {
  test::ScratchFolder scratch;
  const std::string npy_out = scratch.file("s.npy"), png_out = scratch.file("s.png");
  EXPECT_EQ(plan_filter_jobs(parse({"in.npy", "-o", npy_out.c_str(), "--sigma", "2"}), files({"in.npy"})).size(), 1u);
  EXPECT_THROW(plan_filter_jobs(parse({"in.npy", "-o", png_out.c_str(), "--sigma", "2"}), files({"in.npy"})),
               UsageError);
  // An image may be written as a 2D/3D .npy, and a 2D .npy is an image, written in any image format.
  EXPECT_EQ(plan_filter_jobs(parse({"in.png", "-o", npy_out.c_str(), "--sigma", "2"}), files({"in.png"})).size(), 1u);
  const std::string image_npy = scratch.file("image.npy");
  save_image(image_npy, HostImage(7, 5, PixelFormat::Grey16).view());
  EXPECT_FALSE(is_npy_signal(image_npy));
  EXPECT_EQ(plan_filter_jobs(parse({image_npy.c_str(), "-o", png_out.c_str(), "--sigma", "2"}), files({image_npy.c_str()}))
                .size(),
            1u);
  // --output-type: the output's format must hold it, before any work.
  EXPECT_THROW(plan_filter_jobs(parse({"in.png", "-o", png_out.c_str(), "--sigma", "2", "--output-type", "f16"}),
                                files({"in.png"})),
               UsageError);
  EXPECT_THROW(parse({"in.png", "--out-dir", "o", "--format", "bmp", "--sigma", "2", "--output-type", "u16"}),
               UsageError);
  const std::string dir = scratch.path().string();
  const std::vector<BatchJob> jobs = plan_filter_jobs(
      parse({"a/s.npy", "b/t.png", "--out-dir", dir.c_str(), "--sigma", "2"}), files({"a/s.npy", "b/t.png"}));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].output, scratch.file("s.npy"));
  EXPECT_EQ(jobs[1].output, scratch.file("t.png"));
}

TEST(FilterJobs, MethodsThatFilterOnlyIn2dRefuseSignalsUpFront) {
  // The CPU methods filter along x only; a method without it is refused for .npy inputs before any work.
  FilterOptions options = parse({"s.npy", "-o", "x.npy", "--method", "cpu_separable", "--sigma", "2"});
  EXPECT_EQ(resolve_signal_method(options).id, "cpu_separable");
  options.method_id.clear();  // the signal default runs here
  const MethodEntry* chosen = find_method(resolve_signal_method(options).id);
  ASSERT_NE(chosen, nullptr);
  EXPECT_TRUE(chosen->info.filters_along_x_only);
  for (const MethodEntry& entry : method_registry()) {
    FilterProblem signal{100, 1, PixelFormat::F32, {}};
    signal.params.axes = FilterAxes::RowsOnly;
    const std::string reason = entry.create()->unsupported_reason(signal);
    if (entry.info.filters_along_x_only)
      EXPECT_EQ(reason, "") << entry.info.id;
    else
      EXPECT_NE(reason.find("along both axes only"), std::string::npos) << entry.info.id << ": " << reason;
  }
}

TEST(FilterOptions, ACustomKernelReplacesSigmaAndTheSignalDefaultTakesIt) {
  FilterOptions options = parse({"s.npy", "-o", "x.npy", "--kernel", "1,1,1", "--border", "constant"});
  EXPECT_EQ(options.params.kernel, FilterKernel::mask({1, 1, 1}));
  EXPECT_EQ(resolve_signal_method(options).id, "cpu_openmp");  // tiled_1d runs the Gaussian only
  options = parse({"a.png", "-o", "x.png", "--kernel-x", "1,0,-1", "--kernel-y", "1,2,1", "--rounding", "floor"});
  EXPECT_EQ(options.params.rounding, IntegerRounding::Floor);
  EXPECT_NE(resolve_method(options).id, "");
  EXPECT_NE(usage_message({"a.png", "-o", "x.png", "--kernel", "1,2,1", "--sigma", "2"}).find("--sigma"),
            std::string::npos);
  EXPECT_NE(usage_message({"a.png", "-o", "x.png"}).find("or a custom kernel"), std::string::npos);
  EXPECT_EQ(parse({"--list-methods", "--size", "64x32", "--kernel", "1,2,1"}).mode, FilterOptions::Mode::ListMethods);
  // A pair on a signal: refused when the signals' method is resolved, before any work.
  options = parse({"s.npy", "-o", "x.npy", "--kernel-x", "1,2,1", "--kernel-y", "1,2,1", "--method", "cpu_openmp"});
  try {
    resolve_signal_method(options);
    ADD_FAILURE() << "a pair was accepted for a signal";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("takes a 1D mask"), std::string::npos) << error.what();
  }
}

// Runs gausslab-filter's whole path in this process; returns the exit status, the log in `log`.
int run_filter_here(const FilterOptions& options, std::string& log) {
  MpiSession alone(nullptr, nullptr);
  std::istringstream no_input;
  std::ostringstream out;
  const int status = run_filter(options, alone, no_input, out);
  log = out.str();
  return status;
}

TEST(FilterRunner, SignalsRoundTripInTheirDtypeAndFloat64SaysItWasFilteredInFloat32) {
  test::ScratchFolder scratch;
  std::vector<double> samples(300);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = (i % 7) * 0.25;
  write_npy_1d(scratch.file("s.npy"), samples.data(), samples.size());
  const std::string in = scratch.file("s.npy"), out = scratch.file("t.npy");
  std::string log;
  ASSERT_EQ(run_filter_here(parse({in.c_str(), "-o", out.c_str(), "--method", "cpu_openmp", "--sigma", "3"}), log),
            kExitDone)
      << log;
  EXPECT_NE(log.find("300 samples float64, filtered in float32"), std::string::npos) << log;
  const NpySignal written = read_npy_1d(out);
  EXPECT_EQ(written.dtype, NpyDtype::Float64);
  ASSERT_EQ(written.f64.size(), 300u);
  EXPECT_NEAR(written.f64[150], 0.75, 0.05);  // the mean of the pattern, away from the ends
}

TEST(FilterRunner, SignalsAndImagesInOneBatchEachGetTheirOwnMethodAndOutput) {
  test::ScratchFolder scratch;
  const float samples[5] = {1, 2, 3, 4, 5};
  write_npy_1d(scratch.file("s.npy"), samples, 5);
  const std::string signal = scratch.file("s.npy"), image = test::test_data_path("camera.png");
  const std::string out = scratch.file("out"), bad = scratch.file("bad.npy");
  std::ofstream(bad) << "not numpy";
  std::string log;
  EXPECT_EQ(run_filter_here(parse({signal.c_str(), image.c_str(), bad.c_str(), "--out-dir", out.c_str(), "--sigma", "1"}),
                            log),
            kExitFileFailed);
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out/s.npy"))) << log;
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out/camera.png"))) << log;
  EXPECT_FALSE(std::filesystem::exists(scratch.file("out/bad.npy"))) << log;
  EXPECT_NE(log.find("bad.npy': not a NumPy .npy file"), std::string::npos) << log;
}

TEST(FilterRunner, OutputTypesAreRefusedForSignalsNamedOrFoundInAFolder) {
  test::ScratchFolder scratch;
  const float samples[5] = {1, 2, 3, 4, 5};
  std::filesystem::create_directory(scratch.file("in"));
  write_npy_1d(scratch.file("in/s.npy"), samples, 5);
  const std::string signal = scratch.file("in/s.npy"), out = scratch.file("t.npy");
  // Named on the command line: refused before any work, naming the signal and the way out.
  const std::string refusal = usage_message({signal.c_str(), "-o", out.c_str(), "--sigma", "1", "--output-type", "u8"});
  EXPECT_NE(refusal.find("s.npy' is a 1D signal"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("without --output-type"), std::string::npos) << refusal;
  // f32 too: a float64 signal would have stayed float64.
  EXPECT_NE(usage_message({signal.c_str(), "-o", out.c_str(), "--sigma", "1", "--output-type", "f32"}).find("1D signal"),
            std::string::npos);
  std::string log;
  // Found in a folder: that file is refused and nothing is written for it (it had been written
  // as float32 while the run asked for f16).
  const std::string dir = scratch.file("in"), out_dir = scratch.file("out");
  EXPECT_NE(run_filter_here(parse({dir.c_str(), "--out-dir", out_dir.c_str(), "--method", "cpu_openmp", "--sigma", "1",
                                   "--output-type", "f16", "--format", "npy"}),
                            log),
            kExitDone);
  EXPECT_FALSE(std::filesystem::exists(scratch.file("out/s.npy"))) << log;
  EXPECT_NE(log.find("is a 1D signal"), std::string::npos) << log;
}

TEST(FilterRunner, ADamagedNpyWithAnImageOutputIsToldWhatIsWrongWithTheFile) {
  test::ScratchFolder scratch;
  const std::string bad = scratch.file("bad.npy"), out = scratch.file("x.png");
  std::ofstream(bad) << "random bytes, no NumPy header";
  std::string log;
  EXPECT_NE(run_filter_here(parse({bad.c_str(), "-o", out.c_str(), "--method", "cpu_openmp", "--sigma", "1"}), log),
            kExitDone);
  EXPECT_NE(log.find("not a NumPy .npy file"), std::string::npos) << log;
  EXPECT_EQ(log.find("give a name ending in .npy"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(FilterRunner, PooledImagesAreHalfTheSizeAndTinyOnesAreRefused) {
  test::ScratchFolder scratch;
  const std::string good = test::test_data_path("camera.png"), out = scratch.file("p.png");
  std::string log;
  ASSERT_EQ(run_filter_here(parse({good.c_str(), "-o", out.c_str(), "--method", "cpu_separable", "--sigma", "1", "--pool",
                                   "max2x2"}),
                            log),
            kExitDone)
      << log;
  const LoadedImage original = load_image(good), pooled = load_image(out);
  EXPECT_EQ(pooled.image.width(), original.image.width() / 2);
  EXPECT_EQ(pooled.image.height(), original.image.height() / 2);
  EXPECT_EQ(pooled.channels(), original.channels());

  const std::string thin = scratch.file("thin.png"), thin_out = scratch.file("thin_out.png");
  save_image(thin, ImageRgba8(1, 9, Rgba8{1, 2, 3, 255}), 4);
  EXPECT_EQ(run_filter_here(parse({thin.c_str(), "-o", thin_out.c_str(), "--method", "cpu_separable", "--sigma", "1",
                                   "--pool", "avg2x2"}),
                            log),
            kExitUsage);
  EXPECT_NE(log.find("cannot be pooled"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(thin_out));
}

}  // namespace
}  // namespace gausslab
