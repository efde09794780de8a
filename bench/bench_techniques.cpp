#include "bench_techniques.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace gausslab {

namespace {

bool ok(const BenchRow& row) { return row.status == BenchRow::Status::Ok; }

std::string cell(const char* format, double value) { return std::isnan(value) ? "–" : format_number(format, value); }

// The ok row of `section` that `match` accepts (nullptr when none).
template <class Match>
const BenchRow* find(const std::vector<BenchRow>& rows, const char* section, Match&& match) {
  for (const BenchRow& row : rows)
    if (row.config.section == section && ok(row) && match(row)) return &row;
  return nullptr;
}

double ms(const BenchRow* row) { return row ? row->kernel.median : std::numeric_limits<double>::quiet_NaN(); }

int log2_of(int n) {
  int e = 0;
  while ((1 << (e + 1)) <= n) ++e;
  return e;
}

std::string signals_table(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  std::vector<std::string> methods;
  std::set<std::pair<int, int>> configurations;  // (length, radius)
  for (const BenchRow& row : rows) {
    if (row.config.section != kSignalsSection) continue;
    const std::string& id = row.config.method->info.id;
    if (std::find(methods.begin(), methods.end(), id) == methods.end()) methods.push_back(id);
    configurations.insert({row.config.problem.width, row.config.problem.params.radius()});
  }
  if (configurations.empty()) return "";
  // The kernel made for signals first, the comparison after it.
  std::stable_partition(methods.begin(), methods.end(), [](const std::string& m) { return m == "tiled_1d"; });
  std::ostringstream md;
  md << "## 1D signals (float32, one read and one write per sample)\n\n| samples | radius |";
  for (const std::string& m : methods) md << " " << m << " ms | GB/s | % copy |";
  md << "\n|---:|---:|";
  for (std::size_t i = 0; i < methods.size(); ++i) md << "---:|---:|---:|";
  md << "\n";
  double target = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [length, radius] : configurations) {
    md << "| 2^" << log2_of(length) << " | " << radius << " |";
    for (const std::string& m : methods) {
      const BenchRow* row = find(rows, kSignalsSection, [&](const BenchRow& r) {
        return r.config.method->info.id == m && r.config.problem.width == length && r.config.problem.params.radius() == radius;
      });
      const double pct = row && header.copy_gbs > 0 ? percent_of_copy(*row, header.copy_gbs)
                                                    : std::numeric_limits<double>::quiet_NaN();
      md << " " << cell("%.4g", ms(row)) << " | " << cell("%.0f", row ? gigabytes_per_second(*row) : NAN) << " | "
         << cell("%.0f", pct) << " |";
      if (m == "tiled_1d" && length == (1 << 26) && radius <= 20)
        target = std::isnan(target) ? pct : std::min(target, pct);
    }
    md << "\n";
  }
  md << "\nTarget: tiled_1d at 2^26 samples, radius ≤ 20, at least 70 % of the copy bandwidth: ";
  if (std::isnan(target))
    md << "not measured in this run.\n\n";
  else
    md << format_number("%.0f %%", target) << " (lowest of those radii): " << (target >= 70 ? "met" : "**not met**")
       << ".\n\n";
  return md.str();
}

std::string lut_table(const std::vector<BenchRow>& rows) {
  std::set<int> radii;
  for (const BenchRow& row : rows)
    if (row.config.section == kLutSection) radii.insert(row.config.problem.params.radius());
  if (radii.empty()) return "";
  std::ostringstream md;
  md << "## Lookup table against multiply (RGBA8)\n\n"
        "| kernel | distinct weights | lut_2d ms | naive_2d ms | shared_2d ms | lut_2d / faster multiply |\n"
        "|---|---:|---:|---:|---:|---:|\n";
  for (int radius : radii) {
    auto time_of = [&](const char* id) {
      return ms(find(rows, kLutSection, [&](const BenchRow& r) {
        return r.config.method->info.id == id && r.config.problem.params.radius() == radius;
      }));
    };
    const double lut = time_of("lut_2d"), naive = time_of("naive_2d"), shared = time_of("shared_2d");
    const double multiply = std::isnan(naive) ? shared : std::isnan(shared) ? naive : std::min(naive, shared);
    md << "| " << 2 * radius + 1 << "×" << 2 * radius + 1 << " | " << (radius + 1) * (radius + 2) / 2 << " | "
       << cell("%.4g", lut) << " | " << cell("%.4g", naive) << " | " << cell("%.4g", shared) << " | "
       << cell("%.2f×", lut / multiply) << " |\n";
  }
  return md.str() + "\n";
}

std::string unrolled_table(const std::vector<BenchRow>& rows) {
  std::ostringstream md;
  bool any = false;
  for (const BenchRow& row : rows) {
    if (row.config.section != kUnrolledSection || row.config.looped || !ok(row)) continue;
    const BenchRow* looped = find(rows, kUnrolledSection, [&](const BenchRow& r) {
      return r.config.looped && r.config.method == row.config.method && r.config.problem == row.config.problem;
    });
    if (!any)
      md << "## Compile-time small kernels against the run-time loop\n\n"
            "| method | format | kernel | unrolled ms | looped ms | looped / unrolled |\n|---|---|---|---:|---:|---:|\n";
    any = true;
    md << "| " << row.config.method->info.id << " | " << to_string(row.config.problem.format) << " | "
       << row.config.kernel_label() << " | " << cell("%.4g", ms(&row)) << " | " << cell("%.4g", ms(looped)) << " | "
       << cell("%.2f×", ms(looped) / ms(&row)) << " |\n";
  }
  return any ? md.str() + "\n" : "";
}

std::string pooling_table(const std::vector<BenchRow>& rows) {
  std::ostringstream md;
  bool any = false;
  for (const BenchRow& blur : rows) {
    if (blur.config.section != kPoolingSection || blur.config.pool != PoolMode::None || !ok(blur)) continue;
    for (const PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2}) {
      auto time_of = [&](bool fused) {
        return ms(find(rows, kPoolingSection, [&](const BenchRow& r) {
          return r.config.method == blur.config.method && r.config.problem == blur.config.problem &&
                 r.config.pool == mode && r.config.fused_pool == fused;
        }));
      };
      const double fused = time_of(true), separate = time_of(false);
      if (!any)
        md << "## 2×2 pooling after the blur: fused into the last pass against a separate kernel\n\n"
              "| method | format | kernel | pool | blur alone ms | fused ms | separate ms | separate / fused |\n"
              "|---|---|---|---|---:|---:|---:|---:|\n";
      any = true;
      md << "| " << blur.config.method->info.id << " | " << to_string(blur.config.problem.format) << " | "
         << blur.config.kernel_label() << " | " << to_string(mode) << " | " << cell("%.4g", ms(&blur)) << " | "
         << cell("%.4g", fused) << " | " << cell("%.4g", separate) << " | " << cell("%.2f×", separate / fused) << " |\n";
    }
  }
  return any ? md.str() + "\n" : "";
}

// Each method that takes custom kernels, on the 41-tap pair and the 5×5 table, beside the Gaussian
// of the same reach (its own time on the plain problem).
std::string custom_kernels_table(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  std::ostringstream md;
  bool any = false;
  for (const BenchRow& row : rows) {
    if (row.config.section != kCustomSection || !row.config.problem.params.custom_kernel()) continue;
    const BenchRow* gaussian = find(rows, kCustomSection, [&](const BenchRow& r) {
      return r.config.method == row.config.method && !r.config.problem.params.custom_kernel() &&
             r.config.problem.format == row.config.problem.format &&
             r.config.problem.params.radius() == row.config.problem.params.radius();
    });
    if (!any)
      md << "## Custom kernels (issue 37) beside the Gaussian of the same reach\n\n"
            "| method | format | kernel | ms | % copy | Gaussian ms | kernel / Gaussian |\n"
            "|---|---|---|---:|---:|---:|---:|\n";
    any = true;
    const double pct = ok(row) && header.copy_gbs > 0 ? percent_of_copy(row, header.copy_gbs)
                                                      : std::numeric_limits<double>::quiet_NaN();
    md << "| " << row.config.method->info.id << " | " << to_string(row.config.problem.format) << " | "
       << row.config.kernel_label() << (row.config.problem.params.rounding != IntegerRounding::Nearest ? ", floor" : "")
       << " | " << cell("%.4g", ok(row) ? ms(&row) : NAN) << " | " << cell("%.0f", pct) << " | "
       << cell("%.4g", ms(gaussian)) << " | " << cell("%.2f×", (ok(row) ? ms(&row) : NAN) / ms(gaussian)) << " |\n";
  }
  return any ? md.str() + "\n" : "";
}

}  // namespace

std::string section_title(const std::string& section) {
  if (section == kMainSection) return "Image size × kernel";
  if (section == kSweepSection) return "Time against sigma";
  if (section == kScalingSection) return "Time against the pixel count";
  if (section == kSignalsSection) return "1D signals, every row";
  if (section == kLutSection) return "Lookup table against multiply, every row";
  if (section == kUnrolledSection) return "Unrolled against looped, every row";
  if (section == kPoolingSection) return "Pooling, every row";
  if (section == kCustomSection) return "Custom kernels, every row";
  return section;
}

std::string techniques_markdown(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  return signals_table(header, rows) + lut_table(rows) + unrolled_table(rows) + pooling_table(rows) +
         custom_kernels_table(header, rows);
}

}  // namespace gausslab
