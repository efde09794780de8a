#include "comparison/timing_history.hpp"

#include <algorithm>

namespace gausslab {

void TimingHistory::add(const std::string& name, double ms) {
  auto it = std::find_if(series_.begin(), series_.end(), [&](const auto& s) { return s.first == name; });
  if (it == series_.end()) {
    series_.emplace_back(name, std::deque<float>{});
    it = series_.end() - 1;
  }
  it->second.push_back(static_cast<float>(ms));
  while (it->second.size() > frames_) it->second.pop_front();
}

void TimingHistory::clear_prefix(const std::string& prefix) {
  series_.erase(std::remove_if(series_.begin(), series_.end(),
                               [&](const auto& s) { return s.first.compare(0, prefix.size(), prefix) == 0; }),
                series_.end());
}

}  // namespace gausslab
