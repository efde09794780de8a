// multires on the CPU: the plan's maths, the proven error bound, and the kernels' per-thread code
// (multires_common.cuh) run block by block and thread by thread, phase by phase between the
// kernels' __syncthreads(), with checked memory:
//   - shared arrays remember which slots their fill phase wrote: a slot written twice (a race), read
//     before it was written, read during its fill or written during reads, or outside the array,
//     throws;
//   - every output of every stage (C, R, B, the image) is written exactly once, inside its array.
// The model's result is compared with the same pipeline written as plain float64 loops (the
// indexing) and with the float64 reference (the accuracy bound), for both formats, all five
// borders, both reduce paths (the fused 2D tile and row + column), sizes from 1×1 to several tiles.
//
// MultiresAccuracy.DISABLED_Table prints the accuracy table quoted in docs/methods/multires.md:
//   gausslab_cpu_method_tests --gtest_also_run_disabled_tests --gtest_filter='MultiresAccuracy.DISABLED_Table'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "multires_common.cuh"
#include "multires_plan.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "kit/model_images.hpp"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using namespace multires;

GAUSSLAB_METHOD_TESTS("multires", MultiresModel);

using test::CheckedShared;
using test::ModelError;

// A global array written exactly once per element.
template <class T>
class WriteOnce {
 public:
  WriteOnce(int width, int height, const char* name)
      : width_(width), height_(height), values_(static_cast<std::size_t>(width) * height), written_(values_.size()), name_(name) {}
  void store(int x, int y, T value) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_)
      throw ModelError(name_ + ": store at (" + std::to_string(x) + ", " + std::to_string(y) + ") outside " +
                       std::to_string(width_) + "×" + std::to_string(height_));
    const std::size_t i = static_cast<std::size_t>(y) * width_ + x;
    if (written_[i]) throw ModelError(name_ + ": (" + std::to_string(x) + ", " + std::to_string(y) + ") written twice");
    written_[i] = true;
    values_[i] = value;
  }
  T at(int x, int y) const {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) throw ModelError(name_ + ": read outside the array");
    const std::size_t i = static_cast<std::size_t>(y) * width_ + x;
    if (!written_[i]) throw ModelError(name_ + ": (" + std::to_string(x) + ", " + std::to_string(y) + ") read but never written");
    return values_[i];
  }
  void expect_complete() const {
    for (std::size_t i = 0; i < written_.size(); ++i)
      if (!written_[i]) throw ModelError(name_ + ": element " + std::to_string(i) + " never written");
  }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_, height_;
  std::vector<T> values_;
  std::vector<bool> written_;
  std::string name_;
};

// ---- the model --------------------------------------------------------------------------------------

// Host-side view of a source image for the fills: (row, col) with -1 = zero.
template <class In>
struct SourceArray {
  const std::vector<In>* pixels;
  int width, height;
  In at(int row, int col) const {
    if (row < 0 || col < 0) return zero_value<In>();
    if (row >= height || col >= width) throw ModelError("source read outside the image");
    return (*pixels)[static_cast<std::size_t>(row) * width + col];
  }
};

// The reduce kernels' fill step on the CPU: the tile's raw samples and the weights into checked
// shared memory (each slot stored once before any read).
template <class In>
struct CheckedFill {
  const SourceArray<In>* src;
  typename CheckedShared<In>::Access raw;
  typename CheckedShared<float>::Access w;
  const std::vector<float>* weights;
  void copy(int slot, int row, int col) const { raw.store(slot, src->at(row, col)); }
  void copy_inside(int slot, int row, int col) const {
    if (row < 0 || col < 0 || row >= src->height || col >= src->width) throw ModelError("copy_inside outside the source");
    copy(slot, row, col);
  }
  void copy_weight(int t) const { w.store(t, (*weights)[static_cast<std::size_t>(t)]); }
};

template <PixelFormat F>
struct ModelRun {
  using Fine = typename Types<F>::Fine;
  using Coarse = typename Types<F>::Coarse;
  using Accum = typename Types<F>::Accum;
  static constexpr double kScale = F == PixelFormat::Rgba8 ? kCoarseScaleRgba8 : 1.0;

  Plan plan;
  std::vector<float> prefilter, blur, expand;  // as multires.cu uploads them
  std::vector<Fine> result;

  static std::vector<float> to_float(const std::vector<double>& w, double scale) {
    std::vector<float> out;
    for (double v : w) out.push_back(static_cast<float>(v * scale));
    return out;
  }

  template <class In, class Out>
  static void run_reduce(const ReduceStage& s, const SourceArray<In>& src, const std::vector<float>& weights, Out& out) {
    using P = ReduceKernelPolicy;
    const ReduceLayout l = reduce_layout<In, Accum>(s);
    for (long long block = 0; block < reduce_block_count(s); ++block) {
      CheckedShared<float> w(static_cast<std::size_t>(s.taps), "weights");
      CheckedShared<Accum> h(static_cast<std::size_t>(l.fine_h * l.h_pitch), "h");
      CheckedShared<In> raw(static_cast<std::size_t>(l.fine_h * l.raw_pitch), "raw");
      const TileOrigin tile = reduce_tile(s, static_cast<int>(block));
      w.begin_fill();
      raw.begin_fill();
      for (int t = 0; t < P::kThreads; ++t)
        reduce_fill<P>(s, l, tile, t, CheckedFill<In>{&src, raw.access(), w.access(), &weights});
      w.begin_read();
      raw.begin_read();
      h.begin_fill();
      for (int t = 0; t < P::kThreads; ++t) reduce_row_pass<P>(s, l, t, raw.access(), w.access(), h.access());
      h.begin_read();
      struct Store {
        Out* out;
        void store(int x, int y, Accum v) const { out->store(x, y, multires::Store<typename Out::Value>::from(v)); }
      };
      for (int t = 0; t < P::kThreads; ++t) reduce_column_pass<P>(s, l, tile, t, h.access(), w.access(), Store{&out});
    }
  }

  ModelRun(const std::vector<Fine>& src, int width, int height, double sigma, BorderMode border, bool fused) {
    plan = make_plan(sigma, width, height, sigma_per_step_for(F));
    prefilter = to_float(prefilter_by_phase(plan), 1.0);
    blur = to_float(plan.blur, 1.0);
    expand = expand_kernel_weights(plan, kScale);
    const int taps1 = static_cast<int>(plan.prefilter.size());

    // C
    Array<Coarse> c(plan.x.c_count, plan.y.c_count, "C");
    const SourceArray<Fine> fine{&src, width, height};
    if (fused) {
      ReduceStage s;
      s.d = plan.d;
      s.taps = taps1;
      s.origin_x = plan.x.fine_origin;
      s.origin_y = plan.y.fine_origin;
      s.out_w = plan.x.c_count;
      s.out_h = plan.y.c_count;
      s.src_w = width;
      s.src_h = height;
      s.border = border;
      s.tile_w = s.tile_h = reduce_tile_side(plan.d, sizeof(Fine) == 16);
      s.out_scale = static_cast<float>(kScale);
      run_reduce(s, fine, prefilter, c);
    } else {
      Array<Coarse> r(plan.x.c_count, height, "R");
      run_row_reduce(plan, taps1, fine, border, r);
      run_column_reduce(plan, taps1, r, border, c);
    }
    c.expect_complete();

    // B
    Array<Coarse> b(plan.x.b_count, plan.y.b_count, "B");
    {
      ReduceStage s;
      s.d = 1;
      s.taps = static_cast<int>(plan.blur.size());
      s.out_w = plan.x.b_count;
      s.out_h = plan.y.b_count;
      s.src_w = plan.x.c_count;
      s.src_h = plan.y.c_count;
      s.border = BorderMode::Nearest;
      s.tile_w = s.tile_h = reduce_tile_side(1);
      const std::vector<Coarse> c_values = c.values();
      run_reduce(s, SourceArray<Coarse>{&c_values, plan.x.c_count, plan.y.c_count}, blur, b);
    }
    b.expect_complete();

    // the image
    Array<Fine> out(width, height, "result");
    run_expand(plan, b, out);
    out.expect_complete();
    result = out.values();
  }

  // WriteOnce with the value type named, and its contents.
  template <class T>
  struct Array : WriteOnce<T> {
    using Value = T;
    Array(int w, int h, const char* name) : WriteOnce<T>(w, h, name) {}
    std::vector<T> values() const {
      std::vector<T> v;
      for (int y = 0; y < this->height(); ++y)
        for (int x = 0; x < this->width(); ++x) v.push_back(this->at(x, y));
      return v;
    }
  };

  void run_row_reduce(const Plan& p, int taps, const SourceArray<Fine>& src, BorderMode border, Array<Coarse>& r) {
    if (row_reduce_is_wide(p.d))
      run_row_reduce_with<RowReduceWidePolicy>(p, taps, src, border, r);
    else
      run_row_reduce_with<RowReduceNarrowPolicy>(p, taps, src, border, r);
  }
  template <class P>
  void run_row_reduce_with(const Plan& p, int taps, const SourceArray<Fine>& src, BorderMode border, Array<Coarse>& r) {
    RowReduceStage s;
    s.d = p.d;
    s.taps = taps;
    s.origin = p.x.fine_origin;
    s.out_w = p.x.c_count;
    s.src_w = src.width;
    s.src_h = src.height;
    s.border = border;
    s.groups = row_reduce_groups_for<P>(p.d, taps, row_reduce_span_target<Fine>());
    s.out_scale = static_cast<float>(kScale);
    const int pitch = row_reduce_pitch<P>(s);
    for (long long block = 0; block < row_reduce_block_count<P>(s); ++block) {
      const RowBlock b = row_reduce_block<P>(s, static_cast<int>(block));
      CheckedShared<float> w(static_cast<std::size_t>(taps), "weights");
      CheckedShared<Fine> raw(static_cast<std::size_t>(32 * pitch), "raw rows");
      w.begin_fill();
      raw.begin_fill();
      for (int t = 0; t < P::kThreads; ++t) row_reduce_fill<P>(s, b, t, CheckedFill<Fine>{&src, raw.access(), w.access(), &prefilter});
      w.begin_read();
      raw.begin_read();
      struct Out {
        Array<Coarse>* r;
        void store(int x, int y, Accum v) const { r->store(x, y, Store<Coarse>::from(v)); }
      };
      for (int t = 0; t < P::kThreads; ++t) row_reduce_pass<P>(s, b, t, raw.access(), w.access(), Out{&r});
    }
    r.expect_complete();
  }

  void run_column_reduce(const Plan& p, int taps, const Array<Coarse>& r, BorderMode border, Array<Coarse>& c) {
    with_column_reduce_policy(p.d, [&](auto policy) { run_column_reduce<decltype(policy)>(p, taps, r, border, c); });
  }
  template <class P>
  void run_column_reduce(const Plan& p, int taps, const Array<Coarse>& r, BorderMode border, Array<Coarse>& c) {
    ColumnReduceStage s;
    s.d = p.d;
    s.taps = taps;
    s.origin = p.y.fine_origin;
    s.out_w = p.x.c_count;
    s.out_h = p.y.c_count;
    s.src_h = r.height();
    s.border = border;
    struct RView {
      const Array<Coarse>* r;
      Accum load(int row, int col) const { return to_accum_via_i2f(r->at(col, row)); }
    };
    struct Out {
      Array<Coarse>* c;
      void store(int x, int y, Accum v) const { c->store(x, y, Store<Coarse>::from(v)); }
    };
    for (long long block = 0; block < column_reduce_block_count<P>(s); ++block) {
      CheckedShared<Accum> partial(static_cast<std::size_t>(column_reduce_partial_count<P>()), "column partial sums");
      partial.begin_fill();
      for (int t = 0; t < P::kThreads; ++t)
        column_reduce_slice<P>(s, static_cast<int>(block), t, RView{&r}, prefilter.data(), partial.access());
      partial.begin_read();
      for (int t = 0; t < P::kThreads; ++t) column_reduce_combine<P>(s, static_cast<int>(block), t, partial.access(), Out{&c});
    }
  }

  void run_expand(const Plan& p, const Array<Coarse>& b, Array<Fine>& out) {
    using P = ExpandKernelPolicy;
    ExpandStage s;
    s.d = p.d;
    s.d_magic = divide_magic(p.d);
    if (!expand_divides_exactly(p.d, out.width(), out.height())) throw ModelError("image too large for the expand's division");
    s.width = out.width();
    s.height = out.height();
    s.b_w = b.width();
    s.b_h = b.height();
    s.chunks = expand_chunks_for<P, Accum>(p.d);
    const ExpandLayout l = expand_layout<P, Accum>(p.d, s.chunks);
    for (long long block = 0; block < static_cast<long long>(expand_tiles_x<P>(s)) * expand_tiles_y<P>(s); ++block) {
      const ExpandRegion r = expand_region<P>(s, static_cast<int>(block % expand_tiles_x<P>(s)),
                                              static_cast<int>(block / expand_tiles_x<P>(s)));
      CheckedShared<float> w(static_cast<std::size_t>(expand_weight_count(p.d)), "expand weights");
      CheckedShared<Accum> region(static_cast<std::size_t>(l.region_rows * l.b_pitch), "region");
      CheckedShared<Accum> v(static_cast<std::size_t>(P::kChunkH * l.v_pitch), "v");
      struct Fill {
        const Array<Coarse>* b;
        typename CheckedShared<Accum>::Access region;
        typename CheckedShared<float>::Access w;
        const std::vector<float>* weights;
        void copy(int slot, int row, int col) const { region.store(slot, to_accum_via_i2f(b->at(col, row))); }
        void copy_weight(int i) const { w.store(i, (*weights)[static_cast<std::size_t>(i)]); }
      };
      if (r.cols > l.b_pitch || r.rows > l.region_rows) throw ModelError("expand region larger than its shared array");
      w.begin_fill();
      region.begin_fill();
      for (int t = 0; t < P::kThreads; ++t) expand_fill<P>(s, l, r, t, Fill{&b, region.access(), w.access(), &expand});
      w.begin_read();
      region.begin_read();
      struct Out {
        using Word = typename ExpandStore<Fine>::Word;
        Array<Fine>* out;
        void store(int x, int y, Word word) const { out->store(x, y, ExpandStore<Fine>::fine(word)); }
        void store_group(int x, int y, const Word (&words)[P::kGroup]) const {
          for (int i = 0; i < P::kGroup; ++i) store(x + i, y, words[i]);
        }
      };
      if constexpr (expand_strided<Fine>()) {
        std::vector<ExpandStridedGroup<P::kGroup>> groups;
        for (int t = 0; t < P::kThreads; ++t) groups.push_back(expand_strided_group<P>(s, r, t, w.access()));
        for (int chunk = 0; chunk * P::kChunkH < r.h; ++chunk) {
          v.begin_fill();
          for (int t = 0; t < P::kThreads; ++t) expand_vertical<P>(s, l, r, chunk, t, region.access(), w.access(), v.access());
          v.begin_read();
          for (int t = 0; t < P::kThreads; ++t)
            expand_horizontal_strided<P, Fine>(l, r, chunk, t, groups[static_cast<std::size_t>(t)], v.access(), Out{&out});
        }
        continue;
      }
      with_expand_shape(p.d, [&](auto shape) {
        constexpr ExpandShape S = decltype(shape)::value;
        std::vector<ExpandGroup<expand_window(S), P::kGroup>> groups;
        for (int t = 0; t < P::kThreads; ++t) groups.push_back(expand_group<expand_window(S), P>(s, r, t, w.access()));
        for (int chunk = 0; chunk * P::kChunkH < r.h; ++chunk) {
          v.begin_fill();
          for (int t = 0; t < P::kThreads; ++t) expand_vertical<P>(s, l, r, chunk, t, region.access(), w.access(), v.access());
          v.begin_read();
          for (int t = 0; t < P::kThreads; ++t)
            expand_horizontal<S, P, Fine>(l, r, chunk, t, groups[static_cast<std::size_t>(t)], v.access(), Out{&out});
        }
      });
    }
  }
};

// ---- the same pipeline as plain float64 loops -----------------------------------------------------

// Channel values of the extended source (f(-1) = 0 for constant).
std::vector<double> plain_pipeline(const ConstImageView& src, int channels, double sigma, BorderMode border) {
  const Plan plan = make_plan(sigma, src.width, src.height, sigma_per_step_for(src.format));
  const int taps1 = static_cast<int>(plan.prefilter.size());
  const int w = src.width, h = src.height;
  auto sample = [&](int y, int x, int ch) {
    const int by = border_index(y, h, border), bx = border_index(x, w, border);
    return by < 0 || bx < 0 ? 0.0 : channel_value(src, bx, by, ch);
  };
  std::vector<double> out(static_cast<std::size_t>(w) * h * channels);
  for (int ch = 0; ch < channels; ++ch) {
    // rows of C over the image's rows, then C, then B, then the image
    const int cw = plan.x.c_count, chh = plan.y.c_count;
    std::vector<double> r(static_cast<std::size_t>(cw) * (h + 0));
    std::vector<double> c(static_cast<std::size_t>(cw) * chh);
    for (int cy = 0; cy < chh; ++cy)
      for (int cx = 0; cx < cw; ++cx) {
        double acc = 0;
        for (int s = 0; s < taps1; ++s) {
          double row = 0;
          for (int t = 0; t < taps1; ++t)
            row += plan.prefilter[static_cast<std::size_t>(t)] *
                   sample(plan.d * cy + plan.y.fine_origin + s, plan.d * cx + plan.x.fine_origin + t, ch);
          acc += plan.prefilter[static_cast<std::size_t>(s)] * row;
        }
        c[static_cast<std::size_t>(cy) * cw + cx] = acc;
      }
    const int bw = plan.x.b_count, bh = plan.y.b_count, t2 = static_cast<int>(plan.blur.size());
    std::vector<double> tmp(static_cast<std::size_t>(chh) * bw), b(static_cast<std::size_t>(bh) * bw);
    for (int y = 0; y < chh; ++y)
      for (int x = 0; x < bw; ++x) {
        double acc = 0;
        for (int m = 0; m < t2; ++m) acc += plan.blur[static_cast<std::size_t>(m)] * c[static_cast<std::size_t>(y) * cw + x + m];
        tmp[static_cast<std::size_t>(y) * bw + x] = acc;
      }
    for (int y = 0; y < bh; ++y)
      for (int x = 0; x < bw; ++x) {
        double acc = 0;
        for (int m = 0; m < t2; ++m) acc += plan.blur[static_cast<std::size_t>(m)] * tmp[static_cast<std::size_t>(y + m) * bw + x];
        b[static_cast<std::size_t>(y) * bw + x] = acc;
      }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int qy = y / plan.d, py = y % plan.d, qx = x / plan.d, px = x % plan.d;
        double acc = 0;
        for (int a = 0; a < kExpandTaps; ++a)
          for (int k = 0; k < kExpandTaps; ++k)
            acc += plan.expand[static_cast<std::size_t>(py)][static_cast<std::size_t>(a)] *
                   plan.expand[static_cast<std::size_t>(px)][static_cast<std::size_t>(k)] *
                   b[static_cast<std::size_t>(qy + a) * bw + qx + k];
        out[(static_cast<std::size_t>(y) * w + x) * channels + ch] = acc;
      }
    (void)r;
  }
  return out;
}

// ---- helpers -----------------------------------------------------------------------------------------

using test::astronaut;
using test::hubble_grey;
template <class Pixel>
Image<Pixel> crop(const Image<Pixel>& image, int x, int y, int w, int h) {
  return test::crop(image, Rect{x, y, w, h});
}

// The model on a host image; the result as a host image of the same format.
ImageRgba8 model_rgba8(const ImageRgba8& src, double sigma, BorderMode border, bool fused) {
  std::vector<uchar4> pixels(src.pixel_count());
  std::memcpy(pixels.data(), src.data(), pixels.size() * sizeof(uchar4));
  const ModelRun<PixelFormat::Rgba8> run(pixels, src.width(), src.height(), sigma, border, fused);
  ImageRgba8 out(src.width(), src.height());
  std::memcpy(static_cast<void*>(out.data()), run.result.data(), run.result.size() * sizeof(uchar4));
  return out;
}
ImageF32 model_f32(const ImageF32& src, double sigma, BorderMode border, bool fused) {
  const ModelRun<PixelFormat::F32> run(src.pixels(), src.width(), src.height(), sigma, border, fused);
  ImageF32 out(src.width(), src.height());
  std::copy(run.result.begin(), run.result.end(), out.data());
  return out;
}

// RGBA32F: four F32 planes interleaved, through the float4 kernels; the result's planes.
std::vector<ImageF32> model_rgba32f(const std::vector<ImageF32>& planes, double sigma, BorderMode border, bool fused) {
  const int w = planes[0].width(), h = planes[0].height();
  std::vector<float4> pixels(static_cast<std::size_t>(w) * h);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = make_float4(planes[0].pixels()[i], planes[1].pixels()[i], planes[2].pixels()[i], planes[3].pixels()[i]);
  const ModelRun<PixelFormat::Rgba32F> run(pixels, w, h, sigma, border, fused);
  std::vector<ImageF32> out(4, ImageF32(w, h));
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const float4 p = run.result[i];
    out[0].data()[i] = p.x;
    out[1].data()[i] = p.y;
    out[2].data()[i] = p.z;
    out[3].data()[i] = p.w;
  }
  return out;
}

FilterParams params_for(double sigma, BorderMode border) {
  FilterParams p;
  p.sigma = sigma;
  p.border = border;
  return p;
}

// ---- the plan ------------------------------------------------------------------------------------------

TEST(MultiresPlan, PrefilterPhasesFitThePhaseWindow) {
  int most = 0;
  for (double sigma = multires::kMinSigma; sigma <= 200.0; sigma += 0.05) {
    const Plan plan = make_plan(sigma, 64, 64);
    const int taps = static_cast<int>(plan.prefilter.size());
    most = std::max(most, taps_in_phase(taps, plan.d, 0));
    ASSERT_LE(taps_in_phase(taps, plan.d, 0), kMaxPhaseTaps) << "sigma " << sigma;
  }
  EXPECT_EQ(most, kMaxPhaseTaps);  // not larger than needed: each unused tap costs the kernels issue slots
}

TEST(MultiresPlan, DivisionByMultiplyMatchesIntegerDivision) {
  for (int d = 2; d <= 80; ++d) {
    const unsigned magic = divide_magic(d);
    const int limit = static_cast<int>(std::min<long long>((1ll << 32) / d - 65, 1 << 30));
    for (int n : {0, 1, d - 1, d, d + 1, 4095, 4096, 65535, 1 << 20, limit - 1, limit}) {
      if (n > limit) continue;
      ASSERT_EQ(divide_by_magic(n, magic), n / d) << n << " / " << d;
    }
    for (int n = 0; n < 5000; ++n) ASSERT_EQ(divide_by_magic(n, magic), n / d) << n << " / " << d;
    EXPECT_TRUE(expand_divides_exactly(d, limit, 1));
    EXPECT_FALSE(expand_divides_exactly(d, static_cast<int>(std::min<long long>((1ll << 32) / d, 0x7fffffff)), 1));
  }
}

TEST(MultiresPlan, VariancesAddUpToSigmaSquaredAndEveryStageSumsToOne) {
  for (double sigma : {4.0, 4.9, 5.0, 7.4, 7.5, 12.3, 32.0, 64.0, 200.0}) {
    const Plan plan = make_plan(sigma, 100, 50);
    const double d = plan.d;
    EXPECT_NEAR(plan.sigma1 * plan.sigma1 + d * d * plan.sigma2 * plan.sigma2 + d * d / 3.0, sigma * sigma, 1e-9 * sigma * sigma);
    double s1 = 0, s2 = 0;
    for (double w : plan.prefilter) s1 += w;
    for (double w : plan.blur) s2 += w;
    EXPECT_NEAR(s1, 1.0, 1e-14);
    EXPECT_NEAR(s2, 1.0, 1e-14);
    for (const auto& e : plan.expand) {
      double s = 0;
      for (double w : e) {
        EXPECT_GE(w, 0.0);
        s += w;
      }
      EXPECT_NEAR(s, 1.0, 1e-14);
    }
    if (d > 2) {
      EXPECT_GE(sigma / d, kSigmaPerStep - 1e-12);
    }
  }
}

TEST(MultiresPlan, DecimationGrowsWithSigmaFromTwo) {
  EXPECT_EQ(decimation_for(4.0), 2);
  EXPECT_EQ(decimation_for(7.49), 2);
  EXPECT_EQ(decimation_for(7.5), 3);
  EXPECT_EQ(decimation_for(64.0), 25);
  // RGBA8 decimates more: sigma / d in [2, 3).
  EXPECT_EQ(decimation_for(5.99, kSigmaPerStepRgba8), 2);
  EXPECT_EQ(decimation_for(6.0, kSigmaPerStepRgba8), 3);
  EXPECT_EQ(decimation_for(8.0, kSigmaPerStepRgba8), 4);
  EXPECT_EQ(decimation_for(64.0, kSigmaPerStepRgba8), 32);
  EXPECT_EQ(sigma_per_step_for(PixelFormat::Rgba8), kSigmaPerStepRgba8);
  EXPECT_EQ(sigma_per_step_for(PixelFormat::F32), kSigmaPerStep);
  EXPECT_THROW(make_plan(3.9, 10, 10), std::invalid_argument);
}

TEST(MultiresPlan, EachPhaseKernelHasTheSigmaOfTheGaussianAndItsCentre) {
  for (double sigma : {4.0, 6.3, 17.0, 40.0}) {
    const Plan plan = make_plan(sigma, 10, 10);
    for (const PhaseKernel& k : phase_kernels(plan)) {
      double sum = 0, mean = 0, var = 0;
      for (std::size_t i = 0; i < k.weights.size(); ++i) {
        const double x = k.first + static_cast<double>(i);
        sum += k.weights[i];
        mean += x * k.weights[i];
        var += x * x * k.weights[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-12);
      EXPECT_NEAR(mean, 0.0, 1e-9 * sigma) << "sigma " << sigma;  // the spline is centred on every phase
      EXPECT_NEAR(std::sqrt(var - mean * mean), sigma, 2e-3 * sigma) << "sigma " << sigma;
    }
  }
}

// The bound the method states (accuracy_bound) holds over a dense sweep of sigma: the exact worst
// case of the approximation for any 8-bit image (127.5 × l1 of the 2D kernel difference, plus the
// final rounding and the 16-bit storage of C and B), with RGBA8's decimation, and the impulse error
// for float images, with F32's.
TEST(MultiresBound, StatedBoundCoversTheExactOperatorErrorForEverySigma) {
  std::vector<double> sigmas;
  for (double s = 4.0; s < 16.0; s += 0.05) sigmas.push_back(s);
  for (double s = 16.0; s <= 64.0; s += 0.5) sigmas.push_back(s);
  for (double s : {80.0, 100.0, 150.0, 200.0}) sigmas.push_back(s);
  double worst_levels = 0, worst_peak = 0;
  for (double sigma : sigmas) {
    const bool exact = sigma <= 12.0;
    const OperatorError e = operator_error(sigma, kDefaultTruncate, exact);  // F32's decimation
    const double levels = approximation_levels(operator_error(sigma, kDefaultTruncate, exact, kSigmaPerStepRgba8));
    worst_levels = std::max(worst_levels, levels);
    worst_peak = std::max(worst_peak, e.peak_2d);
    EXPECT_LE(kRoundingLevels + levels, kBoundLevels) << "sigma " << sigma;
    EXPECT_LE(e.peak_2d, 5.2e-4) << "sigma " << sigma;  // the figures multires_plan.hpp quotes
    EXPECT_LE(e.l1_2d / 2.0, 4.2e-4) << "sigma " << sigma;
  }
  for (double sigma : {4.0, 9.0, 33.0})  // a longer reference (truncate 10) is only closer to the Gaussian
    EXPECT_LE(operator_error(sigma, 10.0, true).peak_2d, kBoundRelative) << "sigma " << sigma;
  std::printf("multires: worst approximation %.3f levels, worst impulse error %.2e of the peak\n", worst_levels,
              worst_peak);
}

// ---- the model -------------------------------------------------------------------------------------------

struct Case {
  int width, height;
  double sigma;
};

TEST(MultiresModel, MatchesThePlainPipelineForEverySizeBorderAndPath) {
  // (64 × 200 at sigma 30 and 150 × 230 at 40: the column reduce's windows inside R, and the row
  // reduce's wide (d <= 12) and narrow policies.)
  const Case cases[] = {{1, 1, 4.0},     {7, 3, 5.5},     {67, 45, 4.0},   {70, 33, 8.0},
                        {131, 29, 14.0}, {40, 90, 30.0},  {64, 200, 30.0}, {150, 230, 40.0}};
  for (const Case& c : cases)
    for (BorderMode border : kAllBorderModes)
      for (bool fused : {true, false}) {
        SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + " sigma " + std::to_string(c.sigma) +
                     " " + to_string(border) + (fused ? " fused" : " rows+columns"));
        const ImageF32 src = make_random_f32(c.width, c.height, 7);
        const ImageF32 got = model_f32(src, c.sigma, border, fused);
        const std::vector<double> want = plain_pipeline(src.view(), 1, c.sigma, border);
        double worst = 0;
        for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got.pixels()[i] - want[i]));
        EXPECT_LE(worst, 2e-6);

        const ImageRgba8 rgba = make_random_rgba8(c.width, c.height, 11);
        const ImageRgba8 got8 = model_rgba8(rgba, c.sigma, border, fused);
        const std::vector<double> want8 = plain_pipeline(rgba.view(), 4, c.sigma, border);
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(got8.data());
        double worst8 = 0;
        for (std::size_t i = 0; i < want8.size(); ++i) worst8 = std::max(worst8, std::fabs(bytes[i] - want8[i]));
        EXPECT_LE(worst8, 0.5 + 2 * 0.5 / kCoarseScaleRgba8 + 1e-3);  // rounding + 16-bit C and B
      }
}

// RGBA32F runs float4 through the same kernels (its own row-reduce span and fused limit): each
// channel must be F32's result for that plane, bit for bit (the same plan, weights and order of
// multiply-adds per output), on both reduce paths and every border.
TEST(MultiresModel, Rgba32FChannelsEqualF32PlanesBitForBit) {
  const Case cases[] = {{1, 1, 4.0}, {67, 45, 4.0}, {70, 33, 8.0}, {131, 29, 14.0}, {64, 200, 30.0}};
  for (const Case& c : cases)
    for (BorderMode border : kAllBorderModes)
      for (bool fused : {true, false}) {
        SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + " sigma " + std::to_string(c.sigma) +
                     " " + to_string(border) + (fused ? " fused" : " rows+columns"));
        std::vector<ImageF32> planes;
        for (std::uint32_t ch = 0; ch < 4; ++ch) planes.push_back(make_random_f32(c.width, c.height, 40 + ch));
        const std::vector<ImageF32> got = model_rgba32f(planes, c.sigma, border, fused);
        for (std::size_t ch = 0; ch < 4; ++ch) {
          const ImageF32 want = model_f32(planes[ch], c.sigma, border, fused);
          EXPECT_EQ(0, std::memcmp(got[ch].data(), want.data(), want.pixel_count() * sizeof(float))) << "channel " << ch;
        }
      }
}

// Images beyond the kernels' index arithmetic (a side times d at 2^32, the expand's grid of 65535
// tile rows) are refused with the reason, before any device is asked; an ordinary one is not.
TEST(MultiresLimits, RefusesImagesBeyondItsGridAndIndexArithmetic) {
  const std::unique_ptr<Method> multires = find_method("multires")->create();
  auto reason = [&](int width, int height, double sigma) {
    FilterProblem problem;
    problem.width = width;
    problem.height = height;
    problem.params.sigma = sigma;
    return multires->unsupported_reason(problem);
  };
  EXPECT_EQ(reason(4096, 4096, 32.0), "");
  EXPECT_EQ(reason(1, 2097120, 8.0), "");
  const std::string tall = reason(1, 2097121, 8.0);
  EXPECT_NE(tall.find("2097121 rows"), std::string::npos) << tall;
  EXPECT_NE(tall.find("use recursive"), std::string::npos) << tall;
  const std::string wide = reason(60000000, 1, 200.0);  // d 80: 60e6 × 80 > 2^32
  EXPECT_NE(wide.find("60000000"), std::string::npos) << wide;
  EXPECT_NE(wide.find("use recursive"), std::string::npos) << wide;
}

TEST(MultiresModel, ConstantImagesStayConstant) {
  for (BorderMode border : {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap}) {
    const ImageRgba8 flat(45, 38, Rgba8{200, 0, 255, 17});
    const ImageRgba8 got = model_rgba8(flat, 9.0, border, true);
    for (const Rgba8& p : got.pixels()) ASSERT_EQ(p, (Rgba8{200, 0, 255, 17})) << to_string(border);
    const ImageF32 flat_f(33, 20, 0.7f);
    const ImageF32 got_f = model_f32(flat_f, 21.0, border, false);
    for (float v : got_f.pixels()) ASSERT_NEAR(v, 0.7f, 1e-6f) << to_string(border);
  }
}

// Against the float64 reference: photos, noise, an impulse and a step, every border, both formats.
TEST(MultiresModel, MeetsItsBoundAgainstTheReference) {
  const ImageRgba8 photo = crop(astronaut(), 150, 40, 120, 96);
  const ImageF32 stars = crop(hubble_grey(), 400, 300, 110, 90);
  ImageF32 impulse(61, 47, 0.0f);
  impulse.at(30, 23) = 1.0f;
  impulse.at(0, 5) = 1.0f;
  ImageRgba8 step(50, 40, Rgba8{0, 0, 0, 0});
  for (int y = 0; y < 40; ++y)
    for (int x = 25; x < 50; ++x) step.at(x, y) = Rgba8{255, 255, 255, 255};
  for (double sigma : {4.0, 6.7, 11.0, 25.0})
    for (BorderMode border : kAllBorderModes) {
      SCOPED_TRACE("sigma " + std::to_string(sigma) + " " + to_string(border));
      const FilterParams params = params_for(sigma, border);
      for (const ImageRgba8* img : std::initializer_list<const ImageRgba8*>{&photo, &step}) {
        const ImageRgba8 got = model_rgba8(*img, sigma, border, sigma < 10);
        const AccuracyStats stats = compare_with_reference(got.view(), reference_gaussian(img->view(), params), 255);
        EXPECT_LE(stats.max_abs_error, kBoundLevels);
      }
      for (const ImageF32* img : std::initializer_list<const ImageF32*>{&stars, &impulse}) {
        const ImageF32 got = model_f32(*img, sigma, border, sigma >= 10);
        const AccuracyStats stats = compare_with_reference(got.view(), reference_gaussian(img->view(), params), 1);
        EXPECT_LE(stats.max_relative_error, kBoundRelative);
      }
    }
}

// Impulses are the hardest float input (the error relative to the reference's peak); two impulses
// whose responses overlap, also through the border's mirror image, are harder than one.
TEST(MultiresModel, ImpulsePairsStayWithinTheRelativeBound) {
  for (double sigma : {4.0, 9.0})
    for (BorderMode border : kAllBorderModes)
      for (int k = 0; k <= 16; k += 4)
        for (bool pair_inside : {false, true}) {
          ImageF32 image(41, 45, 0.0f);
          image.at(pair_inside ? 20 : 0, pair_inside ? 22 : k) = 1.0f;
          if (pair_inside) image.at(20 + k / 2, 22) = 1.0f;
          const ImageF32 got = model_f32(image, sigma, border, true);
          const AccuracyStats stats =
              compare_with_reference(got.view(), reference_gaussian(image.view(), params_for(sigma, border)), 1);
          EXPECT_LE(stats.max_relative_error, kBoundRelative)
              << "sigma " << sigma << " " << to_string(border) << " distance " << k << (pair_inside ? " inside" : " border");
        }
}

// The table quoted in docs/methods/multires.md (slow: run by hand).
TEST(MultiresAccuracy, DISABLED_Table) {
  const ImageRgba8 photo = crop(astronaut(), 150, 40, 160, 128);
  const ImageRgba8 noise = make_random_rgba8(61, 47, 3);
  const ImageF32 stars = crop(hubble_grey(), 400, 300, 160, 128);
  const ImageF32 grey = to_grey_f32(photo);
  ImageF32 impulse(81, 67, 0.0f);
  impulse.at(40, 33) = 1.0f;
  std::printf("sigma | F32 max rel. error r m n c w | RGBA8 max levels r m n c w | exact bound: levels, impulse\n");
  for (double sigma : {4.0, 5.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0}) {
    std::printf("%5.1f |", sigma);
    for (BorderMode border : kAllBorderModes) {
      const FilterParams params = params_for(sigma, border);
      double worst = 0;
      for (const ImageF32* img : std::initializer_list<const ImageF32*>{&stars, &grey, &impulse}) {
        const ImageF32 got = model_f32(*img, sigma, border, true);
        worst = std::max(worst, compare_with_reference(got.view(), reference_gaussian(img->view(), params), 1).max_relative_error);
      }
      std::printf(" %.1e", worst);
    }
    std::printf(" |");
    for (BorderMode border : kAllBorderModes) {
      const FilterParams params = params_for(sigma, border);
      double worst = 0;
      for (const ImageRgba8* img : std::initializer_list<const ImageRgba8*>{&photo, &noise}) {
        const ImageRgba8 got = model_rgba8(*img, sigma, border, true);
        worst = std::max(worst, compare_with_reference(got.view(), reference_gaussian(img->view(), params), 255).max_abs_error);
      }
      std::printf(" %.3f", worst);
    }
    const OperatorError e = operator_error(sigma, kDefaultTruncate, sigma <= 12);
    const OperatorError e8 = operator_error(sigma, kDefaultTruncate, sigma <= 12, kSigmaPerStepRgba8);
    std::printf(" | %.3f %.1e\n", kRoundingLevels + approximation_levels(e8), e.peak_2d);
  }
}

// Bytes of 1 to 3 channels widened to RGBA8 (its proven 8-bit bound), the other float formats as F32
// planes (its relative bound).
TEST(MultiresModel, EveryOtherFormatThroughItsRouteMeetsTheBound) {
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound(
                "multires", {4.5, 9.0},
                [](const ImageF32& src, const FilterParams& params) {
                  return model_f32(src, params.sigma, params.border, true);
                },
                [](const ImageRgba8& src, const FilterParams& params) {
                  return model_rgba8(src, params.sigma, params.border, true);
                }),
            9);  // 8- and 16-bit-float and float formats but RGBA8, RGBA32F and F32, which run natively
}

}  // namespace
}  // namespace gausslab
