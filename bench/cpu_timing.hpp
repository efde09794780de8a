#pragma once
// CPU timing for gausslab-bench: a steady clock around method.run, fewer runs than on the GPU, and
// an estimate of one run's time so that configurations taking minutes are skipped up front.
#include <vector>

#include "bench_options.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct CpuMeasurement {
  std::vector<double> ms;  // one per timed run
  int warmup_runs = 0;
};

// Times `method`, already prepared for src's size and format, filtering src into dst (host).
// `estimated_seconds` (of one run) decides whether a warm-up run is worth its time.
CpuMeasurement measure_cpu(Method& method, const ConstImageView& src, const ImageView& dst, const TimingPolicy& policy,
                           double estimated_seconds);

// Multiply-adds per second of a CPU method (cpu_filter_cost units), from one small run: the
// starting estimate before the method's first real measurement.
double calibrate_cpu_rate(Method& method);

}  // namespace gausslab
