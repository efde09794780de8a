#pragma once
// NumPy .npy files holding one 1D float32 or float64 array: the 1D signals gausslab-filter reads
// and writes. Format: NumPy's NEP 1 ("A Simple File Format for NumPy Arrays"), versions 1.0, 2.0
// and 3.0: magic "\x93NUMPY", version, header length, a Python dict literal with 'descr',
// 'fortran_order' and 'shape', then the raw little-endian samples.
//
// Reading is strict and bounded: the header is at most kMaxNpyHeaderBytes, the sample count at
// most kMaxNpySamples, and the samples are allocated only after the file is known to hold exactly
// that many bytes. Everything else is refused with NpyError naming the file, the problem and
// what to do in NumPy: another dtype (int, float16, complex, object, structured), big-endian
// data, 0-D and 2D+ shapes, an empty array, a truncated file, or bytes beyond the data.
// A 1D array with fortran_order True is accepted: for one axis both orders are the same bytes.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/image_io.hpp"  // Overwrite

namespace gausslab {

// A .npy file could not be read or written; what() names the file, the problem and what to do.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class NpyDtype { Float32, Float64 };

// "float32" or "float64".
const char* to_string(NpyDtype dtype);

// The longest header accepted (NumPy itself refuses headers over 10 000 bytes by default).
inline constexpr std::size_t kMaxNpyHeaderBytes = 65536;
// The longest signal accepted: the longest line gausslab filters (kMaxSide in filter_params.hpp).
inline constexpr std::size_t kMaxNpySamples = std::size_t{1} << 29;

// A 1D array as read: samples in the file's precision (one of the two vectors is filled).
struct NpySignal {
  NpyDtype dtype = NpyDtype::Float32;
  std::vector<float> f32;   // dtype Float32
  std::vector<double> f64;  // dtype Float64
  std::size_t size() const { return dtype == NpyDtype::Float32 ? f32.size() : f64.size(); }
};

// Reads a .npy file holding a 1D float32 or float64 array. Throws NpyError (see above).
NpySignal read_npy_1d(const std::string& path);
// The same from bytes in memory (fuzzing, tests); `name` is used in messages.
NpySignal read_npy_1d_from_memory(const void* bytes, std::size_t size, const std::string& name);

// The complete .npy file (version 1.0, header padded to 64 bytes) of a 1D little-endian array.
std::string encode_npy_1d(const float* samples, std::size_t count);
std::string encode_npy_1d(const double* samples, std::size_t count);

// Writes a 1D array as a .npy file, through a temporary file beside it that is moved into place,
// so a failure never leaves a partial file; with Overwrite::Never an existing file is never
// replaced. Throws NpyError naming the file and the problem.
void write_npy_1d(const std::string& path, const float* samples, std::size_t count,
                  Overwrite overwrite = Overwrite::Never);
void write_npy_1d(const std::string& path, const double* samples, std::size_t count,
                  Overwrite overwrite = Overwrite::Never);
// The signal in its own dtype.
void write_npy_1d(const std::string& path, const NpySignal& signal, Overwrite overwrite = Overwrite::Never);

// Empty if write_npy_1d can write `path` (a .npy name, an existing folder, then output_file_problem:
// a name that fits, not a folder or device, no existing file or link to nothing unless
// Overwrite::Allowed); otherwise the reason.
std::string check_npy_output_path(const std::string& path, Overwrite overwrite);

// True when `path` ends in ".npy" (case-insensitive).
bool is_npy_path(const std::string& path);
// The number of axes of the array in the .npy file at `path`, from its header alone (at most
// kMaxNpyHeaderBytes read; a regular file only); -1 when it cannot be read as a .npy header.
int npy_dimension_count(const std::string& path);
// The same header read, for its problem: "" when the header of the .npy file at `path` parses,
// otherwise NpyError's message naming the file and what is wrong (not a .npy file, empty, a
// truncated or malformed header, a structured dtype; a file that cannot be opened or is not a
// regular file), which npy_dimension_count's -1 does not say. The samples are not read.
std::string npy_header_problem(const std::string& path);
// The filter's test for a 1D signal: a .npy name whose array is not 2D or 3D (a 2D H×W or 3D
// H×W×C array is an image, read by load_image; an unreadable one goes to the signal reader, which
// names the problem).
bool is_npy_signal(const std::string& path);

}  // namespace gausslab
