#include "gausslab/core/kernel_options.hpp"

#include "gausslab/core/kernel_file.hpp"

namespace gausslab {

namespace {

void once(bool given, const std::string& flag) {
  if (given) throw UsageError(flag + " is given twice; give it once");
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

}  // namespace

bool read_kernel_flag(const std::string& arg, ArgReader& reader, KernelFlags& flags) {
  if (arg == "--kernel") {
    once(flags.mask.has_value(), arg);
    flags.mask = parse_kernel_weights(arg, reader.value(arg));
  } else if (arg == "--kernel-x") {
    once(flags.along_x.has_value(), arg);
    flags.along_x = parse_kernel_weights(arg, reader.value(arg));
  } else if (arg == "--kernel-y") {
    once(flags.along_y.has_value(), arg);
    flags.along_y = parse_kernel_weights(arg, reader.value(arg));
  } else if (arg == "--kernel-2d") {
    once(!flags.matrix_file.empty(), arg);
    flags.matrix_file = reader.value(arg);
    if (flags.matrix_file.empty()) throw UsageError("--kernel-2d: the file name is empty");
  } else if (arg == "--convolve") {
    flags.convolve = true;
  } else if (arg == "--normalize" || arg == "--normalise") {
    flags.normalize = true;
  } else if (arg == "--rounding") {
    once(flags.rounding.has_value(), arg);
    const std::string name = reader.value(arg);
    flags.rounding = integer_rounding_from_string(name);
    if (!flags.rounding) throw UsageError("--rounding: unknown rounding '" + name + "'; use nearest (half up, the default), floor or ceil");
  } else {
    return false;
  }
  return true;
}

void apply_kernel_flags(const KernelFlags& flags, const std::vector<std::string>& gaussian_flags, FilterParams& params) {
  if (flags.rounding) params.rounding = *flags.rounding;
  if (!flags.any_kernel()) {
    if (flags.convolve)
      throw UsageError("--convolve flips a custom kernel (--kernel, --kernel-2d or --kernel-x with --kernel-y); the "
                       "Gaussian is symmetric, so there is nothing to flip");
    if (flags.normalize)
      throw UsageError("--normalize divides a custom kernel (--kernel, --kernel-2d or --kernel-x with --kernel-y) by "
                       "its sum; the Gaussian's weights sum to 1 already");
    return;
  }
  std::vector<std::string> kernels;
  if (flags.mask) kernels.push_back("--kernel");
  if (!flags.matrix_file.empty()) kernels.push_back("--kernel-2d");
  if (flags.along_x || flags.along_y) kernels.push_back(flags.along_x && flags.along_y ? "--kernel-x/--kernel-y"
                                                        : flags.along_x ? "--kernel-x" : "--kernel-y");
  if (kernels.size() > 1)
    throw UsageError(joined(kernels) + " each give a kernel; give one: --kernel (a 1D mask on each axis), --kernel-2d "
                                       "(a matrix) or --kernel-x with --kernel-y (a separable pair)");
  if (flags.along_x.has_value() != flags.along_y.has_value())
    throw UsageError(std::string(flags.along_x ? "--kernel-x needs --kernel-y" : "--kernel-y needs --kernel-x") +
                     " too (a separable pair: one mask along x, one along y); for the same mask on both axes give "
                     "--kernel");
  if (!gaussian_flags.empty())
    throw UsageError(kernels.front() + " gives the kernel's weights themselves, so " + joined(gaussian_flags) +
                     (gaussian_flags.size() > 1 ? ", which set the Gaussian, do" : ", which sets the Gaussian, does") +
                     " not apply; give either a custom kernel or the Gaussian's parameters");

  FilterKernel kernel;
  if (flags.mask)
    kernel = FilterKernel::mask(*flags.mask);
  else if (flags.along_x)
    kernel = FilterKernel::pair(*flags.along_x, *flags.along_y);
  else
    kernel = read_kernel_matrix_file(flags.matrix_file);
  kernel.convolve = flags.convolve;
  kernel.normalize = flags.normalize;
  if (std::string problem = validate(kernel); !problem.empty()) {
    const std::string where = kernel.kind == KernelKind::Matrix ? "--kernel-2d '" + flags.matrix_file + "'" : kernels.front();
    throw UsageError(where + ": " + problem);
  }
  params.kernel = std::move(kernel);
}

const char* kernel_flags_usage() {
  return "  --kernel W,W,...    a custom kernel instead of the Gaussian: a 1D mask (odd count, any\n"
         "                      weights) applied along x then y, or along a signal's one axis\n"
         "  --kernel-2d FILE    a 2D kernel (odd sides, any weights): a text file of rows, one a line,\n"
         "                      numbers split by spaces or commas ('#' comments), or a 2D .npy; a\n"
         "                      matrix that is an outer product (rank 1) runs as two 1D passes\n"
         "  --kernel-x W,...    with --kernel-y W,...: a separable pair, one mask along x, one along y\n"
         "  --convolve          flip the kernel, as scipy.ndimage.convolve (default: correlate)\n"
         "  --normalize         divide the result by the kernel's sum (refused when it sums to 0)\n"
         "  --rounding MODE     integer outputs: nearest (half up, the default), floor or ceil\n";
}

}  // namespace gausslab
