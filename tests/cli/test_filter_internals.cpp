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

TEST(FilterRunner, ProgressBarAndChannelNames) {
  EXPECT_EQ(progress_bar(0, 4, 8), "[........]");
  EXPECT_EQ(progress_bar(1, 4, 8), "[##......]");
  EXPECT_EQ(progress_bar(4, 4, 8), "[########]");
  EXPECT_STREQ(channels_name(1), "grey");
  EXPECT_STREQ(channels_name(2), "grey+alpha");
  EXPECT_STREQ(channels_name(4), "RGBA");
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
  EXPECT_EQ(written.source_channels, 1);  // grey stays grey
}

}  // namespace
}  // namespace gausslab
