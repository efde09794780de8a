// The pixel types of the kernels and GpuMethod's channel adapter on the CPU: kernel_common.cuh's
// loads and stores (the kernels' conversions) give core's rule for every sample type and every
// awkward value; channel_planes.cuh's per-pixel unpack/pack and widen/narrow (the adapter kernels'
// code) give back every image bit for bit; and every registered GPU method routes each format it
// claims to kernels that exist (a native format, or F32 / RGBA8 for the adapter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gausslab/core/host_image.hpp"
#include "gausslab/cuda/channel_planes.cuh"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using channels::PlaneLayout;

// Values around every boundary of every store rule: ties, the ends of the ranges, beyond them,
// half's largest and its overflow, subnormal halves, signed zeros, infinities and NaN.
std::vector<float> awkward_values() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f,     -0.0f,    0.49999997f, 0.5f,     1.5f,      2.5f,     -0.5f,    -3.0f,    254.5f,
          255.0f,   255.49f,  255.5f,      256.0f,   1000.5f,   65534.5f, 65535.0f, 65535.5f, 70000.0f,
          65504.0f, 65519.9f, 65520.0f,    6.0e-8f,  3.0e-8f,   1.0e-3f,  0.333f,   inf,      -inf,
          std::numeric_limits<float>::quiet_NaN()};
}

template <SampleType S>
void expect_store_follows_core(const char* name) {
  const PixelFormat format = make_pixel_format(S, 1);
  for (const float value : awkward_values()) {
    HostImage kernel(1, 1, format), core(1, 1, format);
    store_sample<S>(kernel.data(), 0, value);
    core.set_sample(0, 0, 0, value);
    if (std::isnan(value) && is_float(S)) {
      EXPECT_TRUE(std::isnan(kernel.sample(0, 0, 0))) << name << ": NaN stays NaN";
      continue;
    }
    EXPECT_EQ(std::memcmp(kernel.data(), core.data(), kernel.size_bytes()), 0)
        << name << " store of " << value << ": " << kernel.sample(0, 0, 0) << " vs " << core.sample(0, 0, 0);
    // And the load is core's, exactly.
    EXPECT_EQ(float_bits(load_sample<S>(kernel.data(), 0)), float_bits(core.sample(0, 0, 0))) << name << " " << value;
  }
}

TEST(PixelConversions, KernelStoresAndLoadsFollowCoresRuleForEverySampleType) {
  expect_store_follows_core<SampleType::U8>("u8");
  expect_store_follows_core<SampleType::U16>("u16");
  expect_store_follows_core<SampleType::F16>("f16");
  expect_store_follows_core<SampleType::F32>("f32");
}

TEST(PixelConversions, EveryHalfConvertsExactlyAndBackAsTheHardwareDoes) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto h = static_cast<unsigned short>(bits);
    const float value = half_value(h);
    ASSERT_EQ(float_bits(value), float_bits(half_to_float(h))) << std::hex << bits;
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(half_value(half_bits(value)))) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(half_bits(value), h) << std::hex << bits;  // every half is a float, and comes back
  }
  EXPECT_EQ(half_bits(65520.0f), 0x7c00u) << "beyond 65504 (from 65520 on) is infinity";
  EXPECT_EQ(half_bits(65519.99f), 0x7bffu) << "below that, 65504";
}

TEST(PixelConversions, VectorStoresRoundEachChannelAndAccumLoadsAreExact) {
  EXPECT_EQ(FromAccum<ushort4>::convert(make_float4(-1.0f, 0.5f, 65535.4f, 70000.0f)).y, 1);
  const ushort3 u = FromAccum<ushort3>::convert(make_float3(1.49f, 1.5f, 65535.6f));
  EXPECT_EQ(u.x, 1);
  EXPECT_EQ(u.y, 2);
  EXPECT_EQ(u.z, 65535);
  const Half2 h = FromAccum<Half2>::convert(make_float2(1.0f, 1e6f));
  EXPECT_EQ(h.x, 0x3c00u);
  EXPECT_EQ(h.y, 0x7c00u);
  const float4 f = to_accum(make_ushort4(0, 1, 32768, 65535));
  EXPECT_EQ(f.z, 32768.0f);
  EXPECT_EQ(f.w, 65535.0f);
  EXPECT_EQ(to_accum_via_i2f(make_ushort4(0, 1, 32768, 65535)).w, 65535.0f);
  EXPECT_EQ(to_accum(Half{0x3555}), half_to_float(0x3555));
  EXPECT_EQ(sizeof(PixelStorage<PixelFormat::Rgb16>), 6u);
  EXPECT_EQ(alignof(PixelStorage<PixelFormat::Rgba16>), 8u);
  EXPECT_EQ(alignof(PixelStorage<PixelFormat::Rgba32F>), 16u);
  EXPECT_EQ(pixel_alignment(PixelFormat::Rgba16), alignof(PixelStorage<PixelFormat::Rgba16>));
  EXPECT_EQ(pixel_alignment(PixelFormat::Rgb32F), alignof(PixelStorage<PixelFormat::Rgb32F>));
  EXPECT_EQ(pixel_alignment(PixelFormat::GreyAlpha16F), alignof(PixelStorage<PixelFormat::GreyAlpha16F>));
}

// A random image of `format` whose samples cover the type: every level, half bit patterns with
// infinities and NaN, floats with a few infinities and NaN.
HostImage random_samples(int width, int height, PixelFormat format, std::uint32_t seed) {
  std::mt19937 rng(seed);
  HostImage image(width, height, format);
  const std::size_t samples = image.pixel_count() * static_cast<std::size_t>(image.channels());
  for (std::size_t i = 0; i < samples; ++i) {
    const std::uint32_t r = rng();
    switch (sample_type(format)) {
      case SampleType::U8: image.data()[i] = static_cast<unsigned char>(r); break;
      case SampleType::U16:
      case SampleType::F16: std::memcpy(image.data() + 2 * i, &r, 2); break;
      default: {
        float value = static_cast<float>(r % 100000) / 997.0f;
        if (r % 61 == 0) value = std::numeric_limits<float>::infinity();
        if (r % 67 == 0) value = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(image.data() + 4 * i, &value, 4);
      }
    }
  }
  return image;
}

// The same pixel, NaN as NaN (its payload may change: the hardware's f16 conversion quiets it).
bool same_samples(const HostImage& a, const HostImage& b, std::string& where) {
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x)
      for (int c = 0; c < a.channels(); ++c) {
        const float u = a.sample(x, y, c), v = b.sample(x, y, c);
        if (std::isnan(u) && std::isnan(v)) continue;
        if (float_bits(u) != float_bits(v)) {
          where = "(" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) + ": " +
                  std::to_string(u) + " came back as " + std::to_string(v);
          return false;
        }
      }
  return true;
}

// The adapter's kernels, one thread per pixel, on host memory (the planes with a halo read the image
// around a view of its core).
template <SampleType S>
HostImage through_planes(const HostImage& image, int halo) {
  const int w = image.width() - 2 * halo, h = image.height() - 2 * halo;
  const int channels = image.channels();
  const PlaneLayout layout = channels::plane_layout(w, h, halo, channels, sizeof(float));
  std::vector<unsigned char> planes(channels::planes_bytes(layout), 0xff);
  const ConstImageView whole = image.view();
  const std::size_t halo_bytes = static_cast<std::size_t>(halo) * bytes_per_pixel(image.format());
  const ConstImageView core(whole.row<unsigned char>(halo) + halo_bytes, w, h, whole.pitch_bytes, image.format());
  for (int y = -halo; y < h + halo; ++y)
    for (int x = -halo; x < w + halo; ++x) channels::unpack_pixel<S>(core, layout, x, y, planes.data());
  // Every plane element of the halo too equals the image's sample.
  for (int c = 0; c < channels; ++c)
    for (int y = -halo; y < h + halo; ++y)
      for (int x = -halo; x < w + halo; ++x) {
        const float in = image.sample(x + halo, y + halo, c);
        const float plane = *channels::plane_element<float>(planes.data(), layout, c, x, y);
        if (!(std::isnan(in) && std::isnan(plane))) {
          EXPECT_EQ(float_bits(plane), float_bits(in)) << x << ", " << y;
        }
      }
  HostImage out(w, h, image.format());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) channels::pack_pixel<S>(planes.data(), layout, x, y, out.view());
  return out;
}

template <SampleType S>
void expect_planes_give_the_image_back() {
  for (int channels = 1; channels <= 4; ++channels) {
    const PixelFormat format = make_pixel_format(S, channels);
    for (const int halo : {0, 3}) {
      const HostImage image = random_samples(13 + 2 * halo, 7 + 2 * halo, format, 5u + static_cast<unsigned>(channels));
      const HostImage back = through_planes<S>(image, halo);
      HostImage core(back.width(), back.height(), format);
      for (int y = 0; y < back.height(); ++y)
        std::memcpy(core.row<unsigned char>(y),
                    image.row<unsigned char>(y + halo) + static_cast<std::size_t>(halo) * bytes_per_pixel(format),
                    core.pitch_bytes());
      std::string where;
      EXPECT_TRUE(same_samples(core, back, where)) << to_string(format) << ", halo " << halo << ": " << where;
    }
  }
}

TEST(ChannelPlanes, UnpackingIntoFloatPlanesAndPackingGiveEveryFormatBackExactly) {
  expect_planes_give_the_image_back<SampleType::U8>();
  expect_planes_give_the_image_back<SampleType::U16>();
  expect_planes_give_the_image_back<SampleType::F16>();
  expect_planes_give_the_image_back<SampleType::F32>();
}

TEST(ChannelPlanes, WideningToRgba8ZeroesTheMissingChannelsAndNarrowingGivesTheImageBack) {
  for (int channels = 1; channels <= 4; ++channels) {
    const PixelFormat format = make_pixel_format(SampleType::U8, channels);
    const HostImage image = random_samples(11, 5, format, 9u);
    const PlaneLayout layout = channels::plane_layout(11, 5, 0, 1, 4);
    std::vector<unsigned char> wide(channels::planes_bytes(layout), 0xff);
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 11; ++x) channels::widen_pixel(image.view(), channels, layout, x, y, wide.data());
    HostImage back(11, 5, format);
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 11; ++x) {
        const uchar4 p = *channels::plane_element<uchar4>(wide.data(), layout, 0, x, y);
        const unsigned char lanes[4] = {p.x, p.y, p.z, p.w};
        for (int c = channels; c < 4; ++c) EXPECT_EQ(lanes[c], 0) << to_string(format) << " channel " << c;
        channels::narrow_pixel(wide.data(), layout, channels, x, y, back.view());
      }
    EXPECT_TRUE(back == image) << to_string(format);
  }
}

// Each format a GPU method claims reaches kernels it has: natively, or through F32 or RGBA8 kernels it
// runs natively; the adapter's views need only whole samples, a native one whole pixels.
TEST(ChannelPlanes, EveryGpuMethodRoutesEachFormatItClaimsToKernelsItHas) {
  int routed = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || entry.info.id == "auto" || entry.info.id == "auto_exact") continue;
    const std::unique_ptr<Method> method = entry.create();
    const auto* gpu = dynamic_cast<const GpuMethod*>(method.get());
    ASSERT_NE(gpu, nullptr) << entry.info.id;
    for (int i = 0; i < kPixelFormatCount; ++i) {
      const auto format = static_cast<PixelFormat>(i);
      if (!entry.info.formats.contains(format)) continue;
      const PixelFormat kernel = gpu->kernel_format(format);
      EXPECT_TRUE(entry.info.formats.contains(kernel)) << entry.info.id << ": " << to_string(format);
      EXPECT_EQ(gpu->route(kernel), GpuMethod::Route::Native) << entry.info.id << ": " << to_string(format);
      switch (gpu->route(format)) {
        case GpuMethod::Route::Native: EXPECT_EQ(gpu->row_alignment(format), pixel_alignment(format)); break;
        case GpuMethod::Route::WidenToRgba8:
          EXPECT_EQ(sample_type(format), SampleType::U8) << entry.info.id;
          EXPECT_EQ(kernel, PixelFormat::Rgba8);
          ++routed;
          break;
        case GpuMethod::Route::FloatPlanes:
          EXPECT_EQ(kernel, PixelFormat::F32);
          EXPECT_EQ(gpu->row_alignment(format), bytes_per_sample(sample_type(format)));
          ++routed;
          break;
      }
    }
  }
  EXPECT_GT(routed, 0);
}

}  // namespace
}  // namespace gausslab
