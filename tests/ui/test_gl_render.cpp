// The render layer on a real OpenGL context: EGL offscreen (Mesa's llvmpipe here and on CI, the
// NVIDIA driver on the GPU machine). Checks that the shader puts pixels where view_transform.hpp
// says, that the difference view computes the same numbers as difference_level(), and that the
// pipeline's cpu path shows exactly the CPU filter's result. Skips when no EGL context can be made.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/banded_upload.hpp"
#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/display_range.hpp"
#include "gausslab/render/display_transform.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/float_texture.hpp"
#include "gausslab/render/frame_pacer.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/texture.hpp"
#include "gausslab/render/texture_ring.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "viewer/picture_levels.hpp"

namespace gausslab {
namespace {

constexpr int kViewWidth = 96, kViewHeight = 80;

Rgba8 opaque(Rgba8 p) { return {p.r, p.g, p.b, 255}; }

// How many (x, y) of a width x height grid meet the condition.
int count_where(int width, int height, const std::function<bool(int, int)>& condition) {
  int count = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) count += condition(x, y);
  return count;
}

// How many pixels of two views of one size differ.
int differing_pixels(const ImageRgba8& a, const ImageRgba8& b) {
  return count_where(a.width(), a.height(), [&](int x, int y) { return !(a.at(x, y) == b.at(x, y)); });
}

class GlRender : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      surface_ = std::make_unique<EglOffscreen>(kViewWidth, kViewHeight, -1);
      renderer_ = std::make_unique<ImageRenderer>();
    } catch (const std::exception& error) {
      skip_reason_ = error.what();
      renderer_.reset();
      surface_.reset();
    }
  }
  static void TearDownTestSuite() {
    renderer_.reset();
    surface_.reset();
  }
  void SetUp() override {
    if (!surface_) GTEST_SKIP() << "no OpenGL 3.3 context through EGL: " << skip_reason_;
  }

  static Texture texture_of(const ImageRgba8& image) {
    Texture texture;
    texture.resize(image.width(), image.height());
    texture.upload(image.view());
    return texture;
  }

  // What draws a width x height picture from texture A one to one with nearest sampling (a test
  // sets what it varies on top).
  static ImageDrawParams picture_params(unsigned texture_a, int width, int height) {
    ImageDrawParams params;
    params.texture_a = texture_a;
    params.image_width = width;
    params.image_height = height;
    params.view = one_to_one_view(width, height, kViewWidth, kViewHeight);
    params.sampling = Sampling::Nearest;
    return params;
  }

  // A one-to-one view read back: the whole view, and the picture's pixels in it.
  struct Drawn {
    ImageRgba8 view;  // top row first
    int x0 = 0, y0 = 0;  // where the picture's pixel (0, 0) is shown
    int width = 0, height = 0;  // the picture's size
    Rgba8 at(int x, int y) const { return view.at(x0 + x, y0 + y); }  // picture pixel (x, y) as shown
  };

  // Draws params (a one-to-one view: the picture's pixels on whole screen pixels) and reads it back.
  static Drawn draw_one_to_one(const ImageDrawParams& params) {
    const Vec2 origin = image_to_screen(params.view, {0, 0}, kViewWidth, kViewHeight);
    Drawn drawn{draw(params), static_cast<int>(origin.x), static_cast<int>(origin.y), params.image_width,
                params.image_height};
    EXPECT_EQ(origin.x, drawn.x0) << "a one-to-one view puts the picture on whole pixels";
    EXPECT_EQ(origin.y, drawn.y0) << "a one-to-one view puts the picture on whole pixels";
    return drawn;
  }

  // The largest difference of a colour channel (r, g, b) between each picture pixel as drawn and
  // expected(x, y).
  static int worst_channel_difference(const Drawn& drawn, const std::function<Rgba8(int, int)>& expected) {
    int worst = 0;
    for (int y = 0; y < drawn.height; ++y)
      for (int x = 0; x < drawn.width; ++x) {
        const Rgba8 shown = drawn.at(x, y), want = expected(x, y);
        worst = std::max({worst, std::abs(shown.r - want.r), std::abs(shown.g - want.g), std::abs(shown.b - want.b)});
      }
    return worst;
  }

  // The image drawn one to one, compared with the view: mismatched pixels.
  static int one_to_one_mismatches(const Texture& texture, const ImageRgba8& image) {
    const Drawn drawn = draw_one_to_one(picture_params(texture.id(), image.width(), image.height()));
    return count_where(image.width(), image.height(),
                       [&](int x, int y) { return !(drawn.at(x, y) == opaque(image.at(x, y))); });
  }

  // Draws with the given parameters into the whole view and reads it back (top row first).
  static ImageRgba8 draw(ImageDrawParams params) {
    params.viewport_width = kViewWidth;
    params.viewport_height = kViewHeight;
    surface_->bind_framebuffer();
    renderer_->draw(params);
    return surface_->capture();
  }

  static std::unique_ptr<EglOffscreen> surface_;
  static std::unique_ptr<ImageRenderer> renderer_;
  static std::string skip_reason_;
};

std::unique_ptr<EglOffscreen> GlRender::surface_;
std::unique_ptr<ImageRenderer> GlRender::renderer_;
std::string GlRender::skip_reason_;

TEST_F(GlRender, ReportsTheRenderer) {
  EXPECT_FALSE(surface_->info().renderer.empty());
  EXPECT_NE(surface_->info().platform.find("EGL"), std::string::npos) << surface_->info().platform;
  std::printf("GL renderer: %s (%s; %s)\n", surface_->info().renderer.c_str(), surface_->info().version.c_str(),
              surface_->info().platform.c_str());
}

TEST_F(GlRender, OneToOneShowsTheExactPixelsWithEitherSampling) {
  const ImageRgba8 image = make_random_rgba8(41, 29, 7);
  const Texture texture = texture_of(image);
  for (Sampling sampling : {Sampling::Nearest, Sampling::Linear}) {
    ImageDrawParams params = picture_params(texture.id(), image.width(), image.height());
    params.sampling = sampling;
    const Drawn drawn = draw_one_to_one(params);
    EXPECT_EQ(count_where(image.width(), image.height(),
                          [&](int x, int y) { return !(drawn.at(x, y) == opaque(image.at(x, y))); }),
              0)
        << to_string(sampling);
    // Outside the image: the background, not a stretched edge.
    EXPECT_FALSE(drawn.at(-1, 0) == opaque(image.at(0, 0)));
    EXPECT_EQ(drawn.view.at(0, 0), drawn.view.at(kViewWidth - 1, kViewHeight - 1));
  }
}

// The viewer clears only what the picture area's draw leaves (clear_except): the rectangle keeps
// what was drawn in it, every pixel outside gets the background, as a whole clear gives it.
TEST_F(GlRender, ClearExceptLeavesTheRectangleAndClearsTheRest) {
  surface_->bind_framebuffer();
  surface_->clear();
  const Rgba8 background = surface_->capture().at(0, 0);
  const ImageRgba8 image = make_random_rgba8(kViewWidth, kViewHeight, 11);  // covers the whole view
  const Texture texture = texture_of(image);
  const ImageRgba8 full = draw(picture_params(texture.id(), image.width(), image.height()));
  const int x = 13, y = 7, w = 50, h = 41;  // top-left origin, as the viewer's picture area
  surface_->clear_except(x, y, w, h);
  const ImageRgba8 cleared = surface_->capture();
  const int wrong = count_where(kViewWidth, kViewHeight, [&](int px, int py) {
    const bool inside = px >= x && px < x + w && py >= y && py < y + h;
    return !(cleared.at(px, py) == (inside ? full.at(px, py) : background));
  });
  EXPECT_EQ(wrong, 0);
  EXPECT_FALSE(full.at(0, 0) == background);  // the check above could fail outside
  // A rectangle beyond the surface is clipped to it; an empty one clears everything.
  draw(picture_params(texture.id(), image.width(), image.height()));
  surface_->clear_except(kViewWidth - 10, kViewHeight - 10, 100, 100);
  const ImageRgba8 corner = surface_->capture();
  EXPECT_EQ(corner.at(kViewWidth - 1, kViewHeight - 1), full.at(kViewWidth - 1, kViewHeight - 1));
  EXPECT_EQ(corner.at(kViewWidth - 11, kViewHeight - 1), background);
  surface_->clear_except(5, 5, 0, 0);
  const ImageRgba8 none = surface_->capture();
  EXPECT_EQ(count_where(kViewWidth, kViewHeight, [&](int px, int py) { return !(none.at(px, py) == background); }), 0);
}

// The common view (A, B or split of 8-bit results under the identity transform, no grid) is drawn by the
// plain shader; an exposure too small to change a float (1e-300 stops: a scale of exactly 1) takes
// the full shader with the same transform. The two agree bit for bit at any zoom, pan and sampling.
TEST_F(GlRender, PlainViewIsTheFullShadersPixels) {
  const ImageRgba8 a = make_random_rgba8(57, 43, 21), b = make_random_rgba8(57, 43, 22);
  const Texture texture_a = texture_of(a), texture_b = texture_of(b);
  int cases = 0;
  for (const CompareMode mode : {CompareMode::A, CompareMode::B, CompareMode::Split})
    for (const ViewTransform view : {ViewTransform{0.37, {20.2, 17.9}}, ViewTransform{1.0, {28.5, 21.5}},
                                     ViewTransform{3.5, {9.3, 30.1}}, ViewTransform{7.9, {50.0, 40.0}}})
      for (const Sampling sampling : {Sampling::Nearest, Sampling::Linear}) {
        ImageDrawParams params = picture_params(texture_a.id(), a.width(), a.height());
        params.texture_b = texture_b.id();
        params.mode = mode;
        params.view = view;
        params.sampling = sampling;
        params.split_x = 41.5;
        const ImageRgba8 plain = draw(params);
        params.display.exposure_stops = 1e-300;
        const ImageRgba8 full = draw(params);
        EXPECT_EQ(differing_pixels(plain, full), 0)
            << to_string(mode) << " zoom " << view.zoom << " " << to_string(sampling);
        ++cases;
      }
  EXPECT_EQ(cases, 24);
}

TEST_F(GlRender, ZoomedPixelsLandWhereTheViewMathsSays) {
  const ImageRgba8 image = make_random_rgba8(16, 12, 11);
  const Texture texture = texture_of(image);
  ImageDrawParams params = picture_params(texture.id(), image.width(), image.height());
  params.view = ViewTransform{4.75, {6.3, 5.1}};
  const ImageRgba8 view = draw(params);
  int checked = 0, mismatches = 0;
  for (int sy = 0; sy < kViewHeight; ++sy)
    for (int sx = 0; sx < kViewWidth; ++sx) {
      const Vec2 p = screen_to_image(params.view, {sx + 0.5, sy + 0.5}, kViewWidth, kViewHeight);
      const double fx = p.x - std::floor(p.x), fy = p.y - std::floor(p.y);
      if (fx < 0.02 || fx > 0.98 || fy < 0.02 || fy > 0.98) continue;  // too close to a texel edge to tell
      if (p.x < 0 || p.y < 0 || p.x >= image.width() || p.y >= image.height()) continue;
      ++checked;
      if (!(view.at(sx, sy) == opaque(image.at(static_cast<int>(p.x), static_cast<int>(p.y))))) ++mismatches;
    }
  EXPECT_GT(checked, 3000);
  EXPECT_EQ(mismatches, 0);
}

// Auto sampling (the view's default): nearest from 100 % up, so that a zoomed pixel is a square of
// one colour with a hard edge to the next (as tev and HDRView draw it); linear below.
TEST_F(GlRender, AutoSamplingIsNearestWhenZoomedInAndLinearWhenZoomedOut) {
  const ImageRgba8 image = make_random_rgba8(12, 10, 5);
  const Texture texture = texture_of(image);
  ImageDrawParams params = picture_params(texture.id(), image.width(), image.height());
  params.sampling = Sampling::Auto;
  params.pixel_grid = false;
  params.view = ViewTransform{6.0, {6.0, 5.0}};  // each picture pixel 6 x 6 screen pixels, on whole pixels
  const ImageRgba8 zoomed = draw(params);
  int squares = 0, uneven = 0;
  for (int py = 0; py < image.height(); ++py)
    for (int px = 0; px < image.width(); ++px) {
      const Vec2 corner = image_to_screen(params.view, {static_cast<double>(px), static_cast<double>(py)}, kViewWidth, kViewHeight);
      const int x0 = static_cast<int>(corner.x), y0 = static_cast<int>(corner.y);
      if (x0 < 0 || y0 < 0 || x0 + 6 > kViewWidth || y0 + 6 > kViewHeight) continue;
      ++squares;
      for (int y = y0; y < y0 + 6; ++y)
        for (int x = x0; x < x0 + 6; ++x)
          if (!(zoomed.at(x, y) == opaque(image.at(px, py)))) ++uneven;
    }
  EXPECT_GT(squares, 100);
  EXPECT_EQ(uneven, 0) << "at 600 % auto sampling must be nearest: every screen pixel of a picture pixel its exact colour";
  // The same zoom with linear sampling blends neighbours: many screen pixels are no picture pixel's.
  params.sampling = Sampling::Linear;
  EXPECT_GT(differing_pixels(draw(params), zoomed), 1000);
  // Below 100 %: auto is linear.
  params.view = ViewTransform{0.75, {6.0, 5.0}};
  params.sampling = Sampling::Auto;
  const ImageRgba8 small_auto = draw(params);
  params.sampling = Sampling::Linear;
  EXPECT_EQ(differing_pixels(small_auto, draw(params)), 0);
}

// From kPixelGridZoom up a one-pixel line runs along each picture pixel's left and top edges (and
// nowhere else); below it, none.
TEST_F(GlRender, PixelGridLinesRunAlongPixelEdgesWhenZoomedFarIn) {
  ImageRgba8 image(8, 6);
  for (std::size_t i = 0; i < image.pixel_count(); ++i) image.data()[i] = {200, 200, 200, 255};  // light: the line darkens it
  const Texture texture = texture_of(image);
  ImageDrawParams params = picture_params(texture.id(), image.width(), image.height());
  params.sampling = Sampling::Auto;
  params.view = ViewTransform{kPixelGridZoom, {4.0, 3.0}};  // the picture's pixel edges on screen-pixel edges
  const ImageRgba8 grid = draw(params);
  const int step = static_cast<int>(kPixelGridZoom);
  const Vec2 origin = image_to_screen(params.view, {0, 0}, kViewWidth, kViewHeight);
  const int x0 = static_cast<int>(origin.x), y0 = static_cast<int>(origin.y);
  int lines = 0, cells = 0, wrong = 0;
  for (int y = y0; y < y0 + image.height() * step; ++y)
    for (int x = x0; x < x0 + image.width() * step; ++x) {
      const bool on_line = (x - x0) % step == 0 || (y - y0) % step == 0;
      const Rgba8 p = grid.at(x, y);
      if (on_line) {
        ++lines;
        if (!(p.r < 160)) ++wrong;  // darkened (200 -> 130)
      } else {
        ++cells;
        if (!(p == Rgba8{200, 200, 200, 255})) ++wrong;
      }
    }
  EXPECT_GT(lines, 500);
  EXPECT_GT(cells, 2000);
  EXPECT_EQ(wrong, 0);
  // Just below the grid's zoom, and with the grid switched off: no line.
  for (const auto& [zoom, on] : {std::pair<double, bool>{kPixelGridZoom / std::sqrt(2.0), true}, {kPixelGridZoom, false}}) {
    params.view = ViewTransform{zoom, {4.0, 3.0}};
    params.pixel_grid = on;
    const ImageRgba8 plain = draw(params);
    EXPECT_EQ(count_where(kViewWidth, kViewHeight,
                          [&](int x, int y) { return plain.at(x, y).r < 160 && plain.at(x, y).r > 40; }),  // not the background (33)
              0)
        << "zoom " << zoom << " grid " << on;
  }
}

TEST_F(GlRender, DifferenceViewAgreesWithDifferenceColour) {
  // The shader's difference colours against difference_colour() (the C++ that the legend and the
  // saved difference image use), read back pixel by pixel: absolute and signed, grey and false
  // colour, at several gains.
  const ImageRgba8 a = make_random_rgba8(40, 30, 1);
  ImageRgba8 b = a;
  // Small differences (what a method's error looks like) and a few large ones (clamped by the gain).
  for (std::size_t i = 0; i < b.pixel_count(); ++i) {
    Rgba8& p = b.data()[i];
    p.r = static_cast<std::uint8_t>(std::min(255, p.r + static_cast<int>(i % 5)));
    p.g = static_cast<std::uint8_t>(std::max(0, p.g - static_cast<int>(i % 3)));
    if (i % 17 == 0) p.b = static_cast<std::uint8_t>(255 - p.b);
  }
  EXPECT_GT(differing_pixels(a, b), 100);  // enough differences to see the colours of
  const Texture texture_a = texture_of(a), texture_b = texture_of(b);
  for (bool signed_values : {false, true})
    for (bool false_colour : {false, true})
      for (double gain : {1.0, 8.0, 37.5}) {
        SCOPED_TRACE(std::string(signed_values ? "signed" : "absolute") + (false_colour ? ", false colour" : ", grey") +
                     ", gain " + std::to_string(gain));
        ImageDrawParams params = picture_params(texture_a.id(), a.width(), a.height());
        params.texture_b = texture_b.id();
        params.mode = CompareMode::Difference;
        params.gain = gain;
        params.signed_difference = signed_values;
        params.false_colour = false_colour;
        const DifferenceStyle style{gain, signed_values, false_colour};
        // GL's float arithmetic and float-to-8-bit conversion may round the other way at halves.
        EXPECT_LE(worst_channel_difference(draw_one_to_one(params),
                                           [&](int x, int y) { return difference_colour(a.at(x, y), b.at(x, y), style); }),
                  1);
      }
}

TEST_F(GlRender, UnroundedDifferenceViewAgreesWithDifferenceColour) {
  // The difference view of a float texture of A - B (issue 35: what the numbers' unrounded values
  // give, comparison/unrounded_view.hpp): differences of at most 0.01 levels, which the 8-bit
  // results cannot hold, drawn at a gain that puts 0.01 at half the scale, against
  // difference_colour(levels) pixel by pixel; blink's swap draws the negation.
  const int width = 40, height = 30;
  auto levels = std::make_shared<std::vector<float>>(static_cast<std::size_t>(width) * height * 4);
  std::uint32_t state = 12345;
  for (float& v : *levels) {
    state = state * 1664525u + 1013904223u;
    v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.02f;  // in [-0.01, 0.01)
  }
  FloatTexture texture;
  texture.start(levels, width, height);
  ASSERT_TRUE(texture.upload_next());  // 19 KiB: one band
  const Texture eight_bit = texture_of(make_random_rgba8(width, height, 2));
  for (bool swapped : {false, true})
    for (bool signed_values : {false, true})
      for (bool false_colour : {false, true}) {
        SCOPED_TRACE(std::string(swapped ? "swapped, " : "") + (signed_values ? "signed" : "absolute") +
                     (false_colour ? ", false colour" : ", grey"));
        ImageDrawParams params = picture_params(eight_bit.id(), width, height);
        params.texture_b = eight_bit.id();  // no difference in 8 bits
        params.difference_texture = texture.id();
        params.difference_swapped = swapped;
        params.mode = CompareMode::Difference;
        params.gain = 0.5 * 255 / 0.01;
        params.signed_difference = signed_values;
        params.false_colour = false_colour;
        const Drawn drawn = draw_one_to_one(params);
        const DifferenceStyle style{params.gain, signed_values, false_colour};
        const double sign = swapped ? -1 : 1;
        EXPECT_LE(worst_channel_difference(drawn,
                                           [&](int x, int y) {
                                             const float* d = levels->data() + (static_cast<std::size_t>(y) * width + x) * 4;
                                             return difference_colour({sign * d[0], sign * d[1], sign * d[2]}, style);
                                           }),
                  1);
        const int lit = count_where(width, height, [&](int x, int y) {
          const Rgba8 shown = drawn.at(x, y);
          return std::max({shown.r, shown.g, shown.b}) >= 64;
        });
        EXPECT_GT(lit, width * height / 4);  // the sub-level differences are seen
      }
}

TEST_F(GlRender, DisplayTransformAgreesWithDisplayedColour) {
  // Issue 35: a float picture (a PFM with values from -0.6 to 2.6, beyond the screen's [0, 1], and
  // some NaN and infinite samples), read as the viewer reads it (picture_levels: 8-bit levels) into
  // a float slot texture, drawn in the A and B views with each piece of the display transform and
  // with all of them together; every pixel read back against displayed_colour(), the shader's C++.
  const int width = 37, height = 23;  // odd sizes
  HostImage pfm(width, height, PixelFormat::Rgb32F);
  std::uint32_t state = 99;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * 3; ++x) {
      state = state * 1664525u + 1013904223u;
      pfm.row<float>(y)[x] = -0.6f + 3.2f * static_cast<float>(state >> 8) / 16777216.0f;
    }
  const std::vector<unsigned char> bytes = encode_image(pfm.view(), ImageFormat::Pfm);
  const std::shared_ptr<const PictureLevels> levels = picture_levels(load_image_from_memory(bytes.data(), bytes.size(), "test.pfm"));
  ASSERT_TRUE(levels);
  auto rgba = std::make_shared<std::vector<float>>(static_cast<std::size_t>(width) * height * 4);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 4; ++c)
        (*rgba)[(static_cast<std::size_t>(y) * width + x) * 4 + c] = c == 3 ? 0.25f * 255.0f * (x % 5) : levels->sample(x, y, c);
  // A few samples a float file can hold beyond any range: NaN (drawn black) and infinities.
  const float specials[3] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()};
  for (int i = 0; i < 30; ++i) (*rgba)[static_cast<std::size_t>(i) * 97 % rgba->size()] = specials[i % 3];
  FloatTexture texture;
  texture.start(rgba, width, height);
  ASSERT_TRUE(texture.upload_next());
  const Texture eight_bit = texture_of(make_random_rgba8(width, height, 5));
  // The shown values' min/max and percentiles, as the viewer works them out (display units).
  const auto range_of = [&](RangeMode mode, double low, double high) {
    return value_range(
               [&](const std::function<void(const float*, std::size_t)>& visit) {
                 for (std::size_t i = 0; i < rgba->size(); i += 4) {
                   const float v[3] = {(*rgba)[i] / 255.0f, (*rgba)[i + 1] / 255.0f, (*rgba)[i + 2] / 255.0f};
                   visit(v, 3);
                 }
               },
               mode, low, high)
        .range;
  };
  struct Case {
    const char* name;
    DisplayTransform transform;
    DisplayRange range;
  };
  std::vector<Case> cases;
  const auto add = [&cases](const char* name, DisplayTransform t, DisplayRange r = {}) { cases.push_back({name, t, r}); };
  DisplayTransform t;
  add("as stored", t);
  t = {};
  t.exposure_stops = -1.5;
  add("exposure -1.5", t);
  t = {};
  t.offset = 0.3;
  add("offset +0.3", t);
  t.exposure_stops = 1;
  add("exposure +1 then offset +0.3", t);
  for (int c = 1; c < static_cast<int>(ChannelView::Count); ++c) {
    t = {};
    t.channel = static_cast<ChannelView>(c);
    t.exposure_stops = -1;
    add(to_string(t.channel), t);
  }
  t = {};
  t.transfer = Transfer::Srgb;
  add("srgb", t);
  t.transfer = Transfer::Gamma;
  t.gamma = 2.2;
  add("gamma 2.2", t);
  t.gamma = 0.45;
  add("gamma 0.45", t);
  t = {};
  t.range = RangeMode::MinMax;
  add("range min-max", t, range_of(RangeMode::MinMax, 0, 100));
  t.range = RangeMode::Percentiles;
  t.low_percentile = 5;
  t.high_percentile = 95;
  add("range 5-95 %", t, range_of(RangeMode::Percentiles, 5, 95));
  t = {};
  t.channel = ChannelView::Luminance;
  t.colour_map = true;
  t.range = RangeMode::MinMax;
  add("luminance through the colour map", t, range_of(RangeMode::MinMax, 0, 100));
  t.channel = ChannelView::Rgb;
  add("rgb: the colour map is for one channel only", t, range_of(RangeMode::MinMax, 0, 100));
  t = {};
  t.channel = ChannelView::G;
  t.colour_map = true;
  t.exposure_stops = 0.5;
  t.offset = -0.1;
  t.transfer = Transfer::Srgb;
  t.range = RangeMode::Percentiles;
  t.low_percentile = 0.1;
  t.high_percentile = 99.9;
  add("everything at once", t, range_of(RangeMode::Percentiles, 0.1, 99.9));
  for (const Case& c : cases)
    for (CompareMode mode : {CompareMode::A, CompareMode::B}) {
      SCOPED_TRACE(std::string(c.name) + ", view " + to_string(mode));
      ImageDrawParams params = picture_params(eight_bit.id(), width, height);
      params.texture_b = eight_bit.id();
      params.float_a = params.float_b = texture.id();
      params.mode = mode;
      params.display = c.transform;
      params.display_range = c.range;
      const Drawn drawn = draw_one_to_one(params);
      const int worst = worst_channel_difference(drawn, [&](int x, int y) {
        const float* v = rgba->data() + (static_cast<std::size_t>(y) * width + x) * 4;
        return displayed_colour({v[0] / 255.0, v[1] / 255.0, v[2] / 255.0, v[3] / 255.0}, c.transform, c.range);
      });
      EXPECT_LE(worst, 1);  // GL's float arithmetic may round the other way at halves
      const int distinct = count_where(width, height, [&](int x, int y) { return !(drawn.at(x, y) == drawn.at(0, 0)); });
      EXPECT_GT(distinct, width * height / 2);  // not a flat picture that any transform would match
    }
}

TEST_F(GlRender, APooledResultIsShownWhereTheBlurredOneWas) {
  // A 2x2-pooled texture of a 41 x 31 picture (20 x 15 texels) drawn at 1:1: each texel covers the
  // 2 x 2 picture pixels it was pooled from; the dropped last column and row show the background.
  const ImageRgba8 picture = make_random_rgba8(41, 31, 4);
  const ImageRgba8 pooled = pool_2x2(picture, PoolMode::Max2x2);
  const Texture texture = texture_of(pooled);
  ImageDrawParams params = picture_params(texture.id(), picture.width(), picture.height());
  params.texture_b = texture.id();
  params.mode = CompareMode::A;
  params.pooled_a = true;
  const Drawn drawn = draw_one_to_one(params);
  EXPECT_EQ(count_where(40, 30, [&](int x, int y) { return !(drawn.at(x, y) == opaque(pooled.at(x / 2, y / 2))); }), 0);
  const Rgba8 background = drawn.view.at(0, 0);  // outside the picture
  EXPECT_EQ(drawn.at(40, 5), background);  // the column pooling drops
  EXPECT_EQ(drawn.at(5, 30), background);  // and the row
}

TEST_F(GlRender, SplitShowsALeftBRightAndTheDivider) {
  const ImageRgba8 a(kViewWidth, kViewHeight, Rgba8{200, 10, 10, 255});
  const ImageRgba8 b(kViewWidth, kViewHeight, Rgba8{10, 10, 200, 255});
  const Texture texture_a = texture_of(a), texture_b = texture_of(b);
  ImageDrawParams params;
  params.texture_a = texture_a.id();
  params.texture_b = texture_b.id();
  params.image_width = kViewWidth;
  params.image_height = kViewHeight;
  params.view = one_to_one_view(kViewWidth, kViewHeight, kViewWidth, kViewHeight);
  params.mode = CompareMode::Split;
  params.split_x = 30;
  const ImageRgba8 view = draw(params);
  EXPECT_EQ(view.at(10, 40), (Rgba8{200, 10, 10, 255}));
  EXPECT_EQ(view.at(60, 40), (Rgba8{10, 10, 200, 255}));
  const Rgba8 divider = view.at(30, 40);
  EXPECT_FALSE(divider == view.at(10, 40));
  EXPECT_FALSE(divider == view.at(60, 40));
  params.mode = CompareMode::B;
  EXPECT_EQ(draw(params).at(10, 40), (Rgba8{10, 10, 200, 255}));
}

TEST_F(GlRender, TextureTakesPitchedViewsAndReadsBack) {
  const ImageRgba8 image = make_random_rgba8(13, 9, 3);
  // The same pixels with 3 spare pixels at the end of every row.
  std::vector<Rgba8> pitched(static_cast<std::size_t>(16) * 9);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 13; ++x) pitched[static_cast<std::size_t>(y) * 16 + x] = image.at(x, y);
  Texture texture;
  texture.resize(13, 9);
  texture.upload(ConstImageView(pitched.data(), 13, 9, 16 * sizeof(Rgba8), PixelFormat::Rgba8));
  EXPECT_EQ(texture.read().pixels(), image.pixels());
  EXPECT_THROW(texture.upload(ImageRgba8(12, 9).view()), std::invalid_argument);
}

// A host result in bands (banded_upload.hpp): the texture keeps its old pixels until the last band
// is in, then holds the new image exactly; a new start replaces an unfinished upload; other GL
// work between the bands changes nothing.
TEST_F(GlRender, BandedUploadShowsTheImageOnlyWhenTheLastBandIsIn) {
  const ImageRgba8 old_pixels = make_random_rgba8(37, 29, 5);
  Texture texture;
  texture.resize(37, 29);
  texture.upload(old_pixels.view());
  const auto image = std::make_shared<const ImageRgba8>(make_random_rgba8(37, 29, 6));
  const std::size_t three_rows = 3 * 37 * sizeof(Rgba8);
  BandedUpload upload;
  upload.start(std::make_shared<const ImageRgba8>(make_random_rgba8(37, 29, 7)));  // replaced before it is in
  EXPECT_FALSE(upload.step(texture, three_rows));
  upload.start(image);
  int steps = 0;
  while (!upload.step(texture, three_rows)) {
    ++steps;
    ASSERT_TRUE(upload.pending());
    EXPECT_EQ(texture.read().pixels(), old_pixels.pixels()) << "after band " << steps;
    Texture other;  // unrelated GL work between frames
    other.resize(5, 5);
    other.upload(ImageRgba8(5, 5).view());
  }
  EXPECT_EQ(steps, 9);  // 29 rows in bands of 3: 10 steps, the last one finishes
  EXPECT_FALSE(upload.pending());
  EXPECT_EQ(texture.read().pixels(), image->pixels());
  // A band smaller than a row still moves a row per step; a texture of another size is resized.
  Texture small;
  small.resize(4, 4);
  upload.start(image);
  steps = 1;
  while (!upload.step(small, 1)) ++steps;
  EXPECT_EQ(steps, 29);
  EXPECT_EQ(small.width(), 37);
  EXPECT_EQ(small.read().pixels(), image->pixels());
}

// The interop path's texture ring with the host as the writer (a GL upload where CUDA would copy):
// each frame's pixels must be in the shown texture, for every ring size, with other GL work between
// frames, and a width that is not a multiple of 4 pixels; a new size makes the textures anew.
TEST_F(GlRender, TextureRingShowsEveryFrame) {
  const int width = 37, height = 23;
  const Texture other = texture_of(make_random_rgba8(width, height, 99));
  for (int count : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(count) + " textures");
    TextureRing ring(count);
    EXPECT_TRUE(ring.allocate(width, height));
    EXPECT_FALSE(ring.allocate(width, height));  // the same size: the same textures
    const unsigned first_id = ring.texture(0).id();
    int own_maps = 0;
    ImageRgba8 expected;
    for (int frame = 0; frame < 7; ++frame) {
      expected = make_random_rgba8(width, height, 100 + static_cast<unsigned>(frame));
      const int write = ring.write_index();
      if (ring.state(write) != TextureRing::State::Mapped) {
        ring.mark_mapped(write);
        ++own_maps;
      }
      ring.texture(write).upload(expected.view());
      ring.mark_unmapped(write, true);
      ring.show();
      for (int ahead : ring.ahead_indices()) ring.mark_mapped(ahead);
      ASSERT_EQ(one_to_one_mismatches(other, make_random_rgba8(width, height, 99)), 0);  // GL work between
      ASSERT_EQ(ring.texture(ring.shown_index()).read().pixels(), expected.pixels()) << "frame " << frame;
    }
    EXPECT_EQ(one_to_one_mismatches(ring.texture(ring.shown_index()), expected), 0);
    EXPECT_EQ(own_maps, count == 1 ? 7 : 1);
    EXPECT_EQ(ring.texture(0).id(), first_id);  // registered once: the textures stay while the size does
    // A new size: the mapped texture is handed back first; allocate refuses otherwise.
    EXPECT_EQ(ring.mapped().size(), static_cast<std::size_t>(count - 1));
    if (count > 1) {
      EXPECT_THROW(ring.allocate(width + 1, height), std::logic_error);
    }
    for (int index : ring.mapped()) ring.mark_unmapped(index, false);
    EXPECT_TRUE(ring.allocate(width + 1, height));
    EXPECT_EQ(ring.texture(count - 1).width(), width + 1);
    EXPECT_EQ(ring.write_index(), 0);
    EXPECT_EQ(ring.shown_index(), -1);
  }
}

TEST_F(GlRender, CpuPathShowsExactlyTheCpuFilterResult) {
  // Without a CUDA device every path request ends on the cpu path; with one, force it.
  ResultPipeline pipeline(cuda_device_status().available ? OutputPath::Cpu : OutputPath::Interop);
  ASSERT_EQ(pipeline.path(), OutputPath::Cpu);
  EXPECT_FALSE(pipeline.path_reason().empty());
  const ImageRgba8 source = make_random_rgba8(37, 29, 21);
  pipeline.set_source(source);
  EXPECT_FALSE(pipeline.has_result(0));

  FilterParams params;
  params.sigma = 1.7;
  params.border = BorderMode::Mirror;
  std::unique_ptr<Method> method = find_method("cpu_openmp")->create();
  method->prepare(FilterProblem{source.width(), source.height(), PixelFormat::Rgba8, params});
  StageTimer timer;
  GlTimer gl_timer;
  timer.begin_frame();
  gl_timer.begin_frame();
  pipeline.process({ResultPipeline::Job{method.get(), &timer}, ResultPipeline::Job{}}, &gl_timer);
  gl_timer.end_frame();
  timer.end_frame();
  ASSERT_TRUE(pipeline.has_result(0));
  EXPECT_FALSE(pipeline.has_result(1));

  ImageRgba8 expected(source.width(), source.height());
  cpu_gaussian_filter(source.view(), expected.view(), params, CpuThreading::OpenMP);
  EXPECT_EQ(pipeline.read_result(0).pixels(), expected.pixels());

  // A result made elsewhere (a CPU method on a worker, the exact Gaussian) shows the same way,
  // and one of another size is refused.
  // (This image is smaller than a band: it is in at once.)
  pipeline.show_host_result(1, std::make_shared<const ImageRgba8>(expected), nullptr);
  ASSERT_FALSE(pipeline.host_upload_pending(1));
  ASSERT_TRUE(pipeline.has_result(1));
  EXPECT_EQ(pipeline.read_result(1).pixels(), expected.pixels());
  EXPECT_THROW(pipeline.show_host_result(1, std::make_shared<const ImageRgba8>(3, 3), nullptr), std::invalid_argument);

  // The stages: the method's on the host clock, the upload from a GL timer query.
  gl_timer.flush();
  timer.flush();
  const std::vector<StageTiming> gl_stages = gl_timer.stages();
  ASSERT_EQ(gl_stages.size(), 1u);
  EXPECT_EQ(gl_stages[0].name, "upload");
  EXPECT_GE(gl_stages[0].median_ms, 0.0);
  ASSERT_EQ(timer.stages().size(), 1u);
  EXPECT_EQ(timer.stages()[0].name, "filter (cpu)");

}

TEST_F(GlRender, GpuMethodsAreRefusedOnTheCpuPath) {
  ResultPipeline pipeline(OutputPath::Cpu);
  pipeline.set_source(make_random_rgba8(8, 8, 1));
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda) continue;
    std::unique_ptr<Method> method = entry.create();
    EXPECT_THROW(pipeline.process({ResultPipeline::Job{method.get(), nullptr}, ResultPipeline::Job{}}, nullptr),
                 std::logic_error)
        << entry.info.id;
  }
}

TEST_F(GlRender, FramePacerWaitsOnlyForOldFrames) {
  // With two frames in flight, a frame waits for the one two before it: the previous frame stays
  // queued while the next one starts (a pacer that waited for every frame would leave none).
  FramePacer pacer(2);
  EXPECT_EQ(pacer.queued_frames(), 0);
  for (int i = 0; i < 5; ++i) {
    pacer.wait_for_slot();
    EXPECT_EQ(pacer.queued_frames(), std::min(i, 1)) << "frame " << i << " waited for the frame just before it";
    surface_->bind_framebuffer();
    pacer.frame_submitted();
    EXPECT_EQ(pacer.queued_frames(), std::min(i + 1, 2)) << "after submitting frame " << i;
  }
  pacer.drain();
  EXPECT_EQ(pacer.queued_frames(), 0);
}

}  // namespace
}  // namespace gausslab
