// separable_mma on the CPU: its per-lane code (separable_mma_common.cuh) run lane by lane, warp by
// warp, block by block, with the warp's mma.sync.m16n8k16 emulated from the fragment layouts of the
// PTX ISA (A, B and C/D coordinates per lane and element); shared memory checked (a word read before
// it was written in an earlier phase, or written twice in one phase, throws). The result must meet
// the FIR bound (0.51 levels) against the float64 reference for every border, radii 0 to 12 and
// sizes from 1×1 to several tiles; and the fp16 conversions equal their definition.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "kit/mma_emulation.hpp"
#include "kit/model_accuracy.hpp"
#include "separable_mma_common.cuh"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using namespace mma_fir;

GAUSSLAB_METHOD_TESTS("separable_mma", SeparableMmaModel);

using test::ModelError;

// Shared words or halves, with the phase rules of the kernel's barriers.
template <class T>
class PhasedArray {
 public:
  explicit PhasedArray(std::size_t n, const char* name) : v_(n), phase_(n, -1), name_(name) {}
  void next_phase() { ++phase_now_; }
  void write(int i, T value) {
    check(i);
    if (phase_[static_cast<std::size_t>(i)] == phase_now_) throw ModelError(name_ + ": written twice in one phase");
    phase_[static_cast<std::size_t>(i)] = phase_now_;
    v_[static_cast<std::size_t>(i)] = value;
  }
  T read(int i) const {
    check(i);
    const int p = phase_[static_cast<std::size_t>(i)];
    if (p < 0) throw ModelError(name_ + ": read of " + std::to_string(i) + " never written");
    if (p == phase_now_) throw ModelError(name_ + ": read in the phase that writes it");
    return v_[static_cast<std::size_t>(i)];
  }
  std::size_t size() const { return v_.size(); }

 private:
  void check(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= v_.size()) throw ModelError(name_ + ": index outside the array");
  }
  std::vector<T> v_;
  std::vector<int> phase_;
  std::string name_;
  int phase_now_ = 0;
};

using test::emulate_mma;

template <int kSteps>
ImageRgba8 model(const ImageRgba8& src, const FilterParams& params) {
  using P = Policy<kSteps>;
  const TileProblem p{src.width(), src.height(), params.radius(), params.border};
  if (p.radius > P::kMaxRadius) throw ModelError("radius beyond the policy");
  const std::vector<double> w = gaussian_weights(params.sigma, p.radius);
  std::vector<unsigned short> w_hi(w.size()), w_lo(w.size());
  for (std::size_t t = 0; t < w.size(); ++t) {
    w_hi[t] = half_bits(static_cast<float>(w[t]));
    w_lo[t] = half_bits(static_cast<float>(w[t] - static_cast<double>(half_value(w_hi[t]))));
  }
  ImageRgba8 out(src.width(), src.height());
  std::vector<int> written(src.pixel_count(), 0);
  constexpr int kChannelWords = P::kPlaneRows * P::kPlanePitch / 2;
  constexpr int kHtHalves = P::kTile * P::kHtPitch;
  struct Src {
    const ImageRgba8* img;
    uchar4 load(int x, int y) const {
      const Rgba8 v = img->at(x, y);
      return make_uchar4(v.r, v.g, v.b, v.a);
    }
  };
  for (long long block = 0; block < block_count<P>(p); ++block) {
    const TileOrigin tile = tile_of<P>(p, static_cast<int>(block));
    PhasedArray<unsigned> planes(4 * kChannelWords, "planes");
    PhasedArray<unsigned short> ht(2 * kHtHalves, "ht");
    struct Planes {
      PhasedArray<unsigned>* a;
      void store(int c, int word, unsigned v) const { a->write(c * kChannelWords + word, v); }
    };
    for (int t = 0; t < P::kThreads; ++t) fill_planes<P>(p, tile, t, Src{&src}, Planes{&planes});
    planes.next_phase();
    FragC out_frag[4][P::kWarps][P::kColumnItemsPerWarp][32];
    for (int c = 0; c < 4; ++c) {
      ht.next_phase();
      for (int warp = 0; warp < P::kWarps; ++warp)
        for (int item = warp; item < P::kRowPassItems; item += P::kWarps) {
          const RowItem it = row_item<P>(item);
          FragC d[32] = {};
          for (int s = 0; s < kSteps; ++s) {
            FragA a[32];
            FragB bh[32], bl[32];
            struct Words {
              const PhasedArray<unsigned>* a;
              int base;
              unsigned operator[](int i) const { return a->read(base + i); }
            };
            for (int lane = 0; lane < 32; ++lane) {
              a[lane] = load_a(lane, Words{&planes, c * kChannelWords}, P::kPlanePitch, it.line0, it.out0 + 16 * s);
              bh[lane] = toeplitz_fragment(lane, s, p.radius, w_hi);
              bl[lane] = toeplitz_fragment(lane, s, p.radius, w_lo);
            }
            emulate_mma(d, a, bh);
            emulate_mma(d, a, bl);
          }
          struct Ht {
            PhasedArray<unsigned short>* a;
            void store(int which, int index, unsigned short bits) const { a->write(which * kHtHalves + index, bits); }
          };
          for (int lane = 0; lane < 32; ++lane) store_row_result<P>(lane, it, d[lane], Ht{&ht});
        }
      ht.next_phase();
      for (int warp = 0; warp < P::kWarps; ++warp)
        for (int j = 0; j < P::kColumnItemsPerWarp; ++j) {
          const ColumnItem it = column_item<P>(warp + j * P::kWarps);
          FragC d[32] = {};
          struct HtWords {
            const PhasedArray<unsigned short>* a;
            int base;  // halves
            unsigned operator[](int i) const {
              return static_cast<unsigned>(a->read(base + 2 * i)) | (static_cast<unsigned>(a->read(base + 2 * i + 1)) << 16);
            }
          };
          for (int s = 0; s < kSteps; ++s) {
            FragA hi[32], lo[32];
            FragB bh[32], bl[32];
            for (int lane = 0; lane < 32; ++lane) {
              hi[lane] = load_a(lane, HtWords{&ht, 0}, P::kHtPitch, it.col0, it.row0 + 16 * s);
              lo[lane] = load_a(lane, HtWords{&ht, kHtHalves}, P::kHtPitch, it.col0, it.row0 + 16 * s);
              bh[lane] = toeplitz_fragment(lane, s, p.radius, w_hi);
              bl[lane] = toeplitz_fragment(lane, s, p.radius, w_lo);
            }
            emulate_mma(d, hi, bh);
            emulate_mma(d, hi, bl);
            emulate_mma(d, lo, bh);
          }
          for (int lane = 0; lane < 32; ++lane) out_frag[c][warp][j][lane] = d[lane];
        }
    }
    for (int warp = 0; warp < P::kWarps; ++warp)
      for (int j = 0; j < P::kColumnItemsPerWarp; ++j)
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i) {
            const Coord o = output_of(lane, column_item<P>(warp + j * P::kWarps), i);
            const int x = tile.x0 + o.col, y = tile.y0 + o.row;
            if (x >= p.width || y >= p.height) continue;
            if (written[static_cast<std::size_t>(y) * p.width + x]++) throw ModelError("a pixel written twice");
            out.at(x, y) = Rgba8{to_unorm8(out_frag[0][warp][j][lane].v[i]), to_unorm8(out_frag[1][warp][j][lane].v[i]),
                                 to_unorm8(out_frag[2][warp][j][lane].v[i]), to_unorm8(out_frag[3][warp][j][lane].v[i])};
          }
  }
  for (int n : written)
    if (n != 1) throw ModelError("a pixel never written");
  return out;
}

ImageRgba8 run_model(const ImageRgba8& src, const FilterParams& params) {
  return params.radius() <= Policy<1>::kMaxRadius ? model<1>(src, params) : model<2>(src, params);
}

TEST(SeparableMmaHalves, ConversionsRoundToNearestEvenAndSplitToAbout22Bits) {
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(255.0f), 0x5bf8);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(half_bits(1e6f), 0x7c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(1.0f + 1.0f / 2048), 0x3c00);          // a tie: to even
  EXPECT_EQ(half_bits(1.0f + 3.0f / 2048), 0x3c02);          // a tie: to even, up
  EXPECT_EQ(half_bits(5.96046448e-8f), 0x0001);              // the smallest subnormal
  for (int v = 0; v <= 255; ++v) EXPECT_EQ(half_value(half_bits(static_cast<float>(v))), static_cast<float>(v));
  for (float v : {0.1234567f, 3.3e-5f, 200.77f, 1e-7f}) {
    const HalfPair s = split_half(v);
    EXPECT_NEAR(half_value(s.hi) + half_value(s.lo), v, std::fabs(v) * 5e-7 + 6e-8) << v;
  }
}

TEST(SeparableMmaModel, MeetsTheFirBoundForEveryBorderRadiusAndSize) {
  const std::vector<test::FirCase> cases = {
      {1, 1, 2}, {5, 3, 12}, {70, 33, 0}, {70, 33, 4}, {130, 67, 5}, {64, 64, 8}, {97, 129, 12}};
  test::expect_fir_cases_within<Rgba8>(cases, 21, 0.51, [](const auto& src, const FilterParams& params) {
    return run_model(src, params);
  });
}

// Grey, grey + alpha and RGB bytes as RGBA8 with the missing channels zero: the same exact sums.
TEST(SeparableMmaModel, OneToThreeChannelBytesWidenedToRgba8MeetTheBound) {
  const auto model = [](const ImageRgba8& src, const FilterParams& params) { return run_model(src, params); };
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound("separable_mma", {0.6, 2.5}, {}, model), 3);
}

}  // namespace
}  // namespace gausslab
