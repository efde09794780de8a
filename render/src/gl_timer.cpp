#include "gausslab/render/gl_timer.hpp"

#include <algorithm>
#include <stdexcept>

#include "gausslab/core/statistics.hpp"
#include "gl_util.hpp"

namespace gausslab {

GlTimer::GlTimer(int ring_frames, int history) : ring_(std::max(ring_frames, 2)), history_(std::max(history, 1)) {}

GlTimer::~GlTimer() {
  for (Slot& slot : ring_)
    for (Query& query : slot.queries)
      if (query.id) glDeleteQueries(1, &query.id);
}

void GlTimer::begin_frame() {
  if (!enabled_) return;
  poll();
  current_ = (current_ + 1) % static_cast<int>(ring_.size());
  Slot& slot = ring_[current_];
  slot.pending = false;  // dropped if it never completed: never wait in the frame
  slot.used = 0;
}

void GlTimer::end_frame() {
  if (current_ < 0) return;
  if (open_) end();
  ring_[current_].pending = ring_[current_].used > 0;
}

void GlTimer::begin(const char* stage) {
  if (!enabled_) return;
  if (current_ < 0) throw std::logic_error("GlTimer::begin outside a frame");
  if (open_) end();  // stages cannot nest: close the previous one
  Slot& slot = ring_[current_];
  if (slot.used == static_cast<int>(slot.queries.size())) {
    Query fresh;
    glGenQueries(1, &fresh.id);
    slot.queries.push_back(fresh);
  }
  Query& query = slot.queries[slot.used++];
  query.name = stage;
  glBeginQuery(GL_TIME_ELAPSED, query.id);
  open_ = true;
}

void GlTimer::end() {
  if (!enabled_ || !open_) return;
  glEndQuery(GL_TIME_ELAPSED);
  open_ = false;
}

bool GlTimer::harvest(Slot& slot, bool wait) {
  std::vector<std::pair<std::string, double>> sample;
  for (int i = 0; i < slot.used; ++i) {
    const Query& query = slot.queries[i];
    if (!wait) {
      GLint available = 0;
      glGetQueryObjectiv(query.id, GL_QUERY_RESULT_AVAILABLE, &available);
      if (!available) return false;
    }
    GLuint64 nanoseconds = 0;
    glGetQueryObjectui64v(query.id, GL_QUERY_RESULT, &nanoseconds);  // blocks only when wait
    sample.emplace_back(query.name, static_cast<double>(nanoseconds) * 1e-6);
  }
  slot.pending = false;
  // Mesa's llvmpipe answers a query begun in the very first frame with the absolute clock (hours).
  // No stage of one frame takes a minute: such a frame is a driver's error and is left out.
  for (const auto& stage : sample)
    if (!(stage.second >= 0.0 && stage.second < 60'000.0)) return true;
  samples_.push_back(std::move(sample));
  while (static_cast<int>(samples_.size()) > history_) samples_.pop_front();
  ++completed_frames_;
  return true;
}

void GlTimer::poll() {
  const int n = static_cast<int>(ring_.size());
  for (int i = 1; i <= n; ++i) {  // oldest first, so samples stay in frame order
    Slot& slot = ring_[(current_ + i + n) % n];
    if (slot.pending && !harvest(slot, false)) break;
  }
}

void GlTimer::flush() {
  if (open_) end();
  const int n = static_cast<int>(ring_.size());
  for (int i = 1; i <= n; ++i) {
    Slot& slot = ring_[(current_ + i + n) % n];
    if (slot.pending) harvest(slot, true);
  }
}

std::vector<StageTiming> GlTimer::stages() const {
  // Every stage of the kept frames (an upload happens only in frames with a new result), in frame
  // order: a name missing so far goes after the stage it follows in the frame that has it.
  std::vector<std::string> names;
  for (const auto& sample : samples_) {
    std::size_t after = 0;
    for (const auto& stage : sample) {
      auto it = std::find(names.begin(), names.end(), stage.first);
      if (it == names.end()) it = names.insert(names.begin() + static_cast<std::ptrdiff_t>(after), stage.first);
      after = static_cast<std::size_t>(it - names.begin()) + 1;
    }
  }
  std::vector<StageTiming> result;
  for (const std::string& name : names) {
    std::vector<double> history;
    for (const auto& sample : samples_)
      for (const auto& stage : sample)
        if (stage.first == name) history.push_back(stage.second);
    result.push_back({name, history.back(), median(history)});
  }
  return result;
}

}  // namespace gausslab
