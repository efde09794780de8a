#include "gausslab/cuda/accuracy_promise.hpp"

#include <cstdio>

namespace gausslab {

std::string bound_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  std::string number = text;
  // "1e-05" -> "1e-5": the exponent without its leading zero.
  if (const std::size_t e = number.find("e-0"); e != std::string::npos) number.erase(e + 2, 1);
  return number;
}

namespace {

bool holds_sample_type(FormatSet formats, SampleType sample) {
  for (int c = 1; c <= 4; ++c)
    if (formats.contains(make_pixel_format(sample, c))) return true;
  return false;
}

}  // namespace

std::string accuracy_promise(std::string_view how, const AccuracyBound& bound, FormatSet formats,
                             std::string_view qualifier) {
  std::string parts;
  auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : " and ") + part; };
  if (holds_sample_type(formats, SampleType::F32) || holds_sample_type(formats, SampleType::F16))
    add("within " + bound_number(bound.max_relative_error) + " of the peak (float)");
  if (holds_sample_type(formats, SampleType::U8)) add(bound_number(bound.max_error_8bit) + " levels (8-bit)");
  if (holds_sample_type(formats, SampleType::U16)) add(bound_number(bound.max_error_16bit) + " levels (16-bit)");
  std::string text = std::string(how) + ": " + parts + " of the float64 reference";
  if (!qualifier.empty()) text += ", " + std::string(qualifier);
  return text;
}

}  // namespace gausslab
