#pragma once
// The command-line fuzz targets' input: the bytes split at NUL into at most 64 arguments, after
// the program name, so that libFuzzer explores argument lists as it explores files.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gausslab::fuzz {

class FuzzArgv {
 public:
  FuzzArgv(const std::uint8_t* data, std::size_t size, const char* program) {
    args_.emplace_back(program);
    std::string current;
    for (std::size_t i = 0; i < size && args_.size() < 65; ++i) {
      if (data[i] == 0) {
        args_.push_back(current);
        current.clear();
      } else {
        current.push_back(static_cast<char>(data[i]));
      }
    }
    if (!current.empty() && args_.size() < 65) args_.push_back(current);
    for (const std::string& arg : args_) pointers_.push_back(arg.c_str());
    pointers_.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(args_.size()); }
  const char* const* argv() const { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<const char*> pointers_;
};

}  // namespace gausslab::fuzz
