// The comparison's headless core (app/comparison/, no window and no Dear ImGui) on its own:
//  - on an offscreen OpenGL context (EGL: Mesa's llvmpipe here and on CI) and the cpu path, a setting
//    asked for is applied at the next frame's start (not before: a script's steps in one frame see
//    each other), the slots' results reach their textures and equal the CPU filter, a new size
//    resamples the picture and one beyond what OpenGL shows is refused with the old one kept, a
//    method that cannot run is refused with the reason, a slot's stage history goes only when its
//    own setting changes, the numbers follow the slots' settings, a failing method is replaced;
//  - without any context, the slicing's bookkeeping (slot_slicer.hpp): a GPU method never timed is
//    predicted to take the frame's whole budget, the choice between a whole and a sliced run follows
//    what the ledger learns from the GPU times, and a finished sliced run's total becomes its slot's
//    stage "sliced" and its note.
// Skips the first group when no EGL context can be made.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>

#include "comparison/auto_explanation.hpp"
#include "comparison/comparison.hpp"
#include "comparison/slot_slicer.hpp"
#include "comparison/unrounded_view.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "viewer/run_report.hpp"

namespace gausslab {
namespace {

int method_index(const std::string& id) {
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (registry[i].info.id == id) return static_cast<int>(i);
  return -1;
}

ImageRgba8 cpu_filtered(const ImageRgba8& picture, const FilterParams& params) {
  ImageRgba8 out(picture.width(), picture.height());
  cpu_gaussian_filter(picture.view(), out.view(), params, CpuThreading::Single);
  return out;
}

// A picture of more than 8 bits as the viewer holds it: its samples in 8-bit levels, channel planes
// from value(channel, pixel index), and its 8-bit copy (clamped to 255, rounded half up).
struct WidePicture {
  std::shared_ptr<PictureLevels> levels;
  ImageRgba8 shown;
};
template <class Value>
WidePicture wide_picture(int w, int h, const std::string& type, Value value) {
  WidePicture p{std::make_shared<PictureLevels>(), ImageRgba8(w, h)};
  p.levels->width = w;
  p.levels->height = h;
  p.levels->type = type;
  p.levels->planes.resize(static_cast<std::size_t>(w) * h * 4);
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < w * h; ++i) {
      const float v = value(c, i);
      p.levels->planes[static_cast<std::size_t>(c) * w * h + i] = v;
      (&p.shown.data()[i].r)[c] = static_cast<std::uint8_t>(std::min(v, 255.0f) + 0.5f);
    }
  return p;
}

class ComparisonCore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      surface_ = std::make_unique<EglOffscreen>(64, 48, -1);
    } catch (const std::exception& error) {
      skip_reason_ = error.what();
    }
  }
  static void TearDownTestSuite() { surface_.reset(); }
  void SetUp() override {
    if (!surface_) GTEST_SKIP() << "no OpenGL 3.3 context through EGL: " << skip_reason_;
    gl_timer_ = std::make_unique<GlTimer>(4, 60);
  }

  // The comparison of A = method_a against B = method_b on `picture` (cpu path, automated: the
  // exact Gaussian from the start, every frame processed).
  std::unique_ptr<Comparison> make(const ImageRgba8& picture, const std::string& method_a, int method_b,
                                   std::shared_ptr<const PictureLevels> levels = nullptr) {
    FilterState filter;
    filter.method_a = method_index(method_a);
    filter.method_b = method_b;
    filter.params.sigma = 1.5;
    filter.params.border = BorderMode::Mirror;
    filter.width = picture.width();
    filter.height = picture.height();
    filter.continuous = true;
    return std::make_unique<Comparison>(ComparisonStart{picture, std::move(levels), "test picture", "", filter,
                                                        OutputPath::Cpu, 60, true, false, surface_->info(), {}, false});
  }

  // One frame as the mode runs it (the frame loop opens and closes the GL timer's frame).
  void frame(Comparison& comparison) {
    comparison.frame_drawn();
    comparison.show_slots(true, true);
    gl_timer_->begin_frame();
    comparison.frame(FrameClocks{*gl_timer_, frame_ms_});
    gl_timer_->end_frame();
  }

  // Frames until the comparison's work is all in (settled: no continuous reprocessing meanwhile).
  void settle(Comparison& comparison) {
    comparison.settle(true);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);  // a hang, not a timing
    do {
      frame(comparison);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the workers' turn
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "still busy: " << progress(comparison);
    } while (busy(comparison));
    comparison.settle(false);
  }

  static std::unique_ptr<EglOffscreen> surface_;
  static std::string skip_reason_;
  std::unique_ptr<GlTimer> gl_timer_;
  RollingMedian frame_ms_{60};
};

std::unique_ptr<EglOffscreen> ComparisonCore::surface_;
std::string ComparisonCore::skip_reason_;

TEST_F(ComparisonCore, AppliesTheSettingAskedForAtTheNextFrameAndShowsTheCpuFiltersResult) {
  const ImageRgba8 picture = make_random_rgba8(37, 29, 5);
  std::unique_ptr<Comparison> comparison = make(picture, "cpu_separable", kOriginalPicture);
  settle(*comparison);
  const ResultPipeline& pipeline = comparison->runs().pipeline();
  EXPECT_EQ(pipeline.read_result(0).pixels(), cpu_filtered(picture, comparison->settings().applied().params).pixels());

  comparison->settings().requested().params.sigma = 3.0;
  EXPECT_EQ(comparison->settings().applied().params.sigma, 1.5);  // asked for, not applied yet
  EXPECT_EQ(comparison->runs().lane(0).slot.wanted().params.sigma, 1.5);
  frame(*comparison);
  EXPECT_EQ(comparison->settings().applied().params.sigma, 3.0);
  EXPECT_EQ(comparison->runs().lane(0).slot.wanted().params.sigma, 3.0);
  EXPECT_EQ(comparison->runs().lane(1).slot.wanted().params.sigma, 3.0);
  settle(*comparison);
  ASSERT_TRUE(comparison->runs().lane(0).slot.up_to_date());
  EXPECT_EQ(pipeline.read_result(0).pixels(), cpu_filtered(picture, comparison->settings().applied().params).pixels());
}

TEST_F(ComparisonCore, ANewSizeResamplesAndOneBeyondWhatOpenGLShowsIsRefusedWithTheOldOneKept) {
  std::unique_ptr<Comparison> comparison = make(make_random_rgba8(37, 29, 6), "cpu_openmp", kOriginalPicture);
  FilterState& asked = comparison->settings().requested();
  const std::uint64_t first = comparison->picture().number;
  asked.original_size = false;
  asked.width = 20;
  asked.height = 12;
  frame(*comparison);
  EXPECT_EQ(comparison->runs().pipeline().width(), 20);
  EXPECT_EQ(comparison->runs().pipeline().height(), 12);
  EXPECT_EQ(comparison->picture().number, first + 1);  // a new picture: no older result counts
  EXPECT_EQ(comparison->runs().lane(0).slot.wanted().picture, first + 1);

  asked.width = 70000;
  asked.height = 8;
  frame(*comparison);
  EXPECT_NE(comparison->picture().load_error.find("GL_MAX_TEXTURE_SIZE"), std::string::npos)
      << comparison->picture().load_error;
  EXPECT_EQ(comparison->settings().requested().width, 20);  // the request goes back to what is applied
  EXPECT_EQ(comparison->runs().pipeline().width(), 20);
  EXPECT_EQ(comparison->picture().number, first + 1);
}

TEST_F(ComparisonCore, AMethodThatCannotRunIsRefusedWithWhy) {
  std::unique_ptr<Comparison> comparison = make(make_random_rgba8(16, 16, 7), "cpu_openmp", kOriginalPicture);
  ComparisonSettings& settings = comparison->settings();
  int gpu_method = -1;
  for (int i = 0; i < settings.choices().size() && gpu_method < 0; ++i)
    if (settings.choices().list()[static_cast<std::size_t>(i)].gpu) gpu_method = i;
  ASSERT_GE(gpu_method, 0);
  EXPECT_FALSE(settings.choices().list()[static_cast<std::size_t>(gpu_method)].blocked.empty());  // the cpu path
  settings.select(1, gpu_method);
  EXPECT_EQ(settings.requested().method_b, kOriginalPicture);
  ASSERT_NE(comparison->messages().current(), nullptr);
  EXPECT_TRUE(comparison->messages().current()->error);
  EXPECT_NE(comparison->messages().current()->text.find("cannot run"), std::string::npos);
  EXPECT_NE(settings.select_by_name(0, settings.choices().id(gpu_method)).find("cannot run"), std::string::npos);
  EXPECT_NE(settings.select_by_name(0, "gaussian_magic").find("unknown method 'gaussian_magic'"), std::string::npos);
  EXPECT_EQ(settings.select_by_name(1, "exact"), "");
  EXPECT_EQ(settings.requested().method_b, kExactGaussian);

  // Pooling needs two pixels a side: a 1-pixel-high picture refuses it and says so.
  std::unique_ptr<Comparison> thin = make(make_random_rgba8(9, 1, 8), "cpu_openmp", kOriginalPicture);
  thin->settings().set_pool(PoolMode::Max2x2);
  EXPECT_EQ(thin->settings().requested().pool, PoolMode::None);
  ASSERT_NE(thin->messages().current(), nullptr);
  EXPECT_NE(thin->messages().current()->text.find("2x2 pooling is not applied"), std::string::npos);
}

TEST_F(ComparisonCore, ASlotsStagesGoOnlyWhenItsOwnSettingChanges) {
  // Processing on a change only, and the CPU worker hands a result over only after 3 more frames
  // (test hook): no sample of A comes in the frames around a change but those of its new setting.
  ::setenv("GAUSSLAB_TEST_HOLD_CPU_RESULT_FRAMES", "3", 1);
  std::unique_ptr<Comparison> comparison = make(make_random_rgba8(24, 20, 9), "cpu_separable", kOriginalPicture);
  ::unsetenv("GAUSSLAB_TEST_HOLD_CPU_RESULT_FRAMES");
  comparison->settings().requested().continuous = false;
  settle(*comparison);
  frame(*comparison);  // a result that came as the run settled is taken, and its time read
  frame(*comparison);
  const StageTimer& a = comparison->runs().lane(0).slot.timer();
  const auto series = [&](const std::string& prefix) {
    int count = 0;
    for (const auto& [name, values] : comparison->timing().history().series()) count += name.rfind(prefix, 0) == 0;
    return count;
  };
  ASSERT_FALSE(a.stages().empty());
  ASSERT_GT(series("A "), 0);
  comparison->settings().select(1, method_index("cpu_openmp"));  // B only
  frame(*comparison);
  EXPECT_FALSE(a.stages().empty());
  EXPECT_GT(series("A "), 0);
  comparison->settings().requested().params.sigma = 2.5;  // both
  frame(*comparison);
  EXPECT_TRUE(a.stages().empty());
  EXPECT_EQ(series("A "), 0);
}

TEST_F(ComparisonCore, TheNumbersFollowTheSlotsSettings) {
  std::unique_ptr<Comparison> comparison =
      make(make_random_rgba8(31, 23, 10), "cpu_separable", method_index("cpu_separable"));
  settle(*comparison);
  std::optional<ComparisonNumbers> numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->a_vs_b && numbers->a_vs_exact) << (numbers ? numbers->error : "no numbers");
  EXPECT_TRUE(numbers->a_vs_b->identical());  // a method against itself
  EXPECT_LT(numbers->a_vs_exact->unrounded.max_abs, 1e-3);  // float32 against float64, in 8-bit levels
  EXPECT_GT(numbers->a_vs_exact->rounded.max_abs, 0.0);     // its 8-bit result is rounded

  comparison->settings().select(1, kOriginalPicture);
  frame(*comparison);
  // The worker's latest numbers may still be B = cpu_separable's: those are never the current ones.
  if (const std::optional<ComparisonNumbers> now = current_numbers(*comparison)) {
    EXPECT_EQ(now->key.b.method, kOriginalPicture);
  }
  settle(*comparison);
  numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->a_vs_b);
  EXPECT_GT(numbers->a_vs_b->unrounded.max_abs, 1.0);  // the blurred noise against the noise
}

TEST_F(ComparisonCore, ASubLevelErrorAgainstTheExactGaussianIsFoundAndShownUnrounded) {
  // Issue 35: A = cpu_separable (float32 arithmetic) against B = the exact Gaussian (float64). Their
  // 8-bit results are nearly all the same bytes, so the 8-bit results' difference is black at any
  // gain; the numbers' unrounded A - B is ~1e-4 levels. Where J jumps (the largest |A - B|) the
  // numbers' difference holds it, the inspector prints it, and the difference view drawn from the
  // float texture shows it at half the scale for a gain that puts it there.
  ImageRgba8 picture = make_random_rgba8(31, 23, 10);
  for (std::size_t i = 0; i < picture.pixel_count(); ++i) picture.data()[i].a = 255;  // the view shows r, g, b
  std::unique_ptr<Comparison> comparison = make(picture, "cpu_separable", kExactGaussian);
  settle(*comparison);
  const std::optional<ComparisonNumbers> numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->a_vs_b && numbers->difference) << (numbers ? numbers->error : "no numbers");
  const DifferenceFigures& j = numbers->a_vs_b->unrounded;  // where J goes
  ASSERT_GE(j.max_channel, 0);
  ASSERT_LT(j.max_channel, 3);
  EXPECT_GT(j.max_abs, 0.0);
  EXPECT_LT(j.max_abs, 0.01);  // far below one 8-bit level
  const int w = picture.width(), h = picture.height();
  const float at_j = (*numbers->difference)[(static_cast<std::size_t>(j.max_y) * w + j.max_x) * 4 + j.max_channel];
  EXPECT_NEAR(std::abs(at_j), j.max_abs, 1e-6 * j.max_abs);
  const double inspected = numbers->values_a->value(j.max_x, j.max_y, j.max_channel) -
                           numbers->values_b->value(j.max_x, j.max_y, j.max_channel);
  EXPECT_DOUBLE_EQ(std::abs(inspected), j.max_abs);
  EXPECT_NE(levels_text(inspected, true).find("e-0"), std::string::npos) << levels_text(inspected, true);

  UnroundedView view;  // the float texture, a band a frame (one band here)
  for (int i = 0; i < 10 && !view.difference_texture(); ++i) view.follow(*comparison);
  ASSERT_NE(view.difference_texture(), 0u);
  ImageRenderer renderer;
  ImageDrawParams params;
  params.texture_a = comparison->runs().pipeline().result_texture(0);
  params.texture_b = comparison->runs().pipeline().result_texture(1);
  params.image_width = w;
  params.image_height = h;
  params.viewport_width = surface_->width();
  params.viewport_height = surface_->height();
  params.view = one_to_one_view(w, h, params.viewport_width, params.viewport_height);
  params.mode = CompareMode::Difference;
  params.gain = 0.5 * 255.0 / j.max_abs;
  params.signed_difference = true;
  params.sampling = Sampling::Nearest;
  const Vec2 origin = image_to_screen(params.view, {0, 0}, params.viewport_width, params.viewport_height);
  const auto shown = [&](int x, int y) {
    surface_->bind_framebuffer();
    renderer.draw(params);
    const Rgba8 p = surface_->capture().at(static_cast<int>(origin.x) + x, static_cast<int>(origin.y) + y);
    return std::array<int, 3>{p.r, p.g, p.b};
  };
  params.difference_texture = 0;  // the 8-bit results: mid grey (no difference) or a whole level's flip, far off the scale
  const int rounded = shown(j.max_x, j.max_y)[j.max_channel];
  EXPECT_TRUE(rounded == 127 || rounded == 128 || rounded == 0 || rounded == 255) << rounded;
  params.difference_texture = view.difference_texture();
  const std::array<int, 3> unrounded = shown(j.max_x, j.max_y);
  const Rgba8 expected = difference_colour(
      {at_j * (j.max_channel == 0), at_j * (j.max_channel == 1), at_j * (j.max_channel == 2)},
      DifferenceStyle{params.gain, true, false});
  EXPECT_NEAR(unrounded[j.max_channel], (&expected.r)[j.max_channel], 1);
  EXPECT_NEAR(std::abs(unrounded[j.max_channel] - 128), 64, 2);  // half the way from mid grey to the end
}

TEST_F(ComparisonCore, APictureOfMoreThanEightBitsIsMeasuredAsItsOwnSamples) {
  // Issue 35: a 16-bit file's samples in 8-bit levels (v x 255/65535: fractions of a level), shown
  // through their 8-bit rounding. The numbers run the method on the samples, measure the original
  // picture as them and the exact Gaussian is of them: A = cpu_separable is within float32's error
  // of it (against the 8-bit copy's exact Gaussian it would be off by up to half a level).
  const int w = 29, h = 17;
  std::uint32_t state = 7;
  WidePicture picture = wide_picture(w, h, "uint16, 4 channels", [&](int c, int i) {
    state = state * 1664525u + 1013904223u;
    // One red sample beyond the 8-bit reduction's range, as a float file's 1.57 would be.
    if (c == 0 && i == 2 * w + 3) return 400.0f;
    return c == 3 ? 255.0f : static_cast<float>(state >> 16) * 255.0f / 65535.0f;
  });
  const std::shared_ptr<PictureLevels>& levels = picture.levels;
  const ImageRgba8& shown = picture.shown;
  std::unique_ptr<Comparison> comparison = make(shown, "cpu_separable", kOriginalPicture, levels);
  comparison->settings().select(1, kExactGaussian);
  frame(*comparison);
  settle(*comparison);
  std::optional<ComparisonNumbers> numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->a_vs_b && numbers->a_vs_exact) << (numbers ? numbers->error : "no numbers");
  EXPECT_LT(numbers->a_vs_b->unrounded.max_abs, 1e-3);  // A against the exact Gaussian of the samples
  EXPECT_GT(numbers->a_vs_b->unrounded.max_abs, 0.0);

  comparison->settings().select(1, kOriginalPicture);
  frame(*comparison);
  settle(*comparison);
  numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->values_b);
  int fractional = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      ASSERT_EQ(numbers->values_b->value(x, y, 0), levels->sample(x, y, 0));  // the sample, not its byte
      fractional += levels->sample(x, y, 0) != std::round(levels->sample(x, y, 0));
    }
  EXPECT_GT(fractional, w * h / 2);

  // The B view (the original) draws the samples from its float texture: at -1 stop the sample of
  // 400 levels shows as 200, where the 8-bit picture holds 255.
  UnroundedView view;
  for (int i = 0; i < 10 && !view.slot_texture(1); ++i) view.follow(*comparison);
  ASSERT_NE(view.slot_texture(1), 0u);
  ImageRenderer renderer;
  ImageDrawParams params;
  params.texture_a = params.texture_b = comparison->runs().pipeline().source_texture();
  params.float_a = view.slot_texture(0);
  params.float_b = view.slot_texture(1);
  params.image_width = w;
  params.image_height = h;
  params.viewport_width = surface_->width();
  params.viewport_height = surface_->height();
  params.view = one_to_one_view(w, h, params.viewport_width, params.viewport_height);
  params.mode = CompareMode::B;
  params.display.exposure_stops = -1;
  params.sampling = Sampling::Nearest;
  surface_->bind_framebuffer();
  renderer.draw(params);
  const ImageRgba8 drawn = surface_->capture();
  const Vec2 origin = image_to_screen(params.view, {0, 0}, params.viewport_width, params.viewport_height);
  const auto red_at = [&](int x, int y) { return drawn.at(static_cast<int>(origin.x) + x, static_cast<int>(origin.y) + y).r; };
  EXPECT_NEAR(red_at(3, 2), 200, 1);
  EXPECT_NEAR(red_at(5, 7), levels->sample(5, 7, 0) * 0.5, 1);
}

TEST_F(ComparisonCore, AutosLabelNamesWhatRanForThePicturesType) {
  // Issue 35: for a picture of more than 8 bits the views draw the numbers' values, which auto ran
  // with its choice for float planes (its F32 choice); the label, the title and the machine panel's
  // explanation name that choice, not the one for the slot's 8-bit copy. An 8-bit picture keeps the
  // 8-bit choice, though its numbers ran auto on float planes too.
  const int w = 23, h = 15;
  const WidePicture picture = wide_picture(w, h, "float32, 4 channels", [](int c, int i) {
    return c == 3 ? 255.0f : static_cast<float>((i * 37 + c * 11) % 400);  // beyond 255 too
  });
  const std::shared_ptr<PictureLevels>& levels = picture.levels;
  const ImageRgba8& shown = picture.shown;
  const int auto_index = method_index("auto");
  ASSERT_GE(auto_index, 0);
  for (const bool samples : {true, false}) {
    SCOPED_TRACE(samples ? "float picture" : "8-bit picture");
    std::unique_ptr<Comparison> comparison = make(shown, "auto", kOriginalPicture, samples ? levels : nullptr);
    settle(*comparison);
    const std::optional<ComparisonNumbers> numbers = current_numbers(*comparison);
    ASSERT_TRUE(numbers && numbers->auto_a) << (numbers ? numbers->error : "no numbers");
    const MethodChoices& choices = comparison->settings().choices();
    const std::string label = choices.label(auto_index);
    const AutoExplanation why = explain_auto(choices, comparison->settings().problem(), false);
    if (samples) {
      EXPECT_EQ(choices.chosen(auto_index), numbers->auto_a->method_id);
      EXPECT_EQ(choices.chosen_format(auto_index), PixelFormat::F32);
      EXPECT_EQ(choices.id_with_choice(auto_index), "auto \u2192 " + numbers->auto_a->method_id);
      // The slot's live run on the 8-bit copy chose for RGBA8: what its stages are (the overlay and
      // the summary's stages_method= name it where it differs).
      EXPECT_FALSE(choices.chosen_for_slots(auto_index).empty());
      EXPECT_NE(label.find("on the picture's samples as float32 planes"), std::string::npos) << label;
      EXPECT_NE(why.headline.find("on the picture's samples"), std::string::npos) << why.headline;
    } else {
      EXPECT_EQ(choices.chosen_format(auto_index), PixelFormat::Rgba8);
      EXPECT_FALSE(choices.chosen(auto_index).empty());
      EXPECT_EQ(choices.chosen_for_slots(auto_index), choices.chosen(auto_index));
      EXPECT_EQ(label.find("samples"), std::string::npos) << label;
    }
  }
}

TEST_F(ComparisonCore, AFailingMethodIsReplacedAndTheFallbackNamed) {
  ::setenv("GAUSSLAB_TEST_FAIL_CPU_METHOD", "cpu_separable", 1);  // read by the CPU worker at its start
  std::unique_ptr<Comparison> comparison = make(make_random_rgba8(16, 12, 11), "cpu_separable", kOriginalPicture);
  ::unsetenv("GAUSSLAB_TEST_FAIL_CPU_METHOD");
  settle(*comparison);
  EXPECT_EQ(comparison->settings().applied().method_a, method_index("cpu_openmp"));
  const std::string& fallbacks = comparison->messages().fallbacks();
  EXPECT_EQ(fallbacks.rfind("A: cpu_separable failed (an injected failure", 0), 0u) << fallbacks;
  EXPECT_EQ(fallbacks.find("failed", fallbacks.find("failed") + 1), std::string::npos) << "one failure, named once";
  EXPECT_TRUE(comparison->runs().lane(0).slot.up_to_date());
}

// --- The slicing's bookkeeping, without a GPU.

struct SlicingBench {
  int method = method_index("naive_2d");  // a band-exact window method: the one the viewer slices most
  Slot slot{4};
  SliceLedger ledger;
  SlotSlicer slicer{0, slot, ledger};
  FilterParams params;
  SlicingBench() {
    params.sigma = 4;
    slot.want(SlotSetting{1, method, params, PoolMode::None});
  }
  const MethodInfo& info() const { return method_registry().at(static_cast<std::size_t>(method)).info; }
};

// The reference slot (reference_file.hpp): B holds a float32 RGBA TIFF of the picture's samples / 255 with
// one sample raised by `bump` levels, so A (the original picture) against B is that bump exactly:
// max |A-B| = bump, mean = bump / (w h 4), in the file's own samples, not its 8-bit reduction.
std::string write_reference(const std::string& path, const ImageRgba8& picture, int bump_x, int bump_y, double bump) {
  HostImage file(picture.width(), picture.height(), PixelFormat::Rgba32F);
  for (int y = 0; y < picture.height(); ++y)
    for (int x = 0; x < picture.width(); ++x) {
      const Rgba8& p = picture.data()[static_cast<std::size_t>(y) * picture.width() + x];
      float* s = file.row<float>(y) + 4 * x;
      s[0] = p.r / 255.0f;
      s[1] = static_cast<float>((p.g + (x == bump_x && y == bump_y ? bump : 0.0)) / 255.0);
      s[2] = p.b / 255.0f;
      s[3] = p.a / 255.0f;
    }
  save_image(path, file.view(), Overwrite::Allowed);
  return path;
}

std::string scratch_folder(const char* name) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       ("gausslab-reference-" + std::string(name) + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  return folder.string();
}

TEST_F(ComparisonCore, AReferenceFileInBIsComparedAsItsOwnSamples) {
  const ImageRgba8 picture = make_random_rgba8(37, 29, 8);
  const std::string folder = scratch_folder("samples");
  const std::string path = write_reference(folder + "/scipy.tif", picture, 5, 7, 2.5);
  std::unique_ptr<Comparison> comparison = make(picture, "cpu_openmp", kOriginalPicture);
  ASSERT_EQ(comparison->set_slot_file(1, path), "");
  FilterState& asked = comparison->settings().requested();
  EXPECT_EQ(asked.method_b, kReferenceFileB);
  asked.method_a = kOriginalPicture;
  settle(*comparison);
  const std::optional<ComparisonNumbers> numbers = current_numbers(*comparison);
  ASSERT_TRUE(numbers && numbers->a_vs_b) << (numbers ? numbers->error : "no numbers");
  EXPECT_NEAR(numbers->a_vs_b->unrounded.max_abs, 2.5, 1e-4);  // float32 / 255 and back
  EXPECT_NEAR(numbers->a_vs_b->unrounded.mean_abs, 2.5 / (37.0 * 29 * 4), 1e-7);
  EXPECT_EQ(numbers->a_vs_b->unrounded.max_x, 5);
  EXPECT_EQ(numbers->a_vs_b->unrounded.max_y, 7);
  EXPECT_EQ(numbers->a_vs_b->unrounded.max_channel, 1);
  // The label names the file and its samples; no sigma or method.
  EXPECT_EQ(comparison->settings().choices().label(kReferenceFileB), "file scipy.tif (float32, 4 channels)");
  EXPECT_EQ(comparison->settings().choices().id(kReferenceFileB), "scipy.tif");
  EXPECT_TRUE(comparison->runs().lane(1).slot.up_to_date());
  std::filesystem::remove_all(folder);
}

TEST_F(ComparisonCore, AReferenceFileOfAnotherSizeIsRefusedWithBothSizesAndTheSlotKeepsWhatItHad) {
  const ImageRgba8 picture = make_random_rgba8(37, 29, 9);
  const std::string folder = scratch_folder("size");
  const std::string path = write_reference(folder + "/small.tif", make_random_rgba8(10, 12, 1), -1, -1, 0);
  std::unique_ptr<Comparison> comparison = make(picture, "cpu_openmp", kExactGaussian);
  const std::string refused = comparison->set_slot_file(1, path);
  EXPECT_NE(refused.find("10 x 12"), std::string::npos) << refused;
  EXPECT_NE(refused.find("37 x 29"), std::string::npos) << refused;
  EXPECT_EQ(comparison->settings().requested().method_b, kExactGaussian);
  EXPECT_NE(comparison->set_slot_file(1, folder + "/missing.tif").find("no such file"), std::string::npos);
  EXPECT_EQ(comparison->settings().requested().method_b, kExactGaussian);
  // A file that fits, then a new size of the picture: B goes back to the original picture, said.
  ASSERT_EQ(comparison->set_slot_file(1, write_reference(folder + "/fits.tif", picture, -1, -1, 0)), "");
  frame(*comparison);
  EXPECT_EQ(comparison->settings().applied().method_b, kReferenceFileB);
  comparison->settings().requested().original_size = false;
  comparison->settings().requested().width = 20;
  comparison->settings().requested().height = 12;
  frame(*comparison);
  EXPECT_EQ(comparison->settings().applied().method_b, kOriginalPicture);
  ASSERT_TRUE(comparison->messages().current());
  EXPECT_NE(comparison->messages().current()->text.find("20 x 12"), std::string::npos);
  std::filesystem::remove_all(folder);
}

TEST_F(ComparisonCore, AReferenceFileRewrittenIsReloadedAndABrokenVersionKeepsTheOldOne) {
  const ImageRgba8 picture = make_random_rgba8(37, 29, 10);
  const std::string folder = scratch_folder("reload");
  const std::string path = write_reference(folder + "/ref.tif", picture, 1, 1, 1.0);
  std::unique_ptr<Comparison> comparison = make(picture, "cpu_openmp", kOriginalPicture);
  comparison->settings().requested().method_a = kOriginalPicture;
  ASSERT_EQ(comparison->set_slot_file(1, path), "");
  settle(*comparison);
  ASSERT_TRUE(current_numbers(*comparison) && current_numbers(*comparison)->a_vs_b);
  EXPECT_NEAR(current_numbers(*comparison)->a_vs_b->unrounded.max_abs, 1.0, 1e-4);
  const auto poll_until_reloaded = [&] {  // the event: poll_files() says it acted (a hang, not a timing)
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!comparison->poll_files()) {
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the rewrite was never seen";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  const std::uint64_t before = comparison->reference(1).number;
  write_reference(path, picture, 3, 4, 6.0);
  poll_until_reloaded();
  EXPECT_EQ(comparison->reference(1).number, before + 1);
  settle(*comparison);
  ASSERT_TRUE(current_numbers(*comparison) && current_numbers(*comparison)->a_vs_b);
  EXPECT_NEAR(current_numbers(*comparison)->a_vs_b->unrounded.max_abs, 6.0, 1e-4);
  // A truncated version (a writer caught half-way): refused by the reader, the old one stays.
  std::filesystem::resize_file(path, 100);
  poll_until_reloaded();
  EXPECT_EQ(comparison->reference(1).number, before + 1);
  ASSERT_TRUE(comparison->messages().current());
  EXPECT_NE(comparison->messages().current()->text.find("previous version stays"), std::string::npos);
  settle(*comparison);
  EXPECT_NEAR(current_numbers(*comparison)->a_vs_b->unrounded.max_abs, 6.0, 1e-4);
  std::filesystem::remove_all(folder);
}

TEST(FileWatcher, ReportsANewVersionOnlyOnceTwoPollsAgree) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("gausslab-watch-" + std::to_string(::getpid()) + ".txt");
  const auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
  write("one");
  FileWatcher watcher(path.string());
  using std::chrono::milliseconds;
  const FileWatcher::Clock::time_point t0 = FileWatcher::Clock::now();
  EXPECT_FALSE(watcher.changed(t0));  // as read
  write("two, longer");
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(100)));  // not due: polls at most every 0.25 s
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(300)));  // seen once: could still be being written
  write("three, longer still");                          // it was: the size moved again
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(600)));
  EXPECT_TRUE(watcher.changed(t0 + milliseconds(900)));  // two polls agree
  watcher.taken();
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(1200)));
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(1500)));
  // Removed: a change too (the reader then says why); back again: another.
  std::filesystem::remove(path);
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(1800)));
  EXPECT_TRUE(watcher.changed(t0 + milliseconds(2100)));
  watcher.taken();
  write("four");
  EXPECT_FALSE(watcher.changed(t0 + milliseconds(2400)));
  EXPECT_TRUE(watcher.changed(t0 + milliseconds(2700)));
  std::filesystem::remove(path);
  EXPECT_FALSE(FileWatcher().changed(t0));  // watching nothing
}

TEST(ComparisonSlicing, TheChoiceBetweenWholeAndSlicedFollowsWhatTheLedgerLearns) {
  SlicingBench b;
  ASSERT_GE(b.method, 0);
  constexpr int kWidth = 1024, kHeight = 768;
  const int radius = b.params.radius();
  // Never timed: counted as the frame's whole slicing budget (2 ms), and the first choice is a probe.
  EXPECT_DOUBLE_EQ(b.slicer.whole_run_ms(kWidth, kHeight), 2.0);
  EXPECT_EQ(choose_run(b.ledger.cost_model(), b.info().id, b.info().same_bytes_in_bands, kWidth, kHeight, radius, 2.0,
                       false, 1.0)
                .shape,
            RunShape::Probe);
  // A whole run timed at 40 ms: predicted so, and sliced from now on.
  const std::uint64_t slow = b.slicer.tag_whole_run(kWidth, kHeight);
  b.ledger.learn({ClockReading{slow, 40.0}});
  ASSERT_TRUE(b.ledger.cost_model().timed_at(b.info().id, radius));
  EXPECT_NEAR(b.slicer.whole_run_ms(kWidth, kHeight), 40.0, 0.1);
  EXPECT_EQ(choose_run(b.ledger.cost_model(), b.info().id, b.info().same_bytes_in_bands, kWidth, kHeight, radius, 2.0,
                       true, 1.0)
                .shape,
            RunShape::Sliced);
  // The same run timed at 0.5 ms (the latest counts): whole again.
  const std::uint64_t fast = b.slicer.tag_whole_run(kWidth, kHeight);
  b.ledger.learn({ClockReading{fast, 0.5}});
  EXPECT_NEAR(b.slicer.whole_run_ms(kWidth, kHeight), 0.5, 0.01);
  EXPECT_EQ(choose_run(b.ledger.cost_model(), b.info().id, b.info().same_bytes_in_bands, kWidth, kHeight, radius, 2.0,
                       true, 1.0)
                .shape,
            RunShape::Whole);
  // Spans read twice, or never made, teach nothing.
  b.ledger.learn({ClockReading{fast, 99.0}, ClockReading{12345, 99.0}});
  EXPECT_NEAR(b.slicer.whole_run_ms(kWidth, kHeight), 0.5, 0.01);
}

TEST(ComparisonSlicing, AFinishedSlicedRunsTotalBecomesItsSlotsStageAndNote) {
  SlicingBench b;
  const SlotSetting setting = b.slot.wanted();
  const std::uint64_t run = b.ledger.new_tag();
  SliceLedger::RunTotal& total = b.ledger.run_total(run);
  total.slicer = &b.slicer;
  total.setting = setting;
  total.steps = 2;
  total.tiles = 17;
  total.finished = true;
  const std::uint64_t first = b.ledger.new_tag(), second = b.ledger.new_tag();
  b.ledger.add_span(first, SliceLedger::Span{&b.slicer, "A", b.info().id, 1e6, run, b.params.radius(), 1});
  b.ledger.add_span(second, SliceLedger::Span{&b.slicer, "A", b.info().id, 1e6, run, b.params.radius(), 1});
  b.ledger.learn({ClockReading{first, 1.25}});
  b.slot.timer().flush();
  EXPECT_TRUE(b.slot.timer().stages().empty());  // one step of two read
  EXPECT_EQ(b.slicer.note(), "");
  b.ledger.learn({ClockReading{second, 1.5}});
  b.slot.timer().flush();
  const std::vector<StageTiming> stages = b.slot.timer().stages();
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].name, "sliced");
  EXPECT_DOUBLE_EQ(stages[0].last_ms, 2.75);  // every step's GPU time, one sample
  EXPECT_EQ(b.slicer.note(), "sliced into 17 bands");
  // The note is the setting's: another setting wanted, none shown.
  FilterParams other = b.params;
  other.sigma = 5;
  b.slot.want(SlotSetting{1, b.method, other, PoolMode::None});
  EXPECT_EQ(b.slicer.note(), "");
}

}  // namespace
}  // namespace gausslab
