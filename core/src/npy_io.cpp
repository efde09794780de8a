#include "gausslab/core/npy_io.hpp"

#include "gausslab/core/atomic_file.hpp"
#include "npy_header.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

namespace gausslab {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy samples are copied as little-endian bytes");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
constexpr const char* kConvertHint = "; convert it in NumPy: np.save(path, a.astype(np.float32))";

std::string quoted(const std::string& text) { return "'" + text + "'"; }

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw NpyError(quoted(name) + ": " + problem);
}

// ---- the header: a Python dict literal -----------------------------------------------------------

// What the dict says, once checked.
struct NpyHeader {
  NpyDtype dtype = NpyDtype::Float32;
  std::size_t count = 0;
};

// A small reader for the literal NumPy writes: {'descr': '<f8', 'fortran_order': False, 'shape': (5,), }.
// Accepts single or double quotes, any spacing, trailing commas, and Python 2's 5L integers.
class DictReader {
 public:
  DictReader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  NpyHeader read() {
    const NpyRawHeader raw = read_raw();
    return checked(raw.descr, raw.shape);
  }

  NpyRawHeader read_raw() {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<unsigned long long>> shape;
    expect('{');
    while (!peek_is('}')) {
      const std::string key = read_string();
      expect(':');
      if (key == "descr") {
        if (peek_is('[')) refuse_structured();
        descr = read_string();
      } else if (key == "fortran_order") {
        fortran_order = read_bool();
      } else if (key == "shape") {
        shape = read_shape();
      } else {
        fail(name_, "the .npy header has an unknown key " + quoted(key) + "; the file is not a NumPy array file");
      }
      if (!peek_is('}')) expect(',');
    }
    expect('}');
    if (!descr || !fortran_order || !shape)
      fail(name_, "the .npy header lacks 'descr', 'fortran_order' or 'shape'; the file is damaged");
    NpyRawHeader raw;
    raw.descr = *descr;
    raw.fortran_order = *fortran_order;
    raw.shape = *shape;
    return raw;
  }

 private:
  NpyHeader checked(const std::string& descr, const std::vector<unsigned long long>& shape) const {
    NpyHeader header;
    header.dtype = dtype_of(descr);
    if (shape.empty())
      fail(name_, "the array is 0-dimensional (a single number); gausslab filters 1D signals: save a 1D array");
    if (shape.size() > 1) {
      std::string dims;
      for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
      fail(name_, "the array is " + std::to_string(shape.size()) + "D, of shape (" + dims +
                      "); gausslab-filter filters 1D signals along their one axis: save each signal as a 1D "
                      "array (a.ravel(), or a[i] for row i), or save an image file to blur in 2D");
    }
    if (shape[0] == 0) fail(name_, "the array is empty (shape (0,)); a signal needs at least one sample");
    if (shape[0] > kMaxNpySamples)
      fail(name_, "the array has " + std::to_string(shape[0]) + " samples, more than the " +
                      std::to_string(kMaxNpySamples) + " gausslab filters at once; split the signal");
    header.count = static_cast<std::size_t>(shape[0]);
    return header;
  }

  NpyDtype dtype_of(const std::string& descr) const {
    if (descr == "<f4" || descr == "=f4" || descr == "f4") return NpyDtype::Float32;
    if (descr == "<f8" || descr == "=f8" || descr == "f8") return NpyDtype::Float64;
    if (descr == ">f4" || descr == ">f8")
      fail(name_, "the samples are big-endian (dtype " + quoted(descr) +
                      "); save them little-endian: np.save(path, a.astype(a.dtype.newbyteorder('<')))");
    fail(name_, "dtype " + quoted(descr) + " (" + dtype_words(descr) +
                    ") is not supported; gausslab reads float32 or float64 1D arrays" + kConvertHint);
  }

  public:
  static std::string dtype_words(const std::string& descr) {
    const std::string body = descr.empty() ? descr : descr.substr(descr[0] == '<' || descr[0] == '>' ||
                                                                          descr[0] == '|' || descr[0] == '='
                                                                      ? 1
                                                                      : 0);
    if (body.empty()) return "empty";
    // The item size in bytes after the kind ("f4": 4); more than 4 digits is no real size (and
    // would overflow: the fuzzer found '<f0000000297138122077').
    std::size_t digits = 0;
    while (1 + digits < body.size() && std::isdigit(static_cast<unsigned char>(body[1 + digits]))) ++digits;
    const std::string bits = digits >= 1 && digits <= 4 ? std::to_string(std::stoi(body.substr(1, digits)) * 8) : "";
    switch (body[0]) {
      case 'f': return "float" + bits;
      case 'i': return "int" + bits;
      case 'u': return "uint" + bits;
      case 'c': return "complex" + bits;
      case 'b':
      case '?': return "bool";
      case 'O': return "Python objects";
      case 'U': return "unicode strings";
      case 'S': return "byte strings";
      case 'M': return "datetime";
      case 'm': return "timedelta";
      default: return "not a number type";
    }
  }

 private:

  // A structured (record) dtype, [('a', '<f4'), ('b', '<i4')]: refused naming its fields and what
  // gausslab reads instead (the signal, image and kernel readers all start here).
  [[noreturn]] void refuse_structured() const {
    std::vector<std::string> fields;
    int depth = 0;
    bool field_next = false;
    for (std::size_t at = pos_; at < text_.size() && fields.size() < 8; ++at) {
      const char c = text_[at];
      if (c == '\'' || c == '"') {
        const std::size_t end = text_.find(c, at + 1);
        if (end == std::string_view::npos) break;
        if (field_next && depth == 2 && end > at + 1) fields.emplace_back(text_.substr(at + 1, end - at - 1));
        field_next = false;
        at = end;
      } else if (c == '[' || c == '(') {
        ++depth;
        field_next = depth == 2;  // a field's tuple opens: its name comes first
      } else if (c == ']' || c == ')') {
        if (--depth <= 0) break;
        field_next = false;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        field_next = false;
      }
    }
    std::string names;
    for (std::size_t i = 0; i < fields.size(); ++i) names += (i ? ", '" : "'") + fields[i] + "'";
    const std::string one = fields.empty() ? "name" : fields.front();
    fail(name_, "the array is a structured (record) array, its dtype made of named fields" +
                    (names.empty() ? std::string() : " (" + names + ")") +
                    ", which gausslab does not read; it reads plain arrays of uint8, uint16, float16, float32 or "
                    "float64: 1D signals (float32 or float64) and 2D or 3D images (height, width, channels); save "
                    "one field, np.save(path, a['" + one + "']), or every field as the last axis, np.save(path, "
                    "numpy.lib.recfunctions.structured_to_unstructured(a))");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek_is(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  [[noreturn]] void malformed(const char* what) const {
    fail(name_, std::string("the .npy header is malformed (") + what + " at character " + std::to_string(pos_) +
                    "); the file is damaged or not a NumPy array file");
  }
  void expect(char c) {
    if (!peek_is(c)) malformed((std::string("expected '") + c + "'").c_str());
    ++pos_;
  }
  std::string read_string() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) malformed("expected a quoted name");
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) malformed("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool read_bool() {
    skip_space();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}})
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    malformed("expected True or False");
  }
  std::vector<unsigned long long> read_shape() {
    std::vector<unsigned long long> dims;
    expect('(');
    while (!peek_is(')')) {
      if (dims.size() >= 32) malformed("more than 32 dimensions");
      skip_space();
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) malformed("expected a size");
      unsigned long long value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (value > (~0ULL - 9) / 10) malformed("a size too large");
        value = value * 10 + static_cast<unsigned>(text_[pos_++] - '0');
      }
      if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
      dims.push_back(value);
      if (!peek_is(')')) expect(',');
    }
    expect(')');
    return dims;
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

// The preamble: magic, version, header length. Returns the offset of the samples; `available`
// bytes of the file start at `bytes` (at least the preamble and the header, else it is truncated).
struct Preamble {
  std::size_t header_offset = 0;
  std::size_t header_bytes = 0;
};

Preamble read_preamble(const unsigned char* bytes, std::size_t available, const std::string& name) {
  if (available < kMagicBytes || std::memcmp(bytes, kMagic, kMagicBytes) != 0)
    fail(name, "not a NumPy .npy file (it does not start with \\x93NUMPY); save the array with np.save");
  if (available < 8) fail(name, "the file is truncated inside the .npy preamble");
  const int major = bytes[6];
  Preamble p;
  if (major == 1) {
    if (available < 10) fail(name, "the file is truncated inside the .npy preamble");
    p.header_offset = 10;
    p.header_bytes = bytes[8] | (std::size_t{bytes[9]} << 8);
  } else if (major == 2 || major == 3) {
    if (available < 12) fail(name, "the file is truncated inside the .npy preamble");
    p.header_offset = 12;
    p.header_bytes = bytes[8] | (std::size_t{bytes[9]} << 8) | (std::size_t{bytes[10]} << 16) |
                     (std::size_t{bytes[11]} << 24);
  } else {
    fail(name, ".npy format version " + std::to_string(major) + "." + std::to_string(bytes[7]) +
                   " is unknown (gausslab reads 1.0, 2.0 and 3.0)");
  }
  if (p.header_bytes > kMaxNpyHeaderBytes)
    fail(name, "the .npy header claims " + std::to_string(p.header_bytes) + " bytes (more than " +
                   std::to_string(kMaxNpyHeaderBytes) + "); the file is damaged");
  return p;
}

std::size_t sample_bytes(NpyDtype dtype) { return dtype == NpyDtype::Float32 ? 4 : 8; }

void check_data_size(const NpyHeader& header, std::size_t data_bytes, const std::string& name) {
  const std::size_t expected = header.count * sample_bytes(header.dtype);
  if (data_bytes < expected)
    fail(name, "the file is truncated: shape (" + std::to_string(header.count) + ",) of " + to_string(header.dtype) +
                   " needs " + std::to_string(expected) + " bytes of samples, the file holds " +
                   std::to_string(data_bytes));
  if (data_bytes > expected)
    fail(name, "the file holds " + std::to_string(data_bytes - expected) + " bytes beyond the " +
                   std::to_string(header.count) + " samples its header declares; the file is damaged");
}

// Allocates the samples (after the size check) and fills them with `read(destination, bytes)`.
template <class Read>
NpySignal fill_signal(const NpyHeader& header, Read&& read) {
  NpySignal signal;
  signal.dtype = header.dtype;
  if (header.dtype == NpyDtype::Float32) {
    signal.f32.resize(header.count);
    read(signal.f32.data(), header.count * 4);
  } else {
    signal.f64.resize(header.count);
    read(signal.f64.data(), header.count * 8);
  }
  return signal;
}

NpyHeader parse_header(const unsigned char* bytes, std::size_t available, const Preamble& p, const std::string& name) {
  if (available < p.header_offset + p.header_bytes)
    fail(name, "the file is truncated inside the .npy header (" + std::to_string(p.header_bytes) + " bytes declared)");
  const std::string_view text(reinterpret_cast<const char*>(bytes) + p.header_offset, p.header_bytes);
  return DictReader(text, name).read();
}

}  // namespace

NpyRawHeader parse_npy_header(const void* data, std::size_t available, const std::string& name) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  const Preamble preamble = read_preamble(bytes, available, name);
  if (available < preamble.header_offset + preamble.header_bytes)
    fail(name, "the file is truncated inside the .npy header (" + std::to_string(preamble.header_bytes) +
                   " bytes declared)");
  const std::string_view text(reinterpret_cast<const char*>(bytes) + preamble.header_offset, preamble.header_bytes);
  NpyRawHeader header = DictReader(text, name).read_raw();
  header.data_offset = preamble.header_offset + preamble.header_bytes;
  return header;
}

std::string npy_dtype_words(const std::string& descr) { return DictReader::dtype_words(descr); }

namespace {

// ---- files -----------------------------------------------------------------------------------

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string errno_text() { return std::strerror(errno); }

// Through AtomicFile, the one way gausslab writes outputs (a temporary file beside `path`, moved
// into place when complete and synced; never replacing a file unless allowed).
void write_atomically(const std::string& path, const std::string& content, Overwrite overwrite) {
  try {
    write_file_atomically(path, content, overwrite);
  } catch (const FileWriteError& error) {
    throw NpyError(error.what());
  }
}

template <class T>
std::string encode(const T* samples, std::size_t count, const char* descr) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(count) + ",), }";
  // Pad with spaces and end with '\n' so that the samples start on a 64-byte boundary.
  const std::size_t unpadded = kMagicBytes + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string file(kMagic, kMagicBytes);
  file.push_back('\x01');
  file.push_back('\x00');
  file.push_back(static_cast<char>(dict.size() & 0xFF));
  file.push_back(static_cast<char>(dict.size() >> 8));
  file += dict;
  file.append(reinterpret_cast<const char*>(samples), count * sizeof(T));
  return file;
}

}  // namespace

const char* to_string(NpyDtype dtype) { return dtype == NpyDtype::Float32 ? "float32" : "float64"; }

NpySignal read_npy_1d_from_memory(const void* data, std::size_t size, const std::string& name) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  const Preamble preamble = read_preamble(bytes, size, name);
  const NpyHeader header = parse_header(bytes, size, preamble, name);
  const std::size_t offset = preamble.header_offset + preamble.header_bytes;
  check_data_size(header, size - offset, name);
  return fill_signal(header, [&](void* destination, std::size_t n) { std::memcpy(destination, bytes + offset, n); });
}

NpySignal read_npy_1d(const std::string& path) {
  // O_NONBLOCK: a FIFO without a writer would block open() forever; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open: " + errno_text());
  std::unique_ptr<std::FILE, FileCloser> file(::fdopen(fd, "rb"));
  if (!file) {
    ::close(fd);
    fail(path, "cannot open: " + errno_text());
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(path, "cannot read: " + errno_text());
  if (S_ISDIR(info.st_mode)) fail(path, "is a folder, not a .npy file");
  if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file (a FIFO, device or socket); save the array to a file");
  const std::size_t file_bytes = static_cast<std::size_t>(info.st_size);
  if (file_bytes == 0) fail(path, "the file is empty; save the array with np.save");

  // The preamble and the header (bounded by kMaxNpyHeaderBytes) first; the samples once checked.
  std::vector<unsigned char> head(std::min<std::size_t>(file_bytes, 12 + kMaxNpyHeaderBytes));
  if (std::fread(head.data(), 1, head.size(), file.get()) != head.size()) fail(path, "cannot read: " + errno_text());
  const Preamble preamble = read_preamble(head.data(), head.size(), path);
  const NpyHeader header = parse_header(head.data(), head.size(), preamble, path);
  const std::size_t offset = preamble.header_offset + preamble.header_bytes;
  check_data_size(header, file_bytes - offset, path);
  if (std::fseek(file.get(), static_cast<long>(offset), SEEK_SET) != 0) fail(path, "cannot read: " + errno_text());
  return fill_signal(header, [&](void* destination, std::size_t n) {
    if (std::fread(destination, 1, n, file.get()) != n)
      fail(path, "the file ended early while reading the samples (it changed while being read?)");
  });
}

std::string encode_npy_1d(const float* samples, std::size_t count) { return encode(samples, count, "<f4"); }
std::string encode_npy_1d(const double* samples, std::size_t count) { return encode(samples, count, "<f8"); }

void write_npy_1d(const std::string& path, const float* samples, std::size_t count, Overwrite overwrite) {
  write_atomically(path, encode_npy_1d(samples, count), overwrite);
}
void write_npy_1d(const std::string& path, const double* samples, std::size_t count, Overwrite overwrite) {
  write_atomically(path, encode_npy_1d(samples, count), overwrite);
}
void write_npy_1d(const std::string& path, const NpySignal& signal, Overwrite overwrite) {
  if (signal.dtype == NpyDtype::Float32)
    write_npy_1d(path, signal.f32.data(), signal.f32.size(), overwrite);
  else
    write_npy_1d(path, signal.f64.data(), signal.f64.size(), overwrite);
}

std::string check_npy_output_path(const std::string& path, Overwrite overwrite) {
  if (path.empty()) return "the output file name is empty";
  if (!is_npy_path(path)) return quoted(path) + ": a 1D signal is written as a .npy file; give a name ending in .npy";
  if (std::string problem = output_folder_problem(path); !problem.empty()) return problem;
  // The file itself by AtomicFile's rule, as check_output_path asks it: a name too long, a folder,
  // device or FIFO, an existing file or a link to nothing (refused before the work, not after).
  return output_file_problem(path, overwrite);
}

bool is_npy_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
  return tail == ".npy";
}

}  // namespace gausslab

namespace gausslab {

namespace {

// The header of the .npy file at `path`, at most kMaxNpyHeaderBytes of it read, from a regular
// file opened without blocking (never a FIFO's writer awaited). Throws NpyError, in read_npy_1d's
// words for the same problems.
NpyRawHeader read_npy_file_header(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open: " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(path, "cannot read: " + errno_text());
  if (S_ISDIR(info.st_mode)) fail(path, "is a folder, not a .npy file");
  if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file (a FIFO, device or socket); save the array to a file");
  if (info.st_size == 0) fail(path, "the file is empty; save the array with np.save");
  std::vector<unsigned char> head(12 + kMaxNpyHeaderBytes);
  std::size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot read: " + errno_text());
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return parse_npy_header(head.data(), got, path);
}

}  // namespace

int npy_dimension_count(const std::string& path) {
  try {
    return static_cast<int>(read_npy_file_header(path).shape.size());
  } catch (const NpyError&) {
    return -1;
  }
}

std::string npy_header_problem(const std::string& path) {
  try {
    (void)read_npy_file_header(path);
    return {};
  } catch (const NpyError& error) {
    return error.what();
  }
}

bool is_npy_signal(const std::string& path) { return is_npy_path(path) && npy_dimension_count(path) < 2; }

}  // namespace gausslab
