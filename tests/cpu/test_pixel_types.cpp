// The pixel types: names, the half conversions, loads and stores by each type's rule, HostImage,
// and the CPU filter and the float64 reference on every format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/half.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {
namespace {

TEST(PixelFormats, DescribeTheirSamplesAndChannels) {
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto f = static_cast<PixelFormat>(i);
    EXPECT_EQ(make_pixel_format(sample_type(f), channel_count(f)), f);
    EXPECT_EQ(pixel_format_from_string(to_string(f)), f) << to_string(f);
    EXPECT_EQ(bytes_per_pixel(f), bytes_per_sample(sample_type(f)) * channel_count(f));
  }
  EXPECT_EQ(channel_count(PixelFormat::Rgba8), 4);
  EXPECT_EQ(sample_type(PixelFormat::Rgba8), SampleType::U8);
  EXPECT_EQ(channel_count(PixelFormat::F32), 1);
  EXPECT_EQ(sample_type(PixelFormat::F32), SampleType::F32);
  EXPECT_EQ(bytes_per_pixel(PixelFormat::Rgba16), 8u);
  EXPECT_EQ(bytes_per_pixel(PixelFormat::Rgb16F), 6u);
  EXPECT_EQ(bytes_per_pixel(PixelFormat::Rgba32F), 16u);
  EXPECT_STREQ(to_string(PixelFormat::Rgba8), "rgba8");
  EXPECT_STREQ(to_string(PixelFormat::F32), "f32");
  EXPECT_EQ(describe(PixelFormat::Rgb16), "16-bit RGB");
  EXPECT_FALSE(pixel_format_from_string("rgba9"));
  EXPECT_EQ(sample_type_from_string("u16"), SampleType::U16);
  EXPECT_FALSE(sample_type_from_string("u32"));
}

TEST(Half, EveryHalfConvertsToFloatAndBackUnchanged) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float f = half_to_float(h);
    const _Float16 native = static_cast<_Float16>(f);
    std::uint16_t native_bits;
    std::memcpy(&native_bits, &native, sizeof native_bits);
    if (std::isnan(f)) {
      EXPECT_TRUE((float_to_half(f) & 0x7c00u) == 0x7c00u && (float_to_half(f) & 0x3ffu) != 0) << bits;
      continue;
    }
    ASSERT_EQ(float_to_half(f), h) << "half bits " << bits;
    ASSERT_EQ(static_cast<float>(native), f) << "half bits " << bits;  // half_to_float agrees with the compiler's
  }
}

TEST(Half, FloatsRoundToNearestEvenAsTheCompilersConversion) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any_bits;
  auto check = [](float f) {
    const _Float16 native = static_cast<_Float16>(f);
    std::uint16_t native_bits;
    std::memcpy(&native_bits, &native, sizeof native_bits);
    if (std::isnan(f)) return;
    ASSERT_EQ(float_to_half(f), native_bits) << "float " << f << " bits " << float_bits(f);
  };
  for (int i = 0; i < 2000000; ++i) check(float_from_bits(any_bits(rng)));
  // Around every tie and boundary: the halfway points between halves, the largest half, subnormals.
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {
    const float lo = half_to_float(static_cast<std::uint16_t>(h));
    const float hi = half_to_float(static_cast<std::uint16_t>(h + 1));
    const float mid = lo + (hi - lo) / 2;
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), -mid}) check(f);
  }
  EXPECT_EQ(float_to_half(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half(65519.99f), 0x7bffu);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00u);  // the first float that rounds to infinity
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00u);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xfc00u);
}

TEST(SampleStores, IntegersRoundHalfUpAndSaturateFloatsKeepIeeeValues) {
  HostImage u16(3, 1, PixelFormat::Grey16);
  u16.set_sample(0, 0, 0, 1000.5f);
  u16.set_sample(1, 0, 0, -3.0f);
  u16.set_sample(2, 0, 0, 70000.0f);
  EXPECT_EQ(u16.row<std::uint16_t>(0)[0], 1001);
  EXPECT_EQ(u16.row<std::uint16_t>(0)[1], 0);
  EXPECT_EQ(u16.row<std::uint16_t>(0)[2], 65535);
  HostImage u8(2, 1, PixelFormat::Grey8);
  u8.set_sample(0, 0, 0, 12.5f, IntegerRounding::Floor);
  u8.set_sample(1, 0, 0, 12.01f, IntegerRounding::Ceil);
  EXPECT_EQ(u8.row<std::uint8_t>(0)[0], 12);
  EXPECT_EQ(u8.row<std::uint8_t>(0)[1], 13);
  HostImage f32(2, 1, PixelFormat::F32);
  f32.set_sample(0, 0, 0, std::numeric_limits<float>::quiet_NaN());
  f32.set_sample(1, 0, 0, -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f32.sample(0, 0, 0)));
  EXPECT_EQ(f32.sample(1, 0, 0), -std::numeric_limits<float>::infinity());
  HostImage f16(2, 1, PixelFormat::Grey16F);
  f16.set_sample(0, 0, 0, 1e6f);
  f16.set_sample(1, 0, 0, 0.1f);
  EXPECT_EQ(f16.sample(0, 0, 0), std::numeric_limits<float>::infinity());  // beyond 65504: infinity, as IEEE
  EXPECT_EQ(f16.sample(1, 0, 0), half_to_float(float_to_half(0.1f)));
}

TEST(SampleConversions, NominalScalingMapsRangesAndCountsClamps) {
  HostImage u16(3, 1, PixelFormat::Grey16);
  u16.row<std::uint16_t>(0)[0] = 65535;
  u16.row<std::uint16_t>(0)[1] = 257;
  u16.row<std::uint16_t>(0)[2] = 128;  // 128 × 255 / 65535 = 0.498: rounds to 0
  const HostImage u8 = convert_samples(u16.view(), SampleType::U8, SampleScaling::Nominal);
  EXPECT_EQ(u8.format(), PixelFormat::Grey8);
  EXPECT_EQ(u8.row<std::uint8_t>(0)[0], 255);
  EXPECT_EQ(u8.row<std::uint8_t>(0)[1], 1);
  EXPECT_EQ(u8.row<std::uint8_t>(0)[2], 0);
  HostImage f(2, 1, PixelFormat::F32);
  f.row<float>(0)[0] = 1.5f;
  f.row<float>(0)[1] = 0.25f;
  std::size_t clamped = 0;
  const HostImage g = convert_samples(f.view(), SampleType::U16, SampleScaling::Nominal, IntegerRounding::Nearest,
                                      &clamped);
  EXPECT_EQ(clamped, 1u);
  EXPECT_EQ(g.row<std::uint16_t>(0)[0], 65535);
  EXPECT_EQ(g.row<std::uint16_t>(0)[1], 16384);  // 0.25 × 65535 = 16383.75
}

TEST(SampleConversions, ChannelsAreReplicatedOrAddedOpaque) {
  HostImage grey(1, 1, PixelFormat::Grey16);
  grey.row<std::uint16_t>(0)[0] = 1234;
  const HostImage rgba = convert_channels(grey.view(), 4);
  EXPECT_EQ(rgba.format(), PixelFormat::Rgba16);
  EXPECT_EQ(rgba.sample(0, 0, 0), 1234.0f);
  EXPECT_EQ(rgba.sample(0, 0, 2), 1234.0f);
  EXPECT_EQ(rgba.sample(0, 0, 3), 65535.0f);
  const ImageRgba8 shown = to_rgba8(grey.view());
  EXPECT_EQ(shown.at(0, 0).r, to_unorm8(1234.0f * 255.0f / 65535.0f));
  EXPECT_EQ(shown.at(0, 0).a, 255);
}

TEST(FormatSets, RefuseWithTheFormatsAMethodTakes) {
  MethodInfo info;
  info.id = "some_method";
  EXPECT_TRUE(format_refusal(info, PixelFormat::Rgba8).empty());
  const std::string reason = format_refusal(info, PixelFormat::Rgba16);
  EXPECT_NE(reason.find("16-bit RGBA"), std::string::npos) << reason;
  EXPECT_NE(reason.find("rgba8, f32"), std::string::npos) << reason;
  info.formats = FormatSet::of_samples({SampleType::U16});
  EXPECT_TRUE(format_refusal(info, PixelFormat::Rgb16).empty());
  EXPECT_FALSE(format_refusal(info, PixelFormat::Rgb8).empty());
  EXPECT_EQ(FormatSet::all().describe(), "every format");
}

// The CPU filter on every format against the float64 reference, judged by the type's own bound.
TEST(CpuFilter, EveryFormatMeetsItsBoundAgainstTheReference) {
  std::mt19937 rng(11);
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto format = static_cast<PixelFormat>(i);
    const int w = 13, h = 9;
    HostImage src(w, h, format);
    const float top = static_cast<float>(nominal_max(sample_type(format)));
    std::uniform_real_distribution<float> value(0.0f, top);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < channel_count(format); ++c) src.set_sample(x, y, c, value(rng));
    for (BorderMode border : kAllBorderModes) {
      FilterParams params;
      params.sigma = 1.7;
      params.border = border;
      HostImage dst(w, h, format);
      cpu_gaussian_filter(src.view(), dst.view(), params, CpuThreading::Single);
      const AccuracyStats stats =
          compare_with_reference(dst.view(), reference_gaussian(src.view(), params), default_peak(format));
      EXPECT_TRUE(meets(stats, AccuracyBound{}, format))
          << to_string(format) << " " << to_string(border) << ": " << describe(stats);
    }
  }
}

}  // namespace
}  // namespace gausslab
