#include "viewer/standard_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gausslab {

namespace {

int picture_fd = -1;  // the original standard output, once reserved

}  // namespace

void reserve_standard_output() {
  if (picture_fd >= 0) return;
  if (::isatty(STDOUT_FILENO))
    throw std::runtime_error("standard output is a terminal: redirect it to a file or a pipe (... --screenshot - > "
                             "view.png), or give a file name");
  std::fflush(stdout);
  picture_fd = ::dup(STDOUT_FILENO);
  if (picture_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw std::runtime_error(std::string("cannot take standard output aside for the picture: ") + std::strerror(errno));
}

void write_standard_output(const ImageRgba8& image, int channels, ImageFormat format) {
  if (picture_fd < 0) throw std::logic_error("write_standard_output before reserve_standard_output");
  std::signal(SIGPIPE, SIG_IGN);  // a reader gone is an EPIPE here, said, not a silent death
  encode_image_to(image, channels, format, 90, [](const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t written = ::write(picture_fd, bytes, size);
      if (written < 0 && errno == EINTR) continue;
      if (written < 0)
        throw std::runtime_error(errno == EPIPE ? std::string("standard output was closed before the picture was "
                                                              "written (the reading end of the pipe ended)")
                                                : std::string("cannot write the picture to standard output: ") +
                                                      std::strerror(errno));
      bytes += written;
      size -= static_cast<std::size_t>(written);
    }
  });
}

}  // namespace gausslab
