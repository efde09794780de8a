#include "gausslab/batch/batch_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "gausslab/batch/memory_budget.hpp"

namespace gausslab {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string seconds_text(double s) { return s < 1 ? format("%.0f ms", s * 1000) : format("%.2f s", s); }

std::string count_of(int count, const char* thing) {
  return std::to_string(count) + " " + thing + (count == 1 ? "" : "s");
}

std::string bound_line(const EngineReport& report) {
  if (!report.pipelined) return "one stage after another: the run is the sum of its stages";
  const BoundCheck check = check_bound(report);
  if (check.bound.name.empty() || check.bound.per_image_ms <= 0) return "no bound measured";
  return "bound: " + check.bound.name + ", " + format("%.2f ms", check.bound.per_image_ms) +
         " per image; the run took " + format("%.2f ms", check.per_image_ms) + " per image (" +
         format("%.2f", check.ratio) + "× its bound; " + format("%.2f ms", check.steady_ms) +
         " between one file done and the next, once the first was)";
}

}  // namespace

std::string resources_line(const RankSummary& rank) {
  const EngineReport& r = rank.report;
  std::string line = r.device_name;
  if (rank.device >= 0) line += " (GPU " + std::to_string(rank.device) + ")";
  if (r.pipelined) {
    line += ", " + count_of(r.threads, "CPU thread");
    if (r.lanes) line += ", " + count_of(r.lanes, "CUDA stream");
  } else {
    line += ", one file at a time";
  }
  if (r.openmp_threads) line += ", OpenMP on " + count_of(r.openmp_threads, "thread");
  if (r.lanes) line += r.pinned ? ", pinned buffers" : ", pageable memory";
  return line;
}

EngineReport combine(const std::vector<RankSummary>& ranks) {
  EngineReport all;
  if (ranks.empty()) return all;
  all = ranks.front().report;
  all.failures.clear();
  all.notes.clear();
  all.stages = StageTotals{};
  all.files = all.done = all.failed = all.banded = all.refused = 0;
  all.input_bytes = 0;
  all.megapixels = 0;
  for (const RankSummary& rank : ranks) {
    const EngineReport& r = rank.report;
    all.files += r.files, all.done += r.done, all.failed += r.failed, all.banded += r.banded;
    all.refused += r.refused;
    all.input_bytes += r.input_bytes;
    all.megapixels += r.megapixels;
    all.wall_s = std::max(all.wall_s, r.wall_s);
    all.stages += r.stages;
    all.peak_pinned_bytes = std::max(all.peak_pinned_bytes, r.peak_pinned_bytes);
    all.peak_device_bytes = std::max(all.peak_device_bytes, r.peak_device_bytes);
    all.peak_device_in_use = std::max(all.peak_device_in_use, r.peak_device_in_use);
    all.peak_host_bytes = std::max(all.peak_host_bytes, r.peak_host_bytes);
    all.failures.insert(all.failures.end(), r.failures.begin(), r.failures.end());
    for (const std::string& note : r.notes)
      if (std::find(all.notes.begin(), all.notes.end(), note) == all.notes.end()) all.notes.push_back(note);
    if (!rank.failure.empty()) all.notes.push_back(rank.failure);
  }
  return all;
}

BoundCheck check_bound(const EngineReport& report) {
  BoundCheck check;
  const int images = std::max(1, report.done + report.failed);
  check.bound = find_bound(report.stages, report.cpu_stages, report.threads, images);
  check.per_image_ms = report.wall_s * 1000.0 / images;
  check.ratio = check.bound.per_image_ms > 0 ? check.per_image_ms / check.bound.per_image_ms : 0;
  if (images > 1) check.steady_ms = (report.last_finished_s - report.first_finished_s) * 1000.0 / (images - 1);
  return check;
}

std::string format_summary(const BatchResult& result, const std::string& program, const std::string& params) {
  std::ostringstream out;
  const EngineReport all = combine(result.per_rank);
  const double wall = std::max(result.wall_s, 1e-9);
  out << program << ": " << all.done << " of " << all.files << " file" << (all.files == 1 ? "" : "s") << " done in "
      << seconds_text(result.wall_s) << ": " << format("%.2f images/s", all.done / wall) << ", "
      << format("%.1f MB/s", all.input_bytes / 1e6 / wall) << " of input, "
      << format("%.1f Mpixel/s", all.megapixels / wall) << "; " << all.method_id << " (" << params << ")\n";
  if (result.ranks > 1) {
    out << "  " << result.ranks << " MPI ranks, split by " << result.split << ":\n";
    for (const RankSummary& rank : result.per_rank) {
      out << "    rank " << rank.rank << " on " << rank.host << ": " << resources_line(rank);
      if (result.split == "files")
        out << "; " << rank.report.files << " files in " << seconds_text(rank.report.wall_s) << "; "
            << bound_line(rank.report);
      else
        out << "; rows scattered in " << seconds_text(rank.scatter_ms / 1000) << ", gathered in "
            << seconds_text(rank.gather_ms / 1000);
      out << "\n";
    }
  } else if (!result.per_rank.empty()) {
    out << "  on " << resources_line(result.per_rank.front()) << "\n";
  }

  const int images = std::max(1, all.done + all.failed);
  out << "  stage      total s  ms/image   busy s\n";
  for (int s = 0; s < kStageCount; ++s) {
    if (all.stages.count[s] == 0) continue;
    char line[96];
    std::snprintf(line, sizeof line, "  %-9s %8.3f %9.2f %8.3f\n", to_string(static_cast<Stage>(s)),
                  all.stages.sum_ms[s] / 1000, all.stages.sum_ms[s] / images, all.stages.busy_ms[s] / 1000);
    out << line;
  }
  if (result.ranks == 1 && all.files > 1) out << "  " << bound_line(all) << "\n";
  out << "  memory: peak host " << format_bytes(static_cast<double>(all.peak_host_bytes)) << " resident";
  if (all.lanes) {
    out << "; pinned buffers " << format_bytes(static_cast<double>(all.peak_pinned_bytes));
    out << "; device " << format_bytes(static_cast<double>(all.peak_device_bytes)) << " of a "
        << format_bytes(static_cast<double>(all.device_budget_bytes)) << " budget (whole device in use at most "
        << format_bytes(static_cast<double>(all.peak_device_in_use)) << ")";
  }
  out << (result.ranks > 1 ? " (the largest rank)\n" : "\n");
  for (const std::string& note : all.notes) out << "  note: " << note << "\n";
  if (!all.failures.empty()) {
    out << "  failed (" << all.failures.size() << "):\n";
    for (const std::string& failure : all.failures) out << "    " << failure << "\n";
  }
  return out.str();
}

}  // namespace gausslab
