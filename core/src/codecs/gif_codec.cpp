// GIF through giflib (Debian's giflib 5.2), record by record: only the first frame is decoded, and the
// note says when more follow (giflib's DGifSlurp would read every frame into memory first).
//
// The picture is the logical screen (grown to hold the frame if the frame lies partly outside
// it); pixels the frame does not cover and pixels of the transparent colour are transparent
// black. Checked before allocation: the screen and frame size against the limits. A colour index
// beyond the colour map and a frame whose data ends before its last row are errors.
#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "GIF";

// After the first frame's pixels: whether an image record comes before the end. Extensions are
// skipped; a file damaged after its first frame counts as holding no more (that frame is whole).
bool another_frame_follows(GifFileType* gif) {
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif, &record) == GIF_ERROR) return false;
    if (record == IMAGE_DESC_RECORD_TYPE) return true;
    if (record == TERMINATE_RECORD_TYPE) return false;
    if (record != EXTENSION_RECORD_TYPE) continue;
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return false;
    while (block)
      if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return false;
  }
}
constexpr std::uint64_t kMaxPixelsPerByte = 4 * 4096;
constexpr std::uint64_t kLargestEmptyScreen = 1u << 24;

struct MemoryFile {
  const DecodeInput* in;
  std::size_t position;
};

int read_proc(GifFileType* gif, GifByteType* buffer, int size) {
  auto* file = static_cast<MemoryFile*>(gif->UserData);
  if (size <= 0) return 0;
  const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(size), file->in->size - file->position);
  std::memcpy(buffer, file->in->data + file->position, count);
  file->position += count;
  return static_cast<int>(count);
}

struct Handle {
  GifFileType* gif = nullptr;
  ~Handle() {
    int error = 0;
    if (gif) DGifCloseFile(gif, &error);
  }
};

std::string gif_error(int code) {
  const char* text = GifErrorString(code);
  return text ? text : "unknown giflib error " + std::to_string(code);
}

}  // namespace

LoadedImage decode_gif(const DecodeInput& in) {
  MemoryFile file{&in, 0};
  Handle h;
  int error = 0;
  h.gif = DGifOpen(&file, read_proc, &error);
  if (!h.gif) fail(in, kFormat, gif_error(error));
  GifFileType* gif = h.gif;
  auto giflib_failed = [&]() { fail(in, kFormat, gif_error(gif->Error) + " (the file is damaged or truncated)"); };
  check_size(in, kFormat, static_cast<std::uint64_t>(std::max(gif->SWidth, 1)),
             static_cast<std::uint64_t>(std::max(gif->SHeight, 1)), PixelFormat::Rgba8);

  int transparent = NO_TRANSPARENT_COLOR;
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif, &record) == GIF_ERROR) giflib_failed();
    if (record == TERMINATE_RECORD_TYPE) fail(in, kFormat, "the file holds no image");
    if (record == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) giflib_failed();
      GraphicsControlBlock control;
      if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4 &&
          DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK)
        transparent = control.TransparentColor;
      while (block)
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) giflib_failed();
      continue;
    }
    if (record != IMAGE_DESC_RECORD_TYPE) continue;

    if (DGifGetImageDesc(gif) == GIF_ERROR) giflib_failed();
    const GifImageDesc& frame = gif->Image;
    if (frame.Left < 0 || frame.Top < 0 || frame.Width <= 0 || frame.Height <= 0)
      fail(in, kFormat, "the first frame has no pixels");
    const ColorMapObject* map = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
    if (!map || map->ColorCount <= 0) fail(in, kFormat, "the first frame has no colour map");
    const std::uint64_t width = std::max<std::uint64_t>(static_cast<std::uint64_t>(gif->SWidth),
                                                        static_cast<std::uint64_t>(frame.Left) + frame.Width);
    const std::uint64_t height = std::max<std::uint64_t>(static_cast<std::uint64_t>(gif->SHeight),
                                                         static_cast<std::uint64_t>(frame.Top) + frame.Height);
    // LZW codes are at least 3 bits wide and stand for at most 4096 pixels each, so a byte of data
    // describes fewer than 4 × 4096 pixels (the sub-block lengths only lower that): a frame larger than
    // the rest of the file can describe is refused before allocation, and so is a logical screen
    // larger than both that and 16 Mpixels (the pixels outside the frame would come from nothing).
    const std::uint64_t data_bytes = in.size - std::min(in.size, file.position);
    const std::uint64_t describable = data_bytes * kMaxPixelsPerByte;
    const std::uint64_t frame_pixels = static_cast<std::uint64_t>(frame.Width) * static_cast<std::uint64_t>(frame.Height);
    if (frame_pixels > describable)
      fail_too_short(in, kFormat, static_cast<std::uint64_t>(frame.Width), static_cast<std::uint64_t>(frame.Height),
                     (frame_pixels + kMaxPixelsPerByte - 1) / kMaxPixelsPerByte, data_bytes);
    if (width * height > std::max<std::uint64_t>(describable, kLargestEmptyScreen))
      fail(in, kFormat,
           "the logical screen is " + std::to_string(width) + "×" + std::to_string(height) + " pixels but its first frame only " +
               std::to_string(frame.Width) + "×" + std::to_string(frame.Height) + ", and the " +
               std::to_string(data_bytes) + " bytes after it cannot describe more (the header is damaged)");
    LoadedImage loaded;
    loaded.format = kFormat;
    loaded.image = allocate_image(in, kFormat, width, height, PixelFormat::Rgba8, static_cast<std::uint64_t>(frame.Width));
    std::vector<GifPixelType> line(static_cast<std::size_t>(frame.Width));
    bool any_transparent = false;
    auto read_row = [&](int row) {
      if (DGifGetLine(gif, line.data(), frame.Width) == GIF_ERROR) giflib_failed();
      Rgba8* dst = loaded.image.row<Rgba8>(frame.Top + row) + frame.Left;
      for (int x = 0; x < frame.Width; ++x) {
        const int index = line[static_cast<std::size_t>(x)];
        if (index == transparent) {
          dst[x] = {0, 0, 0, 0};
          any_transparent = true;
          continue;
        }
        if (index >= map->ColorCount)
          fail(in, kFormat,
               "pixel (" + std::to_string(frame.Left + x) + ", " + std::to_string(frame.Top + row) +
                   ") uses colour " + std::to_string(index) + " but the colour map has " +
                   std::to_string(map->ColorCount) + " entries");
        const GifColorType& c = map->Colors[index];
        dst[x] = {c.Red, c.Green, c.Blue, 255};
      }
    };
    if (frame.Interlace) {  // rows 0, 8, 16...; 4, 12...; 2, 6...; 1, 3...
      const int start[] = {0, 4, 2, 1}, step[] = {8, 8, 4, 2};
      for (int pass = 0; pass < 4; ++pass)
        for (int row = start[pass]; row < frame.Height; row += step[pass]) read_row(row);
    } else {
      for (int row = 0; row < frame.Height; ++row) read_row(row);
    }
    const bool covers = frame.Left == 0 && frame.Top == 0 && static_cast<std::uint64_t>(frame.Width) == width &&
                        static_cast<std::uint64_t>(frame.Height) == height;
    loaded.source_type = "palette";
    loaded.note = "palette colours expanded to 8-bit RGB";
    finish_rgba8(in, loaded, any_transparent || !covers ? 4 : 3);
    if (another_frame_follows(gif))
      add_note(loaded.note,
               "the first frame only (an animated GIF: the later frames are not read; for every frame, split it "
               "first, e.g. ffmpeg -i in.gif frame%04d.png)");
    return loaded;
  }
}

}  // namespace gausslab::codec
