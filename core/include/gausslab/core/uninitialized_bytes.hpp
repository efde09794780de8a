#pragma once
// Bytes that a writer fills completely before anyone reads them (a decoder's pixels, a file read
// into memory): a std::vector whose resize leaves the new bytes as they are instead of zeroing them
// first, which for the batch's 4096×2304 images was a pass over 28-38 MB before the writer
// overwrote every byte (docs/batch.md).
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gausslab {

// std::allocator, except that an element made without a value is default-initialised (for bytes:
// left as the memory was), not value-initialised (zeroed). Elements made with a value (assign,
// insert) get it as usual.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: as std::allocator converts

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using UninitializedBytes = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

}  // namespace gausslab
