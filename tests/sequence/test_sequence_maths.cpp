// The shared maths of core/sequence_maths.hpp, run on the CPU: the kernels call the same
// functions, so these also check the GPU's per-thread code (the projection tile, the warp's
// mismatch lanes, the whitening accumulation in float).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gausslab/core/sequence_cpu.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/sequence/frame_source.hpp"

namespace gausslab {
namespace {

using namespace seq;

GreyView view_of(const std::vector<float>& pixels, int width, int height) {
  return {pixels.data(), width, height, width};
}

// A smooth test scene: a few Gaussian blobs on a ramp, evaluated at (x - dx, y - dy).
std::vector<float> blobs(int width, int height, double dx, double dy) {
  std::vector<float> image(static_cast<std::size_t>(width) * height);
  const double centres[][3] = {{20.3, 17.1, 2.0}, {41.7, 30.2, 1.6}, {13.0, 44.5, 2.4}, {50.2, 12.8, 1.8}};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double v = 0.1 + 0.001 * (x - dx);
      for (const auto& c : centres)
        v += std::exp(-(std::pow(x - dx - c[0], 2) + std::pow(y - dy - c[1], 2)) / (2 * c[2] * c[2]));
      image[static_cast<std::size_t>(y) * width + x] = static_cast<float>(v);
    }
  return image;
}

TEST(SequenceMaths, LocalMeanIsTheBinomialThreeByThreeMeanWithClampedBorders) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int w = 7, h = 5;
  std::vector<float> image(w * h);
  for (float& v : image) v = u(rng);
  const GreyView view = view_of(image, w, h);
  const double b[3] = {0.25, 0.5, 0.25};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double expected = 0.0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i)
          expected += b[i + 1] * b[j + 1] * view.clamped(x + i, y + j);
      EXPECT_NEAR(local_mean(view, x, y), expected, 1e-6) << x << "," << y;
    }
}

TEST(SequenceMaths, TheFineStepRecoversASubPixelShiftWithTheStatedSign) {
  const int w = 64, h = 56;
  const std::vector<float> reference = blobs(w, h, 0, 0);
  std::vector<float> mean(reference.size());
  local_mean_image(view_of(reference, w, h), mean.data(), w);
  for (const auto& d : {std::pair{0.3, -0.2}, std::pair{-0.45, 0.1}, std::pair{0.0, 0.4}}) {
    const std::vector<float> frame = blobs(w, h, d.first, d.second);  // content moved by +d
    const ShiftSums sums = fine_sums(view_of(mean, w, h), view_of(frame, w, h), 0, 0);
    const ShiftRecord r = solve_shift(sums, fine_region(w, h, 0, 0).count(), 0, 0);
    ASSERT_EQ(r.status, static_cast<int>(ShiftStatus::Estimated));
    // One linear step: its error grows with the residual (about 5 % of it near half a pixel).
    EXPECT_NEAR(r.dx, d.first, 0.03);
    EXPECT_NEAR(r.dy, d.second, 0.03);
  }
}

TEST(SequenceMaths, TheFineStepStartsFromTheIntegerOffset) {
  const int w = 64, h = 56;
  const std::vector<float> reference = blobs(w, h, 0, 0), frame = blobs(w, h, 3.2, -2.1);
  std::vector<float> mean(reference.size());
  local_mean_image(view_of(reference, w, h), mean.data(), w);
  const ShiftSums sums = fine_sums(view_of(mean, w, h), view_of(frame, w, h), 3, -2);
  const ShiftRecord r = solve_shift(sums, fine_region(w, h, 3, -2).count(), 3, -2);
  EXPECT_NEAR(r.dx, 3.2, 0.02);
  EXPECT_NEAR(r.dy, -2.1, 0.02);
  EXPECT_EQ(r.kx, 3);
  EXPECT_EQ(r.ky, -2);
}

TEST(SequenceMaths, TheCoarseSearchFindsIntegerShiftsOfATexture) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int w = 97, h = 83, big_w = w + 40, big_h = h + 40;
  std::vector<float> scene(big_w * big_h);
  for (float& v : scene) v = u(rng);
  auto crop = [&](int ox, int oy) {  // frame content at x is scene at x - (ox, oy): shift (ox, oy)
    std::vector<float> f(w * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) f[y * w + x] = scene[(y - oy + 20) * big_w + (x - ox + 20)];
    return f;
  };
  const std::vector<float> reference = crop(0, 0);
  const Profiles ref = frame_profiles(view_of(reference, w, h));
  for (const auto& k : {std::pair{5, -3}, std::pair{-8, 8}, std::pair{0, 0}, std::pair{-1, 7}}) {
    const std::vector<float> frame = crop(k.first, k.second);
    const Offset found = integer_offset(frame_profiles(view_of(frame, w, h)), ref, 0, 0, 8);
    EXPECT_EQ(found.kx, k.first);
    EXPECT_EQ(found.ky, k.second);
  }
}

TEST(SequenceMaths, AFlatFrameOrOneEdgeDirectionIsDegenerate) {
  const int w = 32, h = 24;
  std::vector<float> flat(w * h, 0.5f), stripes(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) stripes[y * w + x] = static_cast<float>(std::sin(0.7 * y));
  for (const std::vector<float>* image : {&flat, &stripes}) {
    std::vector<float> mean(image->size());
    local_mean_image(view_of(*image, w, h), mean.data(), w);
    const ShiftSums sums = fine_sums(view_of(mean, w, h), view_of(*image, w, h), 0, 0);
    EXPECT_EQ(solve_shift(sums, fine_region(w, h, 0, 0).count(), 0, 0).status,
              static_cast<int>(ShiftStatus::Degenerate));
  }
}

TEST(SequenceMaths, TheWarpsMismatchLanesSumToTheDirectMean) {
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  const int size = 301;
  std::vector<double> pf(size), pr(size);
  for (int i = 0; i < size; ++i) {
    pf[i] = n(rng);
    pr[i] = n(rng);
  }
  for (int lag : {-8, -1, 0, 3, 8}) {
    double direct = 0.0;
    int count = 0;
    for (int i = 0; i < size; ++i)
      if (i - lag >= 0 && i - lag < size) {
        direct += (pf[i] - pr[i - lag]) * (pf[i] - pr[i - lag]);
        ++count;
      }
    EXPECT_NEAR(profile_mismatch(pf.data(), pr.data(), size, lag), direct / count, 1e-12 * direct / count);
  }
}

TEST(SequenceMaths, TheCoarseScoresWarpLanesEqualTheSerialScoreBitForBit) {
  // The kernel sums each lane with coarse_product_lane and combines them by shuffles; the CPU takes
  // one pass over the overlap: the same additions in the same order.
  std::mt19937 rng(13);
  std::normal_distribution<double> n(0.0, 1.0);
  const int w = 37, h = 23;
  std::vector<double> means(w * h), other(w * h);
  for (double& v : means) v = n(rng);
  for (double& v : other) v = n(rng);
  CoarseBuffers f, r;
  prepare_coarse(means, w, h, f);
  prepare_coarse(other, w, h, r);
  for (const auto& lag : {std::pair{0, 0}, std::pair{-18, 11}, std::pair{5, -3}, std::pair{18, -11}}) {
    double lanes[kMismatchLanes];
    for (int lane = 0; lane < kMismatchLanes; ++lane)
      lanes[lane] = coarse_product_lane(f.values.data(), r.values.data(), w, h, lag.first, lag.second, lane);
    for (int offset = kMismatchLanes / 2; offset > 0; offset /= 2)
      for (int lane = 0; lane < offset; ++lane) lanes[lane] += lanes[lane + offset];
    EXPECT_EQ(coarse_score_from(lanes[0], f.view(), r.view(), w, h, lag.first, lag.second),
              coarse_score(f.view(), r.view(), w, h, lag.first, lag.second));
  }
  // A frame against itself scores its whole overlap's square root at lag 0: the normalised
  // correlation there is one.
  EXPECT_NEAR(coarse_score(f.view(), f.view(), w, h, 0, 0), std::sqrt(double(w * h)), 1e-9);
}

TEST(SequenceMaths, TheCoarseSearchFindsAShiftOfAQuarterOfTheFrameAndSaysWhenItMatches) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int w = 128, h = 96, big_w = w + 80, big_h = h + 80;
  std::vector<float> scene(big_w * big_h), noise(w * h);
  for (float& v : scene) v = u(rng);
  for (float& v : noise) v = u(rng);
  auto crop = [&](int ox, int oy) {
    std::vector<float> f(w * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) f[y * w + x] = scene[(y - oy + 40) * big_w + (x - ox + 40)];
    return f;
  };
  const CoarseGeometry g = coarse_geometry(w, h);
  const std::vector<float> reference = crop(0, 0), frame = crop(31, -23);
  const CoarseBuffers ref = coarse_image(view_of(reference, w, h), g);
  const CoarseMatch m = best_coarse_match(coarse_scores(coarse_image(view_of(frame, w, h), g).view(), ref.view(), g), g);
  EXPECT_NEAR(m.centre_x, 31, g.factor);
  EXPECT_NEAR(m.centre_y, -23, g.factor);
  EXPECT_GE(m.significance, kDefaultMinMatch);
  const CoarseMatch none =
      best_coarse_match(coarse_scores(coarse_image(view_of(noise, w, h), g).view(), ref.view(), g), g);
  EXPECT_LT(none.significance, kDefaultMinMatch);  // noise matches nothing
}

TEST(SequenceMaths, TheResidualHistogramGivesTheMedianAndTheTail) {
  ResidualStats stats{};
  std::mt19937 rng(4);
  std::normal_distribution<float> n(0.0f, 0.01f);
  std::vector<float> values(20000);
  for (float& v : values) {
    v = n(rng);
    ++stats.histogram[residual_bin(v)];
    ++stats.count;
  }
  std::vector<float> abs(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) abs[i] = std::fabs(values[i]);
  std::nth_element(abs.begin(), abs.begin() + abs.size() / 2, abs.end());
  const double median = abs[abs.size() / 2];
  EXPECT_NEAR(histogram_median(stats.histogram, stats.count), median, 0.02 * median);  // inside one 1/8-octave bin
  EXPECT_NEAR(residual_deviation(stats), 0.01, 0.0005);
  EXPECT_NEAR(residual_tail(stats, 0.01), 0.0, 1e-3);  // Gaussian: beyond 5 deviations, ~6e-7
  EXPECT_EQ(residual_bin(0.0f), 0);
  EXPECT_EQ(residual_bin(1e30f), kResidualBins - 1);
  EXPECT_EQ(residual_bin(-0.5f), residual_bin(0.5f));
}

TEST(SequenceMaths, TheProjectionKernelsTileGivesTheSamePartialsBitForBit) {
  // The kernel copies a tile into shared memory with a pitch of kProjectionTile + 1 and sums it there.
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 1000.0f);
  const int w = 150, h = 70;
  std::vector<float> image(w * h);
  for (float& v : image) v = u(rng);
  const GreyView view = view_of(image, w, h);
  constexpr int T = kProjectionTile;
  for (int ty = 0; ty * T < h; ++ty)
    for (int tx = 0; tx * T < w; ++tx) {
      const int tw = std::min(T, w - tx * T), th = std::min(T, h - ty * T);
      std::vector<float> tile(T * (T + 1));
      for (int y = 0; y < th; ++y)
        for (int x = 0; x < tw; ++x) tile[y * (T + 1) + x] = view.at(tx * T + x, ty * T + y);
      const GreyView t{tile.data(), tw, th, T + 1};
      for (int x = 0; x < tw; ++x)
        ASSERT_EQ(column_partial(t, x, 0, th), column_partial(view, tx * T + x, ty * T, ty * T + th));
      for (int y = 0; y < th; ++y)
        ASSERT_EQ(row_partial(t, y, 0, tw), row_partial(view, ty * T + y, tx * T, tx * T + tw));
    }
}

TEST(SequenceMaths, MonomialsComeByDegree) {
  const int expected[][2] = {{1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}, {4, 0}};
  for (int m = 0; m < 10; ++m) {
    int a = -1, b = -1;
    monomial_exponents(m, a, b);
    EXPECT_EQ(a, expected[m][0]) << m;
    EXPECT_EQ(b, expected[m][1]) << m;
  }
  EXPECT_EQ(moment_count(0), 0);
  EXPECT_EQ(moment_count(2), 5);
  EXPECT_EQ(moment_count(kMaxDegree), kMaxMoments);
  EXPECT_DOUBLE_EQ(monomial(0.5, -2.0, 3), -1.0);  // ex·ey
}

TEST(SequenceMaths, RoundToIntIsFloorOfXPlusAHalf) {
  EXPECT_EQ(round_to_int(-0.5), 0);
  EXPECT_EQ(round_to_int(-1.5), -1);
  EXPECT_EQ(round_to_int(2.5), 3);
  EXPECT_EQ(round_to_int(-2.7), -3);
  EXPECT_EQ(round_to_int(0.49), 0);
}

TEST(SequenceMaths, CholeskySolvesASymmetricPositiveDefiniteSystem) {
  double a[9] = {4, 2, 0.4, 2, 5, 1, 0.4, 1, 3};
  const double a0[9] = {4, 2, 0.4, 2, 5, 1, 0.4, 1, 3};
  double b[3] = {1, -2, 0.5};
  const double b0[3] = {1, -2, 0.5};
  ASSERT_TRUE(cholesky_solve(a, b, 3));
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int j = 0; j < 3; ++j) s += a0[i * 3 + j] * b[j];
    EXPECT_NEAR(s, b0[i], 1e-12);
  }
  double singular[4] = {1, 1, 1, 1}, rhs[2] = {1, 1};
  EXPECT_FALSE(cholesky_solve(singular, rhs, 2));
}

std::vector<HistoryShift> random_history(int count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<HistoryShift> h(count);
  for (HistoryShift& s : h) {
    s.used = 1;
    s.ex = u(rng);
    s.ey = u(rng);
  }
  return h;
}

TEST(SequenceMaths, WeightsMatchTheShiftMomentsWhenGammaIsSmall) {
  double scratch[kMaxMoments * kMaxMoments + kMaxMoments];
  for (int degree = 0; degree <= kMaxDegree; ++degree) {
    const std::vector<HistoryShift> h = random_history(30, 100 + degree);
    WhiteningWeights w;
    compute_weights(h.data(), 30, degree, 1e-10, 64, 64, w, scratch);
    ASSERT_EQ(w.skip, 0);
    double sum = 0.0;
    for (int k = 0; k < 30; ++k) sum += w.c[k];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "degree " << degree;
    for (int m = 0; m < moment_count(degree); ++m) {
      double moment = 0.0;
      for (int k = 0; k < 30; ++k) moment += w.c[k] * monomial(h[k].ex, h[k].ey, m);
      EXPECT_NEAR(moment, 0.0, 1e-5) << "degree " << degree << " monomial " << m;
    }
  }
}

TEST(SequenceMaths, LargeGammaGivesThePlainMeanAndUnusedFramesGetNoWeight) {
  double scratch[kMaxMoments * kMaxMoments + kMaxMoments];
  std::vector<HistoryShift> h = random_history(10, 4);
  h[3].used = 0;
  WhiteningWeights w;
  compute_weights(h.data(), 10, 2, 1e6, 64, 64, w, scratch);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(w.c[k], k == 3 ? 0.0 : 1.0 / 9.0, 1e-5) << k;
  for (HistoryShift& s : h) s.used = 0;
  compute_weights(h.data(), 10, 2, 0.01, 64, 64, w, scratch);
  EXPECT_EQ(w.skip, 1);
}

TEST(SequenceMaths, HistoryShiftsSplitIntoAnIntegerOffsetAndAResidual) {
  ShiftRecord current, past;
  current.status = static_cast<int>(ShiftStatus::Estimated);
  past.status = static_cast<int>(ShiftStatus::Estimated);
  current.dx = 1.2;
  current.dy = -0.4;
  past.dx = -1.1;
  past.dy = 1.8;
  const HistoryShift h = history_shift(past, current);
  EXPECT_EQ(h.used, 1);
  EXPECT_EQ(h.kx, -2);  // -2.3
  EXPECT_EQ(h.ky, 2);   // 2.2
  EXPECT_NEAR(h.ex, -0.3, 1e-12);
  EXPECT_NEAR(h.ey, 0.2, 1e-12);
  past.status = static_cast<int>(ShiftStatus::Degenerate);
  EXPECT_EQ(history_shift(past, current).used, 0);
}

TEST(SequenceMaths, TheKernelsFloatWhiteningAgreesWithTheDoubleReference) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(0.1f, 0.9f);
  const int w = 23, h = 17, n = 20;
  std::vector<std::vector<float>> frames(n + 1, std::vector<float>(w * h));
  for (auto& f : frames)
    for (float& v : f) v = u(rng);
  WhiteningWeights wts;
  wts.count = n;
  wts.skip = 0;
  for (int j = 0; j < n; ++j) {
    wts.c[j] = 1.0f / n;
    wts.kx[j] = j % 5 - 2;
    wts.ky[j] = j % 3 - 1;
  }
  std::vector<const float*> past(n);
  for (int j = 0; j < n; ++j) past[j] = frames[j + 1].data();
  const GreyView current = view_of(frames[0], w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      EXPECT_NEAR(whiten_pixel<float>(current, past.data(), wts, x, y), whiten_pixel<double>(current, past.data(), wts, x, y),
                  2e-6);
}

TEST(SequenceOrder, FramesComeInNaturalOrder) {
  std::vector<std::string> names = {"frame_10.png", "frame_2.png", "frame_1.png", "frame_100.png", "Frame_3.png",
                                    "frame_02b.png"};
  std::sort(names.begin(), names.end(), natural_less);
  const std::vector<std::string> expected = {"Frame_3.png", "frame_1.png", "frame_2.png", "frame_02b.png",
                                             "frame_10.png", "frame_100.png"};
  EXPECT_EQ(names, expected);
  EXPECT_TRUE(natural_less("img9", "img10"));
  EXPECT_FALSE(natural_less("img10", "img9"));
  EXPECT_TRUE(natural_less("a1b2", "a1b10"));
  EXPECT_FALSE(natural_less("same", "same"));
  EXPECT_NE(natural_less("x01", "x1"), natural_less("x1", "x01"));  // a strict order even for equal values
}

}  // namespace
}  // namespace gausslab
