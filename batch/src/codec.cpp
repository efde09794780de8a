#include "gausslab/batch/codec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gausslab {

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Closes the descriptor on every path out.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<unsigned char> read_image_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) throw ImageLoadError("cannot open " + quoted(path) + ": no such file; check the path");
    throw ImageLoadError("cannot open " + quoted(path) + ": " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode))
    throw ImageLoadError(quoted(path) + " is a folder, not an image file; filter the images in it with --out-dir DIR");
  if (!S_ISREG(info.st_mode))
    throw ImageLoadError(quoted(path) + " is not a regular file (a device, pipe or socket); save the image to a file first");
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw ImageLoadError("cannot open " + quoted(path) + ": " + std::strerror(errno));
  const std::size_t size = static_cast<std::size_t>(info.st_size);
  std::vector<unsigned char> bytes(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(file.fd, bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ImageLoadError("cannot read " + quoted(path) + ": " + std::strerror(errno));
    if (n == 0) break;  // the file shrank while being read: decode what is there, which will say so
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

LoadedImage decode_image(const std::vector<unsigned char>& bytes, const std::string& name) {
  if (bytes.empty()) throw ImageLoadError(quoted(name) + " is empty (0 bytes); it holds no image");
  return load_image_from_memory(bytes.data(), bytes.size(), name);
}

double encode_and_write(const std::string& path, const ImageRgba8& image, int channels, Overwrite overwrite) {
  save_image(path, image, channels, overwrite);
  return 0;
}

std::string output_format_list() { return "png, bmp"; }

bool is_output_format(const std::string& format) { return format == "png" || format == "bmp"; }

}  // namespace gausslab
