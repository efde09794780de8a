#include "gausslab/batch/distributed.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>

#include "gausslab/batch/progress.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"
#include "wire.hpp"

namespace gausslab {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// The line a finished file gets in the progress.
std::string file_line(const BatchJob& job, const FileOutcome& outcome) {
  if (!outcome.ok) return outcome.message;
  char text[128];
  std::snprintf(text, sizeof text, "  %d×%d %s%s  %.1f ms", outcome.width, outcome.height,
                describe(outcome.format).c_str(), outcome.banded ? " (in bands)" : "", outcome.ms);
  return job.input + " -> " + job.output + text;
}

// A buffer of rows without zero-filling it first (it is written before it is read).
std::unique_ptr<unsigned char[]> rows_buffer(std::size_t rows, std::size_t row_bytes) {
  return std::unique_ptr<unsigned char[]>(new unsigned char[std::max<std::size_t>(1, rows * row_bytes)]);
}

// Filters one file with its rows spread over every rank; rank 0 reads and writes it, through its
// engine's file stages (the same as a file filtered whole).
FileOutcome filter_in_bands_across_ranks(MpiSession& mpi, BatchEngine* engine, const std::string& engine_error,
                                         const BatchJob& job, const EngineOptions& options, RankSummary& summary) {
  FileOutcome outcome;
  const auto started = Clock::now();
  DecodedFile loaded;
  std::string header;
  if (mpi.root()) {
    WireWriter w;
    try {
      if (!engine) throw std::runtime_error("not filtered: " + engine_error);
      loaded = engine->read_and_decode(job.input);
      outcome.width = loaded.pixels.width();
      outcome.height = loaded.pixels.height();
      engine->check_item(job, loaded);
      // The rows travel in the format they are held and filtered in (8-bit as RGBA8).
      w(1, std::string(), loaded.pixels.width(), loaded.pixels.height(), loaded.channels(),
        static_cast<int>(loaded.file_format), static_cast<int>(loaded.pixels.format()));
    } catch (...) {
      w(0, file_failure_message(job.input, options.method_id, outcome, std::current_exception()));
    }
    header = w.take();
  }
  mpi.broadcast(header);
  WireReader in(header);
  int ok = 0;
  in(ok, outcome.message);
  if (!ok) return outcome;
  int file_format = 0, filter_format = 0;
  in(outcome.width, outcome.height, outcome.channels, file_format, filter_format);
  outcome.format = static_cast<PixelFormat>(file_format);
  const PixelFormat format = static_cast<PixelFormat>(filter_format);
  outcome.banded = mpi.size() > 1;

  const int width = outcome.width, height = outcome.height;
  const int halo = band_halo(options.params);
  const BandPlan plan = split_rows(height, halo, mpi.size());
  std::vector<int> counts, firsts;
  for (const Band& band : plan.bands) {
    counts.push_back(band.rows);
    firsts.push_back(band.first_row);
  }
  const std::size_t row_bytes = static_cast<std::size_t>(width) * bytes_per_pixel(format);
  const Band mine = plan.bands[static_cast<std::size_t>(mpi.rank())];
  std::string local_error = engine ? std::string() : engine_error;

  // This rank's rows with their halos: [first - halo, first + rows + halo) of the whole image.
  const auto scatter_start = Clock::now();
  std::unique_ptr<unsigned char[]> window, result;
  try {
    window = rows_buffer(static_cast<std::size_t>(mine.rows) + 2 * static_cast<std::size_t>(halo), row_bytes);
    result = rows_buffer(static_cast<std::size_t>(mine.rows), row_bytes);
  } catch (const std::bad_alloc&) {
    // Without its buffers this rank cannot take part in moving the rows: a clean stop is impossible.
    throw std::runtime_error("rank " + std::to_string(mpi.rank()) + ": out of host memory for its band of " +
                             quoted(job.input));
  }
  unsigned char* window_rows = window.get();
  mpi.scatter_rows(mpi.root() ? static_cast<const void*>(loaded.pixels.data()) : nullptr, counts, firsts, row_bytes,
                   window_rows + static_cast<std::size_t>(halo) * row_bytes);
  if (halo > 0) {
    // The halos come from the whole image (rank 0 has it), with the border rule beyond its edges.
    std::unique_ptr<unsigned char[]> halos;
    if (mpi.root()) {
      halos = rows_buffer(static_cast<std::size_t>(mpi.size()) * 2 * static_cast<std::size_t>(halo), row_bytes);
      const ExtendedRows whole(loaded.pixels.view(), 0, height, options.params.border);
      for (int r = 0; r < mpi.size(); ++r) {
        const Band& band = plan.bands[static_cast<std::size_t>(r)];
        if (band.rows == 0) continue;
        unsigned char* top = halos.get() + static_cast<std::size_t>(r) * 2 * static_cast<std::size_t>(halo) * row_bytes;
        whole.copy_rows(band.first_row - halo, band.first_row, ImageView{top, width, halo, row_bytes, format});
        whole.copy_rows(band.first_row + band.rows, band.first_row + band.rows + halo,
                        ImageView{top + static_cast<std::size_t>(halo) * row_bytes, width, halo, row_bytes, format});
      }
    }
    std::vector<int> halo_counts, top_firsts, bottom_firsts;
    for (int r = 0; r < mpi.size(); ++r) {
      halo_counts.push_back(plan.bands[static_cast<std::size_t>(r)].rows > 0 ? halo : 0);
      top_firsts.push_back(r * 2 * halo);
      bottom_firsts.push_back(r * 2 * halo + halo);
    }
    mpi.scatter_rows(halos.get(), halo_counts, top_firsts, row_bytes, window_rows);
    mpi.scatter_rows(halos.get(), halo_counts, bottom_firsts, row_bytes,
                     window_rows + (static_cast<std::size_t>(halo) + static_cast<std::size_t>(mine.rows)) * row_bytes);
  }
  summary.scatter_ms += ms_since(scatter_start);

  if (mine.rows > 0 && engine && local_error.empty()) {
    try {
      const ExtendedRows rows(ConstImageView{window_rows, width, mine.rows + 2 * halo, row_bytes, format},
                              mine.first_row - halo, height, options.params.border);
      const BandPlan my_plan{height, halo, {mine}};
      engine->filter_rows(rows, my_plan, ImageView{result.get(), width, mine.rows, row_bytes, format},
                          mine.first_row);
    } catch (const std::exception& error) {
      local_error = error.what();
    }
  }
  window.reset();

  // Rank 0's own rows go straight into the image, the others' after them (the input is no longer
  // needed: each rank's band was copied out before filtering).
  const auto gather_start = Clock::now();
  if (mpi.root() && mine.rows > 0)
    std::memcpy(loaded.pixels.data() + static_cast<std::size_t>(mine.first_row) * row_bytes, result.get(),
                static_cast<std::size_t>(mine.rows) * row_bytes);
  mpi.gather_rows(result.get(), counts, firsts, row_bytes, mpi.root() ? static_cast<void*>(loaded.pixels.data()) : nullptr,
                  true);
  summary.gather_ms += ms_since(gather_start);
  result.reset();

  const std::vector<std::string> errors = mpi.gather(local_error);
  if (!mpi.root()) return outcome;
  for (std::size_t r = 0; r < errors.size(); ++r)
    if (!errors[r].empty()) {
      outcome.message = quoted(job.input) + ": rank " + std::to_string(r) + " could not filter its band: " + errors[r];
      return outcome;
    }
  try {
    // rank 0 read it: it has an engine
    engine->encode_and_write(job.output, loaded.pixels, loaded);
    outcome.ok = true;
  } catch (...) {
    outcome.message = file_failure_message(job.input, options.method_id, outcome, std::current_exception());
  }
  outcome.ms = ms_since(started);
  return outcome;
}

}  // namespace

int choose_device(const MpiSession& mpi, bool share_gpus) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    (void)cudaGetLastError();
    return 0;
  }
  if (mpi.local_size() > devices && !share_gpus)
    throw UsageError(std::to_string(mpi.local_size()) + " ranks run on " + mpi.host_name() + " but it has " +
                     std::to_string(devices) + " GPU" + (devices > 1 ? "s" : "") +
                     ": start at most that many ranks per host, or pass --share-gpus to let ranks share them");
  return mpi.local_rank() % devices;
}

std::vector<std::vector<std::size_t>> deal_files(const std::vector<BatchJob>& jobs, int ranks) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].size_bytes > jobs[b].size_bytes; });
  std::vector<std::vector<std::size_t>> dealt(static_cast<std::size_t>(std::max(1, ranks)));
  std::vector<std::uint64_t> load(dealt.size(), 0);
  std::vector<std::size_t> count(dealt.size(), 0);
  for (std::size_t index : order) {
    // The rank with the least so far (by bytes, then by files, then the lowest rank).
    std::size_t best = 0;
    for (std::size_t r = 1; r < dealt.size(); ++r)
      if (load[r] < load[best] || (load[r] == load[best] && count[r] < count[best])) best = r;
    dealt[best].push_back(index);
    load[best] += std::max<std::uint64_t>(1, jobs[index].size_bytes);
    ++count[best];
  }
  for (auto& indices : dealt) std::sort(indices.begin(), indices.end());
  return dealt;
}

BatchResult run_batch(MpiSession& mpi, const std::vector<BatchJob>& jobs, const BatchRunOptions& options,
                      std::ostream& log) {
  const auto started = Clock::now();
  BatchResult result;
  result.ranks = mpi.size();
  const bool bands = options.split == SplitMode::Bands ||
                     (options.split == SplitMode::Auto && jobs.size() < static_cast<std::size_t>(mpi.size()));
  result.split = bands ? "bands" : "files";

  const MethodEntry* entry = find_method(options.engine.method_id);
  const bool gpu = entry && entry->info.backend == Backend::Cuda;
  RankSummary summary;
  summary.rank = mpi.rank();
  summary.host = mpi.host_name();
  EngineOptions engine_options = options.engine;
  engine_options.host_sharers = mpi.local_size();
  if (gpu) {
    summary.device = choose_device(mpi, options.share_gpus);
    engine_options.device = summary.device;
    int devices = 1;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) devices = 1;
    // Ranks on this host with the same device (local ranks dealt round robin).
    engine_options.gpu_sharers = (mpi.local_size() - 1 - summary.device) / devices + 1;
  }
  std::unique_ptr<BatchEngine> engine;
  try {
    engine = std::make_unique<BatchEngine>(engine_options);
  } catch (const std::exception& error) {
    summary.failure = "rank " + std::to_string(mpi.rank()) + " on " + mpi.host_name() + " could not start: " + error.what();
  }

  std::uint64_t total_bytes = 0;
  for (const BatchJob& job : jobs) total_bytes += job.size_bytes;
  ProgressPrinter progress(log, options.terminal, options.quiet, static_cast<int>(jobs.size()), total_bytes);
  std::mutex print_mutex;
  const auto print = [&](bool ok, const std::string& text, std::uint64_t bytes) {
    std::lock_guard<std::mutex> lock(print_mutex);
    progress.file_finished(ok, text, bytes);
  };

  if (bands) {
    EngineReport& report = summary.report;
    for (const BatchJob& job : jobs) {
      const FileOutcome outcome =
          filter_in_bands_across_ranks(mpi, engine.get(), summary.failure, job, engine_options, summary);
      if (!mpi.root()) continue;
      ++report.files;
      if (outcome.ok) {
        ++report.done;
        report.input_bytes += job.size_bytes;
        report.megapixels += outcome.width * static_cast<double>(outcome.height) / 1e6;
        report.banded += outcome.banded;
      } else {
        ++report.failed;
        report.refused += outcome.refused;
        report.failures.push_back(outcome.message);
      }
      print(outcome.ok, file_line(job, outcome), job.size_bytes);
    }
    const int files = report.files, done = report.done, failed = report.failed, banded = report.banded;
    const int refused = report.refused;
    const std::uint64_t input_bytes = report.input_bytes;
    const double megapixels = report.megapixels;
    const std::vector<std::string> failures = report.failures;
    if (engine) report = engine->resources();
    report.files = files, report.done = done, report.failed = failed, report.banded = banded;
    report.refused = refused;
    report.input_bytes = input_bytes, report.megapixels = megapixels;
    report.failures = failures;
    if (engine) report.stages = engine->stage_totals();
    report.wall_s = ms_since(started) / 1000.0;
  } else {
    const std::vector<std::vector<std::size_t>> dealt = deal_files(jobs, mpi.size());
    const std::vector<std::size_t>& indices = dealt[static_cast<std::size_t>(mpi.rank())];
    std::vector<BatchJob> mine;
    for (std::size_t index : indices) mine.push_back(jobs[index]);

    // Non-root ranks hand their finished files to the main thread, which sends them to rank 0.
    std::mutex queue_mutex;
    std::deque<std::string> outbox;
    const auto on_file = [&](std::size_t index, const FileOutcome& outcome) {
      const BatchJob& job = mine[index];
      if (mpi.root()) {
        print(outcome.ok, file_line(job, outcome), job.size_bytes);
        return;
      }
      WireWriter w;
      w(outcome.ok ? 1 : 0, job.size_bytes, file_line(job, outcome));
      std::lock_guard<std::mutex> lock(queue_mutex);
      outbox.push_back(w.take());
    };
    int finished_ranks = 1;  // rank 0 itself, once its own files are done
    const auto poll = [&] {
      if (!mpi.root()) {
        std::deque<std::string> sending;
        {
          std::lock_guard<std::mutex> lock(queue_mutex);
          sending.swap(outbox);
        }
        for (const std::string& message : sending) mpi.send_to_root(message);
        return;
      }
      std::string message;
      int source = 0;
      while (mpi.receive_at_root(message, source)) {
        if (message.empty()) {  // a rank's end-of-files mark
          ++finished_ranks;
          continue;
        }
        WireReader in(message);
        int ok = 0;
        std::uint64_t bytes = 0;
        std::string text;
        in(ok, bytes, text);
        print(ok != 0, text, bytes);
      }
    };

    if (engine) {
      summary.report = engine->run(mine, on_file, poll);
    } else {
      summary.report.files = static_cast<int>(mine.size());
      for (std::size_t i = 0; i < mine.size(); ++i) {
        FileOutcome outcome;
        outcome.message = quoted(mine[i].input) + ": not filtered: " + summary.failure;
        ++summary.report.failed;
        summary.report.failures.push_back(outcome.message);
        on_file(i, outcome);
      }
    }
    poll();
    if (!mpi.root()) {
      mpi.send_to_root(std::string());  // end of this rank's files
      mpi.complete_sends();
    } else {
      while (finished_ranks < mpi.size()) {
        poll();
        if (finished_ranks < mpi.size()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(print_mutex);
    if (mpi.root()) progress.finish();
  }

  const std::vector<std::string> parts = mpi.gather(serialize_summary(summary));
  if (mpi.root())
    for (const std::string& part : parts) result.per_rank.push_back(deserialize_summary(part));
  else
    result.per_rank.push_back(summary);
  int status = 0;
  if (mpi.root())
    for (const RankSummary& rank : result.per_rank)
      if (rank.report.failed > 0 || !rank.failure.empty()) status = 1;
  mpi.broadcast(status);
  result.exit_status = status;
  result.wall_s = ms_since(started) / 1000.0;
  return result;
}

}  // namespace gausslab
