#pragma once
// The .npy header as written (npy_io.cpp reads it), shared by the 1D signal reader (npy_io) and
// the image reader (codecs/npy_codec.cpp), which check its dtype and shape each for itself.
#include <cstddef>
#include <string>
#include <vector>

namespace gausslab {

struct NpyRawHeader {
  std::string descr;  // "<f4", "|u1", ...
  bool fortran_order = false;
  std::vector<unsigned long long> shape;
  std::size_t data_offset = 0;  // where the samples start
};

// The preamble and the header dict of the `available` first bytes of a .npy file; throws NpyError
// ("'name': the problem") for a file that is not a .npy file, is truncated inside its header, or
// whose header is malformed.
NpyRawHeader parse_npy_header(const void* bytes, std::size_t available, const std::string& name);

// "float64", "int16", "unicode strings": a dtype in words, for messages.
std::string npy_dtype_words(const std::string& descr);

}  // namespace gausslab
