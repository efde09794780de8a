// Checks what an automated viewer run wrote (tests/ui): the full-resolution result against the CPU
// filter of the same picture, and the view screenshot for the overlay's path badge.
//   gausslab_ui_check result RESULT.png SOURCE METHOD SIGMA BORDER TRUNCATE [POOL]
// (POOL: none, max2x2 or avg2x2: the result is the blur pooled 2x2 by core's reference)
//   gausslab_ui_check badge VIEW.png R,G,B SIDE
// Exit status 0 when the check passes, 1 when it fails (with what differs), 2 for bad arguments.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pooling.hpp"

namespace {

using namespace gausslab;

int check_result(const std::string& result_path, const std::string& source_path, const std::string& method,
                 double sigma, BorderMode border, double truncate, PoolMode pool) {
  const ImageRgba8 result = load_image_rgba8(result_path).image;
  const ImageRgba8 full_source = load_image_rgba8(source_path).image;
  const ImageRgba8 source = pool == PoolMode::None ? full_source : pool_2x2(full_source, pool);
  if (result.width() != source.width() || result.height() != source.height()) {
    std::printf("FAIL: the result is %dx%d, the %ssource %dx%d\n", result.width(), result.height(),
                pool == PoolMode::None ? "" : "pooled ", source.width(), source.height());
    return 1;
  }
  if (method != "cpu_separable" && method != "cpu_openmp") {
    std::printf("bad arguments: this checker recomputes cpu_separable or cpu_openmp, not %s\n", method.c_str());
    return 2;
  }
  FilterParams params;
  params.sigma = sigma;
  params.border = border;
  params.truncate = truncate;
  ImageRgba8 expected(full_source.width(), full_source.height());
  cpu_gaussian_filter(full_source.view(), expected.view(), params,
                      method == "cpu_openmp" ? CpuThreading::OpenMP : CpuThreading::Single);
  if (pool != PoolMode::None) expected = pool_2x2(expected, pool);

  int max_difference = 0;
  std::size_t differing = 0, unchanged_by_blur = 0;
  for (std::size_t i = 0; i < result.pixel_count(); ++i) {
    const Rgba8 r = result.data()[i], e = expected.data()[i], s = source.data()[i];
    const int d[4] = {std::abs(r.r - e.r), std::abs(r.g - e.g), std::abs(r.b - e.b), std::abs(r.a - e.a)};
    for (int c : d) {
      if (c > max_difference) max_difference = c;
      if (c != 0) ++differing;
    }
    if (r == s) ++unchanged_by_blur;
  }
  if (max_difference > 1) {
    std::printf("FAIL: %zu channel values differ from %s's result, by up to %d levels\n", differing, method.c_str(),
                max_difference);
    return 1;
  }
  if (unchanged_by_blur == result.pixel_count()) {
    std::printf("FAIL: the result equals the unblurred source\n");
    return 1;
  }
  if (differing == 0)
    std::printf("ok: the %dx%d result is identical to %s's (%zu of %zu pixels changed by the blur)\n", result.width(),
                result.height(), method.c_str(), result.pixel_count() - unchanged_by_blur, result.pixel_count());
  else
    std::printf("ok: the result is within 1 level of %s's (%zu values differ by 1)\n", method.c_str(), differing);
  return 0;
}

// Looks for a side × side square whose pixels all lie within 3 levels of `colour`.
int check_badge(const std::string& view_path, Rgba8 colour, int side) {
  const ImageRgba8 view = load_image_rgba8(view_path).image;
  const int w = view.width(), h = view.height();
  // Summed-area table of matching pixels.
  std::vector<int> sums(static_cast<std::size_t>(w + 1) * (h + 1), 0);
  auto at = [&](int x, int y) -> int& { return sums[static_cast<std::size_t>(y) * (w + 1) + x]; };
  std::size_t matches = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Rgba8 p = view.at(x, y);
      const bool match = std::abs(p.r - colour.r) <= 3 && std::abs(p.g - colour.g) <= 3 && std::abs(p.b - colour.b) <= 3;
      matches += match;
      at(x + 1, y + 1) = at(x, y + 1) + at(x + 1, y) - at(x, y) + (match ? 1 : 0);
    }
  for (int y = side; y <= h; ++y)
    for (int x = side; x <= w; ++x)
      if (at(x, y) - at(x - side, y) - at(x, y - side) + at(x - side, y - side) == side * side) {
        std::printf("ok: the overlay's badge (%d,%d,%d) is drawn at %d,%d\n", colour.r, colour.g, colour.b, x - side,
                    y - side);
        return 0;
      }
  std::printf("FAIL: no %dx%d square of colour (%d,%d,%d) in the %dx%d view (%zu matching pixels): the overlay is missing\n",
              side, side, colour.r, colour.g, colour.b, w, h, matches);
  return 1;
}

Rgba8 parse_colour(const std::string& text) {
  const std::vector<int> parts = parse_list<int>("colour", text, [](std::string_view flag, std::string_view item) {
    return parse_int(flag, item, 0, 255);
  });
  if (parts.size() != 3) throw UsageError("colour: give R,G,B");
  return {static_cast<std::uint8_t>(parts[0]), static_cast<std::uint8_t>(parts[1]), static_cast<std::uint8_t>(parts[2]),
          255};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if ((args.size() == 7 || args.size() == 8) && args[0] == "result") {
      const std::optional<PoolMode> pool = args.size() == 8 ? pool_mode_from_string(args[7]) : PoolMode::None;
      if (!pool) throw std::invalid_argument("POOL: use none, max2x2 or avg2x2, not " + args[7]);
      return check_result(args[1], args[2], args[3], parse_double("SIGMA", args[4]), parse_border("BORDER", args[5]),
                          parse_double("TRUNCATE", args[6]), *pool);
    }
    if (args.size() == 4 && args[0] == "badge")
      return check_badge(args[1], parse_colour(args[2]), parse_int("SIDE", args[3], 1, 256));
  } catch (const std::exception& error) {
    std::printf("FAIL: %s\n", error.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: gausslab_ui_check result RESULT SOURCE METHOD SIGMA BORDER TRUNCATE [POOL]\n"
               "       gausslab_ui_check badge VIEW R,G,B SIDE\n");
  return 2;
}
