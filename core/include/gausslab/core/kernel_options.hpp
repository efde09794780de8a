#pragma once
// The command-line flags that choose a custom kernel and the integer rounding, shared by the
// programs that filter (gausslab-filter today):
//   --kernel 1,2,1          a 1D mask along each axis (along the one axis of a signal)
//   --kernel-2d FILE        a 2D matrix, text or .npy (kernel_file.hpp)
//   --kernel-x A --kernel-y B   a separable pair
//   --convolve              flip the kernel (scipy.ndimage.convolve); correlation otherwise
//   --normalize             divide by the kernel's sum
//   --rounding nearest|floor|ceil   how integer outputs are stored (nearest: half up, the default)
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/filter_params.hpp"

namespace gausslab {

struct KernelFlags {
  std::optional<std::vector<double>> mask;    // --kernel
  std::string matrix_file;                    // --kernel-2d
  std::optional<std::vector<double>> along_x; // --kernel-x
  std::optional<std::vector<double>> along_y; // --kernel-y
  bool convolve = false;
  bool normalize = false;
  std::optional<IntegerRounding> rounding;

  // Whether any of --kernel, --kernel-2d, --kernel-x, --kernel-y was given.
  bool any_kernel() const { return mask || !matrix_file.empty() || along_x || along_y; }
};

// True when `arg` is one of the flags above (its value taken from `reader`); false for any other
// argument. UsageError for a bad value (kernel_file.hpp's messages) or a flag given twice.
bool read_kernel_flag(const std::string& arg, ArgReader& reader, KernelFlags& flags);

// Sets params.kernel (reading --kernel-2d's file) and params.rounding from the flags. UsageError,
// naming the flags, when two kernels are given, --kernel-x without --kernel-y (or the reverse),
// a kernel with any of `gaussian_flags` (the Gaussian's flags given, e.g. {"--sigma"}), --convolve
// or --normalize without a kernel, or a kernel validate() refuses (even size, zero sum, ...).
void apply_kernel_flags(const KernelFlags& flags, const std::vector<std::string>& gaussian_flags, FilterParams& params);

// The flags' lines for a --help text, aligned as gausslab-filter's (22 columns).
const char* kernel_flags_usage();

}  // namespace gausslab
