// The texture ring's order of maps, writes, unmaps and showings, without GL (the state logic needs
// no context until allocate()). A model follows what each texture holds, frame by frame, the way
// ResultPipeline's interop path drives the ring: the shown texture must hold every frame's own
// result, a texture must never be mapped while it is drawn (unless it is the only one), and with two
// textures or more only the first frame may need a map of its own (every later one was mapped ahead).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "gausslab/render/texture_ring.hpp"

namespace gausslab {
namespace {

using State = TextureRing::State;

struct RingModel {
  explicit RingModel(int count)
      : ring(count), content(static_cast<std::size_t>(count), -1), mapped_at(static_cast<std::size_t>(count), -1) {}

  // One frame as the interop path runs it; returns true when the frame had to map its own texture.
  bool frame(int number) {
    const int write = ring.write_index();
    const int shown_before = ring.shown_index();
    const bool cold = ring.state(write) != State::Mapped;
    // Mapped as many frames ahead as there are textures besides the one drawn (after the start).
    if (!cold && number >= ring.count()) {
      EXPECT_EQ(mapped_at[static_cast<std::size_t>(write)], number - (ring.count() - 1)) << "frame " << number;
    }
    if (cold) ring.mark_mapped(write);
    if (ring.count() > 1) {
      EXPECT_NE(write, shown_before) << "the texture being drawn was mapped";
    }
    content[static_cast<std::size_t>(write)] = number;  // the copy into the texture
    ring.mark_unmapped(write, true);
    EXPECT_EQ(ring.state(write), State::Written);
    ring.show();
    EXPECT_EQ(ring.shown_index(), write);
    EXPECT_EQ(ring.state(write), State::Shown);
    if (shown_before >= 0 && shown_before != write) {
      EXPECT_EQ(ring.state(shown_before), State::Free);
    }
    for (int ahead : ring.ahead_indices()) {
      EXPECT_NE(ahead, write) << "the texture just shown was offered for a later frame";
      ring.mark_mapped(ahead);
      mapped_at[static_cast<std::size_t>(ahead)] = number;
    }
    shown = content[static_cast<std::size_t>(ring.shown_index())];  // what GL draws this frame
    return cold;
  }

  TextureRing ring;
  std::vector<int> content;    // the frame whose result each texture holds
  std::vector<int> mapped_at;  // the frame in which each texture was last mapped ahead
  int shown = -1;              // the frame whose result is drawn
};

TEST(TextureRing, EveryFrameShowsItsOwnResult) {
  for (int count : {1, 2, 3}) {
    SCOPED_TRACE(count);
    RingModel model(count);
    EXPECT_FALSE(model.ring.allocated());
    EXPECT_EQ(model.ring.shown_index(), -1);
    for (int frame = 0; frame < 10; ++frame) {
      const bool cold = model.frame(frame);
      EXPECT_EQ(model.shown, frame);
      // With one texture there is nothing to map ahead: each frame maps its own. With more, only
      // the first frame does.
      EXPECT_EQ(cold, count == 1 || frame == 0) << "frame " << frame;
    }
  }
}

TEST(TextureRing, TexturesAreUsedInTurn) {
  TextureRing ring(3);
  EXPECT_EQ(ring.count(), 3);
  std::vector<int> written;
  for (int frame = 0; frame < 7; ++frame) {
    const int write = ring.write_index();
    written.push_back(write);
    if (ring.state(write) == State::Free) ring.mark_mapped(write);
    ring.mark_unmapped(write, true);
    ring.show();
    // The first frame maps both others ahead; every later one the texture it stopped drawing.
    const std::vector<int> ahead = ring.ahead_indices();
    EXPECT_EQ(ahead, frame == 0 ? (std::vector<int>{1, 2}) : (std::vector<int>{(write + 2) % 3}));
    for (int index : ahead) ring.mark_mapped(index);
    // The next two frames' textures are mapped; the shown one is GL's.
    EXPECT_EQ(ring.mapped().size(), 2u);
    EXPECT_EQ(ring.state(write), State::Shown);
  }
  EXPECT_EQ(written, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(TextureRing, AFailedWriteLeavesTheShownResultAndTheSameTexture) {
  TextureRing ring(2);
  ring.mark_mapped(0);
  ring.mark_unmapped(0, true);
  ring.show();
  ring.mark_mapped(1);           // ahead
  ring.mark_unmapped(1, false);  // the copy failed: handed back without a result
  EXPECT_EQ(ring.state(1), State::Free);
  EXPECT_THROW(ring.show(), std::logic_error);  // nothing to show
  EXPECT_EQ(ring.shown_index(), 0);             // the last result is still drawn
  EXPECT_EQ(ring.write_index(), 1);
  // The next frame maps the same texture itself and goes on as usual.
  ring.mark_mapped(1);
  ring.mark_unmapped(1, true);
  ring.show();
  EXPECT_EQ(ring.shown_index(), 1);
  EXPECT_EQ(ring.state(0), State::Free);
  EXPECT_EQ(ring.ahead_indices(), std::vector<int>{0});
}

TEST(TextureRing, RefusesOrdersThatWouldLoseOrTearAResult) {
  TextureRing ring(2);
  EXPECT_THROW(ring.mark_unmapped(0, true), std::logic_error);  // never mapped
  EXPECT_THROW(ring.mark_mapped(2), std::logic_error);          // no such texture
  EXPECT_THROW(ring.mark_mapped(-1), std::logic_error);
  ring.mark_mapped(0);
  EXPECT_THROW(ring.mark_mapped(0), std::logic_error);  // mapped twice
  EXPECT_THROW(ring.show(), std::logic_error);          // still mapped: GL must not draw it
  EXPECT_THROW(ring.release(), std::logic_error);       // textures given up while mapped
  ring.mark_unmapped(0, true);
  // Written: mapping it again before it is shown would overwrite a result nobody has seen.
  EXPECT_THROW(ring.mark_mapped(0), std::logic_error);
  ring.show();
  // Shown, with another texture in the ring: it is drawn until another is shown.
  EXPECT_THROW(ring.mark_mapped(0), std::logic_error);
  EXPECT_NO_THROW(ring.release());  // no GL textures were made: nothing to delete
  EXPECT_EQ(ring.write_index(), 0);
  EXPECT_EQ(ring.shown_index(), -1);
  EXPECT_THROW(TextureRing(0), std::invalid_argument);
}

TEST(TextureRing, OneTextureHasNothingToMapAheadAndIsWrittenAgainOnceShown) {
  TextureRing ring(1);
  ring.mark_mapped(0);
  ring.mark_unmapped(0, true);
  ring.show();
  EXPECT_TRUE(ring.ahead_indices().empty());
  EXPECT_EQ(ring.write_index(), 0);
  EXPECT_EQ(ring.state(0), State::Shown);
  ring.mark_mapped(0);  // the next frame: drawn no more until written again
  EXPECT_EQ(ring.shown_index(), -1);
  ring.mark_unmapped(0, true);
  ring.show();
  EXPECT_EQ(ring.shown_index(), 0);
}

TEST(TextureRing, ForgettingTheShownTextureFreesIt) {
  TextureRing ring(2);
  ring.mark_mapped(0);
  ring.mark_unmapped(0, true);
  ring.show();
  ring.mark_mapped(ring.ahead_indices().at(0));
  ring.forget_shown();  // a host result is drawn instead
  EXPECT_EQ(ring.shown_index(), -1);
  EXPECT_EQ(ring.state(0), State::Free);
  EXPECT_EQ(ring.state(1), State::Mapped);  // still the next frame's
  ring.forget_shown();  // nothing shown: nothing to do
  ring.mark_unmapped(1, true);
  ring.show();
  EXPECT_EQ(ring.shown_index(), 1);
  EXPECT_EQ(ring.ahead_indices(), std::vector<int>{0});
}

}  // namespace
}  // namespace gausslab
