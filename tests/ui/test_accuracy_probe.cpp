// The viewer's live error against the exact Gaussian (app/accuracy_probe): measured on a worker
// thread, so submitting never waits for the float64 reference; only the newest setting counts; a
// wrong result is reported as out of bound.
#include <gtest/gtest.h>

#include <memory>

#include "accuracy_probe.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {
namespace {

ImageRgba8 crop_of(const ImageRgba8& image, const Rect& region) {
  ImageRgba8 crop(region.width, region.height);
  for (int y = 0; y < region.height; ++y)
    for (int x = 0; x < region.width; ++x) crop.at(x, y) = image.at(region.x + x, region.y + y);
  return crop;
}

// A job as the viewer makes it: the CPU filter's result (within 0.51 levels of the reference).
AccuracyJob job_for(std::shared_ptr<const ImageRgba8> source, double sigma, BorderMode border,
                    std::uint64_t generation) {
  FilterParams params;
  params.sigma = sigma;
  params.border = border;
  ImageRgba8 filtered(source->width(), source->height());
  cpu_gaussian_filter(source->view(), filtered.view(), params, CpuThreading::OpenMP);
  AccuracyJob job;
  job.generation = generation;
  job.source = source;
  job.params = params;
  job.region = accuracy_crop(source->width(), source->height());
  job.crop = crop_of(filtered, job.region);
  job.bound = AccuracyBound{1e-5, 0.51};
  return job;
}

TEST(AccuracyProbe, CropIsTheTopLeftCornerAtMost512Square) {
  const Rect small = accuracy_crop(37, 5);
  EXPECT_EQ(small.x, 0);
  EXPECT_EQ(small.y, 0);
  EXPECT_EQ(small.width, 37);
  EXPECT_EQ(small.height, 5);
  const Rect large = accuracy_crop(3840, 2160);
  EXPECT_EQ(large.width, kAccuracyCropSide);
  EXPECT_EQ(large.height, kAccuracyCropSide);
}

TEST(AccuracyProbe, ACorrectResultIsWithinItsBound) {
  auto source = std::make_shared<const ImageRgba8>(make_random_rgba8(61, 47, 7));
  AccuracyProbe probe;
  probe.submit(job_for(source, 2.5, BorderMode::Mirror, 1));
  probe.wait_idle();
  const std::optional<AccuracyResult> result = probe.latest();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->generation, 1u);
  EXPECT_TRUE(result->error.empty()) << result->error;
  EXPECT_EQ(result->stats.samples, 61u * 47u * 4u);
  EXPECT_LE(result->stats.max_abs_error, 0.51);
  EXPECT_GT(result->stats.psnr_db, 50.0);
  EXPECT_TRUE(result->within_bound());
}

TEST(AccuracyProbe, AWrongResultIsReportedOutOfBound) {
  auto source = std::make_shared<const ImageRgba8>(make_random_rgba8(40, 30, 11));
  AccuracyJob job = job_for(source, 1.5, BorderMode::Wrap, 5);
  job.crop.at(3, 4).r = static_cast<std::uint8_t>(job.crop.at(3, 4).r ^ 0x40);  // 64 levels off
  AccuracyProbe probe;
  probe.submit(job);
  probe.wait_idle();
  const std::optional<AccuracyResult> result = probe.latest();
  ASSERT_TRUE(result.has_value());
  EXPECT_GE(result->stats.max_abs_error, 63.0);
  EXPECT_FALSE(result->within_bound());
}

TEST(AccuracyProbe, SubmitDoesNotWaitForTheReference) {
  // A 512×512 crop at sigma 60 costs the float64 reference about 0.5 G multiply-adds (seconds on
  // one core): submit must return at once, before any result exists.
  auto source = std::make_shared<const ImageRgba8>(make_random_rgba8(600, 520, 3));
  AccuracyJob job = job_for(source, 60.0, BorderMode::Reflect, 9);
  AccuracyProbe probe;
  probe.submit(std::move(job));
  EXPECT_FALSE(probe.latest().has_value()) << "the result was there as soon as submit returned: it ran on the caller's thread";
  probe.wait_idle();
  ASSERT_TRUE(probe.latest().has_value());
  EXPECT_EQ(probe.latest()->generation, 9u);
}

TEST(AccuracyProbe, OnlyTheNewestSettingIsMeasuredLast) {
  auto source = std::make_shared<const ImageRgba8>(make_random_rgba8(90, 70, 5));
  AccuracyProbe probe;
  for (std::uint64_t generation = 1; generation <= 4; ++generation)
    probe.submit(job_for(source, 1.0 + static_cast<double>(generation), BorderMode::Nearest, generation));
  probe.wait_idle();
  const std::optional<AccuracyResult> result = probe.latest();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->generation, 4u);  // older waiting jobs were replaced, never measured after it
  EXPECT_TRUE(result->within_bound());
}

}  // namespace
}  // namespace gausslab
