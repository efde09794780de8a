// Test-only tool for check_reference_vs_scipy.py: writes gausslab's float64 reference (and its
// input) as raw little-endian float64 arrays, height × width × channels, or prints border_index
// tables, so that a Python script can compare them with SciPy.
//
//   gausslab_reference_dump reference --size WxH --format f32|rgba8 (--seed N | --image PATH)
//       (--sigma S [--truncate T] [--radius R] | KERNEL FLAGS) --border MODE
//       --input-out FILE --reference-out FILE [--cpu-out FILE]
//     --image loads a picture (cropped to --size from its top-left corner; f32 = its luminance).
//     KERNEL FLAGS: --kernel, --kernel-2d, --kernel-x/--kernel-y, --convolve, --normalize,
//     --rounding, as gausslab-filter takes them (kernel_options.hpp). --cpu-out also writes the CPU
//     filter's stored result (as float64), after checking that one thread and OpenMP agree.
//   gausslab_reference_dump border-table --n N --reach L --border MODE
//     prints border_index(i, N, MODE) for i = -L .. N + L - 1, space-separated.
// Output files must not exist yet: the tool never overwrites a file.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/kernel_options.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {
namespace {

void write_doubles(const std::string& path, const std::vector<double>& values) {
  // "x": fail rather than replace an existing file.
  std::FILE* file = std::fopen(path.c_str(), "wbx");
  if (!file) throw std::runtime_error("cannot create '" + path + "' (it may exist already)");
  const std::size_t written = std::fwrite(values.data(), sizeof(double), values.size(), file);
  const bool closed = std::fclose(file) == 0;
  if (written != values.size() || !closed) throw std::runtime_error("could not write '" + path + "'");
}

std::vector<double> all_channels(const ConstImageView& view) {
  std::vector<double> values;
  const int channels = channel_count(view.format);
  values.reserve(static_cast<std::size_t>(view.width) * view.height * channels);
  for (int y = 0; y < view.height; ++y)
    for (int x = 0; x < view.width; ++x)
      for (int c = 0; c < channels; ++c) values.push_back(channel_value(view, x, y, c));
  return values;
}

int dump_reference(ArgReader& args) {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::F32;
  long long seed = -1;
  std::string image_path, input_out, reference_out, cpu_out;
  FilterParams params;
  KernelFlags kernel_flags;
  std::vector<std::string> gaussian_flags;
  std::string arg;
  while (args.next(arg)) {
    if (arg == "--size") {
      std::tie(width, height) = parse_size(arg, args.value(arg));
    } else if (arg == "--format") {
      format = parse_pixel_format(arg, args.value(arg));
    } else if (arg == "--seed") {
      seed = parse_int(arg, args.value(arg), 0, 1 << 30);
    } else if (arg == "--image") {
      image_path = args.value(arg);
    } else if (arg == "--sigma") {
      params.sigma = parse_double(arg, args.value(arg));
      gaussian_flags.push_back(arg);
    } else if (arg == "--truncate") {
      params.truncate = parse_double(arg, args.value(arg));
      gaussian_flags.push_back(arg);
    } else if (arg == "--radius") {
      params.fixed_radius = parse_int(arg, args.value(arg), 0, kMaxRadius);
      gaussian_flags.push_back(arg);
    } else if (read_kernel_flag(arg, args, kernel_flags)) {
      // applied below
    } else if (arg == "--cpu-out") {
      cpu_out = args.value(arg);
    } else if (arg == "--border") {
      params.border = parse_border(arg, args.value(arg));
    } else if (arg == "--input-out") {
      input_out = args.value(arg);
    } else if (arg == "--reference-out") {
      reference_out = args.value(arg);
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (input_out.empty() || reference_out.empty()) throw UsageError("--input-out and --reference-out are required");
  if ((seed >= 0) == !image_path.empty()) throw UsageError("give exactly one of --seed and --image");
  apply_kernel_flags(kernel_flags, gaussian_flags, params);
  if (const std::string problem = validate(params); !problem.empty()) throw UsageError(problem);
  if (format != PixelFormat::F32 && format != PixelFormat::Rgba8) throw UsageError("--format: give f32 or rgba8");

  ImageRgba8 rgba8;
  ImageF32 f32;
  if (!image_path.empty()) {
    const LoadedRgba8 loaded = load_image_rgba8(image_path);
    if (width == 0) width = loaded.image.width(), height = loaded.image.height();
    if (width > loaded.image.width() || height > loaded.image.height())
      throw UsageError("--size is larger than the image");
    rgba8 = copy_to_image<Rgba8>(ConstImageView(loaded.image.data(), width, height, loaded.image.pitch_bytes(),
                                                PixelFormat::Rgba8));
    if (format == PixelFormat::F32) f32 = to_grey_f32(rgba8);
  } else {
    if (width == 0) throw UsageError("--size is required with --seed");
    if (format == PixelFormat::F32)
      f32 = make_random_f32(width, height, static_cast<std::uint32_t>(seed));
    else
      rgba8 = make_random_rgba8(width, height, static_cast<std::uint32_t>(seed));
  }
  const ConstImageView src = format == PixelFormat::F32 ? ConstImageView(f32.view()) : ConstImageView(rgba8.view());
  write_doubles(input_out, all_channels(src));
  write_doubles(reference_out, reference_gaussian(src, params));
  if (!cpu_out.empty()) {
    HostImage single(width, height, format), openmp(width, height, format);
    cpu_gaussian_filter(src, single.view(), params, CpuThreading::Single);
    cpu_gaussian_filter(src, openmp.view(), params, CpuThreading::OpenMP);
    if (!(single == openmp)) throw std::runtime_error("the OpenMP CPU filter differs from the single-thread one");
    write_doubles(cpu_out, all_channels(single.view()));
  }
  std::printf("%d %d %d\n", width, height, channel_count(format));
  return 0;
}

int print_border_table(ArgReader& args) {
  int n = 0, reach = 0;
  BorderMode mode = BorderMode::Reflect;
  std::string arg;
  while (args.next(arg)) {
    if (arg == "--n")
      n = parse_int(arg, args.value(arg), 1, 1 << 20);
    else if (arg == "--reach")
      reach = parse_int(arg, args.value(arg), 0, 1 << 20);
    else if (arg == "--border")
      mode = parse_border(arg, args.value(arg));
    else
      throw UsageError("unknown option '" + arg + "'");
  }
  if (n == 0) throw UsageError("--n is required");
  for (int i = -reach; i < n + reach; ++i) std::printf(i == -reach ? "%d" : " %d", border_index(i, n, mode));
  std::printf("\n");
  return 0;
}

}  // namespace
}  // namespace gausslab

int main(int argc, char** argv) {
  using namespace gausslab;
  try {
    ArgReader args(argc, argv);
    std::string command;
    if (!args.next(command)) throw UsageError("give a command: reference or border-table");
    if (command == "reference") return dump_reference(args);
    if (command == "border-table") return print_border_table(args);
    throw UsageError("unknown command '" + command + "'; use reference or border-table");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gausslab_reference_dump: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gausslab_reference_dump: %s\n", e.what());
    return 1;
  }
}
