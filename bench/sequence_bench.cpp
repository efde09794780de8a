#include "sequence_bench.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>

#include "bench_environment.hpp"
#include "bench_output.hpp"
#include "bench_results.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/core/statistics.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "gausslab/sequence/synthetic.hpp"
#include "gpu_timing.hpp"

namespace gausslab {

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kSequenceFiles[] = {"sequence.md", "sequence.csv", "sequence_timeline.csv"};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Distinct frames of the synthetic sky in page-locked memory (so the GPU uploads are asynchronous
// and run at full speed); the timed runs cycle through them.
class BenchFrames {
 public:
  BenchFrames(int width, int height, int count, bool pinned) : width_(width), height_(height), count_(count) {
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(width) * height * count;
    if (pinned) {
      pinned_.resize(bytes);
      data_ = pinned_.as<float>();
    } else {
      plain_.resize(bytes / sizeof(float));
      data_ = plain_.data();
    }
    SyntheticSpec spec;
    spec.width = width;
    spec.height = height;
    spec.frames = count;
    const SyntheticSequence sky(spec);
    for (int t = 0; t < count; ++t) {
      const ImageF32 frame = sky.frame(t);
      std::copy(frame.data(), frame.data() + frame.pixel_count(), data_ + static_cast<std::size_t>(t) * width * height);
    }
  }
  ConstImageView view(long long t) const {
    return {data_ + static_cast<std::size_t>(t % count_) * width_ * height_, width_, height_,
            sizeof(float) * static_cast<std::size_t>(width_), PixelFormat::F32};
  }

 private:
  int width_, height_, count_;
  PinnedBuffer pinned_;
  std::vector<float> plain_;
  float* data_ = nullptr;
};

struct TimedFrame {
  double upload_start = 0, upload_end = 0, process_end = 0;  // ms from the first timed upload (events)
  double host_submit_ms = 0;
  int in_flight = 0;
};

void drain(SequenceEngine& engine, bool wait) {
  while (engine.collect(wait)) {
  }
}

// Warm-up then `frames` timed frames: CUDA events around upload() and process(), a steady clock
// around process() on the host, and how many frames were queued right after each enqueue.
std::vector<TimedFrame> time_gpu_frames(SequenceEngine& engine, const BenchFrames& input, int warmup, int frames) {
  for (int t = 0; t < warmup; ++t) {
    engine.push(input.view(t), nullptr);
    drain(engine, false);
  }
  const cudaStream_t stream = engine.stream();
  std::vector<cudaEvent_t> events(3 * static_cast<std::size_t>(frames));
  for (cudaEvent_t& e : events) GAUSSLAB_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<TimedFrame> timed(frames);
  for (int i = 0; i < frames; ++i) {
    const long long t = warmup + i;
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(events[3 * i], stream));
    engine.upload(input.view(t), nullptr);
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(events[3 * i + 1], stream));
    const auto host_start = Clock::now();
    engine.process(nullptr);
    timed[i].host_submit_ms = ms_between(host_start, Clock::now());
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(events[3 * i + 2], stream));
    timed[i].in_flight = engine.frames_in_flight();
    drain(engine, false);
  }
  drain(engine, true);
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < frames; ++i) {
    float a = 0, b = 0, c = 0;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&a, events[0], events[3 * i]));
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&b, events[0], events[3 * i + 1]));
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&c, events[0], events[3 * i + 2]));
    timed[i].upload_start = a;
    timed[i].upload_end = b;
    timed[i].process_end = c;
  }
  for (cudaEvent_t e : events) GAUSSLAB_CUDA_LOG(cudaEventDestroy(e));
  return timed;
}

std::vector<std::pair<std::string, double>> stage_medians(SequenceEngine& engine, const BenchFrames& input,
                                                          int warmup, int frames) {
  // More frames of events than the engine lets run ahead (N + 1): none is dropped while pending.
  StageTimer timer(seq::kMaxHistory + 8, 100000);
  for (int t = 0; t < warmup + frames; ++t) {
    if (t == warmup) {
      timer.flush();
      timer.reset_history();
    }
    timer.begin_frame();
    engine.push(input.view(t), &timer);
    timer.end_frame();
    drain(engine, false);
  }
  drain(engine, true);
  timer.flush();
  std::vector<std::pair<std::string, double>> stages;
  for (const StageTiming& s : timer.stages()) stages.emplace_back(s.name, s.median_ms);
  return stages;
}

// The benchmark reads results, not frames: nothing goes back to the host but the shifts.
SequenceSetup bench_setup(int width, int height, const SequenceSettings& settings) {
  SequenceSetup setup;
  setup.width = width;
  setup.height = height;
  setup.settings = settings;
  setup.whitened_to_host = false;
  return setup;
}

double stage(const SequenceBenchRow& row, const std::string& name) {
  for (const auto& [n, ms] : row.stages)
    if (n == name) return ms;
  return 0.0;
}

SequenceBenchRow measure_gpu(const BenchFrames& input, int width, int height, const SequenceSettings& settings,
                             int frames, std::vector<TimedFrame>& timeline) {
  SequenceBenchRow row;
  row.path = "gpu";
  row.frames = frames;
  SequenceSetup setup = bench_setup(width, height, settings);
  auto engine = create_sequence_engine(SequenceBackend::Gpu);
  const int warmup = settings.history + 3;

  engine->begin(setup);  // per stage, CUDA events around each (kernel by kernel)
  row.stages = stage_medians(*engine, input, warmup, frames);

  engine->begin(setup);  // whole frames, kernel by kernel
  const std::vector<TimedFrame> launches = time_gpu_frames(*engine, input, warmup, frames);
  std::vector<double> frame_ms, upload_ms;
  for (const TimedFrame& f : launches) {
    frame_ms.push_back(f.process_end - f.upload_end);
    upload_ms.push_back(f.upload_end - f.upload_start);
  }
  row.frame_ms = median(frame_ms);
  row.upload_ms = median(upload_ms);

  setup.cuda_graphs = true;  // whole frames as one graph launch each (warm-up captures every ring position)
  engine->begin(setup);
  timeline = time_gpu_frames(*engine, input, warmup + settings.history + 1, frames);
  std::vector<double> graph_ms, submit_ms;
  for (const TimedFrame& f : timeline) {
    graph_ms.push_back(f.process_end - f.upload_end);
    submit_ms.push_back(f.host_submit_ms);
    row.most_frames_ahead = std::max(row.most_frames_ahead, f.in_flight);
  }
  row.frame_graph_ms = median(graph_ms);
  row.host_submit_ms = median(submit_ms);
  row.pipelined_ms = (timeline.back().process_end - timeline.front().upload_start) / frames;
  return row;
}

SequenceBenchRow measure_cpu(const BenchFrames& input, int width, int height, const SequenceSettings& settings,
                             int frames) {
  SequenceBenchRow row;
  row.path = "cpu";
  row.frames = frames;
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  engine->begin(bench_setup(width, height, settings));
  StageTimer timer(8, 100000);
  std::vector<double> frame_ms, upload_ms;
  const int warmup = settings.history + 1;
  const auto start = Clock::now();
  auto timed_start = start;
  for (int t = 0; t < warmup + frames; ++t) {
    if (t == warmup) {
      timer.reset_history();
      timed_start = Clock::now();
    }
    timer.begin_frame();
    const auto a = Clock::now();
    engine->upload(input.view(t), &timer);
    const auto b = Clock::now();
    engine->process(&timer);
    const auto c = Clock::now();
    timer.end_frame();
    drain(*engine, false);
    if (t >= warmup) {
      upload_ms.push_back(ms_between(a, b));
      frame_ms.push_back(ms_between(b, c));
    }
  }
  timer.flush();
  for (const StageTiming& s : timer.stages()) row.stages.emplace_back(s.name, s.median_ms);
  row.frame_ms = median(frame_ms);
  row.upload_ms = median(upload_ms);
  row.pipelined_ms = ms_between(timed_start, Clock::now()) / frames;
  return row;
}

// The weights' solve on the host, and the round trip a host solve would add to every frame.
std::string solve_note(const SequenceSettings& settings, const std::vector<SequenceBenchRow>& rows) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  seq::HistoryShift shifts[seq::kMaxHistory];
  for (int j = 0; j < settings.history; ++j) shifts[j] = {1, 0, 0, u(rng), u(rng)};
  double scratch[seq::kMaxMoments * seq::kMaxMoments + seq::kMaxMoments];
  seq::WhiteningWeights weights;
  const int reps = 20000;
  const auto start = Clock::now();
  volatile float sink = 0;  // keeps the loop from being optimised away
  for (int i = 0; i < reps; ++i) {
    shifts[i % settings.history].ex = u(rng);
    seq::compute_weights(shifts, settings.history, settings.degree, settings.gamma, 512, 512, weights, scratch);
    sink = sink + weights.c[0];
  }
  const double host_us = ms_between(start, Clock::now()) * 1000.0 / reps;
  std::string note = "coefficients: the weights' solve (N = " + std::to_string(settings.history) + ", degree " +
                     std::to_string(settings.degree) + ") takes " + format_number("%.2f", host_us) +
                     " µs on one host thread" + (sink == 12345.f ? " " : "");
  for (const SequenceBenchRow& row : rows)
    if (row.path == "gpu" && row.status == "ok") {
      note += "; on the GPU the whole coefficients stage (summing the shift partials, the 2×2 solve, the weights) "
              "takes " + format_number("%.2f", stage(row, "coefficients") * 1000.0) + " µs at " +
              std::to_string(row.width) + "×" + std::to_string(row.height);
      break;
    }
  if (cuda_device_status().available) {
    // A host solve needs the shift down and the weights up, with a wait in between, every frame.
    cudaStream_t stream = nullptr;
    GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PinnedBuffer host(sizeof(seq::WhiteningWeights));
    DeviceBuffer device(sizeof(seq::WhiteningWeights));
    std::vector<double> trips;
    for (int i = 0; i < 200; ++i) {
      const auto a = Clock::now();
      GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), sizeof(seq::ShiftRecord), cudaMemcpyDeviceToHost, stream));
      GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
      GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), sizeof(seq::WhiteningWeights), cudaMemcpyHostToDevice, stream));
      GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
      trips.push_back(ms_between(a, Clock::now()) * 1000.0);
    }
    GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream));
    note += "; a host solve would add a round trip (shift down, wait, weights up) of " +
            format_number("%.1f", median(trips)) +
            " µs and a host wait to every frame, so the solve runs on the GPU";
  }
  return note;
}

std::string csv(const std::vector<SequenceBenchRow>& rows, double copy_gbs) {
  std::ostringstream s;
  s << "width,height,history,degree,weights,path,status,frames,frame_ms,frame_graph_ms,upload_ms,pipelined_ms,"
       "host_submit_ms,most_frames_ahead,shifts_ms,coefficients_ms,whitening_ms,target_removal_ms,bytes_per_frame,gbs,"
       "percent_copy\n";
  for (const SequenceBenchRow& r : rows) {
    const double best = r.frame_graph_ms > 0 ? std::min(r.frame_ms, r.frame_graph_ms) : r.frame_ms;
    const double gbs = best > 0 ? r.bytes_per_frame / (best * 1e6) : 0;
    s << r.width << ',' << r.height << ',' << r.history << ',' << r.degree << ',' << r.weights << ',' << r.path << ",\""
      << r.status
      << "\"," << r.frames << ',' << r.frame_ms << ',' << r.frame_graph_ms << ',' << r.upload_ms << ','
      << r.pipelined_ms << ',' << r.host_submit_ms << ',' << r.most_frames_ahead << ',' << stage(r, "shifts") << ','
      << stage(r, "coefficients") << ',' << stage(r, "whitening") << ',' << stage(r, "target removal") << ','
      << r.bytes_per_frame << ',' << gbs << ','
      << (copy_gbs > 0 && r.path == "gpu" ? 100.0 * gbs / copy_gbs : 0) << '\n';
  }
  return s.str();
}

std::string timeline_csv(const std::vector<std::pair<std::string, std::vector<TimedFrame>>>& timelines) {
  std::ostringstream s;
  s << "size,frame,upload_start_ms,upload_end_ms,process_end_ms,host_submit_ms,frames_in_flight\n";
  for (const auto& [size, frames] : timelines)
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const TimedFrame& f = frames[i];
      s << size << ',' << i << ',' << f.upload_start << ',' << f.upload_end << ',' << f.process_end << ','
        << f.host_submit_ms << ',' << f.in_flight << '\n';
    }
  return s.str();
}

}  // namespace

double sequence_bytes_per_frame(int width, int height, int history) {
  const double frame = sizeof(float) * static_cast<double>(width) * height;
  return (history + 2) * frame + 3 * frame;
}

std::string sequence_markdown(const std::vector<SequenceBenchRow>& rows, double copy_gbs, const std::string& device,
                              const std::string& notes) {
  std::ostringstream s;
  s << "# gausslab-bench --sequence\n\n" << device << "\n\n";
  s << "| frame | N | weights | path | ms/frame | as a CUDA graph | GB/s | % copy | upload ms | pipelined ms/frame | "
       "shifts ms | coefficients ms | whitening ms | target removal ms | host enqueue ms | frames ahead |\n";
  s << "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const SequenceBenchRow& r : rows) {
    s << "| " << r.width << "×" << r.height << " | " << r.history << " | " << r.weights << " | " << r.path << " | ";
    if (r.status != "ok") {
      s << r.status << " | | | | | | | | | | | |\n";
      continue;
    }
    const double best = r.frame_graph_ms > 0 ? std::min(r.frame_ms, r.frame_graph_ms) : r.frame_ms;
    const double gbs = best > 0 ? r.bytes_per_frame / (best * 1e6) : 0;
    const bool gpu = r.path == "gpu";
    s << format_number("%.4g", r.frame_ms) << " | " << (gpu ? format_number("%.4g", r.frame_graph_ms) : "–") << " | "
      << format_number("%.3g", gbs) << " | "
      << (gpu && copy_gbs > 0 ? format_number("%.0f %%", 100.0 * gbs / copy_gbs) : "–") << " | "
      << format_number("%.3g", r.upload_ms) << " | " << format_number("%.4g", r.pipelined_ms) << " | "
      << format_number("%.3g", stage(r, "shifts")) << " | " << format_number("%.3g", stage(r, "coefficients")) << " | "
      << format_number("%.3g", stage(r, "whitening")) << " | " << format_number("%.3g", stage(r, "target removal"))
      << " | " << (gpu ? format_number("%.3g", r.host_submit_ms) : "–") << " | "
      << (gpu ? std::to_string(r.most_frames_ahead) : "–") << " |\n";
  }
  s << "\n" << notes << "\n";
  return s.str();
}

int run_sequence_bench(const BenchOptions& options, int argc, const char* const* argv, std::ostream& log,
                       std::ostream& out) {
  const auto start = Clock::now();
  namespace fs = std::filesystem;
  // Only the GPU path asked for, and no device: nothing can be measured, and nothing is made.
  if (const CudaDeviceStatus& device = cuda_device_status();
      !device.available && std::find(options.sequence_backends.begin(), options.sequence_backends.end(), "cpu") ==
                               options.sequence_backends.end()) {
    log << "gausslab-bench --sequence: nothing to measure here: --sequence-paths asks for the GPU path alone, and it "
           "cannot run without a CUDA device ("
        << device.reason << "); add the CPU path (--sequence-paths gpu,cpu) or run on a machine with a CUDA device\n";
    return 1;
  }
  std::error_code error;
  fs::create_directories(options.out_dir, error);
  if (!fs::is_directory(options.out_dir)) throw UsageError("--out: cannot create the folder '" + options.out_dir + "'");
  if (!options.overwrite)
    for (const char* name : kSequenceFiles)
      if (fs::exists(fs::path(options.out_dir) / name))
        throw UsageError("'" + (fs::path(options.out_dir) / name).string() +
                         "' already exists; pass --overwrite or choose another --out");

  const BenchHeader header = collect_environment(argc, argv);
  const bool gpu = header.device.available;
  SequenceSettings settings;
  settings.history = options.sequence_history;
  if (std::string problem = validate(settings); !problem.empty()) throw UsageError(problem);
  log << "gausslab-bench --sequence: GPU: " << describe(header.device) << "\n";

  double copy_gbs = 0;
  std::string copy_note;
  if (gpu) {
    GpuTiming timing(options.timing);
    copy_gbs = timing.measure_copy_bandwidth(copy_note);
    log << "device-to-device copy: " << format_number("%.1f GB/s", copy_gbs) << "\n";
  }

  std::vector<SequenceBenchRow> rows;
  std::vector<std::pair<std::string, std::vector<TimedFrame>>> timelines;
  for (const auto& [w, h] : options.sequence_sizes) {
    const long long pixels = static_cast<long long>(w) * h;
    const int distinct = pixels > 4'000'000 ? 24 : 32;
    log << "gausslab-bench --sequence: " << w << "x" << h << ": rendering " << distinct << " frames of the synthetic sky\n";
    const BenchFrames input(w, h, distinct, gpu);
    for (const std::string& path : options.sequence_backends)
      for (const WeightMethod method : {WeightMethod::Polynomial, WeightMethod::Correlation}) {
        SequenceSettings run = settings;
        run.weights = method;
        SequenceBenchRow row;
        try {
          if (path == "gpu") {
            if (!gpu) {
              row.path = "gpu";
              row.status = "skipped: " + header.device.reason;
            } else {
              const int frames = options.quick ? 20 : (pixels > 4'000'000 ? 60 : 300);
              std::vector<TimedFrame> timeline;
              row = measure_gpu(input, w, h, run, frames, timeline);
              if (method == WeightMethod::Polynomial)
                timelines.emplace_back(std::to_string(w) + "x" + std::to_string(h), std::move(timeline));
            }
          } else {
            const int frames = options.quick ? 2 : (pixels > 4'000'000 ? 4 : 30);
            row = measure_cpu(input, w, h, run, frames);
          }
        } catch (const std::exception& e) {
          row.path = path;
          row.status = std::string("failed: ") + e.what();
        }
        row.width = w;
        row.height = h;
        row.history = settings.history;
        row.degree = settings.degree;
        row.weights = to_string(method);
        row.bytes_per_frame = sequence_bytes_per_frame(w, h, settings.history);
        log << "  " << path << ", " << row.weights << " weights: "
            << (row.status == "ok" ? format_number("%.4g ms/frame", row.frame_ms) : row.status)
            << (row.frame_graph_ms > 0 ? format_number(", %.4g ms/frame as a CUDA graph", row.frame_graph_ms) : "")
            << "\n";
        rows.push_back(std::move(row));
      }
  }

  std::ostringstream notes;
  notes << "Measured " << header.date_utc << ", commit " << (header.git_commit.empty() ? header.build_commit : header.git_commit)
        << ", `" << header.command_line << "`.\n\n"
        << "- Frames: the synthetic sky (star field on a smooth background, jitter ±2 px, noise 0.5 %), " << "history N = "
        << settings.history << ", degree " << settings.degree << ", γ " << settings.gamma
        << ", no pre-filter; the timed frames follow a warm-up that fills the history.\n"
        << "- ms/frame: everything after the upload (shift estimation with the coarse search over the whole "
           "frame and the verdicts, coefficients, whitening, target removal), median; GPU: CUDA events around the "
           "frame's kernels launched one by one; \"as a CUDA graph\": the same as one graph launch per frame. CPU: "
           "steady clock, OpenMP on " << header.openmp_threads << " threads.\n"
        << "- weights: polynomial (a polynomial in the shifts, one small solve) or correlation (the history's "
           "correlation matrix over a sample of about a million pixels: one more read of the N + 1 frames on those "
           "rows, and an N × N Cholesky solve in one block); both in the coefficients stage.\n"
        << "- target removal: the residual's verdict (one block), the target cores (the frame and its whitened "
           "values read once) and the replacement (the whitened frame read again); the sky's faint target stays "
           "under the threshold, so this is the pass's cost, not a count of targets.\n"
        << "- stage columns: CUDA events around each stage (GPU), steady clock (CPU), medians; upload: pinned host "
           "memory to the device (CPU: a copy into the engine).\n"
        << "- pipelined ms/frame: wall time of the timed frames back to back, uploads included (graph run).\n"
        << "- GB/s: the bytes a frame must move at least — the whitening reads N + 1 frames and writes one, the "
           "shift estimation reads the frame three times: (N + 5) × 4 × W × H (the target removal's and the "
           "correlation's reads not counted) — over the better of the two GPU times; % copy against the device-to-device copy bandwidth of this run ("
        << format_number("%.1f GB/s", copy_gbs) << ", " << (copy_note.empty() ? "not measured" : copy_note) << ").\n"
        << "- host enqueue: host time to queue a frame's processing (graph run); frames ahead: the most frames queued "
           "and not yet finished right after an enqueue. A host that waited inside a frame would show 0 here; the "
           "event timeline of every timed frame is in sequence_timeline.csv.\n"
        << "- " << solve_note(settings, rows) << ".\n";
  const std::string device = "GPU: " + describe(header.device) + "; CPU: " + header.cpu_model;
  const std::string markdown = sequence_markdown(rows, copy_gbs, device, notes.str());
  const std::string table = csv(rows, copy_gbs);
  const std::vector<std::string> unwritten = write_result_files(
      options.out_dir,
      {{"sequence.md", markdown}, {"sequence.csv", table}, {"sequence_timeline.csv", timeline_csv(timelines)}},
      options.overwrite);
  out << markdown;
  if (!unwritten.empty()) {  // never lose the measurements: the CSV goes to standard output too
    for (const std::string& failure : unwritten) log << "gausslab-bench: " << failure << "\n";
    log << "gausslab-bench --sequence: the results could not all be saved; sequence.csv follows on standard output\n";
    out << table << std::flush;
    return 1;
  }
  log << "gausslab-bench --sequence: results in " << options.out_dir << "/ (sequence.md, sequence.csv, "
      << "sequence_timeline.csv); " << format_number("%.1f s", ms_between(start, Clock::now()) / 1000.0) << "\n";
  if (std::none_of(rows.begin(), rows.end(), [](const SequenceBenchRow& r) { return r.status == "ok"; })) {
    log << "gausslab-bench --sequence: nothing was measured: none of the " << rows.size()
        << " rows ran (each row's status in sequence.md says why)\n";
    return 1;
  }
  for (const SequenceBenchRow& r : rows)
    if (r.status.rfind("failed", 0) == 0) return 1;
  return 0;
}

}  // namespace gausslab
