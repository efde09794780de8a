#include "bench_output.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bench_environment.hpp"
#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/run_inputs.hpp"

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

void check_output_folder(const std::string& dir, bool overwrite) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UsageError("--out: " + in_quotes(dir) + " exists and is not a folder; give a folder name");
  if (!fs::exists(dir, ec)) {
    // To be made: the nearest part of the path that exists must be a folder ('a.png/results').
    for (fs::path above = fs::path(dir).parent_path(); !above.empty(); above = above.parent_path()) {
      if (fs::is_directory(above, ec)) break;
      if (fs::exists(above, ec))
        throw UsageError("--out: cannot create the folder " + in_quotes(dir) + ": " + in_quotes(above.string()) +
                         " is a file, not a folder");
      if (above == above.parent_path()) break;
    }
    return;
  }
  if (overwrite) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
    if (is_result_file(entry.path().filename().string()))
      throw UsageError("--out: " + in_quotes(dir) + " already holds results (" + entry.path().filename().string() +
                       "); gausslab-bench never overwrites them: choose another --out folder or pass --overwrite");
  if (ec) throw UsageError("--out: cannot read the folder " + in_quotes(dir) + ": " + ec.message());
}

void prepare_output_folder(const std::string& dir, bool overwrite) {
  check_output_folder(dir, overwrite);
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("--out: cannot create the folder " + in_quotes(dir) + ": " + ec.message());
}

void refuse_results_over_inputs(const std::string& dir, const std::vector<std::string>& names, const RunInputs& inputs) {
  for (const std::string& name : names)
    if (std::string problem = inputs.refusal(dir + "/" + name, "gausslab-bench", "choose another --out folder");
        !problem.empty())
      throw UsageError("--out: " + problem);
}

PartialResults::PartialResults(const std::string& dir, const std::string& csv_header, std::ostream& log)
    : log_(log) {
  for (int n = 1; n < 1000 && fd_ < 0; ++n) {
    path_ = dir + (n == 1 ? "/results.partial.csv" : "/results.partial-" + std::to_string(n) + ".csv");
    const mode_t mode = 0666;  // the umask applies
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    log_ << "gausslab-bench: cannot keep partial results in " << in_quotes(path_) << ": " << std::strerror(errno)
         << "; the run goes on and writes its results at the end\n";
    return;
  }
  append(csv_header);
}

PartialResults::~PartialResults() {
  if (fd_ >= 0) ::close(fd_);
}

void PartialResults::append(const std::string& csv_rows) {
  std::size_t done = 0;
  while (fd_ >= 0 && done < csv_rows.size()) {
    const ssize_t n = ::write(fd_, csv_rows.data() + done, csv_rows.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up(n == 0 ? ENOSPC : errno);
    done += static_cast<std::size_t>(n);
  }
}

void PartialResults::give_up(int error_number) {
  ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());  // a partial file that misses rows would mislead, and an empty one is clutter
  log_ << "gausslab-bench: cannot keep partial results in " << in_quotes(path_) << ": " << std::strerror(error_number)
       << "; removed it, the run goes on (the measurements are kept in memory)\n";
}

void PartialResults::remove() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

std::vector<std::string> write_result_files(const std::string& dir,
                                            const std::vector<std::pair<std::string, std::string>>& files,
                                            bool overwrite) {
  std::vector<std::string> failures;
  for (const auto& [name, content] : files) {
    try {
      write_file_atomically(dir + "/" + name, content, overwrite ? Overwrite::Allowed : Overwrite::Never);
    } catch (const FileWriteError& error) {
      failures.push_back(error.what());
    }
  }
  return failures;
}

std::string find_plot_script() {
  std::vector<fs::path> candidates;
  if (const char* from_env = std::getenv("GAUSSLAB_PLOT_SCRIPT"); from_env && *from_env)
    candidates.emplace_back(from_env);
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path() / "plot_results.py");
  if (!ec) candidates.push_back(self.parent_path() / ".." / "share" / "gausslab" / "plot_results.py");  // installed
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
