#pragma once
// Shared memory for the CPU models of the kernels, checked. A model runs a kernel's per-thread code
// block by block, thread by thread, phase by phase between the kernel's __syncthreads(); one block's
// shared array remembers which slots were filled in the current fill phase, and throws ModelError
// for what would be a bug on the GPU:
//   - a slot filled twice in one phase (two threads writing it: a race),
//   - a slot read before it was filled in this phase (a missing load or __syncthreads),
//   - a read while the array is being filled, or a write while it is being read,
//   - any index outside the array (sized exactly as the launch sizes it).
// The per-thread code sees Access: a[i] or a.load(i) to read, a.store(i, v) to write, as the
// kernels' device-side views offer.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gausslab::test {

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
class CheckedShared {
 public:
  CheckedShared(std::size_t size, std::string name) : values_(size), filled_(size, false), name_(std::move(name)) {}

  // A fill phase begins (a new chunk, a new block): nothing filled yet, writes allowed, reads not.
  void begin_fill() {
    filled_.assign(values_.size(), false);
    reading_ = false;
  }
  // The __syncthreads that ends the fill: reads allowed, writes not.
  void begin_read() { reading_ = true; }

  std::size_t size() const { return values_.size(); }
  // Slots filled in the current phase.
  std::size_t filled() const {
    std::size_t count = 0;
    for (const bool slot : filled_) count += slot;
    return count;
  }

  struct Access {
    CheckedShared* shared;
    T operator[](int i) const { return shared->read(i); }
    T load(int i) const { return shared->read(i); }
    void store(int i, T value) const { shared->write(i, value); }
  };
  Access access() { return {this}; }

 private:
  void check_index(int i, const char* what) const {
    if (i < 0 || static_cast<std::size_t>(i) >= values_.size())
      throw ModelError(name_ + ": " + what + " of slot " + std::to_string(i) + " outside [0, " +
                       std::to_string(values_.size()) + ")");
  }
  T read(int i) const {
    check_index(i, "read");
    if (!reading_) throw ModelError(name_ + ": slot " + std::to_string(i) + " read while it is being filled");
    if (!filled_[static_cast<std::size_t>(i)])
      throw ModelError(name_ + ": slot " + std::to_string(i) + " read but not filled in this phase");
    return values_[static_cast<std::size_t>(i)];
  }
  void write(int i, T value) {
    check_index(i, "write");
    if (reading_) throw ModelError(name_ + ": slot " + std::to_string(i) + " written while others read");
    if (filled_[static_cast<std::size_t>(i)])
      throw ModelError(name_ + ": slot " + std::to_string(i) + " filled twice in one phase (a race on the GPU)");
    filled_[static_cast<std::size_t>(i)] = true;
    values_[static_cast<std::size_t>(i)] = value;
  }

  std::vector<T> values_;
  std::vector<bool> filled_;
  std::string name_;
  bool reading_ = false;
};

// Global memory of a model: every output written exactly once. `writes` counts the writes per output
// (row-major, rows of `row_length`); throws ModelError naming the first output that was not.
inline void check_written_once(const std::vector<int>& writes, int row_length, const std::string& what) {
  for (std::size_t k = 0; k < writes.size(); ++k)
    if (writes[k] != 1)
      throw ModelError(what + ": output (" + std::to_string(k % static_cast<std::size_t>(row_length)) + ", " +
                       std::to_string(k / static_cast<std::size_t>(row_length)) + ") written " +
                       std::to_string(writes[k]) + " times");
}

}  // namespace gausslab::test
