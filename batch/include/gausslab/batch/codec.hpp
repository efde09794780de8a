#pragma once
// The batch's view of image files: read the bytes, decode them, encode a result, write it. The
// codecs themselves are core's (image_io); this splits them into the stages the batch times and
// runs on its threads.
#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

// The whole file, read with bounded effort (core's read_image_bytes): only a regular file is read
// (a FIFO or a device such as /dev/zero is refused, never read without end, never blocking), never
// more than its size at the start. Throws ImageLoadError naming the file and the problem.
std::vector<unsigned char> read_image_file(const std::string& path);

// Decodes bytes read from `name` into RGBA8 (core's decoders). Throws ImageLoadError.
LoadedImage decode_image(const std::vector<unsigned char>& bytes, const std::string& name);

// Encodes `image` with `channels` channels in the format of `path`'s extension and writes it to a
// temporary name beside `path`, then moves it into place (core's save_image). Returns the time
// spent writing, in ms, where it can be told apart from encoding (0 where the codec does both in
// one call). Throws ImageSaveError.
double encode_and_write(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite);

// The output types the batch writes: "png, jpg, bmp, tga, pnm" (core's writers).
std::string output_format_list();
// True when `format` (no dot: "png") is one of them.
bool is_output_format(const std::string& format);

}  // namespace gausslab
