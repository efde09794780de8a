#pragma once
// Shared command-line parsing for gausslab, gausslab-filter and gausslab-bench: every bad value
// becomes a UsageError whose message names the flag, the value and what is allowed.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Walks argv[1..]: `--flag value`, `--flag=value` and positional arguments.
class ArgReader {
 public:
  ArgReader(int argc, const char* const* argv);

  // Next argument, or false at the end. For "--flag=value" returns "--flag" and keeps the value.
  bool next(std::string& arg);
  // The value of the flag just read (from "=value" or the following argument); UsageError if none.
  std::string value(std::string_view flag);
  // True when the argument just read looks like an option (starts with '-' and is not "-").
  static bool is_option(std::string_view arg);

 private:
  std::vector<std::string> args_;
  std::size_t index_ = 0;
  std::string pending_value_;
  bool has_pending_value_ = false;
};

// "--sigma: 'abc' is not a number" etc.; the number must be finite.
double parse_double(std::string_view flag, std::string_view text);
// An integer in [min, max].
int parse_int(std::string_view flag, std::string_view text, int min, int max);
BorderMode parse_border(std::string_view flag, std::string_view text);
PixelFormat parse_pixel_format(std::string_view flag, std::string_view text);
// "WxH" (or "W×H"), each side 1..65536.
std::pair<int, int> parse_size(std::string_view flag, std::string_view text);
// A comma-separated list, each item parsed by `parse_one`.
template <class T, class Parse>
std::vector<T> parse_list(std::string_view flag, std::string_view text, Parse parse_one) {
  std::vector<T> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) throw UsageError(std::string(flag) + ": empty item in '" + std::string(text) + "'");
    items.push_back(parse_one(flag, item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

}  // namespace gausslab
