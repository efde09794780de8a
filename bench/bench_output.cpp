#include "bench_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "bench_environment.hpp"
#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

bool is_result_file(const std::string& name) {
  for (const char* result : kResultFiles)
    if (name == result) return true;
  return name.rfind("time_vs_", 0) == 0 && fs::path(name).extension() == ".png";
}

}  // namespace

void prepare_output_folder(const std::string& dir, bool overwrite) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UsageError("--out: " + in_quotes(dir) + " exists and is not a folder; give a folder name");
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) throw UsageError("--out: cannot create the folder " + in_quotes(dir) + ": " + ec.message());
    return;
  }
  if (overwrite) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
    if (is_result_file(entry.path().filename().string()))
      throw UsageError("--out: " + in_quotes(dir) + " already holds results (" + entry.path().filename().string() +
                       "); gausslab-bench never overwrites them: choose another --out folder or pass --overwrite");
  if (ec) throw UsageError("--out: cannot read the folder " + in_quotes(dir) + ": " + ec.message());
}

void write_text_file(const std::string& path, const std::string& content, bool overwrite) {
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  ::close(fd);
  // link() fails when the target exists, so a file that appeared meanwhile is never replaced.
  const int moved = overwrite ? ::rename(temp.c_str(), path.c_str()) : ::link(temp.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (moved != 0)
    throw std::runtime_error(
        "cannot write " + in_quotes(path) + ": " +
        (error == EEXIST ? std::string("it exists already (pass --overwrite)") : std::strerror(error)));
}

std::string find_plot_script() {
  std::vector<fs::path> candidates;
  if (const char* from_env = std::getenv("GAUSSLAB_PLOT_SCRIPT"); from_env && *from_env)
    candidates.emplace_back(from_env);
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path() / "plot_results.py");
#ifdef GAUSSLAB_BENCH_SOURCE_DIR
  candidates.push_back(fs::path(GAUSSLAB_BENCH_SOURCE_DIR) / "plot_results.py");
#endif
  candidates.push_back(fs::path("bench") / "plot_results.py");
  for (const fs::path& candidate : candidates)
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  return {};
}

std::string run_plot_script(const std::string& script, const std::string& dir, bool overwrite) {
  if (script.empty())
    return "charts not made: bench/plot_results.py was not found (set GAUSSLAB_PLOT_SCRIPT, or run from the "
           "repository root)";
  std::string python;
  for (const char* candidate : {"/usr/bin/python3", "python3"}) {
    const std::string probe = std::string(candidate) + " -c 'import matplotlib' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) {
      python = candidate;
      break;
    }
  }
  if (python.empty())
    return "charts not made: no Python with matplotlib (install python3-matplotlib), then run: python3 " + script +
           " " + dir;
  const std::string command =
      python + " " + shell_quote(script) + " " + shell_quote(dir) + (overwrite ? " --overwrite" : "");
  const int status = std::system(command.c_str());
  if (status != 0)
    return "the chart script failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
           "): " + command;
  return "charts made by " + command;
}

}  // namespace gausslab
