#pragma once
// Custom kernel weights from the command line and from files: a list of numbers ("1,2,1") and a 2D
// matrix file, either text (one row a line) or a NumPy .npy of a 2D array. Every problem is a
// UsageError that names the flag or the file, where in it, and what to do.
#include <string>
#include <string_view>
#include <vector>

#include "gausslab/core/filter_kernel.hpp"

namespace gausslab {

// The largest kernel file read (a 1023 × 1023 matrix in text takes about 20 MiB).
inline constexpr std::size_t kMaxKernelFileBytes = 64u << 20;

// "1,2,1", "1 2 1" or "0.25, 0.5, 0.25": finite decimal numbers separated by commas and/or spaces.
// UsageError for an empty list or item, a NaN or infinite value, or a token that is not a number,
// with `flag` and the item's position named.
std::vector<double> parse_kernel_weights(std::string_view flag, std::string_view text);

// A 2D kernel (FilterKernel kind Matrix, unchecked for size: validate() says what is wrong):
//   text:  one row a line, numbers separated by spaces, tabs and/or commas (as np.savetxt writes
//          them, with or without delimiter=','); blank lines and '#' comments are skipped; every row
//          must have the same count;
//   .npy:  (by its magic bytes, whatever the name) a 2D array of float32, float64 or integers, C or
//          Fortran order; rows are the first axis (y), as scipy.ndimage reads `weights`.
// Throws UsageError naming the file and the problem (unreadable, binary text, a Python list on one
// line, a row of another length, a non-numeric or non-finite value with its row and column, a 1D or
// 3D array, another dtype).
FilterKernel read_kernel_matrix_file(const std::string& path);
// The same from a file's bytes in memory; `name` is used in messages.
FilterKernel parse_kernel_matrix(std::string_view bytes, const std::string& name);

}  // namespace gausslab
