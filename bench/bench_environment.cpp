#include "bench_environment.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include "gausslab/core/cpu_filter.hpp"

namespace gausslab {

namespace {

// The first line a command prints, or "" when it fails (no git, not a checkout).
std::string first_line_of(const char* command) {
  FILE* pipe = popen(command, "r");
  if (!pipe) return {};
  std::array<char, 256> buffer{};
  std::string line;
  if (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe)) line = buffer.data();
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe)) {
  }  // read to the end, so that the command never dies of a closed pipe
  const int status = pclose(pipe);
  if (status != 0) return {};
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string git_commit() {
  std::string commit = first_line_of("git rev-parse HEAD 2>/dev/null");
  if (commit.empty()) return {};
  // Uncommitted changes to tracked files make the commit alone an incomplete description.
  // (--no-optional-locks: only read, never refresh the index.)
  if (!first_line_of("git --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null").empty())
    commit += " (with uncommitted changes)";
  return commit;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::string shell_quote(const std::string& arg) {
  if (!arg.empty() &&
      arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") ==
          std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quote(argv[i]);
  return line;
}

BenchHeader collect_environment(int argc, const char* const* argv) {
  BenchHeader header;
  header.date_utc = utc_now();
  header.command_line = command_line(argc, argv);
  header.git_commit = git_commit();
#ifdef GAUSSLAB_BUILD_COMMIT
  header.build_commit = GAUSSLAB_BUILD_COMMIT;
#endif
  header.cpu_model = cpu_model();
  header.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  header.openmp_threads = cpu_thread_count();
  header.device = cuda_device_status();
  if (header.device.available) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, header.device.device) == cudaSuccess)
      header.sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, header.device.device) == cudaSuccess)
      header.memory_clock_mhz = khz / 1000;
    int bits = 0;
    if (cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, header.device.device) == cudaSuccess)
      header.memory_bus_width_bits = bits;
    cudaGetLastError();  // an attribute this runtime lacks is left at 0, not worth failing the run for
  }
  return header;
}

}  // namespace gausslab
