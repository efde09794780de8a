#pragma once
// A batch over MPI ranks (or one process): which rank does what, progress gathered at rank 0,
// every rank's report gathered for the summary, and one exit status for all.
//
// Two ways to split the work:
//  - files: each rank filters whole files, the files dealt out by size (the largest first, each to
//    the rank with the least so far), so the ranks finish together;
//  - bands: every image is split in horizontal bands, one per rank (MPI_Scatterv of its rows, and
//    of each band's halo rows taken from the whole image by the border rule), each rank filters its
//    band (through its GPU in smaller bands if needed) and rank 0 gathers the rows in order
//    (MPI_Gatherv) and writes the file: the original system's scheme, and the way to filter an
//    image larger than one GPU, or one host's memory share, on many.
// `auto` takes files when there are at least as many files as ranks, bands otherwise.
#include <ostream>
#include <string>
#include <vector>

#include "gausslab/batch/batch_engine.hpp"
#include "gausslab/batch/mpi_session.hpp"

namespace gausslab {

enum class SplitMode { Auto, Files, Bands };

struct BatchRunOptions {
  EngineOptions engine;  // device, gpu_sharers and host_sharers are set per rank by run_batch
  SplitMode split = SplitMode::Auto;
  bool share_gpus = false;  // allow several ranks on one GPU (refused otherwise)
  bool quiet = false;
  bool terminal = false;    // progress as one line redrawn in place
  std::string program = "gausslab-filter";
};

struct RankSummary {
  int rank = 0;
  std::string host;
  int device = -1;  // CUDA device ordinal, -1 for a CPU method
  EngineReport report;
  double scatter_ms = 0, gather_ms = 0;  // bands: MPI time moving rows
  std::string failure;                   // the rank could not start (its files failed with this)
};

struct BatchResult {
  int exit_status = 0;  // 0: every file done; 1: some failed (the same on every rank)
  std::string split;    // "files" or "bands"
  int ranks = 1;
  double wall_s = 0;
  std::vector<RankSummary> per_rank;  // at rank 0: every rank's; elsewhere: its own
};

// This rank's GPU: local rank mod the device count. Throws UsageError when ranks on this host
// outnumber its GPUs and share_gpus is off (naming both numbers and the flag).
int choose_device(const MpiSession& mpi, bool share_gpus);

// Files for each rank: indices into `jobs`, in their original order within a rank.
std::vector<std::vector<std::size_t>> deal_files(const std::vector<BatchJob>& jobs, int ranks);

// Runs the batch on every rank (each calls it with the same jobs). Rank 0 prints the progress to
// `log`. Throws only for what stops the whole batch before it starts (UsageError).
BatchResult run_batch(MpiSession& mpi, const std::vector<BatchJob>& jobs, const BatchRunOptions& options,
                      std::ostream& log);

// A rank's summary as bytes and back (every rank's goes to rank 0 at the end); a field added to
// RankSummary or EngineReport must be added to both (the test sets every field).
std::string serialize_summary(const RankSummary& summary);
RankSummary deserialize_summary(const std::string& bytes);

// The job list as bytes and back: rank 0 plans the jobs and sends them to the others.
std::string serialize_jobs(const std::vector<BatchJob>& jobs);
std::vector<BatchJob> deserialize_jobs(const std::string& bytes);

}  // namespace gausslab
