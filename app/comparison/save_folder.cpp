#include "comparison/save_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gausslab {

namespace {

std::filesystem::path config_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path base;
  if (xdg && *xdg)
    base = xdg;
  else if (home && *home)
    base = std::filesystem::path(home) / ".config";
  else
    return {};
  return base / "gausslab" / "viewer.conf";
}

}  // namespace

std::string remembered_save_folder() {
  const std::filesystem::path file = config_file();
  if (file.empty()) return {};
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("save_folder=", 0) != 0) continue;
    const std::string folder = line.substr(12);
    std::error_code error;
    if (std::filesystem::is_directory(folder, error)) return folder;
  }
  return {};
}

std::string remember_save_folder(const std::string& folder) {
  const std::filesystem::path file = config_file();
  if (file.empty()) return "neither XDG_CONFIG_HOME nor HOME is set";
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  if (error) return "could not make " + file.parent_path().string() + ": " + error.message();
  // The settings file is ours: replaced as a whole through a temporary file.
  const std::string temporary = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "save_folder=" << folder << "\n";
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary, error);
      return "could not write " + temporary;
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return "could not write " + file.string() + ": " + error.message();
  }
  return {};
}

std::string write_new_text_file(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string temporary = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return "could not write in " + folder.string() + ": " + std::strerror(errno);
  const char* data = text.data();
  std::size_t left = text.size();
  std::string problem;
  while (left > 0 && problem.empty()) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      problem = std::strerror(errno);
    } else {
      data += written;
      left -= static_cast<std::size_t>(written);
    }
  }
  if (problem.empty() && ::fsync(fd) != 0) problem = std::strerror(errno);
  ::fchmod(fd, 0644 & ~[] { const mode_t m = ::umask(0); ::umask(m); return m; }());
  if (::close(fd) != 0 && problem.empty()) problem = std::strerror(errno);
  // link() publishes the complete file under its name only if that name is free.
  if (problem.empty() && ::link(temporary.c_str(), path.c_str()) != 0)
    problem = errno == EEXIST ? "the file already exists" : std::strerror(errno);
  ::unlink(temporary.c_str());
  return problem.empty() ? std::string() : "could not write " + path + ": " + problem;
}

std::string first_free_stem(const std::string& stem, const char* const* extensions, int count) {
  for (int n = 1;; ++n) {
    const std::string candidate = n == 1 ? stem : stem + "-" + std::to_string(n);
    bool free = true;
    for (int i = 0; i < count && free; ++i) {
      std::error_code error;
      if (std::filesystem::exists(candidate + extensions[i], error)) free = false;
    }
    if (free) return candidate;
  }
}

}  // namespace gausslab
