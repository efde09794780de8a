// Fuzz targets: one image reader each, called directly (no signature to find first), built once per
// reader with GAUSSLAB_FUZZ_READER naming it (fuzz/clang/CMakeLists.txt): fuzz_tiff (libtiff, both
// of our paths), fuzz_gif (giflib), fuzz_exr (OpenEXR), fuzz_fits (cfitsio), fuzz_npy_image (ours).
// The same limits as fuzz_image_load (64 MiB decoded). Anything but an image or an ImageLoadError
// fails, and so does a decoded image that does not come back bit for bit when written in the same
// format and read again (for the formats gausslab writes), or that reduce_to_rgba8 cannot show.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/codecs.hpp"

#define GAUSSLAB_DECODE_(reader) gausslab::codec::decode_##reader
#define GAUSSLAB_DECODE(reader) GAUSSLAB_DECODE_(reader)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gausslab::ImageLimits limits;
  limits.max_width = 16384;
  limits.max_height = 16384;
  limits.max_pixels = 1u << 22;
  limits.max_decoded_bytes = 64u << 20;
  limits.max_file_bytes = 16u << 20;
  static const std::string name = "fuzz-input";
  const gausslab::codec::DecodeInput in{data, size, name, limits};
  gausslab::LoadedImage loaded;
  try {
    loaded = GAUSSLAB_DECODE(GAUSSLAB_FUZZ_READER)(in);
  } catch (const gausslab::ImageLoadError&) {
    return 0;
  }
  if (loaded.image.empty() || loaded.channels() < 1 || loaded.channels() > 4 || loaded.source_type.empty())
    __builtin_trap();
  const gausslab::LoadedRgba8 shown = gausslab::reduce_to_rgba8(loaded);
  if (shown.image.width() != loaded.image.width() || shown.source_channels != loaded.channels()) __builtin_trap();
#ifdef GAUSSLAB_FUZZ_WRITER
  const gausslab::ImageFormat format = gausslab::ImageFormat::GAUSSLAB_FUZZ_WRITER;
  if (!gausslab::check_output_type(format, loaded.image.format()).empty()) return 0;
  const std::vector<unsigned char> bytes = gausslab::encode_image(loaded.image.view(), format);
  const gausslab::codec::DecodeInput again{bytes.data(), bytes.size(), name, limits};
  const gausslab::LoadedImage back = GAUSSLAB_DECODE(GAUSSLAB_FUZZ_READER)(again);
  if (!(back.image == loaded.image)) __builtin_trap();
#endif
  return 0;
}
