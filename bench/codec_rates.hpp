#pragma once
// gausslab-bench --codecs: how fast the image files are read and written, on one CPU core (the
// batch runs one decode or encode per thread). Each given image is decoded from its file's bytes;
// the first one is also encoded in every output format, and each encoding decoded again.
// Times are medians of repeated runs in memory (no disk), in the thread's CPU time.
#include <cstdint>
#include <string>
#include <vector>

namespace gausslab {

struct CodecRate {
  std::string image;      // the source file's name
  std::string format;     // "PNG", "JPEG q90", ...
  std::string operation;  // "decode" or "encode"
  int width = 0, height = 0;
  std::uint64_t file_bytes = 0;  // the encoded size
  int runs = 0;
  double ms = 0;                 // median time of one run
  double mpix_per_s() const { return ms > 0 ? width * static_cast<double>(height) / (ms * 1e3) : 0; }
  // MB/s of the encoded bytes (read when decoding, produced when encoding).
  double mb_per_s() const { return ms > 0 ? static_cast<double>(file_bytes) / (ms * 1e3) : 0; }
};

// Throws ImageLoadError for an image that cannot be read.
std::vector<CodecRate> measure_codec_rates(const std::vector<std::string>& images, double seconds_per_case);

std::string codec_rates_markdown(const std::vector<CodecRate>& rates, const std::string& cpu);
std::string codec_rates_csv(const std::vector<CodecRate>& rates);

}  // namespace gausslab
