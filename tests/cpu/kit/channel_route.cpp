#include "kit/channel_route.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "gausslab/cuda/channel_planes.cuh"
#include "gausslab/cuda/registry.hpp"
#include "kit/model_accuracy.hpp"

namespace gausslab::test {

namespace {

using channels::PlaneLayout;

template <SampleType S>
HostImage through_float_planes(const HostImage& src, const FilterParams& params, const F32Model& f32) {
  const int w = src.width(), h = src.height(), planes = src.channels();
  const PlaneLayout layout = channels::plane_layout(w, h, 0, planes, sizeof(float));
  std::vector<unsigned char> in(channels::planes_bytes(layout)), out(channels::planes_bytes(layout));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) channels::unpack_pixel<S>(src.view(), layout, x, y, in.data());
  for (int c = 0; c < planes; ++c) {
    ImageF32 plane(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) plane.at(x, y) = *channels::plane_element<float>(in.data(), layout, c, x, y);
    const ImageF32 filtered = f32(plane, params);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) *channels::plane_element<float>(out.data(), layout, c, x, y) = filtered.at(x, y);
  }
  HostImage result(w, h, src.format());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) channels::pack_pixel<S>(out.data(), layout, x, y, result.view(), params.rounding);
  return result;
}

HostImage through_rgba8(const HostImage& src, const FilterParams& params, const Rgba8Model& rgba8) {
  const int w = src.width(), h = src.height();
  const PlaneLayout layout = channels::plane_layout(w, h, 0, 1, 4);
  std::vector<unsigned char> wide(channels::planes_bytes(layout));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) channels::widen_pixel(src.view(), src.channels(), layout, x, y, wide.data());
  ImageRgba8 image(w, h);
  for (int y = 0; y < h; ++y)
    std::memcpy(&image.at(0, y), wide.data() + static_cast<std::size_t>(y) * layout.pitch_bytes, image.pitch_bytes());
  const ImageRgba8 filtered = rgba8(image, params);
  for (int y = 0; y < h; ++y)
    std::memcpy(wide.data() + static_cast<std::size_t>(y) * layout.pitch_bytes, &filtered.at(0, y),
                image.pitch_bytes());
  HostImage result(w, h, src.format());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) channels::narrow_pixel(wide.data(), layout, src.channels(), x, y, result.view());
  return result;
}

}  // namespace

HostImage run_routed(const GpuMethod& method, const HostImage& src, const FilterParams& params, const F32Model& f32,
                     const Rgba8Model& rgba8) {
  switch (method.route(src.format())) {
    case GpuMethod::Route::FloatPlanes:
      switch (sample_type(src.format())) {
        case SampleType::U8: return through_float_planes<SampleType::U8>(src, params, f32);
        case SampleType::U16: return through_float_planes<SampleType::U16>(src, params, f32);
        case SampleType::F16: return through_float_planes<SampleType::F16>(src, params, f32);
        default: return through_float_planes<SampleType::F32>(src, params, f32);
      }
    case GpuMethod::Route::WidenToRgba8:
      if (!rgba8) throw std::logic_error(method.info().id + " widens to RGBA8 but the test gave no RGBA8 model");
      return through_rgba8(src, params, rgba8);
    default: throw std::logic_error(method.info().id + " runs " + to_string(src.format()) + " natively");
  }
}

HostImage random_host_image(int width, int height, PixelFormat format, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const SampleType sample = sample_type(format);
  HostImage image(width, height, format);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channel_count(format); ++c) {
        const std::uint32_t r = rng();
        const std::uint32_t levels = static_cast<std::uint32_t>(nominal_max(sample)) + 1;
        const float value =
            is_integer(sample) ? static_cast<float>(r % levels) : static_cast<float>(r >> 8) / 16777216.0f;
        image.set_sample(x, y, c, value);
      }
  return image;
}

int expect_routed_formats_meet_their_bound(const std::string& method_id, const std::vector<double>& sigmas,
                                           const F32Model& f32, const Rgba8Model& rgba8, IntegerRounding rounding) {
  const MethodEntry* entry = find_method(method_id);
  if (!entry) throw std::runtime_error("no method '" + method_id + "' in the registry");
  const std::unique_ptr<Method> method = entry->create();
  const auto* gpu = dynamic_cast<const GpuMethod*>(method.get());
  if (!gpu) throw std::runtime_error(method_id + " is not a GPU method");
  int formats = 0;
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto format = static_cast<PixelFormat>(i);
    if (!entry->info.formats.contains(format) || gpu->route(format) == GpuMethod::Route::Native) continue;
    bool checked = false;
    const BorderMode border = kAllBorderModes[static_cast<std::size_t>(i) % kAllBorderModes.size()];
    const HostImage src = random_host_image(13 + i % 3, 9 + i % 4, format, 31u + static_cast<std::uint32_t>(i));
    for (const double sigma : sigmas) {
      FilterParams params = sigma_params(sigma, border);
      params.rounding = rounding;
      const FilterProblem problem{src.width(), src.height(), format, params};
      if (!method->unsupported_reason(problem).empty()) continue;
      const HostImage result = run_routed(*gpu, src, params, f32, rgba8);
      checked = true;
      const ReferenceCheck check = check_against_reference(src.view(), result.view(), params);
      const AccuracyBound bound = method->accuracy_bound(problem);
      EXPECT_TRUE(meets(check.stats, bound, format))
          << method_id << " through " << to_string(gpu->kernel_format(format)) << ", "
          << describe_case(format, src.width(), src.height(), params) << ": error "
          << bounded_error(check.stats, format) << " against the bound " << bound_for(bound, format) << "; worst "
          << check.worst;
    }
    if (checked) ++formats;
  }
  return formats;
}

}  // namespace gausslab::test
