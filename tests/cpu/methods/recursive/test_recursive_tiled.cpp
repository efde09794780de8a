// recursive_tiled on the CPU: its five kernels' per-thread code (recursive_tiled_common.cuh) run
// thread by thread and block by block, each tile's shared memory checked (a slot read before it was
// written, or written by two threads in one phase, throws). The result must equal recursive's own
// model (the same filter, double states, another schedule) to float rounding, for all five borders,
// sizes from 1×1 to several tiles, and sigmas from 0.5 to 200; and it meets the accuracy bound against
// the float64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "recursive_coefficients.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "methods/recursive/recursive_host_model.hpp"
#include "recursive_tiled_common.cuh"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using namespace recursive_tiled;

GAUSSLAB_METHOD_TESTS("recursive_tiled", RecursiveTiledModel);

using test::ModelError;

// One tile's shared floats: a slot may be written once per phase by one thread, and read only
// after a write (by any thread in a later phase, or by the writer itself).
class TileMemory {
 public:
  TileMemory() : values_(kTile * kPitch), writer_(values_.size(), kNone), ever_(values_.size(), false) {}
  void begin_phase() { std::fill(writer_.begin(), writer_.end(), kNone); }
  struct Access {
    TileMemory* m;
    int thread;
    float operator[](int i) const { return m->read(i, thread); }
    void store(int i, float v) const { m->write(i, v, thread); }
  };
  Access as(int thread) { return {this, thread}; }

 private:
  static constexpr int kNone = -1;
  float read(int i, int thread) const {
    check(i);
    if (!written_ever(i)) throw ModelError("tile slot " + std::to_string(i) + " read but never written");
    if (writer_[static_cast<std::size_t>(i)] != kNone && writer_[static_cast<std::size_t>(i)] != thread)
      throw ModelError("tile slot " + std::to_string(i) + " read while another thread writes it");
    return values_[static_cast<std::size_t>(i)];
  }
  void write(int i, float v, int thread) {
    check(i);
    const int w = writer_[static_cast<std::size_t>(i)];
    if (w != kNone && w != thread) throw ModelError("tile slot " + std::to_string(i) + " written by two threads");
    writer_[static_cast<std::size_t>(i)] = thread;
    values_[static_cast<std::size_t>(i)] = v;
    ever_[static_cast<std::size_t>(i)] = true;
  }
  bool written_ever(int i) const { return ever_[static_cast<std::size_t>(i)]; }
  void check(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= values_.size()) throw ModelError("tile slot outside the tile");
  }
  std::vector<float> values_;
  std::vector<int> writer_;
  std::vector<bool> ever_;
};

struct HostImage {
  std::vector<float>* pixels;
  int width;
  float load(int x, int y) const { return (*pixels)[static_cast<std::size_t>(y) * width + x]; }
  void store(int x, int y, float v) const { (*pixels)[static_cast<std::size_t>(y) * width + x] = v; }
};

// The five steps of recursive_tiled.cu on the CPU.
ImageF32 model(const ImageF32& src, double sigma, BorderMode border) {
  const int w = src.width(), h = src.height();
  const recursive::DericheGaussian g = recursive::deriche_gaussian(sigma);
  const PassPlan columns = recursive::plan_pass(g, w, h, border, kTile);
  const PassPlan rows = recursive::plan_pass(g, h, w, border, kTile);
  std::vector<Complex<float>> vc(static_cast<std::size_t>(state_count(columns))), va(vc.size());
  std::vector<Complex<float>> hc(static_cast<std::size_t>(state_count(rows))), ha(hc.size());
  const StateArrays column_states{vc.data(), va.data()}, row_states{hc.data(), ha.data()};
  std::vector<float> in(src.pixels()), y(static_cast<std::size_t>(w) * h, NAN), out(y.size(), NAN);
  const HostImage x_image{&in, w}, y_image{&y, w}, out_image{&out, w};

  for (int s = 0; s < columns.segments; ++s)
    for (int c = 0; c < w; ++c) segment_zero_states(columns, c, s, [&](int n) { return x_image.load(c, n); }, column_states);
  for (int c = 0; c < w; ++c)
    for (int j = 0; j < kPoles; ++j) carry_line(columns, c, j, x_image.load(c, 0), x_image.load(c, h - 1), column_states);
  for (long long b = 0; b < tile_count(w, h); ++b) {
    const TileGeometry t = tile_geometry(w, h, static_cast<int>(b));
    TileMemory tile;
    tile.begin_phase();
    for (int th = 0; th < kTile; ++th) tile_load(t, th, x_image, tile.as(th));
    tile.begin_phase();
    for (int th = 0; th < t.w; ++th)
      filter_tile_line<true>(columns, t.x0 + th, t.y0 / kTile, t.h, th, tile.as(th), column_states);
    tile.begin_phase();
    for (int th = 0; th < kTile; ++th) tile_row_zero_states(rows, t, th, tile.as(th), row_states);
    for (int th = 0; th < kTile; ++th) tile_store(t, th, tile.as(th), y_image);
  }
  for (int r = 0; r < h; ++r)
    for (int j = 0; j < kPoles; ++j) carry_line(rows, r, j, y_image.load(0, r), y_image.load(w - 1, r), row_states);
  for (long long b = 0; b < tile_count(w, h); ++b) {
    const TileGeometry t = tile_geometry(w, h, static_cast<int>(b));
    TileMemory tile;
    tile.begin_phase();
    for (int th = 0; th < kTile; ++th) tile_load(t, th, y_image, tile.as(th));
    tile.begin_phase();
    for (int th = 0; th < t.h; ++th) filter_tile_line<false>(rows, t.y0 + th, t.x0 / kTile, t.w, th, tile.as(th), row_states);
    tile.begin_phase();
    for (int th = 0; th < kTile; ++th) tile_store(t, th, tile.as(th), out_image);
  }
  ImageF32 result(w, h);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(out[i])) throw ModelError("pixel " + std::to_string(i) + " never written");
    result.data()[i] = out[i];
  }
  return result;
}

ImageF32 recursive_model(const ImageF32& src, double sigma, BorderMode border) {
  FilterParams params;
  params.sigma = sigma;
  params.border = border;
  ImageF32 dst(src.width(), src.height());
  recursive::filter_on_host<double>(src, dst, params);
  return dst;
}

double max_abs_difference(const ImageF32& a, const ImageF32& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.pixel_count(); ++i) worst = std::max(worst, std::fabs(double(a.data()[i]) - b.data()[i]));
  return worst;
}

TEST(RecursiveTiledModel, EqualsRecursiveForEverySizeBorderAndSigma) {
  struct Case {
    int w, h;
    double sigma;
  };
  const Case cases[] = {{1, 1, 3.0}, {1, 70, 0.5}, {70, 1, 4.0}, {64, 64, 4.0}, {65, 63, 2.0},
                        {130, 129, 4.0}, {200, 70, 25.0}, {33, 150, 200.0},
                        {1100, 9, 3.0}, {5, 1090, 50.0}};  // 18 segments: more than one carry batch
  for (const Case& c : cases)
    for (BorderMode border : kAllBorderModes) {
      SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " sigma " + std::to_string(c.sigma) + " " +
                   to_string(border));
      const ImageF32 src = make_random_f32(c.w, c.h, 5);
      const ImageF32 mine = model(src, c.sigma, border);
      const ImageF32 theirs = recursive_model(src, c.sigma, border);
      EXPECT_LE(max_abs_difference(mine, theirs), 2e-5);  // float against double states (values in [0, 1))
    }
}

TEST(RecursiveTiledModel, ConstantImagesStayConstant) {
  for (BorderMode border : {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap}) {
    const ImageF32 flat(150, 90, 0.7f);
    const ImageF32 got = model(flat, 30.0, border);
    for (float v : got.pixels()) ASSERT_NEAR(v, 0.7f, 2e-5f) << to_string(border);
  }
}

// The must-show case's accuracy: sigma 4, reflect, against the float64 reference (truncate 4).
TEST(RecursiveTiledModel, MeetsTheBoundAgainstTheReference) {
  const ImageF32 noise = make_random_f32(150, 131, 9);
  ImageF32 impulse(101, 77, 0.0f);
  impulse.at(50, 40) = 1.0f;
  for (double sigma : {1.0, 4.0, 16.0})
    for (BorderMode border : kAllBorderModes) {
      FilterParams params;
      params.sigma = sigma;
      params.border = border;
      for (const ImageF32* img : std::initializer_list<const ImageF32*>{&noise, &impulse}) {
        const ImageF32 got = model(*img, sigma, border);
        const AccuracyStats stats = compare_with_reference(got.view(), reference_gaussian(img->view(), params), 1);
        EXPECT_LE(stats.max_relative_error, img == &noise ? 1e-3 : 2e-3) << "sigma " << sigma << " " << to_string(border);
      }
    }
}

TEST(RecursiveTiledModel, EveryOtherFloatFormatThroughFloatPlanesMeetsTheBound) {
  const auto f32 = [](const ImageF32& src, const FilterParams& params) {
    return model(src, params.sigma, params.border);
  };
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound("recursive_tiled", {0.6, 2.5}, f32), 7);
}

}  // namespace
}  // namespace gausslab
