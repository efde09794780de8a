#include "bench_report.hpp"

#include "bench_techniques.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>

namespace gausslab {

namespace {

std::string number(const char* format, double value) {
  if (std::isnan(value)) return "";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return format_number(format, value);
}

bool ok(const BenchRow& row) { return row.status == BenchRow::Status::Ok; }

struct Column {
  const char* name;
  bool numeric;
  std::function<std::string(const BenchRow&, const BenchHeader&)> value;  // "" when there is none
};

// The columns of results.csv and of each row in results.json, in order.
const std::vector<Column>& columns() {
  using R = const BenchRow&;
  using H = const BenchHeader&;
  static const std::vector<Column> list = {
      {"section", false, [](R r, H) { return r.config.section; }},
      {"method", false, [](R r, H) { return r.config.method->info.id; }},
      {"backend", false, [](R r, H) { return std::string(to_string(r.config.method->info.backend)); }},
      {"format", false, [](R r, H) { return std::string(to_string(r.config.problem.format)); }},
      {"width", true, [](R r, H) { return std::to_string(r.config.problem.width); }},
      {"height", true, [](R r, H) { return std::to_string(r.config.problem.height); }},
      {"kernel", false, [](R r, H) { return r.config.kernel_size > 0 ? r.config.kernel_label() : std::string(); }},
      {"sigma", true, [](R r, H) { return number("%.6g", r.config.problem.params.sigma); }},
      {"radius", true, [](R r, H) { return std::to_string(r.config.problem.params.radius()); }},
      {"taps", true, [](R r, H) { return std::to_string(r.config.problem.params.taps()); }},
      {"border", false, [](R r, H) { return std::string(to_string(r.config.problem.params.border)); }},
      {"variant", false, [](R r, H) { return r.config.variant(); }},
      {"status", false, [](R r, H) { return std::string(to_string(r.status)); }},
      {"note", false, [](R r, H) { return r.note; }},
      {"warmup_runs", true, [](R r, H) { return ok(r) ? std::to_string(r.warmup_runs) : ""; }},
      {"runs", true, [](R r, H) { return ok(r) ? std::to_string(r.kernel.count) : ""; }},
      {"rotation_copies", true,
       [](R r, H) { return ok(r) && r.rotation_copies > 0 ? std::to_string(r.rotation_copies) : ""; }},
      {"ms_median", true, [](R r, H) { return ok(r) ? number("%.6g", r.kernel.median) : ""; }},
      {"ms_min", true, [](R r, H) { return ok(r) ? number("%.6g", r.kernel.min) : ""; }},
      {"ms_p90", true, [](R r, H) { return ok(r) ? number("%.6g", r.kernel.p90) : ""; }},
      {"mpix_per_s", true, [](R r, H) { return ok(r) ? number("%.5g", megapixels_per_second(r)) : ""; }},
      {"bytes_per_pixel", true, [](R r, H) { return std::to_string(bytes_per_pixel(r.config.problem.format)); }},
      {"mb_moved", true, [](R r, H) { return number("%.6g", effective_bytes(r.config) / 1e6); }},
      {"gb_per_s", true, [](R r, H) { return ok(r) ? number("%.5g", gigabytes_per_second(r)) : ""; }},
      {"pct_of_copy_bandwidth", true,
       [](R r, H h) { return ok(r) && h.copy_gbs > 0 ? number("%.4g", percent_of_copy(r, h.copy_gbs)) : ""; }},
      {"end_to_end_ms", true, [](R r, H) { return ok(r) ? number("%.6g", r.end_to_end_ms) : ""; }},
      {"max_rel_error", true,
       [](R r, H) { return r.has_accuracy ? number("%.3g", r.accuracy.max_relative_error) : ""; }},
      {"max_abs_error", true, [](R r, H) { return r.has_accuracy ? number("%.3g", r.accuracy.max_abs_error) : ""; }},
      {"psnr_db", true, [](R r, H) { return r.has_accuracy ? number("%.2f", r.accuracy.psnr_db) : ""; }},
      {"nonfinite", true, [](R r, H) { return r.has_accuracy ? std::to_string(r.accuracy.nonfinite) : ""; }},
      {"bound_max_rel_error", true, [](R r, H) { return ok(r) ? number("%.3g", r.bound.max_relative_error) : ""; }},
      {"bound_max_error_8bit", true, [](R r, H) { return ok(r) ? number("%.3g", r.bound.max_error_8bit) : ""; }},
      {"bound_max_error_16bit", true, [](R r, H) { return ok(r) ? number("%.3g", r.bound.max_error_16bit) : ""; }},
      {"within_bound", false, [](R r, H) { return ok(r) ? std::string(r.within_bound ? "yes" : "no") : ""; }},
  };
  return list;
}

std::string json_value(const Column& column, const std::string& value) {
  if (!column.numeric) return json_string(value);
  if (value.empty() || value == "inf" || value == "-inf") return "null";
  return value;
}

std::string size_text(int width, int height) { return std::to_string(width) + "×" + std::to_string(height); }

std::string ratio(double numerator, double denominator) {
  if (!(numerator > 0) || !(denominator > 0)) return "n/a";
  return number("%.1f×", numerator / denominator);
}

const BenchRow* find_row(const std::vector<BenchRow>& rows, const std::string& method, int kernel, int side) {
  for (const BenchRow& row : rows)
    if (row.config.section == kMainSection && row.config.method->info.id == method &&
        row.config.kernel_size == kernel && row.config.problem.format == PixelFormat::F32 &&
        row.config.problem.width == side && row.config.problem.height == side)
      return &row;
  return nullptr;
}

double median_or_nan(const BenchRow* row) {
  return row && ok(*row) ? row->kernel.median : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string results_csv_row(const BenchHeader& header, const BenchRow& row) {
  std::string line;
  for (const Column& column : columns()) {
    if (&column != &columns().front()) line += ',';
    line += csv_field(column.value(row, header));
  }
  return line + '\n';
}

std::string results_csv(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  std::string csv;
  for (const Column& column : columns()) csv += (csv.empty() ? "" : ",") + std::string(column.name);
  csv += '\n';
  for (const BenchRow& row : rows) csv += results_csv_row(header, row);
  return csv;
}

std::string results_json(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  const CudaDeviceStatus& d = header.device;
  std::ostringstream json;
  json << "{\n";
  json << "  \"tool\": \"gausslab-bench\",\n";
  json << "  \"date_utc\": " << json_string(header.date_utc) << ",\n";
  json << "  \"command_line\": " << json_string(header.command_line) << ",\n";
  json << "  \"git_commit\": " << (header.git_commit.empty() ? "null" : json_string(header.git_commit)) << ",\n";
  json << "  \"build_commit\": " << (header.build_commit.empty() ? "null" : json_string(header.build_commit)) << ",\n";
  json << "  \"host\": {\"cpu_model\": " << json_string(header.cpu_model) << ", \"cpu_threads\": " << header.cpu_threads
       << ", \"openmp_threads\": " << header.openmp_threads << "},\n";
  json << "  \"cuda\": {\"available\": " << (d.available ? "true" : "false");
  if (!d.available) {
    json << ", \"reason\": " << json_string(d.reason);
  } else {
    json << ", \"device_name\": " << json_string(d.name) << ", \"compute_capability\": "
         << json_string(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor))
         << ", \"multiprocessors\": " << d.multiprocessors << ", \"global_memory_bytes\": " << d.global_memory_bytes
         << ", \"l2_cache_bytes\": " << d.l2_cache_bytes
         << ", \"shared_memory_per_block_optin_bytes\": " << d.shared_memory_per_block_optin
         << ", \"sm_clock_mhz\": " << header.sm_clock_mhz << ", \"memory_clock_mhz\": " << header.memory_clock_mhz
         << ", \"memory_bus_width_bits\": " << header.memory_bus_width_bits
         << ", \"datasheet_bandwidth_gbs\": " << json_number(d.peak_bandwidth_gbs)
         << ", \"kernel_driver_version\": " << json_string(d.kernel_driver)
         << ", \"driver_version\": " << json_string(d.driver_string)
         << ", \"driver_version_number\": " << d.driver_version << ", \"runtime_version\": "
         << json_string(std::to_string(d.runtime_version / 1000) + "." +
                        std::to_string((d.runtime_version % 1000) / 10))
         << ", \"runtime_version_number\": " << d.runtime_version;
  }
  json << "},\n";
  json << "  \"copy_bandwidth_gbs\": " << (header.copy_gbs > 0 ? json_number(header.copy_gbs) : "null") << ",\n";
  json << "  \"copy_bandwidth_note\": " << json_string(header.copy_note) << ",\n";
  json << "  \"timing_notes\": [";
  for (std::size_t i = 0; i < header.timing_notes.size(); ++i)
    json << (i ? ",\n    " : "\n    ") << json_string(header.timing_notes[i]);
  json << "\n  ],\n";
  json << "  \"total_seconds\": " << json_number(header.total_seconds) << ",\n";
  json << "  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    json << (i ? ",\n    {" : "\n    {");
    bool first = true;
    for (const Column& column : columns()) {
      json << (first ? "" : ", ") << json_string(column.name) << ": "
           << json_value(column, column.value(rows[i], header));
      first = false;
    }
    json << "}";
  }
  json << "\n  ]\n}\n";
  return json.str();
}

std::vector<Speedup> speedups(const std::vector<BenchRow>& rows, int side) {
  std::vector<Speedup> table;
  for (int kernel : {7, 41}) {
    const double separable_ms = median_or_nan(find_row(rows, "cpu_separable", kernel, side));
    const double openmp_ms = median_or_nan(find_row(rows, "cpu_openmp", kernel, side));
    for (const BenchRow& row : rows) {
      if (!row.config.is_gpu() || &row != find_row(rows, row.config.method->info.id, kernel, side)) continue;
      const double gpu_ms = median_or_nan(&row);
      table.push_back({row.config.method->info.id, kernel, gpu_ms, separable_ms / gpu_ms, openmp_ms / gpu_ms});
    }
  }
  return table;
}

std::string speedup_markdown(const std::vector<BenchRow>& rows, int side) {
  const std::vector<Speedup> table = speedups(rows, side);
  std::string md = "### Speed-up over the CPU, " + size_text(side, side) + " f32\n\n";
  if (table.empty())
    return md + "This run has no GPU method on a " + size_text(side, side) +
           " f32 image with a 7×7 or 41×41 kernel (the defaults have them).\n";
  for (int kernel : {7, 41}) {
    const double separable_ms = median_or_nan(find_row(rows, "cpu_separable", kernel, side));
    const double openmp_ms = median_or_nan(find_row(rows, "cpu_openmp", kernel, side));
    md += "**" + std::to_string(kernel) + "×" + std::to_string(kernel) + "** (radius " +
          std::to_string(kernel_radius(kernel)) + ", sigma " + number("%.3g", kernel_sigma(kernel)) +
          "): cpu_separable " +
          (std::isnan(separable_ms) ? std::string("not measured") : number("%.4g ms", separable_ms)) + ", cpu_openmp " +
          (std::isnan(openmp_ms) ? std::string("not measured") : number("%.4g ms", openmp_ms)) + "\n\n";
    md += "| GPU method | GPU ms | × vs cpu_separable | × vs cpu_openmp |\n|---|---:|---:|---:|\n";
    for (const Speedup& s : table) {
      if (s.kernel_size != kernel) continue;
      md += "| " + s.method + " | " + (std::isnan(s.gpu_ms) ? std::string("not run") : number("%.4g", s.gpu_ms)) +
            " | " + ratio(separable_ms, s.gpu_ms) + " | " + ratio(openmp_ms, s.gpu_ms) + " |\n";
    }
    md += "\n";
  }
  return md;
}

std::string skipped_markdown(const std::vector<BenchRow>& rows) {
  // One line per status and reason, naming the methods.
  struct Reason {
    std::string text;
    std::vector<std::string> methods;
    int count = 0;
  };
  std::vector<Reason> reasons;
  for (const BenchRow& row : rows) {
    if (ok(row)) continue;
    const std::string text = std::string(to_string(row.status)) + ": " + row.note;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const Reason& r) { return r.text == text; });
    if (it == reasons.end()) it = reasons.insert(reasons.end(), Reason{text, {}, 0});
    ++it->count;
    const std::string& id = row.config.method->info.id;
    if (std::find(it->methods.begin(), it->methods.end(), id) == it->methods.end()) it->methods.push_back(id);
  }
  if (reasons.empty()) return {};
  std::string md = "## Skipped or failed\n\n";
  for (const Reason& reason : reasons) {
    std::string methods;
    for (const std::string& id : reason.methods) methods += (methods.empty() ? "" : ", ") + id;
    md += "- " + methods + " (" + std::to_string(reason.count) + " configuration" + (reason.count > 1 ? "s" : "") +
          ") " + reason.text + "\n";
  }
  return md + "\n";
}

// For each size and sigma of the sweep, the fastest measured method within its stated bound (auto
// left out: it runs one of the others), with its share of the copy bandwidth and what auto chose.
static std::string best_per_sigma_markdown(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  std::vector<std::tuple<PixelFormat, int, double>> keys;
  for (const BenchRow& row : rows)
    if (row.config.section == kSweepSection) {
      const std::tuple<PixelFormat, int, double> key{row.config.problem.format, row.config.problem.width,
                                                     row.config.problem.params.sigma};
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  if (keys.empty()) return {};
  // One table per format: its bytes per pixel set what "% of copy bandwidth" means (one read and one
  // write of the image at the copy bandwidth of this run).
  std::string md;
  std::optional<PixelFormat> table_format;
  for (const auto& [format, side, sigma] : keys) {
    if (format != table_format) {
      md += std::string(table_format ? "\n" : "") + "## Best method per sigma (" + to_string(format) + ", " +
            std::to_string(bytes_per_pixel(format)) + " B a pixel, " +
            to_string(rows.front().config.problem.params.border) +
            ")\n\n| size | sigma | best method | ms | MB moved | % of copy bandwidth | auto |\n"
            "|---|---:|---|---:|---:|---:|---|\n";
      table_format = format;
    }
    const BenchRow* best = nullptr;
    const BenchRow* automatic = nullptr;
    for (const BenchRow& row : rows) {
      if (row.config.section != kSweepSection || row.config.problem.format != format ||
          row.config.problem.width != side || row.config.problem.params.sigma != sigma || !ok(row))
        continue;
      const std::string& id = row.config.method->info.id;
      if (id == "auto") automatic = &row;
      if (id == "auto" || id == "auto_exact" || !row.within_bound) continue;
      if (!best || row.kernel.median < best->kernel.median) best = &row;
    }
    if (!best) continue;
    md += "| " + size_text(side, side) + " | " + number("%g", sigma) + " | " + best->config.method->info.id + " | " +
          number("%.4g", best->kernel.median) + " | " + number("%.4g", effective_bytes(best->config) / 1e6) + " | " +
          (header.copy_gbs > 0 ? number("%.0f %%", percent_of_copy(*best, header.copy_gbs)) : std::string("")) + " | " +
          (automatic ? automatic->note + ", " + number("%.4g ms", automatic->kernel.median) : std::string("")) + " |\n";
  }
  return md + "\n";
}

std::string console_summary(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  int measured = 0;
  std::string outside;
  for (const BenchRow& row : rows) {
    if (!ok(row)) continue;
    ++measured;
    if (!row.within_bound)
      outside += "- " + row.config.method->info.id + " " + to_string(row.config.problem.format) + " " +
                 size_text(row.config.problem.width, row.config.problem.height) + " " + row.config.kernel_label() +
                 ": max rel err " + number("%.3g", row.accuracy.max_relative_error) + ", max err " +
                 number("%.3g", row.accuracy.max_abs_error) + (row.accuracy.nonfinite ? ", NaN/inf values" : "") +
                 " (bound " + number("%.3g", bound_for(row.bound, row.config.problem.format)) +
                 (is_integer(sample_type(row.config.problem.format)) ? " levels)\n" : " relative)\n");
  }
  std::string text = "# gausslab-bench summary\n\n- GPU: " + describe(header.device) + "\n- copy bandwidth: " +
                     (header.copy_gbs > 0 ? number("%.1f GB/s", header.copy_gbs) : header.copy_note) + "\n- " +
                     std::to_string(measured) + " of " + std::to_string(rows.size()) +
                     " configurations measured; every row, with the timing rules, is in results.md\n\n";
  text += skipped_markdown(rows);
  if (!outside.empty()) text += "## Outside the method's stated accuracy\n\n" + outside + "\n";
  return text + techniques_markdown(header, rows) + speedup_markdown(rows);
  return text + best_per_sigma_markdown(header, rows) + speedup_markdown(rows);
}

std::string results_markdown(const BenchHeader& header, const std::vector<BenchRow>& rows) {
  std::ostringstream md;
  const CudaDeviceStatus& d = header.device;
  md << "# gausslab-bench results\n\n";
  md << "- GPU: " << describe(d) << "\n";
  md << "- device-to-device copy bandwidth: "
     << (header.copy_gbs > 0 ? number("%.1f GB/s", header.copy_gbs) + " (" + header.copy_note + ")" : header.copy_note)
     << "\n";
  md << "- CPU: " << header.cpu_model << ", " << header.cpu_threads << " hardware threads (cpu_openmp uses "
     << header.openmp_threads << ")\n";
  md << "- date (UTC): " << header.date_utc << "; total time " << number("%.1f s", header.total_seconds) << "\n";
  md << "- command: `" << header.command_line << "`\n";
  md << "- git commit: " << (header.git_commit.empty() ? "unknown" : header.git_commit)
     << (header.build_commit.empty() ? "" : " (build configured at " + header.build_commit + ")") << "\n";
  for (const std::string& note : header.timing_notes) md << "- " << note << "\n";
  md << "\n";

  // One table per section and format, in the order the rows ran.
  std::vector<std::pair<std::string, PixelFormat>> groups;
  for (const BenchRow& row : rows) {
    const std::pair<std::string, PixelFormat> group{row.config.section, row.config.problem.format};
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  md << techniques_markdown(header, rows);
  for (const auto& [section, format] : groups) {
    md << "## " << section_title(section) << ", " << to_string(format) << "\n\n";
    md << "| method | backend | size | kernel | variant | sigma | radius | ms median | min | p90 | Mpix/s | GB/s | % copy | "
          "end-to-end ms | max rel err | max err | PSNR dB | in bound |\n";
    md << "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const BenchRow& row : rows) {
      if (row.config.section != section || row.config.problem.format != format || !ok(row)) continue;
      const FilterProblem& p = row.config.problem;
      md << "| " << row.config.method->info.id << " | " << to_string(row.config.method->info.backend) << " | "
         << size_text(p.width, p.height) << " | " << (row.config.kernel_size > 0 ? row.config.kernel_label() : "")
         << " | " << row.config.variant()
         << " | " << number("%.4g", p.params.sigma) << " | " << p.params.radius() << " | "
         << number("%.4g", row.kernel.median) << " | " << number("%.4g", row.kernel.min) << " | "
         << number("%.4g", row.kernel.p90) << " | " << number("%.0f", megapixels_per_second(row)) << " | "
         << number("%.1f", gigabytes_per_second(row)) << " | "
         << (header.copy_gbs > 0 ? number("%.0f", percent_of_copy(row, header.copy_gbs)) : "") << " | "
         << number("%.4g", row.end_to_end_ms) << " | "
         << (row.has_accuracy ? number("%.2g", row.accuracy.max_relative_error) : "") << " | "
         << (row.has_accuracy ? number("%.2g", row.accuracy.max_abs_error) : "") << " | "
         << (row.has_accuracy ? number("%.1f", row.accuracy.psnr_db) : "") << " | "
         << (row.within_bound ? "yes" : "**no**") << " |\n";
    }
    md << "\n";
  }

  md << best_per_sigma_markdown(header, rows);
  md << skipped_markdown(rows);
  md << speedup_markdown(rows);
  return md.str();
}

}  // namespace gausslab
