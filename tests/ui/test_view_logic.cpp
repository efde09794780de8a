// The viewer's pure logic: view maths, keys, reports, resampling, the path badge.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/view_transform.hpp"
#include "comparison/image_resample.hpp"
#include "actions/keyboard.hpp"
#include "panels/path_badge.hpp"
#include "viewer/folder_listing.hpp"
#include "viewer/frame_omissions.hpp"
#include "viewer/run_report.hpp"
#include "viewer/script.hpp"
#include "gausslab/core/cli_args.hpp"

namespace gausslab {
namespace {

TEST(ViewTransform, FitCentresTheWholeImage) {
  const ViewTransform view = fit_view(400, 100, 800, 600);
  EXPECT_DOUBLE_EQ(view.zoom, 2.0);  // limited by the width
  const Vec2 top_left = image_to_screen(view, {0, 0}, 800, 600);
  const Vec2 bottom_right = image_to_screen(view, {400, 100}, 800, 600);
  EXPECT_DOUBLE_EQ(top_left.x, 0.0);
  EXPECT_DOUBLE_EQ(bottom_right.x, 800.0);
  EXPECT_DOUBLE_EQ(top_left.y, 200.0);  // (600 - 200) / 2
  EXPECT_DOUBLE_EQ(bottom_right.y, 400.0);
}

TEST(ViewTransform, ScreenAndImageAreInverse) {
  const ViewTransform view{3.5, {12.25, -7.5}};
  const Vec2 screen{123.4, 56.7};
  const Vec2 back = image_to_screen(view, screen_to_image(view, screen, 640, 480), 640, 480);
  EXPECT_NEAR(back.x, screen.x, 1e-9);
  EXPECT_NEAR(back.y, screen.y, 1e-9);
}

TEST(ViewTransform, ZoomKeepsThePointUnderTheCursor) {
  const ViewTransform view = fit_view(512, 512, 800, 600);
  const Vec2 cursor{100, 450};
  const Vec2 before = screen_to_image(view, cursor, 800, 600);
  const ViewTransform zoomed = zoom_around(view, 3.0, cursor, 800, 600);
  EXPECT_NEAR(zoomed.zoom, view.zoom * 3.0, 1e-12);
  const Vec2 after = screen_to_image(zoomed, cursor, 800, 600);
  EXPECT_NEAR(after.x, before.x, 1e-9);
  EXPECT_NEAR(after.y, before.y, 1e-9);
}

TEST(ViewTransform, ZoomIsClampedAndIgnoresBadFactors) {
  ViewTransform view;
  for (int i = 0; i < 100; ++i) view = zoom_around(view, 2.0, {0, 0}, 100, 100);
  EXPECT_DOUBLE_EQ(view.zoom, kMaxZoom);
  for (int i = 0; i < 100; ++i) view = zoom_around(view, 0.5, {0, 0}, 100, 100);
  EXPECT_DOUBLE_EQ(view.zoom, kMinZoom);
  const ViewTransform same = zoom_around(view, std::nan(""), {0, 0}, 100, 100);
  EXPECT_EQ(same.zoom, view.zoom);
  EXPECT_GT(wheel_zoom_factor(1), 1.0);
  EXPECT_LT(wheel_zoom_factor(-1), 1.0);
}

TEST(ViewTransform, PanMovesThePictureWithTheMouse) {
  const ViewTransform view{2.0, {50, 50}};
  const ViewTransform moved = pan_by(view, {10, -4});
  const Vec2 point = image_to_screen(view, {30, 30}, 200, 200);
  const Vec2 point_moved = image_to_screen(moved, {30, 30}, 200, 200);
  EXPECT_DOUBLE_EQ(point_moved.x - point.x, 10);
  EXPECT_DOUBLE_EQ(point_moved.y - point.y, -4);
}

TEST(ViewTransform, ZoomKeysStepThroughPowersOfTheSquareRootOfTwo) {
  EXPECT_DOUBLE_EQ(zoom_step(1.0, 1), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(zoom_step(zoom_step(1.0, 1), 1), 2.0);  // every other step a power of two
  EXPECT_DOUBLE_EQ(zoom_step(2.0, -1), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(zoom_step(1.0, -1), std::sqrt(0.5));
  // A zoom between steps (a fit) goes to the nearest step that way, never past it.
  EXPECT_DOUBLE_EQ(zoom_step(0.9, 1), 1.0);
  EXPECT_DOUBLE_EQ(zoom_step(0.9, -1), std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(zoom_step(1.0 + 1e-12, 1), std::sqrt(2.0));  // a rounding away from a step is on it
  // Eight steps up from 100 %: 1600 %; the limits hold.
  double zoom = 1.0;
  for (int i = 0; i < 8; ++i) zoom = zoom_step(zoom, 1);
  EXPECT_DOUBLE_EQ(zoom, 16.0);
  EXPECT_EQ(zoom_step(kMaxZoom, 1), kMaxZoom);
  EXPECT_EQ(zoom_step(kMinZoom, -1), kMinZoom);
  EXPECT_EQ(zoom_percent_text(1.0), "100 %");
  EXPECT_EQ(zoom_percent_text(std::sqrt(2.0)), "141 %");
  EXPECT_EQ(zoom_percent_text(std::sqrt(0.5)), "70.7 %");
  EXPECT_EQ(zoom_percent_text(1.0 / 16), "6.25 %");
  EXPECT_EQ(zoom_percent_text(kMaxZoom), "25600 %");
}

TEST(Sampling, AutoIsNearestFromOneHundredPercentUpAndLinearBelow) {
  EXPECT_EQ(sampling_at(Sampling::Auto, 1.0), Sampling::Nearest);
  EXPECT_EQ(sampling_at(Sampling::Auto, 8.0), Sampling::Nearest);
  EXPECT_EQ(sampling_at(Sampling::Auto, 0.999), Sampling::Linear);
  EXPECT_EQ(sampling_at(Sampling::Auto, 0.25), Sampling::Linear);
  // The switch: either one always.
  EXPECT_EQ(sampling_at(Sampling::Linear, 16.0), Sampling::Linear);
  EXPECT_EQ(sampling_at(Sampling::Nearest, 0.25), Sampling::Nearest);
  EXPECT_STREQ(to_string(Sampling::Auto), "auto");
}

TEST(FolderListing, ListsSubFoldersThenReadableImagesSortedWithoutCase) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("gausslab_listing_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(folder);
  fs::create_directories(folder / "shots");
  fs::create_directories(folder / "Archive");
  fs::create_directories(folder / ".hidden");
  for (const char* name : {"b.PNG", "a.exr", "notes.txt", "C.fits", ".secret.png", "frame.npy", "anim.gif", "raw.cr2"})
    std::ofstream(folder / name) << "x";
  const FolderListing listing = list_folder(folder.string());
  EXPECT_EQ(listing.error, "");
  std::vector<std::string> names;
  for (const FolderEntry& entry : listing.entries) names.push_back(entry.name + (entry.folder ? "/" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"Archive/", "shots/", "a.exr", "anim.gif", "b.PNG", "C.fits", "frame.npy"}));
  EXPECT_EQ(parent_folder(listing.folder + "/shots"), listing.folder);
  EXPECT_EQ(parent_folder("/"), "/");
  const FolderListing missing = list_folder((folder / "no_such_folder").string());
  EXPECT_TRUE(missing.entries.empty());
  EXPECT_NE(missing.error.find("cannot list"), std::string::npos) << missing.error;
  fs::remove_all(folder);
}

TEST(ViewTransform, OneToOnePutsPixelCentresOnPixelCentres) {
  for (int image : {7, 8, 451}) {
    for (int viewport : {100, 101, 480}) {
      const ViewTransform view = one_to_one_view(image, image, viewport, viewport);
      EXPECT_EQ(view.zoom, 1.0);
      const Vec2 p = screen_to_image(view, {10.5, 20.5}, viewport, viewport);
      EXPECT_DOUBLE_EQ(p.x - std::floor(p.x), 0.5) << image << " in " << viewport;
      EXPECT_DOUBLE_EQ(p.y - std::floor(p.y), 0.5);
    }
  }
}

TEST(DifferenceView, ColoursOfTheFourStyles) {
  const Rgba8 a{100, 50, 10, 255}, b{103, 50, 4, 255};
  // Grey, absolute: per channel min(|a-b| / 255 * gain, 1).
  EXPECT_EQ(difference_colour(a, a, {8, false, false}), (Rgba8{0, 0, 0, 255}));
  EXPECT_EQ(difference_colour(a, b, {1, false, false}), (Rgba8{3, 0, 6, 255}));
  EXPECT_EQ(difference_colour(a, b, {8, false, false}), (Rgba8{24, 0, 48, 255}));
  EXPECT_EQ(difference_colour(Rgba8{0, 0, 0, 255}, Rgba8{255, 0, 0, 255}, {2, false, false}).r, 255);  // clamped
  // Grey, signed: mid grey is equal.
  EXPECT_EQ(difference_colour(a, a, {8, true, false}), (Rgba8{128, 128, 128, 255}));
  EXPECT_LT(difference_colour(a, b, {8, true, false}).r, 128);  // a below b
  EXPECT_GT(difference_colour(a, b, {8, true, false}).b, 128);  // a above b
  // False colour: equal is black in both maps; the largest channel decides (here blue, +6).
  EXPECT_EQ(difference_colour(a, a, {8, false, true}), (Rgba8{0, 0, 0, 255}));
  EXPECT_EQ(difference_colour(a, a, {8, true, true}), (Rgba8{0, 0, 0, 255}));
  const std::array<float, 3> hot = colour_map(6 * 8 / 255.0, false);
  const Rgba8 shown = difference_colour(a, b, {8, false, true});
  EXPECT_EQ(shown.r, static_cast<int>(std::lround(hot[0] * 255)));
  EXPECT_EQ(shown.b, static_cast<int>(std::lround(hot[2] * 255)));
  // The ends of the maps are their end points.
  EXPECT_EQ(colour_map(1.0, false), kSequentialMap.back());
  EXPECT_EQ(colour_map(-1.0, true), kDivergingMap.front());
  EXPECT_EQ(colour_map(0.0, true), kDivergingMap[2]);
}

TEST(Keyboard, SigmaStepsStayInRangeWithoutNoise) {
  double sigma = 2.0;
  sigma = step_sigma(sigma, 0.1);
  EXPECT_EQ(sigma, 2.1);
  EXPECT_EQ(step_sigma(0.15, -0.1), kMinSigma);
  EXPECT_EQ(step_sigma(0.1, -1.0), kMinSigma);
  EXPECT_EQ(step_sigma(199.5, 1.0), kMaxSigma);
  CompareMode mode = CompareMode::A;
  for (int i = 0; i < 4; ++i) mode = next_display(mode);
  EXPECT_EQ(mode, CompareMode::A);
  EXPECT_EQ(next_display(CompareMode::Split), CompareMode::Difference);
}

TEST(Keyboard, OffsetStepsStayInRangeWithoutNoise) {
  double offset = 0;
  for (int i = 0; i < 3; ++i) offset = step_offset(offset, 0.05);
  EXPECT_EQ(offset, 0.15);
  EXPECT_EQ(step_offset(kMaxDisplayOffset, 0.05), kMaxDisplayOffset);
  EXPECT_EQ(step_offset(-kMaxDisplayOffset, -0.05), -kMaxDisplayOffset);
}

TEST(DisplayTransform, DescribeNamesWhatIsNotTheDefault) {
  EXPECT_EQ(describe(DisplayTransform{}), "");
  DisplayTransform t;
  t.exposure_stops = -1;
  t.offset = 0.1;
  t.transfer = Transfer::Srgb;
  t.range = RangeMode::Percentiles;
  t.channel = ChannelView::G;
  t.colour_map = true;
  EXPECT_EQ(describe(t, "[0, 2]"), "exposure -1.0  offset +0.1  srgb  range 0.1-99.9 % [0, 2]  g map");
  t = {};
  t.colour_map = true;  // rgb: no map drawn, so none named
  t.transfer = Transfer::Gamma;
  t.gamma = 1.8;
  EXPECT_EQ(describe(t), "gamma 1.8");
}

TEST(DisplayTransform, ValueShownAtUndoesTheTransform) {
  // The colour map's legend names the values at its ends: value_shown_at(grey) drawn again is grey.
  DisplayTransform t;
  t.channel = ChannelView::Luminance;
  t.exposure_stops = 0.75;
  t.offset = -0.1;
  const DisplayRange range{-0.5, 3.0};
  for (Transfer transfer : {Transfer::Linear, Transfer::Srgb, Transfer::Gamma})
    for (double grey : {0.1, 0.5, 0.9}) {
      t.transfer = transfer;
      const double v = value_shown_at(grey, t, range);
      EXPECT_NEAR(displayed_colour({v, v, v, 1.0}, t, range).r, grey * 255, 0.5) << to_string(transfer) << " " << grey;
    }
}

TEST(RunReport, FileNameSaysMethodSigmaBorderAndSize) {
  FilterParams params;
  params.sigma = 2.5;
  params.border = BorderMode::Wrap;
  EXPECT_EQ(result_file_name("separable_shared", params, 640, 480), "gausslab-separable_shared-sigma2.5-wrap-640x480.png");
  params.truncate = 3;
  EXPECT_EQ(result_file_name("fft", params, 1, 1), "gausslab-fft-sigma2.5-wrap-truncate3-1x1.png");
}

TEST(RunReport, StageKeys) {
  EXPECT_EQ(stage_key("filter (cpu)"), "filter_cpu");
  EXPECT_EQ(stage_key("rows"), "rows");
  EXPECT_EQ(stage_key("b_upload"), "b_upload");
  EXPECT_EQ(stage_key("()"), "stage");
}

TEST(RunReport, RollingMedian) {
  RollingMedian median(3);
  EXPECT_EQ(median.median(), 0.0);
  median.add(5);
  median.add(1);
  EXPECT_EQ(median.median(), 3.0);
  median.add(100);
  EXPECT_EQ(median.median(), 5.0);
  median.add(2);  // 5 drops out
  EXPECT_EQ(median.median(), 2.0);
}

TEST(RunReport, SummaryLineHasEveryField) {
  RunSummary s;
  s.method_id = "cpu_openmp";
  s.path = "cpu";
  s.path_reason = "no \"CUDA\" device";
  s.renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
  s.width = 3840;
  s.height = 2160;
  s.frames = 10;
  s.frame_ms = 1.625;
  s.stages = {{"map", 0.02}, {"rows", 0.21}, {"upload", 0.67}};
  DifferenceStats stats;
  stats.unrounded.max_abs = 3.1e-5;
  stats.unrounded.psnr_db = 128.44;
  stats.rounded.max_abs = 0.5;
  s.accuracy = stats;
  DifferenceStats ab;
  ab.unrounded.max_abs = 1.25e-5;
  ab.unrounded.mean_abs = 2.5e-7;
  ab.unrounded.psnr_db = 150.25;
  ab.unrounded.max_x = 7;
  ab.unrounded.max_y = 9;
  ab.unrounded.max_channel = 2;
  s.a_vs_b = ab;
  const std::string line = summary_line(s);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind("gausslab: method=cpu_openmp path=cpu ", 0), 0u) << line;
  for (const char* part : {"renderer=\"llvmpipe (LLVM 15.0.6, 256 bits)\"", "size=3840x2160", "sigma=2 ",
                           "frame_ms=1.625", "map=0.020", "rows=0.210", "upload=0.670", "stages_ms=0.900",
                           "max_error=3.1e-05", "max_error_8bit=0.5", "psnr=128.44", "ab_max_abs=1.25e-05",
                           "ab_mean_abs=2.5e-07", "ab_psnr=150.25", "ab_max_at=7,9,2",
                           "path_reason=\"no 'CUDA' device\""})
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing in " << line;
  EXPECT_EQ(line.find("_own="), std::string::npos);  // an 8-bit picture: levels are its units

  s.picture_samples = "float32, 3 channels";  // a float picture: its own units too (1/255 a level)
  s.units_per_level = 1.0 / 255;
  const std::string own = summary_line(s);
  for (const char* part : {"max_error_own=1.21569e-07", "ab_max_abs_own=4.90196078e-08",
                           "picture_samples=\"float32, 3 channels\""})
    EXPECT_NE(own.find(part), std::string::npos) << part << " missing in " << own;

  EXPECT_EQ(own.find("map_ahead_problem="), std::string::npos);  // said only when a map ahead failed
  s.map_ahead_problem = "3 maps ahead failed (cudaErrorUnknown: unknown error); those textures were mapped when written";
  const std::string failed = summary_line(s);
  EXPECT_NE(failed.find(" map_ahead_problem=\"3 maps ahead failed (cudaErrorUnknown"), std::string::npos) << failed;

  EXPECT_EQ(failed.find("omitted="), std::string::npos);  // said only when parts of the frame were left out
  s.omitted = "ui,image";
  EXPECT_NE(summary_line(s).find(" omitted=ui,image"), std::string::npos) << summary_line(s);
}

// GAUSSLAB_FRAME_OMIT: each part by its name, in any order, and an unknown one refused with the
// known ones (the viewer says it at startup, exit 2).
TEST(FrameOmissions, ParsesEachPartAndRefusesUnknownOnes) {
  const FrameOmissions none = parse_frame_omissions("");
  EXPECT_FALSE(none.gl_timer || none.stage_timer || none.ui || none.image);
  EXPECT_TRUE(none.names.empty());
  const FrameOmissions some = parse_frame_omissions("ui,gl_timer");
  EXPECT_TRUE(some.ui && some.gl_timer);
  EXPECT_FALSE(some.stage_timer || some.image);
  EXPECT_EQ(some.names, "ui,gl_timer");
  const FrameOmissions all = parse_frame_omissions("image,stage_timer,ui,gl_timer");
  EXPECT_TRUE(all.gl_timer && all.stage_timer && all.ui && all.image);
  try {
    parse_frame_omissions("ui,overlay");
    FAIL() << "an unknown part was taken";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'overlay'"), std::string::npos) << what;
    EXPECT_NE(what.find("gl_timer, stage_timer, ui and image"), std::string::npos) << what;
  }
}

TEST(Resample, SameSizeIsAnExactCopy) {
  const ImageRgba8 image = make_random_rgba8(37, 23, 5);
  const ImageRgba8 copy = resample(image, 37, 23);
  EXPECT_EQ(copy.pixels(), image.pixels());
}

TEST(Resample, FlatStaysFlatAtAnySize) {
  const ImageRgba8 flat(31, 17, Rgba8{10, 200, 77, 255});
  for (auto [w, h] : {std::pair{1, 1}, {64, 5}, {300, 171}, {7, 40}}) {
    const ImageRgba8 out = resample(flat, w, h);
    ASSERT_EQ(out.width(), w);
    ASSERT_EQ(out.height(), h);
    for (const Rgba8& p : out.pixels()) ASSERT_EQ(p, (Rgba8{10, 200, 77, 255})) << w << "x" << h;
  }
}

TEST(Resample, DoublingInterpolatesAndHalvingAverages) {
  ImageRgba8 ramp(4, 1);
  for (int x = 0; x < 4; ++x) ramp.at(x, 0) = {static_cast<std::uint8_t>(x * 40), 0, 0, 255};
  const ImageRgba8 twice = resample(ramp, 8, 1);
  // Output centre 3 sits at input 1.25: 40 + 0.25 * 40.
  EXPECT_EQ(twice.at(3, 0).r, 50);
  const ImageRgba8 half = resample(ramp, 2, 1);
  // Output centre 0 sits at input 0.5: tent of half-width 2 over -1..2 with clamped edges.
  EXPECT_NEAR(half.at(0, 0).r, 25, 6);
  EXPECT_LT(half.at(0, 0).r, half.at(1, 0).r);
  EXPECT_THROW(resample(ramp, 0, 1), std::invalid_argument);
}

TEST(PathBadge, ColoursDifferAndMatchTheUiTests) {
  EXPECT_FALSE(path_badge_colour(OutputPath::Interop) == path_badge_colour(OutputPath::Cpu));
  EXPECT_FALSE(path_badge_colour(OutputPath::Staging) == path_badge_colour(OutputPath::Cpu));
  const Rgba8 cpu = path_badge_colour(OutputPath::Cpu);
  // The colour tests/ui/CMakeLists.txt hands to the screenshot check.
  const Rgba8 expected{GAUSSLAB_CPU_BADGE_R, GAUSSLAB_CPU_BADGE_G, GAUSSLAB_CPU_BADGE_B, 255};
  EXPECT_EQ(cpu, expected);
}

}  // namespace
}  // namespace gausslab

namespace gausslab {
namespace {

TEST(Script, StepsParseWithTheirLinesAndBadOnesAreRefused) {
  const std::vector<ScriptStep> steps = parse_script("# a session\n0 view split\n\n0.5 method_a 3  # A\n2 wait\n", "s");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].command, "view");
  EXPECT_EQ(steps[0].argument, "split");
  EXPECT_EQ(steps[1].at_s, 0.5);
  EXPECT_EQ(steps[1].text(), "method_a 3");
  EXPECT_EQ(steps[1].line, 4);
  EXPECT_THROW(parse_script("1 a\n0.5 b\n", "s"), UsageError);    // back in time
  EXPECT_THROW(parse_script("x view a\n", "s"), UsageError);      // not a time
  EXPECT_THROW(parse_script("nan view a\n", "s"), UsageError);
  EXPECT_THROW(parse_script("1\n", "s"), UsageError);             // no command
  EXPECT_THROW(parse_script("# nothing\n", "s"), UsageError);     // no steps
}

TEST(Script, FrameReportCountsTheStartUpFrameButBlamesNoStepForIt) {
  std::vector<double> frames(50, 10.0);
  frames[0] = 800.0;  // the start-up frame
  frames[1] = 40.0;   // the step at 0 s did cost this one
  const FrameTimeReport report = frame_time_report(frames, {{0, "view split"}, {0, "b exact"}});
  EXPECT_EQ(report.max, 800.0);  // still in the maximum and percentiles
  EXPECT_EQ(report.p99, 800.0);
  ASSERT_EQ(report.slow_after_step.size(), 1u);
  EXPECT_EQ(report.slow_after_step[0].frame, 1u);
  ASSERT_EQ(report.over_2x_p50_after_step.size(), 1u);
  EXPECT_EQ(report.over_2x_p50_after_step[0].frame, 1u);
}

TEST(Script, FrameReportDoesNotBlameASwitchForThePreviousSettingsOwnSlowFrames) {
  std::vector<double> frames(120, 10.0);
  for (std::size_t i = 20; i < 60; i += 5) frames[i] = 30.0;  // the setting before the step: slow now and then
  frames[60] = 28.0;   // the step's frame, waiting for that setting's GPU work
  frames[100] = 29.0;  // the next step's frame: slower than anything the quiet setting before it had
  const FrameTimeReport report = frame_time_report(frames, {{10, "a recursive"}, {60, "a naive_2d"}, {100, "view a"}});
  ASSERT_EQ(report.as_slow_before_step.size(), 1u);
  EXPECT_EQ(report.as_slow_before_step[0].frame, 60u);
  ASSERT_EQ(report.slow_after_step.size(), 1u);
  EXPECT_EQ(report.slow_after_step[0].frame, 100u);
  EXPECT_EQ(report.slow_after_step[0].after, "view a");
  const std::string text = describe(report);
  EXPECT_NE(text.find("slow_switch_frames=1 "), std::string::npos) << text;
  EXPECT_NE(text.find("as_slow_before_step=1"), std::string::npos) << text;
  EXPECT_NE(text.find("frame as slow as before the step 60: 28.000 ms (2.8x p50) after 'a naive_2d'"), std::string::npos)
      << text;
}

TEST(Script, FrameReportBlamesNothingOnAWait) {
  std::vector<double> frames(60, 10.0);
  frames[2] = 300.0;   // results still coming in while the script waits
  frames[31] = 50.0;   // the switch after the wait
  const FrameTimeReport report = frame_time_report(frames, {{1, "wait"}, {30, "sigma 8"}});
  EXPECT_EQ(report.max, 300.0);
  ASSERT_EQ(report.slow_after_step.size(), 1u);
  EXPECT_EQ(report.slow_after_step[0].frame, 31u);
  EXPECT_EQ(report.slow_after_step[0].after, "sigma 8");
  ASSERT_EQ(report.over_2x_p50_after_step.size(), 1u);
}

TEST(Script, FrameReportFlagsOnlyTheFramesASwitchMadeSlow) {
  std::vector<double> frames(100, 10.0);
  frames[20] = 50.0;  // the switch at frame 20 cost one frame
  for (std::size_t i = 60; i < 100; ++i) frames[i] = 30.0;  // the setting from frame 60 is slow in every frame
  const FrameTimeReport report = frame_time_report(frames, {{20, "a fft"}, {60, "a naive_2d"}});
  EXPECT_EQ(report.frames, 100u);
  EXPECT_EQ(report.p50, 10.0);
  EXPECT_EQ(report.max, 50.0);
  ASSERT_EQ(report.slow_after_step.size(), 1u);
  EXPECT_EQ(report.slow_after_step[0].frame, 20u);
  EXPECT_EQ(report.slow_after_step[0].after, "a fft");
  const std::string text = describe(report);
  EXPECT_NE(text.find("p50_ms=10.000 "), std::string::npos) << text;
  EXPECT_NE(text.find("slow_switch_frames=1"), std::string::npos);
  EXPECT_NE(text.find("slow frame 20: 50.000 ms (5.0x p50) after 'a fft'"), std::string::npos) << text;
  // The literal rule counts the slow setting's first frames too (over 2x the run's p50).
  ASSERT_EQ(report.over_2x_p50_after_step.size(), 5u);
  EXPECT_EQ(report.over_2x_p50_after_step[1].frame, 60u);
  EXPECT_EQ(report.over_2x_p50_after_step[4].frame, 63u);
  EXPECT_NE(text.find("over_2x_p50_near_steps=5"), std::string::npos) << text;
  EXPECT_NE(text.find("frame over 2x p50 61: 30.000 ms (3.0x p50) after 'a naive_2d'"), std::string::npos) << text;
}

}  // namespace
}  // namespace gausslab
