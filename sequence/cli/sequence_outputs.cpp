#include "sequence_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gausslab {

namespace {

std::string number(double v) {
  if (!std::isfinite(v)) return "nan";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6f", v);
  return text;
}

double median_of(std::vector<float>& values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  return values[mid];
}

double percentile(std::vector<float> values, double fraction) {
  if (values.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(fraction * (values.size() - 1));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

unsigned char level(double v) { return static_cast<unsigned char>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

std::string shifts_csv(const std::vector<ShiftRow>& rows) {
  std::string csv = "frame,dx,dy\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    csv += std::to_string(i) + "," + number(rows[i].dx) + "," + number(rows[i].dy) + "\n";
  return csv;
}

std::string frames_csv(const std::vector<FrameRow>& rows) {
  std::string csv = "frame,name,verdict,segment,match,residual,residual_ratio,tail\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const FrameRow& r = rows[i];
    std::string name = r.name;  // quoted when it holds a comma or a quote (RFC 4180)
    if (name.find_first_of(",\"\n") != std::string::npos) {
      std::string quoted = "\"";
      for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      name = quoted + "\"";
    }
    csv += std::to_string(i) + "," + name + ",";
    if (!r.verdict) {
      csv += (r.problem.empty() ? std::string("not read") : r.problem) + ",,,,,\n";
      continue;
    }
    char numbers[160];
    std::snprintf(numbers, sizeof(numbers), "%d,%.3f,%.6g,%.4f,%.6f", r.shift.segment + 1, r.shift.match,
                  r.shift.residual, r.shift.residual_ratio, r.shift.tail);
    csv += std::string(to_string(*r.verdict)) + "," + numbers + "\n";
  }
  return csv;
}

std::string list_of(const std::vector<std::string>& items) {
  std::string list;
  for (std::size_t i = 0; i < items.size() && i < 5; ++i) list += (i ? ", " : "") + items[i];
  if (items.size() > 5) list += ", ... (" + std::to_string(items.size()) + " in all)";
  return list;
}

std::string true_shifts_csv(const SyntheticSequence& sky, int frames) {
  std::string csv = "frame,dx,dy\n";
  for (int t = 0; t < frames; ++t) {
    const ShiftXY d = sky.true_shift(t);
    csv += std::to_string(t) + "," + number(d.dx) + "," + number(d.dy) + "\n";
  }
  return csv;
}

std::string target_track_csv(const SyntheticSequence& sky, int frames) {
  std::string csv = "frame,x,y,peak,inside\n";
  for (int t = 0; t < frames; ++t) {
    const TargetPoint p = sky.target(t);
    char peak[32];
    std::snprintf(peak, sizeof(peak), "%.6g", p.peak);
    csv += std::to_string(t) + "," + number(p.x) + "," + number(p.y) + "," + peak + "," + (p.inside ? "1" : "0") + "\n";
  }
  return csv;
}

double robust_deviation(const ImageF32& image) {
  std::vector<float> values(image.pixels());
  const double median = median_of(values);
  for (float& v : values) v = static_cast<float>(std::fabs(v - median));
  return 1.4826 * median_of(values);
}

ImageRgba8 frame_preview(const ImageF32& frame) {
  const double lo = percentile(frame.pixels(), 0.01), hi = percentile(frame.pixels(), 0.995);
  const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
  ImageRgba8 out(frame.width(), frame.height());
  for (int y = 0; y < frame.height(); ++y)
    for (int x = 0; x < frame.width(); ++x) {
      const unsigned char v = level((frame.at(x, y) - lo) * scale);
      out.at(x, y) = Rgba8{v, v, v, 255};
    }
  return out;
}

ImageRgba8 whitened_preview(const ImageF32& whitened) {
  const double deviation = robust_deviation(whitened);
  const double scale = deviation > 0 ? 127.5 / (4.0 * deviation) : 0.0;
  ImageRgba8 out(whitened.width(), whitened.height());
  for (int y = 0; y < whitened.height(); ++y)
    for (int x = 0; x < whitened.width(); ++x) {
      const unsigned char v = level(127.5 + whitened.at(x, y) * scale);
      out.at(x, y) = Rgba8{v, v, v, 255};
    }
  return out;
}

}  // namespace gausslab
