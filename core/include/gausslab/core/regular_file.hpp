#pragma once
// Core's rule for opening a path someone gave a program: only a regular file is read, and opening
// never blocks. A FIFO with no writer would make open() wait forever, a terminal could become the
// controlling terminal, /dev/zero and /dev/urandom never end: the path is opened with O_NONBLOCK |
// O_NOCTTY, then fstat() on the open file (not the name, which could change in between) refuses a
// folder, FIFO, device or socket, naming what it is. O_NONBLOCK changes nothing for a regular file.
// read_image_bytes (image_io) opens every image file with it.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gausslab {

// A path could not be opened by the rule; what() names the path, what it is and what to do.
class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An open regular file, closed by the destructor.
class RegularFile {
 public:
  RegularFile() = default;
  RegularFile(int fd, std::uint64_t size_bytes) : fd_(fd), size_bytes_(size_bytes) {}
  ~RegularFile();
  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size_bytes() const { return size_bytes_; }  // when opened

 private:
  int fd_ = -1;
  std::uint64_t size_bytes_ = 0;
};

// Opens `path` for reading by the rule. `kind` names what the program reads, for the message
// ("images" gives "... gausslab reads images from regular files only"). Throws InputFileError.
RegularFile open_regular_file(const std::string& path, const std::string& kind = "files");

// The whole content of a small file opened by the rule (a script, a settings file): a file of more
// than `max_bytes` is refused, naming the limit, without reading past it (/dev/zero is refused
// anyway, as a device). Throws InputFileError.
std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& kind = "files");

// Empty when open_regular_file would succeed (the file is then closed again: for a library that
// opens the path itself, such as FFmpeg); otherwise its message.
std::string regular_file_problem(const std::string& path, const std::string& kind = "files");

}  // namespace gausslab
