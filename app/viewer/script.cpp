#include "viewer/script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/regular_file.hpp"

namespace gausslab {

std::vector<ScriptStep> parse_script(const std::string& text, const std::string& name) {
  std::vector<ScriptStep> steps;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  double previous = 0;
  while (std::getline(in, line)) {
    ++number;
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string time;
    if (!(words >> time)) continue;
    ScriptStep step;
    step.line = number;
    const std::string where = name + " line " + std::to_string(number) + ": ";
    try {
      std::size_t used = 0;
      step.at_s = std::stod(time, &used);
      if (used != time.size() || !std::isfinite(step.at_s) || step.at_s < 0) throw std::invalid_argument(time);
    } catch (const std::exception&) {
      throw UsageError(where + "'" + time + "' is not a time in seconds (a number >= 0)");
    }
    if (step.at_s < previous) throw UsageError(where + "the times must not go back (" + time + " after an earlier step)");
    previous = step.at_s;
    if (!(words >> step.command)) throw UsageError(where + "a command must follow the time");
    std::string rest;
    std::getline(words, rest);
    const std::size_t first = rest.find_first_not_of(" \t"), last = rest.find_last_not_of(" \t\r");
    if (first != std::string::npos) step.argument = rest.substr(first, last - first + 1);
    steps.push_back(std::move(step));
  }
  if (steps.empty()) throw UsageError(name + ": the script has no steps");
  return steps;
}

std::vector<ScriptStep> load_script(const std::string& path) {
  try {  // core's opening rule: a FIFO or a device is refused at once, never read without end
    return parse_script(read_small_file(path, 1 << 20, "scripts"), path);
  } catch (const InputFileError& error) {
    throw UsageError(std::string("--script: ") + error.what());
  }
}

FrameTimeReport frame_time_report(const std::vector<double>& frame_ms,
                                  const std::vector<std::pair<std::size_t, std::string>>& step_frames,
                                  std::size_t window) {
  FrameTimeReport report;
  report.frames = frame_ms.size();
  if (frame_ms.empty()) return report;
  const auto percentile = [](std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const std::size_t index = static_cast<std::size_t>(std::ceil(p / 100.0 * values.size()));
    return values[std::min(index > 0 ? index - 1 : 0, values.size() - 1)];
  };
  report.p50 = percentile(frame_ms, 50);
  report.p90 = percentile(frame_ms, 90);
  report.p99 = percentile(frame_ms, 99);
  report.max = *std::max_element(frame_ms.begin(), frame_ms.end());
  // A frame right after a step is slow because of the switch only if it is slower than twice the
  // run's median and twice the median of the frames that follow under the new setting (a method
  // that is slow in every frame is not a switch's cost), and slower than the p99 of the frames under
  // the setting before the step: the step's own frame waits in the pacer for the GPU work the frames
  // before it sent, so a setting whose frames were already that slow now and then is not the switch's
  // doing either (those frames are listed apart, as "as slow before the step").
  for (std::size_t s = 0; s < step_frames.size(); ++s) {
    // A 'wait' switches nothing: the frames after it (results still coming in) belong to no step.
    if (step_frames[s].second == "wait") continue;
    const std::size_t first = step_frames[s].first;
    const std::size_t next = s + 1 < step_frames.size() ? step_frames[s + 1].first : frame_ms.size();
    double steady = 0;
    if (next > first + window + 4)
      steady = percentile(std::vector<double>(frame_ms.begin() + static_cast<std::ptrdiff_t>(first + window),
                                              frame_ms.begin() + static_cast<std::ptrdiff_t>(next)),
                          50);
    const double limit = 2 * std::max(report.p50, steady);
    // The frames under the previous setting, after its own first `window` (none before the first step).
    double before = 0;
    if (s > 0) {
      const std::size_t from = step_frames[s - 1].first + window;
      if (first > from + 8)
        before = percentile(std::vector<double>(frame_ms.begin() + static_cast<std::ptrdiff_t>(from),
                                                frame_ms.begin() + static_cast<std::ptrdiff_t>(first)),
                            99);
    }
    // Frame 0 is the start-up frame (context, first uploads, first runs): it counts in the
    // percentiles but belongs to no step, though a script's first steps are at 0 s.
    for (std::size_t i = std::max<std::size_t>(first, 1); i < std::min(first + window, frame_ms.size()); ++i) {
      if (s + 1 < step_frames.size() && i >= step_frames[s + 1].first) break;  // the next step's frames
      if (frame_ms[i] > limit && frame_ms[i] > before)
        report.slow_after_step.push_back({i, frame_ms[i], step_frames[s].second});
      else if (frame_ms[i] > limit)
        report.as_slow_before_step.push_back({i, frame_ms[i], step_frames[s].second});
      if (frame_ms[i] > 2 * report.p50) report.over_2x_p50_after_step.push_back({i, frame_ms[i], step_frames[s].second});
    }
  }
  return report;
}

std::string describe(const FrameTimeReport& r) {
  char text[320];
  std::snprintf(text, sizeof text,
                "gausslab: script frames=%zu p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f slow_switch_frames=%zu "
                "over_2x_p50_near_steps=%zu as_slow_before_step=%zu",
                r.frames, r.p50, r.p90, r.p99, r.max, r.slow_after_step.size(), r.over_2x_p50_after_step.size(),
                r.as_slow_before_step.size());
  std::string out = text;
  const auto list = [&](const std::vector<FrameTimeReport::Slow>& frames, const char* what) {
    for (const auto& slow : frames) {
      std::snprintf(text, sizeof text, "\ngausslab: %s %zu: %.3f ms (%.1fx p50) after '%s'", what, slow.frame, slow.ms,
                    r.p50 > 0 ? slow.ms / r.p50 : 0.0, slow.after.c_str());
      out += text;
    }
  };
  list(r.slow_after_step, "slow frame");
  list(r.over_2x_p50_after_step, "frame over 2x p50");
  list(r.as_slow_before_step, "frame as slow as before the step");
  return out;
}

}  // namespace gausslab
