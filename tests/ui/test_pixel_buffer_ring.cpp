// The pixel buffer ring's order of maps, writes and uploads, without GL (the state logic needs no
// context until allocate()). A model follows what each buffer holds, frame by frame, the way
// ResultPipeline's interop path drives the ring: the texture must show every frame's own result,
// a buffer must never be mapped while its result waits for its upload, and with two buffers or more
// only the first frame may need a map of its own (every later one was mapped ahead).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "gausslab/render/pixel_buffer_ring.hpp"

namespace gausslab {
namespace {

using State = PixelBufferRing::State;

struct RingModel {
  explicit RingModel(int count) : ring(count), content(static_cast<std::size_t>(count), -1) {}

  // One frame as the interop path runs it; returns true when the frame had to map its own buffer.
  bool frame(int number) {
    const int write = ring.write_index();
    const bool cold = ring.state(write) != State::Mapped;
    if (cold) ring.mark_mapped(write);
    content[static_cast<std::size_t>(write)] = number;  // the method writes
    ring.mark_unmapped(write, true);
    EXPECT_EQ(ring.state(write), State::Written);
    const int ahead = ring.ahead_index();
    if (ahead >= 0) {
      EXPECT_NE(ahead, write) << "the buffer waiting for its upload was offered for the next frame";
      ring.mark_mapped(ahead);
    }
    EXPECT_EQ(ring.write_index(), write) << "mapping ahead moved the ring before the upload";
    texture = content[static_cast<std::size_t>(ring.write_index())];  // the upload copies the write buffer
    ring.mark_uploaded();
    EXPECT_EQ(ring.state(write), State::Free);
    return cold;
  }

  PixelBufferRing ring;
  std::vector<int> content;  // the frame whose result each buffer holds
  int texture = -1;          // the frame whose result the texture shows
};

TEST(PixelBufferRing, EveryFrameShowsItsOwnResult) {
  for (int count : {1, 2, 3}) {
    SCOPED_TRACE(count);
    RingModel model(count);
    EXPECT_FALSE(model.ring.allocated());
    for (int frame = 0; frame < 10; ++frame) {
      const bool cold = model.frame(frame);
      EXPECT_EQ(model.texture, frame);
      // With one buffer there is nothing to map ahead: each frame maps its own. With more, only
      // the first frame does.
      EXPECT_EQ(cold, count == 1 || frame == 0) << "frame " << frame;
    }
  }
}

TEST(PixelBufferRing, BuffersAreUsedInTurn) {
  PixelBufferRing ring(3);
  EXPECT_EQ(ring.count(), 3);
  std::vector<int> written;
  for (int frame = 0; frame < 7; ++frame) {
    const int write = ring.write_index();
    written.push_back(write);
    if (ring.state(write) == State::Free) ring.mark_mapped(write);
    ring.mark_unmapped(write, true);
    const int ahead = ring.ahead_index();
    EXPECT_EQ(ahead, (write + 1) % 3);
    ring.mark_mapped(ahead);
    // Only the next frame's buffer is mapped; the other one is Free for GL.
    EXPECT_EQ(ring.mapped(), std::vector<int>{ahead});
    ring.mark_uploaded();
  }
  EXPECT_EQ(written, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(PixelBufferRing, AFailedWriteLeavesNoResultAndTheSameBuffer) {
  PixelBufferRing ring(2);
  ring.mark_mapped(0);
  ring.mark_unmapped(0, false);  // the method threw: unmapped without a result
  EXPECT_EQ(ring.state(0), State::Free);
  EXPECT_THROW(ring.mark_uploaded(), std::logic_error);  // nothing to upload
  EXPECT_EQ(ring.write_index(), 0);
  // The next frame maps the same buffer itself and goes on as usual.
  ring.mark_mapped(0);
  ring.mark_unmapped(0, true);
  EXPECT_EQ(ring.ahead_index(), 1);
  ring.mark_uploaded();
  EXPECT_EQ(ring.write_index(), 1);
}

TEST(PixelBufferRing, RefusesOrdersThatWouldLoseOrTearAResult) {
  PixelBufferRing ring(2);
  EXPECT_THROW(ring.mark_unmapped(0, true), std::logic_error);  // never mapped
  EXPECT_THROW(ring.mark_mapped(2), std::logic_error);          // no such buffer
  EXPECT_THROW(ring.mark_mapped(-1), std::logic_error);
  ring.mark_mapped(0);
  EXPECT_THROW(ring.mark_mapped(0), std::logic_error);  // mapped twice
  EXPECT_THROW(ring.mark_uploaded(), std::logic_error);  // still mapped: GL must not read it
  EXPECT_THROW(ring.release(), std::logic_error);       // buffers given up while mapped
  ring.mark_unmapped(0, true);
  // Written: mapping it again before its upload would overwrite a result nobody has seen.
  EXPECT_THROW(ring.mark_mapped(0), std::logic_error);
  ring.mark_uploaded();
  EXPECT_NO_THROW(ring.release());  // no GL buffers were made: nothing to delete
  EXPECT_EQ(ring.write_index(), 0);
  EXPECT_THROW(PixelBufferRing(0), std::invalid_argument);
}

TEST(PixelBufferRing, RowsArePaddedWhenThePitchIsAMultipleOf32Bytes) {
  // Measured slow on the H100: pitches that are multiples of 64 bytes. Padded: every multiple of 32.
  EXPECT_EQ(pixel_buffer_row_pixels(3840), 3841);
  EXPECT_EQ(pixel_buffer_row_pixels(4096), 4097);
  EXPECT_EQ(pixel_buffer_row_pixels(512), 513);
  EXPECT_EQ(pixel_buffer_row_pixels(1920), 1921);
  EXPECT_EQ(pixel_buffer_row_pixels(3848), 3849);  // 15392 bytes: a multiple of 32, not of 64
  EXPECT_EQ(pixel_buffer_row_pixels(8), 9);
  for (int width : {1, 3, 7, 17, 333, 3837, 3844, 1366})
    EXPECT_EQ(pixel_buffer_row_pixels(width), width) << width;
  for (int width = 1; width <= 5000; ++width) {
    const int row = pixel_buffer_row_pixels(width);
    ASSERT_TRUE(row == width || row == width + 1);
    ASSERT_NE(row * 4 % 32, 0) << width;
  }
}

TEST(PixelBufferRing, OneBufferHasNothingToMapAhead) {
  PixelBufferRing ring(1);
  ring.mark_mapped(0);
  ring.mark_unmapped(0, true);
  EXPECT_EQ(ring.ahead_index(), -1);
  ring.mark_uploaded();
  EXPECT_EQ(ring.write_index(), 0);
  EXPECT_EQ(ring.state(0), State::Free);
}

}  // namespace
}  // namespace gausslab
