// gausslab-bench: every registered method over image sizes, kernels or sigmas and pixel formats,
// timed on this machine's GPU (and CPU), with accuracy, into CSV, JSON, Markdown and charts.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "bench_environment.hpp"
#include "codec_rates.hpp"
#include "bench_options.hpp"
#include "bench_output.hpp"
#include "bench_plan.hpp"
#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "sequence_bench.hpp"
#include "gausslab/batch/mpi_main.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/run_inputs.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "program_version.hpp"

namespace {

using namespace gausslab;

constexpr int kExitDone = 0;
constexpr int kExitProblems = 1;  // a configuration failed or missed its accuracy bound, or nothing was measured
constexpr int kExitUsage = 2;

// How the numbers were taken, for every output: the reader should not have to read the code.
std::vector<std::string> timing_notes(const BenchOptions& options, const BenchHeader& header) {
  const TimingPolicy& t = options.timing;
  std::vector<std::string> notes;
  notes.push_back(
      "kernels: a k×k kernel is radius (k-1)/2 with sigma = radius/3, the published papers' 3-sigma kernels, set "
      "through FilterParams.fixed_radius; rows given by sigma use radius floor(truncate*sigma + 0.5) as SciPy, "
      "truncate " +
      format_number("%g", options.truncate) + "; border mode " + to_string(options.border));
  notes.push_back("GPU kernel time: CUDA events around method.run on one stream; up to " +
                  std::to_string(t.warmup_runs) + " warm-up runs (one when a run takes over 50 ms), then clamp(" +
                  format_number("%g", t.target_seconds) + " s / one run, " + std::to_string(t.min_runs) + ", " +
                  std::to_string(t.max_runs) + ") timed runs: at least " + std::to_string(t.max_runs) + " runs or " +
                  format_number("%g", t.target_seconds) + " s, whichever comes first, and at least " +
                  std::to_string(t.min_runs) + "; median, min and p90 of those runs");
  if (header.device.available)
    notes.push_back("GPU inputs rotate among device copies which, with their outputs, hold at least 3 times the " +
                    format_number("%.0f", header.device.l2_cache_bytes / 1048576.0) +
                    " MiB L2 cache (2 to 64 copies), so the cache does not flatter small images");
  notes.push_back(
      "end-to-end: upload from pinned host memory + method.run + download, median of " +
      std::to_string(t.end_to_end_runs) +
      " runs timed with CUDA events; CPU methods work in host memory, so their end-to-end time is their run");
  notes.push_back(
      "CPU time: a steady clock around method.run; one warm-up run when a run takes under 0.5 s, then clamp(" +
      format_number("%g", t.cpu_target_seconds) + " s / one run, " + std::to_string(t.cpu_min_runs) + ", " +
      std::to_string(t.cpu_max_runs) + ") runs; a configuration estimated (cpu_filter_cost / measured rate) above " +
      format_number("%g", t.cpu_cap_seconds) + " s per run is skipped");
  notes.push_back("a GPU configuration whose warm-up run took over " + format_number("%g", t.gpu_cap_ms) +
                  " ms is timed once; configurations left when the run has taken " +
                  format_number("%g", t.budget_seconds) + " s are skipped");
  notes.push_back(
      "a GPU configuration predicted (from the same method's previous measurement, proportional to pixels × "
      "channels × taps²) above " +
      format_number("%g", t.gpu_cap_ms) + " ms per run is skipped; a method's own refusals are listed with its reason");
  notes.push_back(
      "accuracy: against the float64 reference (reference_gaussian_region) on the top-left and bottom-right " +
      std::to_string(kBenchCropSide) + "×" + std::to_string(kBenchCropSide) +
      " crops (borders count), worst of the two; f32 max relative error = max|error| / max|reference|, "
      "RGBA8 errors in 8-bit levels; inputs are uniform noise (f32 in [0, 1), RGBA8 0..255); "
      "the last end-to-end run writes into an output poisoned with 0xFF bytes");
  notes.push_back(
      "GB/s counts the input read once and the output written once; % copy compares it with the "
      "device-to-device copy bandwidth measured in this run (bytes read + written)");
  if (options.quick) notes.push_back("--quick: fewer runs than the defaults, so the numbers are less stable");
  return notes;
}

// Why rows were not measured, most common first as they came: "12 × no CUDA device (...); 2 × ...".
std::string unmeasured_reasons(const std::vector<BenchRow>& rows) {
  std::vector<std::pair<std::string, int>> reasons;
  for (const BenchRow& row : rows) {
    if (row.status == BenchRow::Status::Ok) continue;
    const std::string reason = std::string(to_string(row.status)) + ": " + (row.note.empty() ? "no reason given" : row.note);
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == reason; });
    if (it == reasons.end())
      reasons.emplace_back(reason, 1);
    else
      ++it->second;
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < reasons.size() && i < 3; ++i)
    text += (i ? "; " : "") + std::to_string(reasons[i].second) + " × " + reasons[i].first;
  if (reasons.size() > 3) text += "; and " + std::to_string(reasons.size() - 3) + " other reasons";
  return text;
}

// Before any work: every configuration asked for is of a GPU method and there is no device, so
// nothing can be measured. "" when something can.
std::string nothing_to_measure_here(const std::vector<BenchCase>& cases) {
  const CudaDeviceStatus& device = cuda_device_status();
  if (device.available) return {};
  std::vector<std::string> methods;
  for (const BenchCase& config : cases) {
    if (!config.is_gpu()) return {};
    if (std::find(methods.begin(), methods.end(), config.method->info.id) == methods.end())
      methods.push_back(config.method->info.id);
  }
  std::string list;
  for (const std::string& id : methods) list += (list.empty() ? "" : ", ") + id;
  return "nothing to measure here: every configuration asked for (" + std::to_string(cases.size()) +
         ") is of a GPU method (" + list + "), and they cannot run without a CUDA device (" + device.reason +
         "); add a CPU method (--methods cpu_separable,cpu_openmp) or run on a machine with a CUDA device";
}

// --codecs: the image formats' decode/encode rates on one core, in memory.
int run_codec_bench(const BenchOptions& options, int argc, char** argv) {
  const std::vector<std::string> names = {"codecs.md", "codecs.csv"};
  RunInputs inputs;
  inputs.add(options.codec_images);
  refuse_results_over_inputs(options.out_dir, names, inputs);
  // The folder is made once there are rates to write: an image that cannot be read leaves none.
  check_output_folder(options.out_dir, options.overwrite);
  const BenchHeader header = collect_environment(argc, argv);
  const std::vector<CodecRate> rates = measure_codec_rates(options.codec_images, options.quick ? 0.05 : 0.5);
  const std::string markdown = codec_rates_markdown(rates, header.cpu_model);
  std::cout << markdown << std::flush;  // the rates whatever becomes of the files
  std::vector<std::string> unwritten;
  try {
    prepare_output_folder(options.out_dir, options.overwrite);
  } catch (const UsageError& error) {
    unwritten.push_back(error.what());
  }
  if (unwritten.empty())
    unwritten = write_result_files(options.out_dir, {{names[0], markdown}, {names[1], codec_rates_csv(rates)}},
                                   options.overwrite);
  for (const std::string& failure : unwritten) std::cerr << "gausslab-bench: " << failure << "\n";
  return unwritten.empty() ? kExitDone : kExitProblems;
}

int run(int argc, char** argv, MpiSession& mpi) {
  const auto start = std::chrono::steady_clock::now();
  const BenchOptions options = parse_bench_options(argc, argv);
  if (options.help) {
    if (mpi.root()) std::cout << bench_usage(method_id_list());
    return kExitDone;
  }
  if (!options.make_image_path.empty())
    return make_test_image(options.make_image_width, options.make_image_height, options.make_image_path,
                           options.overwrite, std::cerr);
  if (options.batch.enabled)
    return run_batch_bench(options.batch, options.out_dir, options.overwrite, mpi, std::cout, std::cerr);
  if (options.sequence) return run_sequence_bench(options, argc, argv, std::cerr, std::cout);
  if (mpi.size() > 1) throw UsageError("under mpirun gausslab-bench runs only --batch");
  if (!options.codec_images.empty()) return run_codec_bench(options, argc, argv);
  const std::vector<const MethodEntry*> methods = select_methods(options.methods);
  const std::vector<BenchCase> cases = plan_cases(options, methods);
  if (cases.empty())
    throw UsageError("nothing to measure: --sizes, --kernels, --sigmas and --formats leave no configuration");
  if (const std::string nothing = nothing_to_measure_here(cases); !nothing.empty()) {
    std::cerr << "gausslab-bench: " << nothing << "\n";
    return kExitProblems;  // nothing was written
  }
  prepare_output_folder(options.out_dir, options.overwrite);

  BenchHeader header = collect_environment(argc, argv);
  std::cerr << "gausslab-bench: " << cases.size() << " configurations; GPU: " << describe(header.device) << "\n";
  if (!header.device.available) std::cerr << "gausslab-bench: the GPU methods are skipped, the CPU methods run\n";
  BenchRunner runner(options, std::cerr, isatty(STDERR_FILENO) == 1);
  header.copy_gbs = runner.measure_copy_bandwidth(header.copy_note);
  if (header.copy_gbs > 0)
    std::cerr << "device-to-device copy: " << format_number("%.1f GB/s", header.copy_gbs) << "\n";
  header.timing_notes = timing_notes(options, header);

  const std::string dir = options.out_dir;
  PartialResults partial(dir, results_csv(header, {}), std::cerr);
  const std::vector<BenchRow> rows =
      runner.run(cases, [&](const BenchRow& row) { partial.append(results_csv_row(header, row)); });
  header.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<std::string> unwritten = write_result_files(
      dir,
      {{"results.csv", results_csv(header, rows)},
       {"results.json", results_json(header, rows)},
       {"results.md", results_markdown(header, rows)}},
      options.overwrite);
  if (!unwritten.empty()) {  // never lose a run's measurements: they go to standard output
    for (const std::string& failure : unwritten) std::cerr << "gausslab-bench: " << failure << "\n";
    if (const std::string kept = partial.kept_path(); !kept.empty())
      std::cerr << "gausslab-bench: every measurement is also in " << kept << "\n";
    std::cerr << "gausslab-bench: the results could not all be saved; results.csv follows on standard output so "
                 "that no measurement is lost\n";
    std::cout << results_csv(header, rows) << std::flush;
    return kExitProblems;
  }
  partial.remove();  // the complete results.csv replaces it

  if (options.plot) std::cerr << run_plot_script(find_plot_script(), dir, options.overwrite) << "\n";
  std::cout << console_summary(header, rows);
  std::cout.flush();

  int failed = 0, outside_bound = 0, measured = 0;
  for (const BenchRow& row : rows) {
    failed += row.status == BenchRow::Status::Failed;
    outside_bound += row.status == BenchRow::Status::Ok && !row.within_bound;
    measured += row.status == BenchRow::Status::Ok;
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "gausslab-bench: results in " << dir << "/ (results.csv, results.json, results.md); total time "
            << format_number("%.1f s", total) << "\n";
  if (measured == 0) {  // asked for measurements, got none: not a success
    std::cerr << "gausslab-bench: nothing was measured: none of the " << rows.size()
              << " configurations ran (" << unmeasured_reasons(rows)
              << "); the results files list each with its reason (see results.md)\n";
    return kExitProblems;
  }
  if (failed || outside_bound) {
    std::cerr << "gausslab-bench: " << failed << " configuration(s) failed and " << outside_bound
              << " missed their accuracy bound; see results.md\n";
    return kExitProblems;
  }
  return kExitDone;
}

}  // namespace

int main(int argc, char** argv) {
  if (version_requested(argc, argv)) {  // before MPI starts: help2man and scripts run it alone
    std::cout << version_text("gausslab-bench");
    return kExitDone;
  }
  return run_with_mpi("gausslab-bench", argc, argv, {kExitProblems, kExitUsage}, run);
}
