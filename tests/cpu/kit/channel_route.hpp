#pragma once
// A GPU method's CPU model on every pixel format the method claims but runs through GpuMethod's
// channel adapter (gpu_method.hpp): the image is unpacked into F32 planes (or widened to RGBA8) by
// the adapter kernels' own per-pixel code (channel_planes.cuh), the method's F32 (or RGBA8) model
// runs on each, and the result is packed by the format's store rule, as run() does on the GPU. The
// result must meet the method's own bound for that format against the float64 reference.
#include <functional>
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/gpu_method.hpp"

namespace gausslab::test {

using F32Model = std::function<ImageF32(const ImageF32&, const FilterParams&)>;
using Rgba8Model = std::function<ImageRgba8(const ImageRgba8&, const FilterParams&)>;

// `src` filtered as `method` runs its format: through the route's model, plane by plane.
HostImage run_routed(const GpuMethod& method, const HostImage& src, const FilterParams& params, const F32Model& f32,
                     const Rgba8Model& rgba8);

// A random image of any format over the type's nominal range (levels, or [0, 1) for floats).
HostImage random_host_image(int width, int height, PixelFormat format, std::uint32_t seed);

// Every format the registered `method_id` claims and routes through the adapter, on odd-sized random
// images at `sigmas`, a border per format in turn (the models' own tests run every border): each
// result within the method's bound for that format. Returns the number of formats checked (at one
// sigma at least: the others the method refuses for that image).
// Integer formats are stored by `rounding` (the bound then the method's for it).
int expect_routed_formats_meet_their_bound(const std::string& method_id, const std::vector<double>& sigmas,
                                           const F32Model& f32, const Rgba8Model& rgba8 = {},
                                           IntegerRounding rounding = IntegerRounding::Nearest);

}  // namespace gausslab::test
