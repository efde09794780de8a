// separable_texture — row pass then column pass, each reading through a texture object.
//
// Algorithm: the separable convolution of NVIDIA's convolutionTexture sample (V. Podlozhnyuk,
// "Image Convolution with CUDA", 2007): every tap is a texture fetch and the texture cache serves
// the reuse between outputs. Texture objects over pitched linear memory (no copy into arrays), N
// outputs per thread from separable_common.cuh's register window, any radius. 'nearest' and
// 'constant' are the textures' address modes; reflect, mirror and wrap are mapped by index before
// the fetch. A source that cannot be bound is copied into an aligned buffer first ("copy" stage).
// Cost: 2(2r+1) multiply-adds and about 2(2r+1)/N fetches per pixel and channel; global traffic as
// separable_shared's (+8 B per pixel with the copy).
// Limits: images within the device's pitched-2D-texture limits (131072 × 65000 texels and rows of
// 2097120 bytes on the GPUs we know, refused up front), radius 0–2000, all five borders, every format
// (RGBA8, F32, RGBA16 and RGBA32F compiled, the rest as F32 planes, each its own texture); destination
// rows on whole pixels (4, 8, 16 bytes) or samples. Custom separable kernels and --rounding floor/ceil
// as separable_shared (pass_weights, StoreRule in the column pass).
// Accuracy: float32 rounding; the same taps in the same order as separable_shared, bit for bit;
// bound kFloatRoundingBound (accuracy_promise.hpp), half a level more with floor or ceil.
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.206 ms, 1.7× separable_shared's.
// Borders, source alignment, the experiments on its row pass, resources: docs/methods/separable_texture.md.
#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "float_fir_method.hpp"
#include "separable_common.cuh"

namespace gausslab {

namespace {

using namespace separable;

// Pitched-2D-texture limits, refused up front without asking a device: the values CUDA reports
// (cudaDevAttrMaxTexture2DLinearWidth/Height/Pitch) on the NVIDIA GPUs we know. on_prepare checks
// the device's own limits as well and refuses with its numbers.
constexpr int kTextureMaxWidth = 131072;
constexpr int kTextureMaxHeight = 65000;
constexpr std::size_t kTextureMaxPitchBytes = 2097120;
constexpr std::size_t kOwnRowAlignmentBytes = 128;  // rows of this method's own images

// ---- kernels --------------------------------------------------------------------------------------

template <class Texel>
__device__ __forceinline__ AccumOf<Texel> fetch_texel(cudaTextureObject_t texture, int x, int y) {
  return to_accum(tex2D<Texel>(texture, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f));
}

// Copies the padded weights into shared memory; every thread of the block takes part.
__device__ __forceinline__ void load_block_weights(float* s_weights, const float* d_weights, int taps) {
  for (int t = static_cast<int>(threadIdx.x); t < taps; t += static_cast<int>(blockDim.x)) s_weights[t] = d_weights[t];
  __syncthreads();
}

// rows: lines = height, length = width. Reads `source` (Texel), writes the float intermediate.
template <class P, class Texel, class Out>
__global__ void __launch_bounds__(P::kThreads) TextureRowsKernel(LinePass rows, cudaTextureObject_t source,
                                                                 const float* d_weights, char* out,
                                                                 std::size_t out_pitch_bytes) {
  extern __shared__ float s_weights[];
  load_block_weights(s_weights, d_weights, rows.padded_taps);
  using Accum = AccumOf<Texel>;
  texture_rows_work<P, Accum>(
      rows, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(threadIdx.x),
      SharedSpan<float>{s_weights}, [&](int x, int y) { return fetch_texel<Texel>(source, x, y); },
      [&](int x, int y, Accum value) {
        reinterpret_cast<Out*>(out + static_cast<std::size_t>(y) * out_pitch_bytes)[x] = FromAccum<Out>::convert(value);
      });
}

// columns: lines = width, length = height. Reads the intermediate (Texel), writes the destination.
template <class P, class Texel, class Out>
__global__ void __launch_bounds__(P::kThreads) TextureColumnsKernel(LinePass columns, cudaTextureObject_t source,
                                                                    const float* d_weights, char* out,
                                                                    std::size_t out_pitch_bytes, StoreRule rule) {
  extern __shared__ float s_weights[];
  load_block_weights(s_weights, d_weights, columns.padded_taps);
  using Accum = AccumOf<Texel>;
  texture_columns_work<P, Accum>(
      columns, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(threadIdx.x),
      SharedSpan<float>{s_weights}, [&](int x, int y) { return fetch_texel<Texel>(source, x, y); },
      [&](int x, int y, Accum value) {
        reinterpret_cast<Out*>(out + static_cast<std::size_t>(y) * out_pitch_bytes)[x] = store_by<Out>(value, rule);
      });
}

// ---- textures -------------------------------------------------------------------------------------

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

cudaTextureAddressMode address_mode_for(BorderMode border) {
  // Reflect, mirror and wrap are mapped in the kernel; their coordinates never leave the image.
  return border == BorderMode::Constant ? cudaAddressModeBorder : cudaAddressModeClamp;
}

// A texture object over pitched memory, remembered with what it was made for.
struct TextureBinding {
  cudaTextureObject_t object = 0;
  const void* data = nullptr;
  std::size_t pitch_bytes = 0;
  int width = 0, height = 0;
  cudaChannelFormatDesc channel{};
  cudaTextureAddressMode address_mode = cudaAddressModeClamp;
  unsigned long long last_use = 0;  // when a run last read it (least recently used goes first)

  bool matches(const void* d, std::size_t pitch, int w, int h, const cudaChannelFormatDesc& c,
               cudaTextureAddressMode mode) const {
    return object != 0 && d == data && pitch == pitch_bytes && w == width && h == height && mode == address_mode &&
           c.x == channel.x && c.y == channel.y && c.z == channel.z && c.w == channel.w && c.f == channel.f;
  }
};

void destroy(TextureBinding& binding) {
  if (binding.object) GAUSSLAB_CUDA_LOG(cudaDestroyTextureObject(binding.object));
  binding = TextureBinding{};
}

void create(TextureBinding& binding, const void* data, std::size_t pitch_bytes, int width, int height,
            const cudaChannelFormatDesc& channel, cudaTextureAddressMode address_mode) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = const_cast<void*>(data);
  resource.res.pitch2D.desc = channel;
  resource.res.pitch2D.width = static_cast<std::size_t>(width);
  resource.res.pitch2D.height = static_cast<std::size_t>(height);
  resource.res.pitch2D.pitchInBytes = pitch_bytes;
  cudaTextureDesc description{};  // border colour 0
  description.addressMode[0] = address_mode;
  description.addressMode[1] = address_mode;
  description.filterMode = cudaFilterModePoint;  // no interpolation: linear filtering has 8-bit weights
  description.readMode = cudaReadModeElementType;
  description.normalizedCoords = 0;
  cudaTextureObject_t object = 0;
  GAUSSLAB_CUDA_CHECK(cudaCreateTextureObject(&object, &resource, &description, nullptr));
  binding = TextureBinding{object, data, pitch_bytes, width, height, channel, address_mode};
}

// The formats the kernels are compiled for (FloatFirMethod::route); the others run as F32 planes.
using NativeFormats = RgbaAndFloatFormats;

// The texels of the source and of the float intermediate, and the register window's N, of a format.
struct FormatTexels {
  cudaChannelFormatDesc source{};
  cudaChannelFormatDesc intermediate{};
  std::size_t intermediate_bytes = 0;
  int window_outputs = 0;
};
FormatTexels texels_of(PixelFormat format) {
  FormatTexels t;
  dispatch_format(NativeFormats{}, format, [&](auto tag) {
    constexpr PixelFormat F = decltype(tag)::value;
    t = {cudaCreateChannelDesc<PixelStorage<F>>(), cudaCreateChannelDesc<PixelAccum<F>>(), sizeof(PixelAccum<F>),
         TexturePolicyFor<F>::type::kOutputs};
  });
  return t;
}

// What the device allows for pitched 2D textures.
struct TextureLimits {
  int max_width = 0, max_height = 0, max_pitch_bytes = 0;
  std::size_t base_alignment = 0, pitch_alignment = 0;
};

TextureLimits query_texture_limits() {
  int device = 0;
  GAUSSLAB_CUDA_CHECK(cudaGetDevice(&device));
  TextureLimits limits;
  int base = 0, pitch = 0;
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&limits.max_width, cudaDevAttrMaxTexture2DLinearWidth, device));
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&limits.max_height, cudaDevAttrMaxTexture2DLinearHeight, device));
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&limits.max_pitch_bytes, cudaDevAttrMaxTexture2DLinearPitch, device));
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&base, cudaDevAttrTextureAlignment, device));
  GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&pitch, cudaDevAttrTexturePitchAlignment, device));
  limits.base_alignment = static_cast<std::size_t>(base > 0 ? base : 512);
  limits.pitch_alignment = static_cast<std::size_t>(pitch > 0 ? pitch : 32);
  return limits;
}

// A device buffer holding a pitched image whose base and pitch suit a texture.
struct AlignedImage {
  explicit AlignedImage(const RunFence& fence) : buffer(fence) {}
  ScratchBuffer buffer;
  void* data = nullptr;
  std::size_t pitch_bytes = 0;
};

// ---- method ---------------------------------------------------------------------------------------

class SeparableTexture final : public FloatFirMethod {
 public:
  using FloatFirMethod::FloatFirMethod;

  ~SeparableTexture() override {
    fence().wait_for_last_run_logged();  // a texture object is destroyed only after the runs that read it
    for (TextureBinding& binding : source_textures_) destroy(binding);
    destroy(intermediate_texture_);
  }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const std::size_t row_bytes =
        round_up(static_cast<std::size_t>(problem.width) * texels_of(kernel_format(problem.format)).intermediate_bytes,
                 kOwnRowAlignmentBytes);
    if (problem.width > kTextureMaxWidth || problem.height > kTextureMaxHeight || row_bytes > kTextureMaxPitchBytes) {
      char text[300];
      std::snprintf(text, sizeof text,
                    "a %d×%d %s image exceeds the pitched 2D textures that separable_texture binds it and its float "
                    "intermediate to (at most %d×%d texels, rows of %zu bytes; this one needs %zu); use "
                    "separable_shared",
                    problem.width, problem.height, to_string(problem.format), kTextureMaxWidth, kTextureMaxHeight,
                    kTextureMaxPitchBytes, row_bytes);
      return text;
    }
    return {};
  }

  // An unaligned source is copied into an aligned buffer first (the "copy" stage).
  bool reads_source_as_words() const override { return false; }

  void on_prepare(const FilterProblem& problem) override {
    if (!limits_known_) {
      limits_ = query_texture_limits();
      limits_known_ = true;
    }
    const std::size_t intermediate_pitch = aligned_pitch(problem.width, texels_of(problem.format).intermediate_bytes);
    if (problem.width > limits_.max_width || problem.height > limits_.max_height ||
        intermediate_pitch > static_cast<std::size_t>(limits_.max_pitch_bytes)) {
      char text[300];
      std::snprintf(text, sizeof text,
                    "separable_texture: a %d×%d %s image needs a pitched 2D texture of %d×%d texels with %zu-byte rows; "
                    "this GPU allows at most %d×%d texels and %d-byte rows; use separable_shared",
                    problem.width, problem.height, to_string(problem.format), problem.width, problem.height,
                    intermediate_pitch, limits_.max_width, limits_.max_height, limits_.max_pitch_bytes);
      throw std::invalid_argument(text);
    }

    const FilterParams& params = problem.params;
    // The longest kernel, once: a custom pair's two longest masks.
    weights().reserve(2 * static_cast<std::size_t>(padded_tap_count(kMaxMaskTaps / 2, 8)));
    passes_ = pass_weights(params, texels_of(problem.format).window_outputs);
    weights().set(passes_.weights);

    // The intermediate and its texture: rebuilt when the size, format or border's address mode change.
    ensure_aligned_image(intermediate_, problem.width, problem.height, texels_of(problem.format).intermediate_bytes,
                         "float intermediate");
    const cudaChannelFormatDesc channel = texels_of(problem.format).intermediate;
    const cudaTextureAddressMode mode = address_mode_for(params.border);
    if (!intermediate_texture_.matches(intermediate_.data, intermediate_.pitch_bytes, problem.width, problem.height,
                                       channel, mode)) {
      fence().wait_for_last_run();
      destroy(intermediate_texture_);
      create(intermediate_texture_, intermediate_.data, intermediate_.pitch_bytes, problem.width, problem.height,
             channel, mode);
    }
    // The source texture follows the border's address mode and the format too. It is made in run()
    // (it depends on the source's address), but one that no longer fits goes here: prepare may wait
    // for the last run (the viewer prepares on a worker), run() must not (in the viewer's frame that
    // wait lasted as long as the frames queued on the GPU, up to 8 ms on the H100).
    const cudaChannelFormatDesc source = texels_of(problem.format).source;
    for (TextureBinding& binding : source_textures_)
      if (binding.object && (binding.address_mode != mode || binding.channel.x != source.x ||
                             binding.channel.y != source.y || binding.channel.f != source.f)) {
        fence().wait_for_last_run();
        destroy(binding);
      }
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = kernel_problem();
    const std::size_t pixel_bytes = bytes_per_pixel(problem.format);
    const cudaTextureObject_t source = source_texture(src, timer, stream, pixel_bytes);

    const BorderMode border = problem.params.border;
    const float* d_weights = weights().device();
    // The column pass stores by the kernel's divisor and the rounding asked for.
    const StoreRule rule{passes_.divisor, problem.params.rounding};

    dispatch_format(NativeFormats{}, problem.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      using P = typename TexturePolicyFor<F>::type;
      using Storage = typename PixelTraits<F>::Storage;
      using Accum = typename PixelTraits<F>::Accum;
      {
        ScopedStage stage(timer, "rows", stream);
        const LinePass rows{problem.height, problem.width, passes_.row_radius, passes_.row_taps, border};
        TextureRowsKernel<P, Storage, Accum><<<texture_rows_grid<P>(problem.width, problem.height), P::kThreads,
                                               weights_bytes(rows), stream>>>(
            rows, source, d_weights, static_cast<char*>(intermediate_.data), intermediate_.pitch_bytes);
        GAUSSLAB_CUDA_CHECK_LAUNCH("TextureRowsKernel", stream);
      }
      {
        ScopedStage stage(timer, "columns", stream);
        const LinePass columns{problem.width, problem.height, passes_.column_radius, passes_.column_taps, border};
        TextureColumnsKernel<P, Accum, Storage><<<texture_columns_grid<P>(problem.width, problem.height),
                                                  P::kThreads, weights_bytes(columns), stream>>>(
            columns, intermediate_texture_.object, d_weights + passes_.column_offset, static_cast<char*>(dst.data),
            dst.pitch_bytes, rule);
        GAUSSLAB_CUDA_CHECK_LAUNCH("TextureColumnsKernel", stream);
      }
    });
  }

 private:
  // A pass's weights in the block's shared memory.
  static std::size_t weights_bytes(const LinePass& pass) {
    return static_cast<std::size_t>(pass.padded_taps) * sizeof(float);
  }

  // The texture the row pass reads: over `src` itself when it is aligned for a texture, otherwise
  // over an aligned copy made here (the "copy" stage).
  cudaTextureObject_t source_texture(const ConstImageView& src, StageTimer* timer, cudaStream_t stream,
                                     std::size_t pixel_bytes) {
    const bool bindable = reinterpret_cast<std::uintptr_t>(src.data) % limits_.base_alignment == 0 &&
                          src.pitch_bytes % limits_.pitch_alignment == 0 &&
                          src.pitch_bytes <= static_cast<std::size_t>(limits_.max_pitch_bytes);
    const void* data = src.data;
    std::size_t pitch_bytes = src.pitch_bytes;
    if (!bindable) {
      ensure_aligned_image(source_copy_, src.width, src.height, pixel_bytes, "aligned copy of the source");
      ScopedStage stage(timer, "copy", stream);
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(source_copy_.data, source_copy_.pitch_bytes, src.data, src.pitch_bytes,
                                            static_cast<std::size_t>(src.width) * pixel_bytes,
                                            static_cast<std::size_t>(src.height), cudaMemcpyDeviceToDevice, stream));
      data = source_copy_.data;
      pitch_bytes = source_copy_.pitch_bytes;
    }
    // Cached by address: the viewer's source stays put, so this creates one texture per image load.
    // A buffer freed and reallocated at the same address with the same layout reuses the texture,
    // which then reads the new buffer (a texture object holds an address, not an allocation).
    const cudaChannelFormatDesc channel = texels_of(src.format).source;
    const cudaTextureAddressMode mode = address_mode_for(kernel_problem().params.border);
    TextureBinding* lru = &source_textures_[0];
    for (TextureBinding& binding : source_textures_) {
      if (binding.matches(data, pitch_bytes, src.width, src.height, channel, mode)) {
        binding.last_use = ++texture_uses_;
        return binding.object;
      }
      if (binding.last_use < lru->last_use) lru = &binding;
    }
    // A texture is destroyed only after the runs that read it; never one this run's earlier planes
    // read (they are the most recently used, and there are as many bindings as planes).
    fence().wait_for_last_run();
    destroy(*lru);
    create(*lru, data, pitch_bytes, src.width, src.height, channel, mode);
    lru->last_use = ++texture_uses_;
    return lru->object;
  }

  // Makes `image` a width × height image of pixel_bytes-sized pixels with a texture-aligned base and
  // pitch; reallocates (after the last run is done with it) only when it must grow.
  void ensure_aligned_image(AlignedImage& image, int width, int height, std::size_t pixel_bytes, const char* what) {
    const std::size_t pitch = aligned_pitch(width, pixel_bytes);
    const std::size_t bytes = pitch * static_cast<std::size_t>(height) + limits_.base_alignment;
    if (bytes > image.buffer.size_bytes()) {
      // The textures over the old buffer go with it.
      fence().wait_for_last_run();
      if (&image == &intermediate_) destroy(intermediate_texture_);
      if (&image == &source_copy_)
        for (TextureBinding& binding : source_textures_)
          if (binding.data == source_copy_.data) destroy(binding);
      image.buffer.reserve(bytes, std::string("the ") + what + " of " + std::to_string(width) + "×" +
                                      std::to_string(height));
    }
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(image.buffer.data());
    image.data = reinterpret_cast<void*>(round_up(base, limits_.base_alignment));
    image.pitch_bytes = pitch;
  }

  // Rows of our own images: the texture's pitch alignment, and at least a 128-byte cache line.
  std::size_t aligned_pitch(int width, std::size_t pixel_bytes) const {
    const std::size_t alignment =
        limits_.pitch_alignment > kOwnRowAlignmentBytes ? limits_.pitch_alignment : kOwnRowAlignmentBytes;
    return round_up(static_cast<std::size_t>(width) * pixel_bytes, alignment);
  }

  TextureLimits limits_;
  bool limits_known_ = false;
  PassWeights passes_;  // the prepared problem's weights and pass shapes
  AlignedImage intermediate_{fence()};
  AlignedImage source_copy_{fence()};  // only for sources that cannot be bound directly
  TextureBinding intermediate_texture_;
  // The source textures, cached by address: the source's (the viewer's stays put), or the channel
  // adapter's planes, one binding each, so that no plane's texture replaces another's within a run.
  std::array<TextureBinding, 4> source_textures_;
  unsigned long long texture_uses_ = 0;
};

}  // namespace

MethodEntry separable_texture_method() {
  MethodInfo info{"separable_texture", "Separable (texture)",
                  "Row pass then column pass reading through texture objects, 4–8 outputs per thread; 2(2r+1) "
                  "multiply-adds and about 2(2r+1)/N fetches per pixel and channel, r = 4σ",
                  {},
                  Backend::Cuda};
  info.formats = FormatSet::all();  // RGBA8, F32, RGBA16 and RGBA32F compiled, the others as F32 planes
  info.accuracy = accuracy_promise("float32 rounding", kFloatRoundingBound, info.formats);
  info.same_bytes_in_bands = true;
  info.kernels = KernelSupport::Separable;  // any odd masks, a pair, a rank-1 matrix (kernel_taps)
  info.all_roundings = true;
  return {info, [info] { return std::make_unique<SeparableTexture>(info); }};
}

}  // namespace gausslab
