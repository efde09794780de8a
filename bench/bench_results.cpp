#include "bench_results.hpp"

#include <cstdio>

namespace gausslab {

const char* to_string(BenchRow::Status status) {
  switch (status) {
    case BenchRow::Status::Ok:
      return "ok";
    case BenchRow::Status::Skipped:
      return "skipped";
    default:
      return "failed";
  }
}

std::string format_number(const char* format, double value) {
  char text[128];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

double megapixels_per_second(const BenchRow& row) {
  if (row.status != BenchRow::Status::Ok || !(row.kernel.median > 0)) return 0;
  return static_cast<double>(row.config.problem.pixel_count()) / (row.kernel.median * 1e-3) / 1e6;
}

double gigabytes_per_second(const BenchRow& row) {
  if (row.status != BenchRow::Status::Ok || !(row.kernel.median > 0)) return 0;
  return effective_bytes(row.config) / (row.kernel.median * 1e-3) / 1e9;
}

double percent_of_copy(const BenchRow& row, double copy_gbs) {
  return copy_gbs > 0 ? 100.0 * gigabytes_per_second(row) / copy_gbs : 0;
}

}  // namespace gausslab
