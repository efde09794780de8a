#include "gausslab/core/kernel_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/npy_io.hpp"
#include "npy_header.hpp"

namespace gausslab {

namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One weight, or the reason it is none ("'abc' is not a number"); `value` is set when empty.
std::string parse_weight(std::string_view token, double& value) {
  const std::string word = lower(token);
  const std::string bare = !word.empty() && (word[0] == '+' || word[0] == '-') ? word.substr(1) : word;
  if (bare == "nan") return quoted(token) + " is NaN; every weight must be a finite number";
  if (bare == "inf" || bare == "infinity") return quoted(token) + " is infinite; every weight must be a finite number";
  // Decimal notation only: strtod would also take "0x10" (16) and "nan(...)".
  if (word.empty() || word.find_first_not_of("0123456789+-.e") != std::string::npos)
    return quoted(token) + " is not a number";
  const std::string s(token);
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return quoted(token) + " is not a number";
  if (errno == ERANGE && std::fabs(parsed) > 1.0) return quoted(token) + " is beyond float64's range";
  value = parsed;  // an underflow keeps strtod's tiny or zero value, as NumPy reads it
  return {};
}

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\r'; }

// The numbers of one line of text: fields separated by commas and/or blanks. `where(i)` names field
// i for messages ("row 2, column 3" or "item 3").
template <class Where>
std::vector<double> parse_fields(std::string_view line, const std::string& context, Where where) {
  std::vector<double> values;
  std::size_t at = 0;
  bool after_comma = true;  // an empty field before the first comma or between two is an error
  while (true) {
    while (at < line.size() && line[at] != ',' && is_separator(line[at])) ++at;
    if (at >= line.size()) {
      if (after_comma && !values.empty()) throw UsageError(context + ": " + where(values.size()) + " is empty (a comma ends the list)");
      break;
    }
    if (line[at] == ',') {
      if (after_comma) throw UsageError(context + ": " + where(values.size()) + " is empty (two commas in a row, or one first)");
      after_comma = true;
      ++at;
      continue;
    }
    const std::size_t start = at;
    while (at < line.size() && !is_separator(line[at])) ++at;
    double value = 0;
    if (std::string problem = parse_weight(line.substr(start, at - start), value); !problem.empty())
      throw UsageError(context + ": " + where(values.size()) + ": " + problem);
    values.push_back(value);
    after_comma = false;
  }
  return values;
}

FilterKernel parse_text_matrix(std::string_view text, const std::string& name) {
  const std::string context = quoted(name);
  if (text.find('\0') != std::string_view::npos)
    throw UsageError(context + " is not a text matrix (it holds binary data); give rows of numbers, one a line, or a "
                               "2D .npy array");
  if (text.find('[') != std::string_view::npos || text.find(']') != std::string_view::npos)
    throw UsageError(context + " holds brackets, as a Python list does; write one row of the matrix a line "
                               "(np.savetxt(path, k)) or save it with np.save(path, k) as a .npy");
  std::vector<double> weights;
  int width = 0, height = 0, first_row_line = 0;
  std::size_t line_start = 0;
  for (int line_number = 1; line_start <= text.size(); ++line_number) {
    const std::size_t newline = text.find('\n', line_start);
    std::string_view line = text.substr(line_start, newline == std::string_view::npos ? std::string_view::npos
                                                                                       : newline - line_start);
    line_start = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const int row = height + 1;
    const std::vector<double> values = parse_fields(line, context + " line " + std::to_string(line_number), [&](std::size_t i) {
      return "row " + std::to_string(row) + ", column " + std::to_string(i + 1);
    });
    if (height == 0) {
      width = static_cast<int>(values.size());
      first_row_line = line_number;
    } else if (static_cast<int>(values.size()) != width) {
      throw UsageError(context + " line " + std::to_string(line_number) + ": row " + std::to_string(row) + " has " +
                       std::to_string(values.size()) + " numbers but row 1 (line " + std::to_string(first_row_line) +
                       ") has " + std::to_string(width) + "; every row of the matrix needs the same count");
    }
    if (weights.size() + values.size() > static_cast<std::size_t>(kMaxMatrixTaps))
      throw UsageError(context + " holds more than " + std::to_string(kMaxMatrixTaps) +
                       " weights, more than a 2D kernel may have");
    weights.insert(weights.end(), values.begin(), values.end());
    ++height;
  }
  if (height == 0) throw UsageError(context + " holds no numbers; give the matrix's rows, one a line");
  return FilterKernel::matrix_2d(width, height, std::move(weights));
}

// ---- .npy: a 2D array -----------------------------------------------------------------------

constexpr char kNpyMagic[] = "\x93NUMPY";

struct NpyType {
  char kind = 'f';  // 'f', 'i', 'u'
  int bytes = 8;
};

NpyType npy_type(const std::string& descr, const std::string& context) {
  const std::string hint = "; save the kernel as float64: np.save(path, k.astype(np.float64))";
  if (descr.size() >= 3 && (descr[0] == '<' || descr[0] == '=' || descr[0] == '|')) {
    const char kind = descr[1];
    const std::string size = descr.substr(2);
    const int bytes = size == "1" ? 1 : size == "2" ? 2 : size == "4" ? 4 : size == "8" ? 8 : 0;
    const bool one_byte_order = bytes == 1 || descr[0] != '|';
    if (one_byte_order && ((kind == 'f' && (bytes == 4 || bytes == 8)) || ((kind == 'i' || kind == 'u') && bytes > 0)))
      return {kind, bytes};
  }
  if (!descr.empty() && descr[0] == '>')
    throw UsageError(context + ": the weights are big-endian (dtype " + quoted(descr) + ")" + hint);
  throw UsageError(context + ": dtype " + quoted(descr) + " is not a kernel's: gausslab reads float32, float64 and "
                                                          "integer arrays" + hint);
}

double npy_sample(const unsigned char* p, NpyType type) {
  switch (type.kind) {
    case 'f': {
      if (type.bytes == 4) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case 'i': {
      std::int64_t v = 0;
      std::memcpy(&v, p, static_cast<std::size_t>(type.bytes));
      const int unused = 64 - 8 * type.bytes;  // sign-extend the little-endian integer
      return static_cast<double>(unused ? static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << unused) >> unused : v);
    }
    default: {
      std::uint64_t v = 0;
      std::memcpy(&v, p, static_cast<std::size_t>(type.bytes));
      return static_cast<double>(v);
    }
  }
}

// A shape as NumPy prints it: "(3,)", "(2, 3)".
std::string shape_text(const std::vector<unsigned long long>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

FilterKernel parse_npy_matrix(std::string_view bytes, const std::string& name) {
  const std::string context = quoted(name);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  NpyRawHeader header;
  try {
    header = parse_npy_header(data, bytes.size(), name);  // the one .npy header reader (npy_io)
  } catch (const NpyError& error) {
    throw UsageError(error.what());
  }
  const std::vector<unsigned long long>& shape = header.shape;
  const std::string shown_shape = shape_text(shape);
  const NpyType type = npy_type(header.descr, context);
  if (shape.size() != 2) {
    std::string hint = shape.size() == 1 ? "; a 1D mask goes to --kernel as a list (','.join(map(str, k))), or save "
                                           "it as one row: np.save(path, k[None, :])"
                                         : "; save the 2D kernel itself";
    throw UsageError(context + ": the array is " + std::to_string(shape.size()) + "D of shape " + shown_shape +
                     ", not a 2D kernel" + hint);
  }
  const unsigned long long height = shape[0], width = shape[1];
  if (height == 0 || width == 0) throw UsageError(context + ": the array is empty (shape " + shown_shape + ")");
  if (height * width > static_cast<unsigned long long>(kMaxMatrixTaps) || height > kMaxMatrixSide ||
      width > kMaxMatrixSide)
    throw UsageError(context + ": the array of shape " + shown_shape + " is larger than a 2D kernel may be (each side at most " +
                     std::to_string(kMaxMatrixSide) + ", " + std::to_string(kMaxMatrixTaps) + " weights in all)");
  const std::size_t count = static_cast<std::size_t>(height * width);
  const std::size_t data_bytes = bytes.size() - header.data_offset;
  if (data_bytes != count * static_cast<std::size_t>(type.bytes))
    throw UsageError(context + ": the file holds " + std::to_string(data_bytes) + " bytes of weights, but shape " +
                     shown_shape + " of dtype " + quoted(header.descr) + " needs " + std::to_string(count * type.bytes) +
                     "; the file is damaged");
  const unsigned char* samples = data + header.data_offset;
  const bool fortran = header.fortran_order;
  std::vector<double> weights(count);
  for (std::size_t j = 0; j < height; ++j)
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t stored = fortran ? i * height + j : j * width + i;
      weights[j * width + i] = npy_sample(samples + stored * type.bytes, type);
    }
  return FilterKernel::matrix_2d(static_cast<int>(width), static_cast<int>(height), std::move(weights));
}

}  // namespace

std::vector<double> parse_kernel_weights(std::string_view flag, std::string_view text) {
  if (text.find_first_not_of(" \t,") == std::string_view::npos)
    throw UsageError(std::string(flag) + ": the list of weights is empty; give them as 1,2,1");
  return parse_fields(text, std::string(flag), [](std::size_t i) { return "weight " + std::to_string(i + 1); });
}

FilterKernel parse_kernel_matrix(std::string_view bytes, const std::string& name) {
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), kNpyMagic, 6) == 0) return parse_npy_matrix(bytes, name);
  return parse_text_matrix(bytes, name);
}

FilterKernel read_kernel_matrix_file(const std::string& path) {
  const std::string context = quoted(path);
  // O_NONBLOCK: a FIFO without a writer would block open() forever; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw UsageError(context + ": cannot open the kernel file: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw UsageError(context + ": cannot read the kernel file: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw UsageError(context + " is a folder, not a kernel file");
  if (!S_ISREG(info.st_mode)) throw UsageError(context + " is not a regular file; save the kernel to a file");
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) throw UsageError(context + ": the kernel file is empty; give the matrix's rows, one a line");
  if (size > kMaxKernelFileBytes)
    throw UsageError(context + ": the kernel file has " + std::to_string(size) + " bytes, more than the " +
                     std::to_string(kMaxKernelFileBytes >> 20) + " MiB a kernel file may have");
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UsageError(context + ": cannot read the kernel file: " + std::strerror(errno));
    if (got == 0) throw UsageError(context + ": the kernel file ended early (it changed while being read?)");
    done += static_cast<std::size_t>(got);
  }
  return parse_kernel_matrix(bytes, path);
}

}  // namespace gausslab
