#pragma once
// gausslab-bench --batch: the original system's workload end to end (20 generated 4096×2304 24-bit
// BMP files, its 5×5 table: a Gaussian of sigma 1.5 and radius 2, zero border, read from and written
// to a temporary folder) for each way
// of running it: one CPU thread, OpenMP, the thread pool with a CPU method, the GPU one image at a
// time from pageable memory (the original baseline), the pipelined GPU, and, under mpirun, N ranks
// (files dealt to the ranks, or each image's rows scattered as the original did). Measured in the
// same run, so each row can be read against its own bound: the host↔device bandwidth of pinned and
// pageable memory, and the read, decode and encode rate of one core.
#include <ostream>
#include <string>
#include <vector>

#include "gausslab/batch/mpi_session.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"

namespace gausslab {

// The original BMP system's fixed 5×5 table is a Gaussian of this sigma (radius 2). It truncates
// the sums to 8 bits where gausslab rounds half up, so their bytes differ by one level in 45-50 % of
// the pixels (issue 37; floor rounding comes with the custom kernels).
inline constexpr double kOriginalBatchSigma = 1.5;

struct BatchBenchOptions {
  bool enabled = false;               // --batch
  int images = 20;                    // --batch-images
  int width = 4096, height = 2304;    // --batch-size
  int kernel = 5;                     // --batch-kernel: k×k, radius (k-1)/2
  double sigma = kOriginalBatchSigma; // --batch-sigma
  BorderMode border = BorderMode::Constant;  // --border: the original's zero border by default
  std::string gpu_method;             // --batch-method: default, the default rule's
  std::vector<std::string> configs;   // --batch-configs: empty, every one that applies here
  std::string work_dir;               // --batch-dir: where the images go (default: a temporary folder)
  int threads = 0;                    // --threads: the pool (default: every core, shared among ranks)
};

// The workload's filter: a k×k kernel (radius (k-1)/2 through FilterParams::fixed_radius) of the
// options' sigma, with their border; by default the original's 5×5 table, sigma 1.5, zero border.
FilterParams batch_workload_params(const BatchBenchOptions& options);

// The configurations' names, in the order they run: cpu-1-thread, cpu-openmp, cpu-pool,
// gpu-pageable, gpu-pipelined-cold, gpu-pipelined (alone); mpi-files, mpi-rows (under mpirun).
const std::vector<std::string>& batch_config_names();

// Runs the batch benchmark; rank 0 prints the table to `out` and writes batch.md and batch.csv (or
// batch-mpiN.*) into out_dir. Returns 0, or 1 when a configuration failed a file, or when none of
// --batch-configs can run here (a GPU one without a device, mpi-* without mpirun, the others under
// it: said so before any image is made). Those asked for that cannot run here are named in the log
// and in batch.md.
int run_batch_bench(const BatchBenchOptions& options, const std::string& out_dir, bool overwrite, MpiSession& mpi,
                    std::ostream& out, std::ostream& log);

// gausslab-bench --make-image WxH PATH: a deterministic RGBA8 noise image of that size, written
// in the format of PATH's extension (e.g. .tga for a 32768×32768 RGBA8 image: 4 GiB, which a BMP's
// 32-bit size field cannot hold). Returns 0. Throws UsageError, before any work, for a path the
// writer would refuse (check_output_path: an unknown extension, a missing folder, an existing file
// without `overwrite`, a format that cannot hold RGBA8); ImageSaveError when writing fails.
int make_test_image(int width, int height, const std::string& path, bool overwrite, std::ostream& log);

}  // namespace gausslab
