#pragma once
// The batch's closing summary: files, rate, where the time went (each stage's total, per image and
// busy time), the bound and how close the run came to it, memory peaks, and every failure.
#include <string>

#include "gausslab/batch/distributed.hpp"

namespace gausslab {

// Every rank's report in one (sums of counts and stage times, the largest peaks, wall time the
// longest).
EngineReport combine(const std::vector<RankSummary>& ranks);

struct BoundCheck {
  BoundReport bound;
  double per_image_ms = 0;  // wall time / images
  double ratio = 0;         // per_image_ms / bound.per_image_ms
  double steady_ms = 0;     // between the first and the last file finished, per image (0 for one file)
};
// The bound of one rank's run (the pool's share of the CPU stages, or a GPU stage's busy time).
BoundCheck check_bound(const EngineReport& report);

// What a rank ran on: "CPU, 1 CPU thread, OpenMP on 1 thread", "NVIDIA H200 (GPU 0), 16 CPU
// threads, 3 CUDA streams, pinned buffers", "..., one file at a time".
std::string resources_line(const RankSummary& rank);

// The summary text (several lines), for rank 0 to print. `program` starts the first line.
std::string format_summary(const BatchResult& result, const std::string& program, const std::string& params);

}  // namespace gausslab
