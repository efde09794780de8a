#pragma once
// The host standing in for CUDA in the pixel-buffer tests: writes an image into a mapped buffer
// whose rows are pitch_bytes apart (the padding bytes are left as they were).
#include <cstddef>
#include <cstring>

#include "gausslab/core/image.hpp"

namespace gausslab::test {

inline void write_rows(void* buffer, std::size_t pitch_bytes, const ImageRgba8& image) {
  for (int y = 0; y < image.height(); ++y)
    std::memcpy(static_cast<char*>(buffer) + pitch_bytes * static_cast<std::size_t>(y), &image.at(0, y),
                static_cast<std::size_t>(image.width()) * sizeof(Rgba8));
}

}  // namespace gausslab::test
