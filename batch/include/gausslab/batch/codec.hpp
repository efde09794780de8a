#pragma once
// The batch's view of image files: read the bytes, decode them, encode a result, write it. The
// codecs themselves are core's (image_io); this splits them into the stages the batch times and
// runs on its threads.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

// The whole file, read with bounded effort (core's read_image_bytes): only a regular file is read
// (a FIFO or a device such as /dev/zero is refused, never read without end, never blocking), never
// more than its size at the start. Throws ImageLoadError naming the file and the problem.
std::vector<unsigned char> read_image_file(const std::string& path);

// Decodes bytes read from `name` (core's decoders) and reduces them to RGBA8 as the filter still
// works in 8 bits (core's reduce_to_rgba8; its note says what was reduced). Throws ImageLoadError.
LoadedRgba8 decode_image(const std::vector<unsigned char>& bytes, const std::string& name);

// How results are written: the format (empty: from each output's extension), JPEG's quality and
// whether an existing file may be replaced.
struct OutputSettings {
  std::optional<ImageFormat> format;
  int jpeg_quality = 90;
  Overwrite overwrite = Overwrite::Never;
};

struct WriteTimes {
  double encode_ms = 0;  // into memory (core's encode_image)
  double write_ms = 0;   // to a temporary file beside the output, synced and moved into place
};

// Encodes `image` with `channels` channels (core's encoders), then writes the bytes through
// core's AtomicFile: never a partial file under `path`, never an existing file replaced unless
// allowed. Throws ImageSaveError or FileWriteError naming the file.
WriteTimes encode_and_write(const std::string& path, const ImageRgba8& image, int channels,
                            const OutputSettings& settings);

// The output types the batch writes while it works in 8 bits: "png, jpg, bmp, tga, pnm, tiff, fits"
// (core's writers of 8-bit samples, but .npy: the filter's signals).
std::string output_format_list();
// True when `format` (no dot: "png") is one of them.
bool is_output_format(const std::string& format);

}  // namespace gausslab
