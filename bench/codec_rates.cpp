#include "codec_rates.hpp"

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <filesystem>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

namespace {

// This thread's CPU time in ms: a rate per core that other programs on a shared machine do not
// disturb (they would, measured on a wall clock).
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// Median CPU ms of `run`, repeated for at least `seconds` of CPU time and at least 3 times (one
// warm-up first).
template <class Run>
std::pair<double, int> time_median(double seconds, Run&& run) {
  run();
  std::vector<double> ms;
  const double start = thread_cpu_ms();
  while (ms.size() < 3 || thread_cpu_ms() - start < seconds * 1e3) {
    const double t0 = thread_cpu_ms();
    run();
    ms.push_back(thread_cpu_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], static_cast<int>(ms.size())};
}

CodecRate decode_rate(const std::string& image, const std::string& format, const unsigned char* data, std::size_t size,
                      double seconds) {
  CodecRate rate;
  rate.image = image;
  rate.format = format;
  rate.operation = "decode";
  rate.file_bytes = size;
  LoadedImage loaded;
  std::tie(rate.ms, rate.runs) =
      time_median(seconds, [&] { loaded = load_image_from_memory(data, size, image); });
  rate.width = loaded.image.width();
  rate.height = loaded.image.height();
  return rate;
}

std::string format_name(const LoadedImage& loaded) { return loaded.format + (loaded.note.empty() ? "" : "*"); }

}  // namespace

std::vector<CodecRate> measure_codec_rates(const std::vector<std::string>& images, double seconds_per_case) {
  std::vector<CodecRate> rates;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const std::string name = std::filesystem::path(images[i]).filename().string();
    const UninitializedBytes bytes = read_image_bytes(images[i]);
    const LoadedImage loaded = load_image_from_memory(bytes.data(), bytes.size(), images[i]);
    rates.push_back(decode_rate(name, format_name(loaded), bytes.data(), bytes.size(), seconds_per_case));
    if (i != 0) continue;
    // The first image, written in every format (its own channels), then read back.
    for (int f = 0; f < static_cast<int>(ImageFormat::Count); ++f) {
      const auto format = static_cast<ImageFormat>(f);
      if (!check_output_type(format, loaded.image.format()).empty()) continue;  // the format cannot hold its type
      std::string label = to_string(format);
      std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) { return std::toupper(c); });
      if (format == ImageFormat::Jpeg) label += " q90";
      std::vector<unsigned char> encoded;
      CodecRate rate;
      rate.image = name;
      rate.format = label;
      rate.operation = "encode";
      rate.width = loaded.image.width();
      rate.height = loaded.image.height();
      std::tie(rate.ms, rate.runs) = time_median(
          seconds_per_case, [&] { encoded = encode_image(loaded.image.view(), format); });
      rate.file_bytes = encoded.size();
      rates.push_back(rate);
      rates.push_back(decode_rate(name, label, encoded.data(), encoded.size(), seconds_per_case));
    }
  }
  return rates;
}

std::string codec_rates_markdown(const std::vector<CodecRate>& rates, const std::string& cpu) {
  std::string out = "Image decode and encode rates on one core of " + cpu +
                    " (gausslab-bench --codecs; median thread CPU time of repeated runs in memory, no disk; * = "
                    "converted on loading: see the loader's note)\n\n"
                    "| image | format | operation | size | file bytes | ms | Mpixel/s | MB/s (file) |\n"
                    "|---|---|---|---|---:|---:|---:|---:|\n";
  char line[512];
  for (const CodecRate& r : rates) {
    std::snprintf(line, sizeof line, "| %s | %s | %s | %d×%d | %llu | %.3g | %.1f | %.1f |\n", r.image.c_str(),
                  r.format.c_str(), r.operation.c_str(), r.width, r.height,
                  static_cast<unsigned long long>(r.file_bytes), r.ms, r.mpix_per_s(), r.mb_per_s());
    out += line;
  }
  return out;
}

std::string codec_rates_csv(const std::vector<CodecRate>& rates) {
  std::string out = "image,format,operation,width,height,file_bytes,runs,ms_median,mpix_per_s,mb_per_s\n";
  char line[512];
  for (const CodecRate& r : rates) {
    std::snprintf(line, sizeof line, "%s,%s,%s,%d,%d,%llu,%d,%.6g,%.4g,%.4g\n", r.image.c_str(), r.format.c_str(),
                  r.operation.c_str(), r.width, r.height, static_cast<unsigned long long>(r.file_bytes), r.runs, r.ms,
                  r.mpix_per_s(), r.mb_per_s());
    out += line;
  }
  return out;
}

}  // namespace gausslab
