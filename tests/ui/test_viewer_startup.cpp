// The viewer's command line and its checks before the first frame.
#include <gtest/gtest.h>

#include "gausslab/cuda/device.hpp"

#include <fstream>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"
#include "viewer/sequence_startup.hpp"
#include "viewer/startup.hpp"
#include "support/test_support.hpp"
#include "viewer/viewer_options.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {
namespace {

ViewerOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gausslab");
  return parse_viewer_args(static_cast<int>(args.size()), args.data());
}

TEST(ViewerOptions, Defaults) {
  const ViewerOptions options = parse({});
  EXPECT_TRUE(options.image_path.empty());
  EXPECT_EQ(options.params.sigma, kDefaultSigma);
  EXPECT_EQ(options.frames, 0);
  EXPECT_FALSE(options.offscreen);
  EXPECT_EQ(options.best_path, OutputPath::Interop);
}

TEST(ViewerOptions, EveryFlag) {
  const ViewerOptions o = parse({"pic.png", "--method", "cpu_openmp", "--sigma", "3.5", "--border=wrap", "--truncate",
                                 "3", "--offscreen", "--size", "1920x1080", "--frames", "7", "--screenshot", "r.png",
                                 "--screenshot-view", "v.png", "--overwrite", "--window", "640x480", "--path",
                                 "staging", "--compare", "original", "--display", "diff"});
  EXPECT_EQ(o.image_path, "pic.png");
  EXPECT_EQ(o.method_id, "cpu_openmp");
  EXPECT_EQ(o.params.sigma, 3.5);
  EXPECT_EQ(o.params.border, BorderMode::Wrap);
  EXPECT_EQ(o.params.truncate, 3.0);
  EXPECT_TRUE(o.offscreen);
  EXPECT_TRUE(o.resize);
  EXPECT_EQ(o.size_width, 1920);
  EXPECT_EQ(o.size_height, 1080);
  EXPECT_EQ(o.frames, 7);
  EXPECT_EQ(o.screenshot, "r.png");
  EXPECT_EQ(o.screenshot_view, "v.png");
  EXPECT_TRUE(o.overwrite);
  EXPECT_EQ(o.window_width, 640);
  EXPECT_EQ(o.best_path, OutputPath::Staging);
  EXPECT_EQ(o.compare_id, "original");
  EXPECT_EQ(o.display, CompareMode::Difference);
  EXPECT_EQ(parse({"--compare", "cpu_openmp"}).display, CompareMode::Split);
}

void expect_usage_error(std::vector<const char*> args, const std::string& fragment) {
  try {
    parse(args);
    ADD_FAILURE() << "no UsageError; expected one mentioning '" << fragment << "'";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(ViewerOptions, BadValuesNameTheFlag) {
  expect_usage_error({"--sigma", "nan"}, "--sigma");
  expect_usage_error({"--sigma", "500"}, "--sigma");
  expect_usage_error({"--sigma", "0"}, "--sigma");
  expect_usage_error({"--truncate", "20"}, "--truncate");
  expect_usage_error({"--size", "10"}, "--size");
  expect_usage_error({"--size", "0x10"}, "--size");
  expect_usage_error({"--border", "mirrored"}, "reflect, mirror");
  expect_usage_error({"--frames", "-1"}, "--frames");
  expect_usage_error({"--path", "fast"}, "interop, staging or cpu");
  expect_usage_error({"--display", "side"}, "--display");
  expect_usage_error({"--bogus"}, "unknown option");
  expect_usage_error({"a.png", "b.png"}, "only one IMAGE");
  expect_usage_error({"--offscreen"}, "--frames");
  expect_usage_error({"--screenshot", "x.png"}, "--frames");
  expect_usage_error({"--frames", "2", "--screenshot", "x.png", "--screenshot-view", "x.png"}, "same file");
  expect_usage_error({"--frames", "2", "--screenshot", ""}, "file name is empty");
  expect_usage_error({"--frames", "2", "--screenshot-view", ""}, "file name is empty");
  expect_usage_error({"--display", "split"}, "--compare");
  expect_usage_error({"--method"}, "needs a value");
}

// --keys: a character that stands for no key is refused naming it and listing the ones that do (it
// was dropped without a word); the tests' key strings all stand for keys.
TEST(ViewerOptions, KeysThatStandForNoKeyAreRefusedNamingThemAndListingTheKeys) {
  for (const char* keys : {"1+_++=-m", "]]}ykKF", "p", "3", "B ?"}) EXPECT_EQ(parse({"--keys", keys}).keys, keys);
  for (const auto& [keys, named] : std::vector<std::pair<std::string, std::string>>{
           {"m%", "'%' (character 2 of 'm%')"}, {"\t", "the byte 0x09 (character 1"}, {"m\xc3\xa9", "the byte 0xC3"}}) {
    try {
      parse({"--keys", keys.c_str()});
      ADD_FAILURE() << keys << " was taken";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("--keys: " + named), std::string::npos) << message;
      EXPECT_NE(message.find("stands for no key"), std::string::npos) << message;
      EXPECT_NE(message.find(" + "), std::string::npos) << message;  // the list: zoom in
      EXPECT_NE(message.find(" m "), std::string::npos) << message;  // the next view
      EXPECT_NE(message.find(" 1 "), std::string::npos) << message;  // slot A's first method
      EXPECT_EQ(message.find(" % "), std::string::npos) << message;
    }
  }
}

TEST(ViewerOptions, TheDisplayTransformsFlagsAndTheirRefusals) {
  const ViewerOptions o = parse({"--exposure", "-1.5", "--offset=0.25", "--channel", "luminance", "--colour-map",
                                 "--transfer", "gamma:1.8", "--range", "0.5,99.5"});
  EXPECT_EQ(o.display_transform.exposure_stops, -1.5);
  EXPECT_EQ(o.display_transform.offset, 0.25);
  EXPECT_EQ(o.display_transform.channel, ChannelView::Luminance);
  EXPECT_TRUE(o.display_transform.colour_map);
  EXPECT_EQ(o.display_transform.transfer, Transfer::Gamma);
  EXPECT_EQ(o.display_transform.gamma, 1.8);
  EXPECT_EQ(o.display_transform.range, RangeMode::Percentiles);
  EXPECT_EQ(o.display_transform.low_percentile, 0.5);
  EXPECT_EQ(o.display_transform.high_percentile, 99.5);
  EXPECT_EQ(parse({"--transfer", "srgb"}).display_transform.transfer, Transfer::Srgb);
  EXPECT_EQ(parse({"--range", "minmax"}).display_transform.range, RangeMode::MinMax);
  EXPECT_EQ(parse({}).display_transform, DisplayTransform{});
  expect_usage_error({"--exposure", "21"}, "--exposure: exposure 21 is outside -20 to 20");
  expect_usage_error({"--offset", "nan"}, "--offset");
  expect_usage_error({"--channel", "y"}, "use rgb, r, g, b, a or luminance");
  expect_usage_error({"--transfer", "srgb:2"}, "unknown transfer 'srgb:2'");
  expect_usage_error({"--transfer", "gamma:0"}, "gamma 0 is outside 0.1 to 10");
  expect_usage_error({"--range", "1,101"}, "percentile 101 is outside 0 to 100");
  expect_usage_error({"--range", "5,5"}, "the low percentile must be below the high one");
  expect_usage_error({"--range", "wide"}, "use nominal, minmax, percentiles or LO,HI");
  expect_usage_error({"--colour-map"}, "--colour-map colours one channel");
  expect_usage_error({"--exposure", "1", "--exposure", "2"}, "--exposure is given twice ('1' and '2')");
  expect_usage_error({"--sequence", "synthetic", "--range", "minmax"}, "the sequence mode shows the nominal range");
}

void expect_startup_error(const ViewerOptions& options, const std::string& fragment) {
  try {
    plan_startup(options);
    ADD_FAILURE() << "no StartupError; expected one mentioning '" << fragment << "'";
  } catch (const StartupError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(ViewerOptions, AFlagGivenTwiceIsRefusedWithBothValues) {
  expect_usage_error({"--sigma", "2", "--sigma=3"}, "--sigma is given twice ('2' and '3')");
  expect_usage_error({"--method", "cpu_openmp", "--offscreen", "--method", "cpu_separable"},
                     "--method is given twice ('cpu_openmp' and 'cpu_separable')");
  EXPECT_NO_THROW(parse({"--offscreen", "--offscreen", "--frames", "2"}));  // a switch twice is harmless
}

// The sequence mode warns as gausslab-sequence does when the history cannot fill with distinct
// frames (a history of 20 over 12 frames: looping refills it with the same frames, B goes flat).
TEST(SequenceStartup, AHistoryAsLongAsTheFramesIsWarnedAbout) {
  EXPECT_EQ(history_warning(11, 12), "");
  EXPECT_EQ(history_warning(20, 0), "");  // the count is not known
  const std::string warning = history_warning(20, 12);
  EXPECT_NE(warning.find("12 frame(s) and the history 20"), std::string::npos) << warning;
  EXPECT_NE(warning.find("at least 21"), std::string::npos) << warning;
  EXPECT_NE(warning.find("a history of 11 or fewer"), std::string::npos) << warning;
  EXPECT_NE(history_warning(12, 12), "");
  EXPECT_EQ(history_warning(3, 1).find("or fewer"), std::string::npos);  // one frame: no history helps
}

TEST(Startup, DefaultPictureIsEmbedded) {
  const ImageRgba8 picture = load_default_picture();
  EXPECT_EQ(picture.width(), 512);
  EXPECT_EQ(picture.height(), 512);
  const StartupPlan plan = plan_startup(parse({"--path", "cpu"}));
  EXPECT_EQ(plan.image_name, kDefaultPictureName);
  // auto, which runs the CPU filter on the cpu path, beside a CUDA device or not (its CPU form there).
  EXPECT_EQ(method_registry()[static_cast<std::size_t>(plan.method_a)].info.id, "auto");
  EXPECT_TRUE(plan.note.empty()) << plan.note;  // nothing refused on the way
  EXPECT_EQ(plan.method_b, kOriginalPicture);
}

TEST(Startup, RefusesBadInputBeforeAnyFrame) {
  expect_startup_error(parse({test::test_data_path("truncated.jpg").c_str()}), "truncated.jpg");
  expect_startup_error(parse({"/no/such/picture.png"}), "no such file");
  expect_startup_error(parse({test::test_data_path("malformed/psd_truncated.psd").c_str()}), "PSD");
  expect_startup_error(parse({"--method", "gaussian_magic"}), "unknown method 'gaussian_magic'");
  expect_startup_error(parse({"--compare", "gaussian_magic"}), "--compare");
  expect_startup_error(parse({"--path", "cpu", "--method", "separable_shared"}), "cannot run here");
  expect_startup_error(parse({"--size", "65536x65536"}), "larger than");
  expect_startup_error(parse({"--frames", "1", "--screenshot", "/no/such/folder/x.png"}), "does not exist");
  expect_startup_error(parse({"--frames", "1", "--screenshot", "x.webp"}), ".png, .jpg");

  test::ScratchFolder scratch;
  const std::string existing = scratch.file("existing.png");
  std::ofstream(existing) << "mine";
  expect_startup_error(parse({"--frames", "1", "--screenshot-view", existing.c_str()}), "already exists");
  EXPECT_NO_THROW(plan_startup(parse({"--path", "cpu", "--frames", "1", "--screenshot-view", existing.c_str(),
                                      "--overwrite"})));
}

TEST(Startup, GpuMethodsNeedADeviceAndAPath) {
  for (const MethodEntry& entry : method_registry()) {
    const std::string reason = method_blocked_reason(entry, OutputPath::Cpu);
    EXPECT_EQ(reason.empty(), entry.info.backend == Backend::Cpu) << entry.info.id;
  }
}

}  // namespace
}  // namespace gausslab
