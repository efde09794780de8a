#pragma once
// The timing graph's data: each stage's time over the last few hundred frames it ran in.
#include <cstddef>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace gausslab {

class TimingHistory {
 public:
  explicit TimingHistory(std::size_t frames = 300) : frames_(frames) {}
  // Appends a value to the series `name` (made on first use, kept in first-use order).
  void add(const std::string& name, double ms);
  void clear() { series_.clear(); }
  // Forgets the series whose names start with `prefix` (a slot's stages when its setting changes).
  void clear_prefix(const std::string& prefix);
  const std::vector<std::pair<std::string, std::deque<float>>>& series() const { return series_; }

 private:
  std::size_t frames_;
  std::vector<std::pair<std::string, std::deque<float>>> series_;
};

}  // namespace gausslab
