#include "gausslab/batch/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace {

std::size_t status_field_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line))
    if (line.rfind(prefix, 0) == 0) return static_cast<std::size_t>(std::stoull(line.substr(prefix.size()))) * 1024;
  return 0;
}

}  // namespace

std::size_t host_physical_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

std::size_t kept_read_buffer_bytes(std::size_t host_budget, int threads) {
  constexpr std::size_t kMostKept = std::size_t(256) << 20;
  const auto share = static_cast<std::size_t>(static_cast<double>(host_budget) * kReadBufferShare);
  return std::min(kMostKept, share / static_cast<std::size_t>(std::max(1, threads)));
}

std::size_t peak_resident_bytes() { return status_field_bytes("VmHWM"); }
std::size_t resident_bytes() { return status_field_bytes("VmRSS"); }

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::size_t parse_bytes(const std::string& flag, const std::string& text) {
  std::size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  std::string unit = text.substr(end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB")
    scale = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MIB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GIB")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TB" || unit == "TIB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  if (end == 0 || scale == 0 || !std::isfinite(value) || value <= 0 || value * scale < 1 || value * scale > 1e18)
    throw UsageError(flag + ": '" + text + "' is not an amount of memory; write it as 1GiB, 512MiB or 2048M");
  return static_cast<std::size_t>(value * scale);
}

}  // namespace gausslab
