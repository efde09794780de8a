#pragma once
// gausslab-bench --sequence: ms per frame of spatio-temporal whitening (shift estimation, weights
// — polynomial and from the correlation matrix —, whitening, target removal) on the GPU and the
// CPU, per stage, with GB/s and % of the copy bandwidth, and the event timeline that shows the host
// never waits inside a frame.
#include <ostream>
#include <string>
#include <vector>

#include "bench_options.hpp"

namespace gausslab {

struct SequenceBenchRow {
  int width = 0, height = 0, history = 0, degree = 0;
  std::string weights = "polynomial";  // the weighting method
  std::string path;              // "gpu" or "cpu"
  std::string status = "ok";     // "ok", "skipped: why", "failed: why"
  int frames = 0;                // timed frames
  double frame_ms = 0;           // median processing time per frame (all after the upload)
  double frame_graph_ms = 0;     // the same as CUDA graph launches (GPU; 0 when not measured)
  double upload_ms = 0;          // median upload (pinned host → device; CPU: a memcpy)
  double pipelined_ms = 0;       // wall time of the timed frames, uploads included, / frames
  double host_submit_ms = 0;     // median host time to enqueue a frame's processing (GPU)
  int most_frames_ahead = 0;     // most frames queued but not finished right after an enqueue
  std::vector<std::pair<std::string, double>> stages;  // median ms per stage
  double bytes_per_frame = 0;    // bytes a frame's processing must move at least
};

// Bytes a frame's processing moves at least: the whitening reads N + 1 frames and writes one;
// the shift estimation reads the frame three times (projections, fine sums: frame and r).
double sequence_bytes_per_frame(int width, int height, int history);

// Runs the sequence benchmark into options.out_dir (sequence.md, sequence.csv,
// sequence_timeline.csv) and returns the exit status. Progress goes to `log`, the table to `out`.
int run_sequence_bench(const BenchOptions& options, int argc, const char* const* argv, std::ostream& log,
                       std::ostream& out);

// The Markdown report (tests check its shape).
std::string sequence_markdown(const std::vector<SequenceBenchRow>& rows, double copy_gbs, const std::string& device,
                              const std::string& notes);

}  // namespace gausslab
