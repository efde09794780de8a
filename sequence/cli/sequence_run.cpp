#include "sequence_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/run_inputs.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/sequence/frame_io.hpp"
#include "gausslab/sequence/frame_source.hpp"
#include "gausslab/sequence/npy_writer.hpp"
#include "sequence_outputs.hpp"

namespace gausslab {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string frame_label(int index, const std::string& name) {
  const std::string plain = "frame " + std::to_string(index);
  return name == plain ? plain : plain + " (" + name + ")";
}

std::string fixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof(text), "%.*f", digits, v);
  return text;
}

// A progress bar on a terminal; on a pipe or file a line every tenth of the way.
class Progress {
 public:
  Progress(std::ostream& log, int total, bool quiet) : log_(log), total_(total), quiet_(quiet), tty_(isatty(2)) {}
  void update(int done, double ms_per_frame) {
    if (quiet_ || total_ <= 0) return;
    if (tty_) {
      if (done < total_ && ms_since(last_) < 100) return;
      last_ = Clock::now();
      const int width = 30, filled = static_cast<int>(static_cast<long long>(width) * done / total_);
      log_ << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done << "/" << total_
           << " frames, " << fixed(ms_per_frame, 2) << " ms/frame   " << std::flush;
      open_line_ = done < total_;
      if (!open_line_) log_ << '\n';
    } else if (done * 10 / total_ > last_tenth_ || done == total_) {
      last_tenth_ = done * 10 / total_;
      log_ << "gausslab-sequence: " << done << "/" << total_ << " frames\n";
    }
  }
  // Ends a half-drawn bar before a message.
  std::ostream& message() {
    if (open_line_) log_ << '\n';
    open_line_ = false;
    return log_;
  }

 private:
  std::ostream& log_;
  int total_;
  bool quiet_, tty_;
  bool open_line_ = false;
  int last_tenth_ = 0;
  Clock::time_point last_ = Clock::now() - std::chrono::seconds(1);
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// The pre-filter and the engine's backend, checked together.
struct Processing {
  SequenceBackend backend = SequenceBackend::Cpu;
  std::unique_ptr<Method> prefilter;
};

Processing choose_processing(const SequenceOptions& o) {
  Processing p;
  const MethodEntry* entry = nullptr;
  if (!o.method_id.empty()) {
    entry = find_method(o.method_id);
    if (!entry) throw UsageError("--method: unknown method '" + o.method_id + "'; choose one of " + method_id_list());
  }
  const bool have_gpu = cuda_device_status().available;
  switch (o.backend) {
    case SequenceOptions::Backend::Gpu:
      if (!have_gpu) throw UsageError("--backend gpu: " + cuda_device_status().reason + "; use --backend cpu");
      p.backend = SequenceBackend::Gpu;
      break;
    case SequenceOptions::Backend::Cpu:
      p.backend = SequenceBackend::Cpu;
      break;
    case SequenceOptions::Backend::Auto:
      // A CPU pre-filter runs the whole sequence on the CPU; otherwise the GPU when there is one.
      p.backend = have_gpu && !(entry && entry->info.backend == Backend::Cpu) ? SequenceBackend::Gpu : SequenceBackend::Cpu;
      break;
  }
  if (entry) {
    const bool gpu_method = entry->info.backend == Backend::Cuda;
    if (gpu_method && p.backend == SequenceBackend::Cpu)
      throw UsageError("--method " + o.method_id + " runs on the GPU, but the sequence runs on the CPU" +
                       (have_gpu ? std::string() : " (" + cuda_device_status().reason + ")") +
                       ": use --method cpu_openmp or cpu_separable");
    if (!gpu_method && p.backend == SequenceBackend::Gpu)
      throw UsageError("--method " + o.method_id + " runs on the CPU, but --backend gpu runs the sequence on the "
                       "GPU: choose a GPU method or --backend cpu");
    p.prefilter = entry->create();
  }
  return p;
}

struct OutputPaths {
  std::string shifts, frames, whitened, true_shifts, track, frames_dir, previews_dir;
};

std::string numbered(const std::string& dir, const char* stem, int index) {
  char name[64];
  std::snprintf(name, sizeof(name), "%s_%05d.png", stem, index);
  return (fs::path(dir) / name).string();
}

// Refuses, before any work and with or without --overwrite, an output that would replace an input
// frame (core's rule: the same file, also through a symbolic or a hard link).
void refuse_outputs_over_inputs(const OutputPaths& p, const SequenceOptions& o, bool whitening, int total,
                                const RunInputs& inputs) {
  if (inputs.size() == 0) return;
  std::vector<std::string> planned = {p.shifts};
  if (whitening) planned.push_back(p.whitened);
  for (int i = 0; i < total; ++i) {
    if (o.save_frames) planned.push_back(numbered(p.frames_dir, "frame", i));
    if (o.previews && i % o.preview_every == 0) {
      planned.push_back(numbered(p.previews_dir, "frame", i));
      planned.push_back(numbered(p.previews_dir, "whitened", i));
    }
  }
  for (const std::string& path : planned)
    if (std::string problem = inputs.refusal(path, "gausslab-sequence", "choose another --out-dir"); !problem.empty())
      throw UsageError(problem);
}

// Refuses, before any work, outputs that replace an input, or that exist (unless --overwrite);
// then creates the folder.
OutputPaths prepare_outputs(const SequenceOptions& o, bool whitening, int total, const RunInputs& inputs) {
  const fs::path dir(o.out_dir);
  OutputPaths p;
  p.shifts = (dir / "shifts.csv").string();
  p.frames = (dir / "frames.csv").string();
  p.whitened = (dir / "whitened.npy").string();
  p.true_shifts = (dir / "true_shifts.csv").string();
  p.track = (dir / "target_track.csv").string();
  p.frames_dir = (dir / "frames").string();
  p.previews_dir = (dir / "previews").string();
  refuse_outputs_over_inputs(p, o, whitening, total, inputs);
  std::error_code error;
  for (const std::string& input : o.inputs)
    if (fs::is_directory(input, error) && fs::weakly_canonical(input, error) == fs::weakly_canonical(dir, error))
      throw UsageError("--out-dir '" + o.out_dir + "' is the input folder: shifts.csv, whitened.npy and the rest would "
                       "go among the frames (and be read as frames by the next run); choose another folder");
  fs::create_directories(o.out_dir, error);
  if (!fs::is_directory(o.out_dir))
    throw UsageError("--out-dir: cannot create the folder '" + o.out_dir + "'" +
                     (error ? ": " + error.message() : std::string(": a file has that name")));
  if (o.overwrite == Overwrite::Allowed) return p;
  std::vector<std::string> planned = {p.shifts, p.frames};
  if (whitening) planned.push_back(p.whitened);
  if (o.synthetic) {
    planned.push_back(p.true_shifts);
    planned.push_back(p.track);
  }
  if (o.save_frames) planned.push_back(p.frames_dir);
  if (o.previews) planned.push_back(p.previews_dir);
  for (const std::string& path : planned)
    if (fs::exists(path, error))
      throw UsageError("'" + path + "' already exists; pass --overwrite to replace the outputs, or choose another --out-dir");
  return p;
}

void make_folder(const std::string& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (!fs::is_directory(path)) throw ImageSaveError("cannot create the folder '" + path + "'");
}

// One input frame on its way to the outputs, in input order.
struct Row {
  int index = 0;
  std::string name;
  bool done = false;           // its outcome is known
  long long engine_index = -1; // -1: never reached the engine (unreadable, wrong size)
  FrameOutcome outcome;
  ImageF32 raw;                // kept only for its preview
};

std::string shift_text(const seq::ShiftRecord& s) { return "(" + fixed(s.dx, 2) + ", " + fixed(s.dy, 2) + ") px"; }

// Why a frame was left out, in words (the numbers and the option that sets the limit).
std::string left_out_reason(const FrameOutcome& o, const SequenceSettings& settings) {
  const seq::ShiftRecord& s = o.shift;
  switch (o.verdict) {
    case FrameVerdict::NoMatch:
      if (s.flags & seq::kFlagNotConverged)
        return "its shift search did not converge (the sub-pixel step moved by more than " +
               fixed(seq::kMaxFineStep, 0) + " px: the integer offset was wrong)";
      return "it does not match the reference (coarse match significance " + fixed(s.match, 1) + ", at least " +
             fixed(settings.min_match, 1) + " needed: --min-match)" +
             (s.flags & seq::kFlagCoarseEdge ? "; its best match is at the edge of the search (half the frame)" : "");
    case FrameVerdict::Rejected:
      if (s.flags & seq::kFlagResidualHigh)
        return "its whitened residual is " + fixed(s.residual_ratio, 1) + " times the history's (at most " +
               fixed(settings.max_residual, 1) + ": --max-residual)";
      return fixed(100.0 * s.tail, 2) + " % of its whitened pixels lie beyond " + fixed(seq::kTailDeviations, 0) +
             " robust deviations (the history's frames: " + fixed(100.0 * s.tail / std::max(s.residual_ratio, 1e-9f), 2) +
             " %): a scene that is not the history's";
    case FrameVerdict::Degenerate:
      return "it has no 2D structure (u*w - v^2 = 0: a flat frame, or edges in one direction only)";
    case FrameVerdict::LoneReference:
      return "it became the reference, but no later frame matched it before the next scene cut";
    default:
      return "";
  }
}

}  // namespace

int run_sequence(const SequenceOptions& o, std::ostream& log) {
  const auto run_start = Clock::now();
  std::unique_ptr<FrameSource> source = o.synthetic ? open_synthetic(o.synthetic_spec) : open_sequence_input(o.inputs);
  int total = source->frame_count();
  if (o.max_frames > 0) total = std::min(total, o.max_frames);
  Processing processing = choose_processing(o);
  const int history = o.settings.history;
  const bool whitening = total > history;
  RunInputs inputs;  // the frame files, or the video
  inputs.add(source->files());
  if (!o.synthetic)
    for (const std::string& input : o.inputs)
      if (std::error_code e; !fs::is_directory(input, e)) inputs.add(input);
  const OutputPaths out = prepare_outputs(o, whitening, total, inputs);
  int status = kSequenceExitDone;

  std::unique_ptr<SyntheticSequence> sky;
  if (o.synthetic) sky = std::make_unique<SyntheticSequence>(o.synthetic_spec);
  if (o.save_frames) make_folder(out.frames_dir);
  if (o.previews) make_folder(out.previews_dir);

  if (!o.quiet) {
    log << "gausslab-sequence: " << source->description() << "\n";
    log << "gausslab-sequence: on the " << (processing.backend == SequenceBackend::Gpu ? "GPU, " + describe(cuda_device_status()) : std::string("CPU (OpenMP)"))
        << "; history " << history << ", degree " << o.settings.degree << ", gamma " << o.settings.gamma
        << (processing.prefilter ? ", pre-filter " + processing.prefilter->info().id + " " + describe(o.params) : std::string())
        << "\n";
  }
  for (const std::string& note : source->notes()) log << "gausslab-sequence: " << note << "\n";
  if (!whitening) {
    log << "gausslab-sequence: the input has " << total << " frame(s); whitening with --history " << history
        << " needs at least " << history + 1 << " (the first " << history
        << " fill the history): only the shifts are estimated and whitened.npy is not written"
        << (total >= 2 ? "; use --history " + std::to_string(total - 1) + " or fewer to whiten" : std::string()) << "\n";
    status = kSequenceExitFramesFailed;
  }

  std::unique_ptr<SequenceEngine> engine = create_sequence_engine(processing.backend);
  StageTimer timer(8, 100000);
  std::unique_ptr<NpyFrameWriter> npy;
  std::vector<ShiftRow> shifts(std::max(total, 0), ShiftRow{std::nan(""), std::nan("")});
  std::vector<FrameRow> frame_rows(std::max(total, 0));
  std::vector<std::string> left_names;
  int cuts = 0, left = 0, unreadable = 0;
  std::deque<Row> rows;                 // input order, until written
  std::map<long long, Row*> by_engine;  // engine index → its row
  std::vector<double> decode_ms, write_ms;
  Progress progress(log, total, o.quiet);
  int width = 0, height = 0, reached = 0, written = 0;
  bool started = false, reference_found = false;

  // Writes the rows whose outcome is known, in input order.
  auto flush_rows = [&]() {
    while (!rows.empty() && rows.front().done) {
      if (whitening && !npy) break;  // no frame read yet: the size of whitened.npy is not known
      Row& row = rows.front();
      const auto start = Clock::now();
      const seq::ShiftRecord& s = row.outcome.shift;
      const FrameVerdict verdict = row.outcome.verdict;
      const std::string label = frame_label(row.index, row.name);
      if (row.engine_index >= 0) {
        frame_rows[row.index] = {row.name, verdict, s, {}};
        if (seq::shift_usable(s)) shifts[row.index] = {s.dx, s.dy};
        if (verdict == FrameVerdict::Reference) reference_found = true;
        if (verdict == FrameVerdict::Reference && row.index != 0 && !o.quiet)
          progress.message() << "gausslab-sequence: " << label
                             << " is the reference (no earlier frame could be): shifts are relative to it\n";
        if (verdict == FrameVerdict::SegmentStart) {
          reference_found = true;
          ++cuts;
          progress.message() << "gausslab-sequence: " << (o.strict ? "error: " : "") << "a scene cut at " << label
                             << ": it does not match the reference, the next frame matches it; it is the reference of "
                             << "segment " << s.segment + 1 << ", the shifts from it on are relative to it, and the "
                             << "history starts again (its first " << o.settings.history << " frames are not whitened)\n";
          if (o.strict) status = kSequenceExitFramesFailed;
        }
        if (left_out(verdict)) {
          ++left;
          left_names.push_back(label);
          const bool first_try = verdict == FrameVerdict::Degenerate && row.outcome.reference_candidate;
          progress.message() << "gausslab-sequence: " << (o.strict ? "error: " : "") << label << " is left out: "
                             << left_out_reason(row.outcome, o.settings) << "; "
                             << (first_try ? "it cannot be the reference, the next frame is tried"
                                           : "no shift (nan), its whitened frame is zero, and no later frame uses it")
                             << "\n";
          if (o.strict) status = kSequenceExitFramesFailed;
        }
        if (!left_out(verdict) && (s.flags & seq::kFlagCoarseEdge))
          progress.message() << "gausslab-sequence: warning: " << label << ": its shift " << shift_text(s)
                             << " is at the edge of the coarse search (half the frame each way): it may be larger\n";
        if (!left_out(verdict) && (s.flags & seq::kFlagRefineEdge))
          progress.message() << "gausslab-sequence: warning: " << label << ": its shift " << shift_text(s)
                             << " is at the edge of the integer search around the coarse estimate (+-"
                             << std::max(o.settings.search_radius, seq::coarse_geometry(width, height).factor)
                             << " px): it may be wrong; a larger --search-radius searches wider\n";
      }
      const bool has_whitened = row.engine_index >= 0 && !row.outcome.whitened_frame.empty();
      if (npy) npy->append(has_whitened ? row.outcome.whitened_frame.data() : nullptr);
      if (o.previews && row.index % o.preview_every == 0 && !row.raw.empty()) {
        save_image(numbered(out.previews_dir, "frame", row.index), frame_preview(row.raw), 1, o.overwrite);
        if (has_whitened && row.outcome.whitened)
          save_image(numbered(out.previews_dir, "whitened", row.index), whitened_preview(row.outcome.whitened_frame), 1,
                     o.overwrite);
      }
      write_ms.push_back(ms_since(start));
      if (row.engine_index >= 0) by_engine.erase(row.engine_index);
      rows.pop_front();
      ++written;
    }
  };
  auto take_outcomes = [&](bool wait) {
    while (std::optional<FrameOutcome> outcome = engine->collect(wait)) {
      Row* row = by_engine.at(outcome->index);
      row->outcome = std::move(*outcome);
      row->done = true;
    }
  };

  g_interrupted = 0;
  auto previous_handler = std::signal(SIGINT, on_interrupt);
  const auto loop_start = Clock::now();
  while (!g_interrupted) {
    const auto decode_start = Clock::now();
    if (reached >= total) break;
    std::optional<SourceFrame> frame = source->next();
    if (!frame) break;
    decode_ms.push_back(ms_since(decode_start));
    ++reached;
    Row row;
    row.index = frame->index;
    row.name = frame->name;
    if (o.save_frames && frame->error.empty())
      save_grey_png16(numbered(out.frames_dir, "frame", frame->index), frame->image, o.overwrite);
    if (!frame->error.empty()) {
      progress.message() << "gausslab-sequence: " << frame_label(row.index, row.name) << " cannot be read: " << frame->error
                         << "; it is skipped (shift nan, whitened frame zero)\n";
      status = kSequenceExitFramesFailed;
      frame_rows[row.index] = {row.name, std::nullopt, {}, "unreadable"};
      ++unreadable;
      row.done = true;
    } else if (started && (frame->image.width() != width || frame->image.height() != height)) {
      progress.message() << "gausslab-sequence: " << frame_label(row.index, row.name) << " is " << frame->image.width()
                         << "x" << frame->image.height() << " but the sequence is " << width << "x" << height
                         << " (its first frame): it is skipped (shift nan, whitened frame zero)\n";
      status = kSequenceExitFramesFailed;
      frame_rows[row.index] = {row.name, std::nullopt, {}, "other size"};
      ++unreadable;
      row.done = true;
    } else {
      if (!started) {
        width = frame->image.width();
        height = frame->image.height();
        SequenceSetup setup;
        setup.width = width;
        setup.height = height;
        setup.settings = o.settings;
        setup.prefilter = processing.prefilter.get();
        setup.prefilter_params = o.params;
        setup.whitened_to_host = whitening;
        if (std::string problem = validate(setup, processing.backend); !problem.empty())
          throw SequenceInputError(problem);
        engine->begin(setup);
        if (whitening) npy = std::make_unique<NpyFrameWriter>(out.whitened, total, height, width, o.overwrite);
        started = true;
      }
      if (o.previews && row.index % o.preview_every == 0) row.raw = frame->image;
      row.engine_index = engine->frames_pushed();
      timer.begin_frame();
      engine->push(frame->image.view(), &timer);
      timer.end_frame();
    }
    rows.push_back(std::move(row));
    if (rows.back().engine_index >= 0) by_engine[rows.back().engine_index] = &rows.back();
    take_outcomes(false);
    flush_rows();
    progress.update(reached, ms_since(loop_start) / reached);
  }
  std::signal(SIGINT, previous_handler);
  if (started) take_outcomes(true);
  flush_rows();
  if (g_interrupted) {
    progress.message() << "gausslab-sequence: interrupted after " << reached << " frames; nothing was written\n";
    return 130;
  }
  if (reached < total) {
    progress.message() << "gausslab-sequence: the input ended after " << reached << " of the " << total
                       << " frames it announced; the rest are nan in shifts.csv and zero in whitened.npy\n";
    status = kSequenceExitFramesFailed;
    if (npy)
      while (npy->frames_written() < total) npy->append(nullptr);
  }
  if (!started) {
    progress.message() << "gausslab-sequence: no frame could be read; nothing was written\n";
    return kSequenceExitFramesFailed;
  }
  if (!reference_found) {
    progress.message() << "gausslab-sequence: no frame had the 2D structure a reference needs (all flat?): every "
                          "shift is nan and no frame is whitened\n";
    status = kSequenceExitFramesFailed;
  }

  if (npy) npy->commit();
  write_staged(out.shifts, shifts_csv(shifts), o.overwrite);
  write_staged(out.frames, frames_csv(frame_rows), o.overwrite);
  if (sky) {
    write_staged(out.true_shifts, true_shifts_csv(*sky, total), o.overwrite);
    write_staged(out.track, target_track_csv(*sky, total), o.overwrite);
  }

  if (!o.quiet) {
    timer.flush();
    const double seconds = ms_since(run_start) / 1000.0;
    log << "gausslab-sequence: " << reached << " frames in " << fixed(seconds, 2) << " s ("
        << fixed(reached / std::max(seconds, 1e-9), 1) << " frames/s); wrote " << out.shifts << ", " << out.frames
        << (npy ? ", " + out.whitened : std::string()) << "\n";
    log << "  " << reached - left - unreadable << " used, " << left << " left out (did not belong"
        << (left_names.empty() ? std::string() : ": " + list_of(left_names)) << "), " << unreadable
        << " unreadable or of another size, " << cuts << " scene cut" << (cuts == 1 ? "" : "s")
        << " (the history started again)" << "\n";
    log << "  stage            median ms/frame\n";
    log << "  read             " << fixed(median(decode_ms), 3) << "\n";
    for (const StageTiming& stage : timer.stages())
      log << "  " << stage.name << std::string(std::max<int>(1, 17 - static_cast<int>(stage.name.size())), ' ')
          << fixed(stage.median_ms, 3) << (processing.backend == SequenceBackend::Gpu ? "  (CUDA events)" : "") << "\n";
    log << "  write            " << fixed(median(write_ms), 3) << "\n";
  }
  return status;
}

}  // namespace gausslab
