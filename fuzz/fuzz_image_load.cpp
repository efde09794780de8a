// Fuzz target: the image loader as a batch or the viewer calls it, from bytes in memory, with the
// format found from the bytes. Smaller limits than the defaults (64 MiB decoded) so that libFuzzer
// can run fast; an allocation beyond them (libFuzzer's -malloc_limit_mb) is a bug: the limits are
// checked before allocation. Anything but a decoded image or an ImageLoadError is a failure.
#include <cstddef>
#include <cstdint>

#include "gausslab/core/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gausslab::ImageLimits limits;
  limits.max_width = 16384;
  limits.max_height = 16384;
  limits.max_pixels = 1u << 22;
  limits.max_decoded_bytes = 64u << 20;
  limits.max_file_bytes = 16u << 20;
  try {
    const gausslab::LoadedImage loaded = gausslab::load_image_from_memory(data, size, "fuzz-input", limits);
    if (loaded.image.empty() || loaded.channels() < 1 || loaded.channels() > 4) __builtin_trap();
    gausslab::reduce_to_rgba8(loaded);  // what an 8-bit consumer does with it
  } catch (const gausslab::ImageLoadError&) {
  }
  return 0;
}
