#include "rice_stream_check.hpp"

#include <algorithm>

namespace gausslab::codec {

namespace {

// Bits most significant first; `overrun` once a bit beyond `length` bytes was asked for.
class BitWalk {
 public:
  BitWalk(const unsigned char* data, std::uint64_t length) : data_(data), length_(length) {}

  bool overrun() const { return overrun_; }

  // The next `count` bits (count <= 32) as a number.
  std::uint32_t take(int count) {
    std::uint32_t value = 0;
    for (int i = 0; i < count; ++i) value = (value << 1) | next_bit();
    return value;
  }

  // Zero bits up to and including the next one bit. A stream without one more one bit ends the walk.
  void skip_unary() {
    while (!overrun_ && next_bit() == 0) {}
  }

 private:
  std::uint32_t next_bit() {
    if (bits_left_ == 0) {
      if (at_ >= length_) {
        overrun_ = true;
        return 1;  // ends a unary run; the walk's answer is already no
      }
      current_ = data_[at_++];
      bits_left_ = 8;
    }
    --bits_left_;
    return (current_ >> bits_left_) & 1u;
  }

  const unsigned char* data_;
  std::uint64_t length_;
  std::uint64_t at_ = 0;
  unsigned current_ = 0;
  int bits_left_ = 0;
  bool overrun_ = false;
};

}  // namespace

bool rice_tile_is_complete(const unsigned char* data, std::uint64_t length, std::uint64_t pixels, int bytepix,
                           int block) {
  if (block < 1) return false;
  int fsbits = 5, fsmax = 25, bbits = 32;
  if (bytepix == 1) fsbits = 3, fsmax = 6, bbits = 8;
  else if (bytepix == 2) fsbits = 4, fsmax = 14, bbits = 16;
  else bytepix = 4;
  const std::uint64_t first_pixel = static_cast<std::uint64_t>(bytepix);
  // cfitsio reads the first byte of codes together with the first pixel, whatever follows.
  if (length < first_pixel + 1) return false;
  BitWalk walk(data + first_pixel, length - first_pixel);
  for (std::uint64_t done = 0; done < pixels && !walk.overrun();) {
    const std::uint64_t count = std::min<std::uint64_t>(static_cast<std::uint64_t>(block), pixels - done);
    const int fs = static_cast<int>(walk.take(fsbits)) - 1;
    if (fs == fsmax) {
      for (std::uint64_t i = 0; i < count && !walk.overrun(); ++i) walk.take(bbits);
    } else if (fs >= 0) {
      for (std::uint64_t i = 0; i < count && !walk.overrun(); ++i) {
        walk.skip_unary();
        walk.take(fs);
      }
    }  // fs < 0: every difference is 0 and no bit is read
    done += count;
  }
  return !walk.overrun();
}

}  // namespace gausslab::codec
