// Opening a user's path: O_NONBLOCK | O_NOCTTY, then fstat on the open file; regular files only.
#include "gausslab/core/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gausslab {

namespace {

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

std::string what_it_is(mode_t mode, const std::string& kind) {
  const std::string only = "gausslab reads " + kind + " from regular files only";
  if (S_ISDIR(mode)) return "a folder, not a regular file; " + only;
  if (S_ISFIFO(mode)) return "a FIFO (named pipe), not a regular file; " + only;
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a regular file; " + only;
  if (S_ISSOCK(mode)) return "a socket, not a regular file; " + only;
  return "not a regular file; " + only;
}

}  // namespace

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_bytes_(other.size_bytes_) {}

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_bytes_ = other.size_bytes_;
  }
  return *this;
}

RegularFile open_regular_file(const std::string& path, const std::string& kind) {
  if (path.empty()) throw InputFileError("cannot open a file with an empty name");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) throw InputFileError("cannot open " + in_quotes(path) + ": no such file; check the path");
    if (error == EACCES) throw InputFileError("cannot open " + in_quotes(path) + ": no permission to read it");
    throw InputFileError("cannot open " + in_quotes(path) + ": " + std::strerror(error));
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const int error = errno;
    ::close(fd);
    throw InputFileError("cannot read " + in_quotes(path) + ": " + std::strerror(error));
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(fd);
    throw InputFileError(in_quotes(path) + " is " + what_it_is(status.st_mode, kind));
  }
  return RegularFile(fd, static_cast<std::uint64_t>(status.st_size));
}

std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& kind) {
  const RegularFile file = open_regular_file(path, kind);
  const auto too_large = [&] {
    return InputFileError(in_quotes(path) + " is larger than " + std::to_string(max_bytes) +
                          " bytes, the limit for " + kind);
  };
  if (file.size_bytes() > max_bytes) throw too_large();
  std::string content(static_cast<std::size_t>(file.size_bytes()) + 1, '\0');  // one more: a file that grew
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::read(file.fd(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputFileError("cannot read " + in_quotes(path) + ": " + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done > max_bytes) throw too_large();
  content.resize(done);
  return content;
}

std::string regular_file_problem(const std::string& path, const std::string& kind) {
  try {
    open_regular_file(path, kind);
  } catch (const InputFileError& error) {
    return error.what();
  }
  return {};
}

}  // namespace gausslab
