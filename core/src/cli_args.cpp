#include "gausslab/core/cli_args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gausslab {

ArgReader::ArgReader(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) args_.emplace_back(argv[i]);
}

bool ArgReader::is_option(std::string_view arg) { return arg.size() > 1 && arg[0] == '-'; }

bool ArgReader::next(std::string& arg) {
  if (has_pending_value_)
    throw UsageError(arg + " does not take a value ('" + pending_value_ + "' given)");
  if (index_ >= args_.size()) return false;
  arg = args_[index_++];
  has_pending_value_ = false;
  if (arg.rfind("--", 0) == 0) {
    const std::size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      pending_value_ = arg.substr(eq + 1);
      has_pending_value_ = true;
      arg.resize(eq);
    }
  }
  return true;
}

std::string ArgReader::value(std::string_view flag) {
  if (has_pending_value_) {
    has_pending_value_ = false;
    return pending_value_;
  }
  if (index_ >= args_.size()) throw UsageError(std::string(flag) + " needs a value");
  return args_[index_++];
}

double parse_double(std::string_view flag, std::string_view text) {
  const std::string s(text);
  // Decimal notation only: strtod would also take "0x10" (16), "infinity" and "nan(...)".
  if (s.find_first_not_of("0123456789+-.eE") != std::string::npos)
    throw UsageError(std::string(flag) + ": '" + s + "' is not a number");
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(value))
    throw UsageError(std::string(flag) + ": '" + s + "' is not a number");
  return value;
}

int parse_int(std::string_view flag, std::string_view text, int min, int max) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    throw UsageError(std::string(flag) + ": '" + s + "' is not a whole number");
  if (value < min || value > max)
    throw UsageError(std::string(flag) + ": " + s + " is outside [" + std::to_string(min) + ", " +
                     std::to_string(max) + "]");
  return static_cast<int>(value);
}

BorderMode parse_border(std::string_view flag, std::string_view text) {
  if (auto mode = border_mode_from_string(text)) return *mode;
  throw UsageError(std::string(flag) + ": unknown border mode '" + std::string(text) + "'; use one of " +
                   border_mode_list());
}

PixelFormat parse_pixel_format(std::string_view flag, std::string_view text) {
  if (auto format = pixel_format_from_string(text)) return *format;
  throw UsageError(std::string(flag) + ": unknown pixel format '" + std::string(text) + "'; use one of " + pixel_format_list());
}

std::pair<int, int> parse_size(std::string_view flag, std::string_view text) {
  std::size_t split = text.find('x');
  std::size_t skip = 1;
  if (split == std::string_view::npos) {
    split = text.find("×");
    skip = std::string_view("×").size();
  }
  if (split == std::string_view::npos)
    throw UsageError(std::string(flag) + ": '" + std::string(text) + "' is not a size; write it as WxH, e.g. 3840x2160");
  const int width = parse_int(flag, text.substr(0, split), 1, 65536);
  const int height = parse_int(flag, text.substr(split + skip), 1, 65536);
  return {width, height};
}

}  // namespace gausslab
