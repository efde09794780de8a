#pragma once
// The bytes the ranks send each other: numbers as they are in memory (every rank runs the same
// build), strings and vectors with their length first. A message lists its fields once, as a call
// `io(a, b, c)` that works with either side: WireWriter takes the values, WireReader fills them.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gausslab {

class WireWriter {
 public:
  template <class... T>
  void operator()(const T&... values) {
    (put(values), ...);
  }
  std::string take() { return std::move(bytes_); }

 private:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_ += text;
  }
  template <class T>
  void put(const std::vector<T>& items) {
    put(static_cast<std::uint64_t>(items.size()));
    for (const T& item : items) put(item);
  }

  std::string bytes_;
};

class WireReader {
 public:
  explicit WireReader(const std::string& bytes) : bytes_(bytes) {}
  // Throws std::runtime_error when the message ends before the fields do.
  template <class... T>
  void operator()(T&... values) {
    (get(values), ...);
  }

 private:
  template <class T>
  void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof value);
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
  }
  void get(std::string& text) {
    std::uint64_t size = 0;
    get(size);
    need(size);
    text.assign(bytes_.data() + at_, size);
    at_ += size;
  }
  template <class T>
  void get(std::vector<T>& items) {
    std::uint64_t count = 0;
    get(count);
    need(count);  // every item takes at least a byte: a cut message never asks for a huge vector
    items.resize(count);
    for (T& item : items) get(item);
  }
  void need(std::uint64_t size) const {
    if (size > bytes_.size() - at_) throw std::runtime_error("a message between ranks is cut short");
  }

  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace gausslab
