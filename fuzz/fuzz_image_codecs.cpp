// Fuzz target: our own decoders (BMP, TGA, PNM) called directly, the first byte choosing one, so
// that libFuzzer spends its time inside the code this project wrote rather than in finding
// signatures. The same limits as fuzz_image_load.
#include <cstddef>
#include <cstdint>
#include <string>

#include "codecs/codecs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  gausslab::ImageLimits limits;
  limits.max_width = 16384;
  limits.max_height = 16384;
  limits.max_pixels = 1u << 22;
  limits.max_decoded_bytes = 64u << 20;
  static const std::string name = "fuzz-input";
  const gausslab::codec::DecodeInput in{data + 1, size - 1, name, limits};
  try {
    switch (data[0] % 3) {
      case 0: gausslab::codec::decode_bmp(in); break;
      case 1: gausslab::codec::decode_tga(in); break;
      default: gausslab::codec::decode_pnm(in); break;
    }
  } catch (const gausslab::ImageLoadError&) {
  }
  return 0;
}
