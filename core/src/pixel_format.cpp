#include "gausslab/core/pixel_format.hpp"

#include <cctype>

namespace gausslab {

namespace {

constexpr const char* kFormatNames[kPixelFormatCount] = {
    "grey8",   "greya8",   "rgb8",   "rgba8",    //
    "grey16",  "greya16",  "rgb16",  "rgba16",   //
    "grey16f", "greya16f", "rgb16f", "rgba16f",  //
    "f32",     "greya32f", "rgb32f", "rgba32f",
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* to_string(PixelFormat format) {
  return is_valid(format) ? kFormatNames[static_cast<int>(format)] : "?";
}

std::optional<PixelFormat> pixel_format_from_string(std::string_view name) {
  std::string wanted = lower(name);
  if (wanted.rfind("gray", 0) == 0) wanted.replace(0, 4, "grey");
  if (wanted == "grey32f") return PixelFormat::F32;
  for (int i = 0; i < kPixelFormatCount; ++i)
    if (wanted == kFormatNames[i]) return static_cast<PixelFormat>(i);
  return std::nullopt;
}

std::string pixel_format_list() {
  std::string list;
  for (int i = 0; i < kPixelFormatCount; ++i) {
    if (i > 0) list += ", ";
    list += kFormatNames[i];
  }
  return list;
}

const char* to_string(SampleType sample) {
  switch (sample) {
    case SampleType::U8: return "u8";
    case SampleType::U16: return "u16";
    case SampleType::F16: return "f16";
    case SampleType::F32: return "f32";
    default: return "?";
  }
}

std::optional<SampleType> sample_type_from_string(std::string_view name) {
  const std::string wanted = lower(name);
  for (SampleType s : {SampleType::U8, SampleType::U16, SampleType::F16, SampleType::F32})
    if (wanted == to_string(s)) return s;
  return std::nullopt;
}

const char* channel_layout_name(int channels) {
  switch (channels) {
    case 1: return "grey";
    case 2: return "grey+alpha";
    case 3: return "RGB";
    case 4: return "RGBA";
    default: return "?";
  }
}

std::string describe(PixelFormat format) {
  if (!is_valid(format)) return "an unknown pixel format";
  static constexpr const char* kSampleWords[] = {"8-bit", "16-bit", "half", "float32"};
  return std::string(kSampleWords[static_cast<int>(sample_type(format))]) + " " +
         channel_layout_name(channel_count(format));
}

const char* to_string(IntegerRounding rounding) {
  switch (rounding) {
    case IntegerRounding::Nearest: return "nearest";
    case IntegerRounding::Floor: return "floor";
    case IntegerRounding::Ceil: return "ceil";
  }
  return "?";
}

std::optional<IntegerRounding> integer_rounding_from_string(std::string_view name) {
  const std::string wanted = lower(name);
  for (IntegerRounding r : {IntegerRounding::Nearest, IntegerRounding::Floor, IntegerRounding::Ceil})
    if (wanted == to_string(r)) return r;
  return std::nullopt;
}

}  // namespace gausslab
