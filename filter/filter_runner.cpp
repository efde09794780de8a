#include "filter_runner.hpp"

#include <unistd.h>

#include <filesystem>

#include "filter_jobs.hpp"
#include "filter_signal.hpp"
#include "gausslab/core/npy_io.hpp"
#include "gausslab/batch/batch_report.hpp"
#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace {

// What rank 0 decides before any work, for every rank: the method and the jobs, or the refusal.
struct Plan {
  std::string error;  // a usage error: nothing is done
  MethodChoice method;
  std::vector<BatchJob> jobs;  // images
  std::vector<std::string> notes;
  // .npy signals, filtered on rank 0 only (not sent to the other ranks).
  std::vector<BatchJob> signal_jobs;
  MethodChoice signal_method;
};

Plan make_plan(const FilterOptions& options, std::istream& standard_input) {
  Plan plan;
  try {
    std::vector<InputFile> inputs;
    if (options.batch()) {
      const InputSpec spec{options.inputs, options.list_file, options.recursive,
                           ListFormat{options.list_comments, options.list_null}};
      inputs = expand_inputs(spec, standard_input, plan.notes);
    } else {  // -o: the one input is a file, taken as it is (a folder fails as one when read)
      std::error_code ec;
      const std::uintmax_t size = std::filesystem::file_size(options.inputs.front(), ec);
      inputs.push_back({options.inputs.front(), "", ec ? 0 : static_cast<std::uint64_t>(size)});
    }
    std::vector<BatchJob> all = plan_filter_jobs(options, inputs);
    for (const BatchJob& job : all) (is_npy_signal(job.input) ? plan.signal_jobs : plan.jobs).push_back(job);
    if (!plan.signal_jobs.empty()) plan.signal_method = resolve_signal_method(options);
    if (!plan.jobs.empty() || plan.signal_jobs.empty()) plan.method = resolve_method(options);
    create_output_folders(options, all);
  } catch (const UsageError& error) {
    plan.error = error.what();
  }
  return plan;
}

// The plan as one message: the error, or the method, its reason and the jobs.
std::string pack(const Plan& plan) {
  return plan.error + '\0' + plan.method.id + '\0' + plan.method.reason + '\0' + serialize_jobs(plan.jobs);
}

Plan unpack(const std::string& bytes) {
  Plan plan;
  std::size_t at = 0;
  const auto field = [&] {
    const std::size_t end = bytes.find('\0', at);
    std::string text = bytes.substr(at, end - at);
    at = end + 1;
    return text;
  };
  plan.error = field();
  plan.method.id = field();
  plan.method.reason = field();
  plan.jobs = deserialize_jobs(bytes.substr(at));
  return plan;
}

}  // namespace

int run_filter(const FilterOptions& options, MpiSession& mpi, std::istream& standard_input, std::ostream& log) {
  Plan plan;
  std::string message;
  if (mpi.root()) {
    plan = make_plan(options, standard_input);
    message = pack(plan);
  }
  mpi.broadcast(message);
  if (!mpi.root()) plan = unpack(message);
  if (!plan.error.empty()) {
    if (mpi.root()) log << "gausslab-filter: " << plan.error << "\n(gausslab-filter --help shows the usage)\n";
    return kExitUsage;
  }

  const bool batch = options.batch();
  // Signals first, on rank 0 (the engine's lanes and pools are for images).
  SignalRunSummary signals;
  if (mpi.root()) signals = run_signal_jobs(options, plan.signal_method, plan.signal_jobs, log);
  if (plan.jobs.empty()) {  // the same on every rank: rank 0 planned it
    if (!batch) return signals.refused > 0 ? kExitUsage : signals.failed > 0 ? kExitFileFailed : kExitDone;
    if (mpi.root() && (!options.quiet || signals.failed > 0))
      log << "gausslab-filter: " << signals.done << " of " << plan.signal_jobs.size() << " signals done with "
          << plan.signal_method.id << " (" << describe(options.params) << ")\n";
    return signals.failed > 0 ? kExitFileFailed : kExitDone;
  }
  if (mpi.root() && !options.quiet && batch) {
    log << "gausslab-filter: " << plan.jobs.size() << " file" << (plan.jobs.size() == 1 ? "" : "s") << ", method "
        << plan.method.id << " (" << plan.method.reason << "), " << describe(options.params);
    if (mpi.size() > 1) log << ", " << mpi.size() << " MPI ranks (" << MpiSession::library_version() << ")";
    log << "\n";
    for (const std::string& note : plan.notes) log << "gausslab-filter: note: " << note << "\n";
    log << "gausslab-filter: "
        << (options.output_type ? "writing " + std::string(to_string(*options.output_type)) +
                                      " samples (each conversion's rule is in the notes; --help has them all)"
                                : std::string("each output keeps its input's type and channels"))
        << "\n";
    log.flush();
  }

  BatchRunOptions run;
  run.engine.method_id = plan.method.id;
  run.engine.params = options.params;
  run.engine.pool = options.pool;
  run.engine.overwrite = options.overwrite;
  run.engine.jpeg_quality = options.jpeg_quality;
  run.engine.output_type = options.output_type;
  run.engine.threads = options.threads;
  run.engine.max_in_flight = options.max_in_flight;
  run.engine.lanes = options.streams;
  run.engine.bands = options.bands;
  run.engine.max_device_bytes = options.max_device_bytes;
  run.split = options.split;
  run.share_gpus = options.share_gpus;
  run.quiet = options.quiet || !batch;  // one file: its outcome below, not a progress bar
  run.terminal = mpi.root() && isatty(STDERR_FILENO) == 1;

  BatchResult result;
  try {
    result = run_batch(mpi, plan.jobs, run, log);
  } catch (const UsageError& error) {  // the same on every rank (ranks outnumber GPUs ...)
    if (mpi.root()) log << "gausslab-filter: " << error.what() << "\n";
    return kExitUsage;
  }
  if (!mpi.root()) return result.exit_status;

  const EngineReport all = combine(result.per_rank);
  if (batch) {
    if (!options.quiet || all.failed > 0)
      log << format_summary(result, "gausslab-filter", describe(options.params)) << std::flush;
    return result.exit_status == 0 && signals.failed == 0 ? kExitDone : kExitFileFailed;
  }
  // One file: its line, or its failure.
  if (all.failed > 0) {
    for (const std::string& failure : all.failures) log << "gausslab-filter: " << failure << "\n";
    for (const RankSummary& rank : result.per_rank)
      if (!rank.failure.empty()) log << "gausslab-filter: " << rank.failure << "\n";
    return all.refused > 0 ? kExitUsage : kExitFileFailed;
  }
  if (!options.quiet)
    log << plan.jobs.front().input << " -> " << plan.jobs.front().output << "  with " << plan.method.id << " ("
        << plan.method.reason << ") in " << static_cast<int>(result.wall_s * 1000 + 0.5) << " ms\n"
        << format_summary(result, "gausslab-filter", describe(options.params)) << std::flush;
  return kExitDone;
}

}  // namespace gausslab
