// A list of names read in chunks, each limit checked as the bytes arrive, so that no list is ever
// held whole before it is refused.
#include "gausslab/batch/inputs_list.hpp"

#include <array>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

class NameCollector {
 public:
  NameCollector(const std::string& source, const ListFormat& format, const ListLimits& limits)
      : source_(source), format_(format), limits_(limits) {}

  void take(const char* data, std::size_t size) {
    total_bytes_ += size;
    if (total_bytes_ > limits_.max_list_bytes)
      throw UsageError(source_ + " is larger than " + mib(limits_.max_list_bytes) +
                       ", the limit for a list; split it into several runs");
    for (std::size_t i = 0; i < size; ++i) {
      const char c = data[i];
      if (c == separator()) {
        finish_name();
        continue;
      }
      if (c == '\0')
        throw UsageError(source_ + " holds a NUL byte on line " + std::to_string(number_) +
                         ": a list is text, one name a line, and this looks like binary data (a list of "
                         "NUL-terminated names, as find -print0 writes them, needs --list-null)");
      // One byte of slack for the '\r' of a "\r\n" line ending.
      if (current_.size() >= limits_.max_name_bytes + (format_.null_separated ? 0 : 1)) too_long();
      current_.push_back(c);
    }
  }

  std::vector<std::string> finish() {
    if (!current_.empty()) finish_name();  // the last name need not end with a separator
    return std::move(names_);
  }

 private:
  char separator() const { return format_.null_separated ? '\0' : '\n'; }
  std::string place() const { return (format_.null_separated ? "name " : "line ") + std::to_string(number_); }

  [[noreturn]] void too_long() const {
    throw UsageError(source_ + " " + place() + " is longer than " + std::to_string(limits_.max_name_bytes) +
                     " bytes, the longest path Linux can open: a list holds one name a " +
                     (format_.null_separated ? "NUL-terminated entry" : "line") + "; is it a list?");
  }

  void finish_name() {
    if (!format_.null_separated && !current_.empty() && current_.back() == '\r') current_.pop_back();
    if (current_.size() > limits_.max_name_bytes) too_long();
    const bool comment = format_.comments && !current_.empty() && current_.front() == '#';
    if (!current_.empty() && !comment) {
      if (names_.size() == limits_.max_names)
        throw UsageError(source_ + " names more than " + std::to_string(limits_.max_names) +
                         " files, the limit for one run; split it into several runs");
      names_.push_back(std::move(current_));
    }
    current_.clear();
    ++number_;
  }

  const std::string& source_;
  const ListFormat& format_;
  const ListLimits& limits_;
  std::vector<std::string> names_;
  std::string current_;
  std::size_t number_ = 1;  // the line (or name) being read, from 1
  std::size_t total_bytes_ = 0;
};

}  // namespace

std::vector<std::string> read_name_list(const ReadBytes& read, const std::string& source, const ListFormat& format,
                                        const ListLimits& limits) {
  NameCollector names(source, format, limits);
  std::array<char, kChunkBytes> chunk;
  while (const std::size_t got = read(chunk.data(), chunk.size())) names.take(chunk.data(), got);
  return names.finish();
}

}  // namespace gausslab
