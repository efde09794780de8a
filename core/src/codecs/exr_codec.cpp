// OpenEXR through Debian's OpenEXR 3.1 (the reference library; fuzzed upstream by OSS-Fuzz).
//
// Read: the first part of the file, scanline or tiled (its full-resolution level), any
// compression; the data window is the picture (a display window that differs is noted). The
// channels must be Y, Y+A, R+G+B or R+G+B+A (any order in the file; other sets, such as layers
// "diffuse.R" or luminance/chroma "RY, BY", are refused naming them), unsampled (x and y sampling 1).
// All HALF: f16; any FLOAT: f32 (halves widen exactly); UINT channels become f32 with a note.
// Deep files are refused. An incomplete file (a chunk missing or cut) is an error.
//
// Bounded before OpenEXR allocates anything: the first header is walked here (exr_header), its
// data window checked against the limits, the chunk offset table against the file's size, and the
// bytes after the table against the raster at the compression's best ratio; OpenEXR's own image
// size checks (Header::setMaxImageSize) are set to the largest limits gausslab allows.
//
// Written: scanline, ZIP (16 lines a chunk) or uncompressed, HALF (f16) or FLOAT (f32) channels
// Y, YA, RGB or RGBA, data and display window 0,0 - w-1,h-1.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <ImfVersion.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "codecs.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "OpenEXR";

class MemoryInput : public Imf::IStream {
 public:
  explicit MemoryInput(const DecodeInput& in) : Imf::IStream(in.name.c_str()), in_(in) {}
  bool read(char c[], int n) override {
    if (n < 0 || static_cast<std::uint64_t>(n) > in_.size - std::min<std::uint64_t>(position_, in_.size))
      throw Iex::InputExc("the file is truncated (it ends inside a header or a chunk)");
    std::memcpy(c, in_.data + position_, static_cast<std::size_t>(n));
    position_ += static_cast<std::uint64_t>(n);
    return position_ < in_.size;
  }
  std::uint64_t tellg() override { return position_; }
  void seekg(std::uint64_t position) override { position_ = position; }

 private:
  const DecodeInput& in_;
  std::uint64_t position_ = 0;
};

class MemoryOutput : public Imf::OStream {
 public:
  MemoryOutput() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    const std::uint64_t end = position_ + static_cast<std::uint64_t>(n);
    if (end > bytes_.size()) bytes_.resize(end);
    std::memcpy(bytes_.data() + position_, c, static_cast<std::size_t>(n));
    position_ = end;
  }
  std::uint64_t tellp() override { return position_; }
  void seekp(std::uint64_t position) override { position_ = position; }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  std::vector<char> bytes_;
  std::uint64_t position_ = 0;
};

// What the first header says, read here before OpenEXR sees the file.
struct ExrHeader {
  bool tiled = false, deep = false, multipart = false;
  bool have_window = false, have_channels = false;
  std::int64_t x_min = 0, y_min = 0, x_max = -1, y_max = -1;
  int compression = 0;
  std::uint32_t tile_w = 0, tile_h = 0;
  std::uint64_t bytes_per_pixel = 0;  // every channel's samples
  std::size_t end = 0;                // where the header ends (single part: the offset table starts)
};

std::int32_t le32(const unsigned char* p) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
                                   (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24));
}

// The size of each attribute type OpenEXR 3.1 reads by its type rather than by its size field.
std::size_t fixed_size(const std::string& type) {
  static const std::pair<const char*, std::size_t> kSizes[] = {
      {"box2i", 16}, {"box2f", 16}, {"chromaticities", 32}, {"compression", 1}, {"double", 8}, {"envmap", 1},
      {"float", 4}, {"int", 4}, {"keycode", 28}, {"lineOrder", 1}, {"m33f", 36}, {"m33d", 72}, {"m44f", 64},
      {"m44d", 128}, {"rational", 8}, {"tiledesc", 9}, {"timecode", 8}, {"v2i", 8}, {"v2f", 8}, {"v2d", 16},
      {"v3i", 12}, {"v3f", 12}, {"v3d", 24}, {"deepImageState", 1}};
  for (const auto& [name, bytes] : kSizes)
    if (type == name) return bytes;
  return 0;
}

// OpenEXR reads most attributes by their type or their contents rather than by their size, and
// allocates what the contents say: it then parses what follows from another place than the size
// says (a short channel list, a v2f of size 0 were followed by "attributes" of 1.6-1.8 GB that it
// allocated), or allocates a preview of w × h pixels, a string vector's strings. Each must agree
// with its size, or the file is refused here.
void check_attribute(const DecodeInput& in, const std::string& name, const std::string& type,
                     const unsigned char* value, std::size_t size) {
  auto damaged = [&] {
    fail(in, kFormat, "attribute '" + name + "' (" + type + ") is damaged: its contents do not match its size");
  };
  if (const std::size_t bytes = fixed_size(type); bytes != 0) {
    if (size != bytes) damaged();
  } else if (type == "floatvector") {
    if (size % 4 != 0) damaged();
  } else if (type == "idmanifest") {
    if (size < 8) damaged();
  } else if (type == "chlist") {
    std::size_t c = 0;
    for (;;) {
      if (c >= size) damaged();
      if (value[c] == 0) break;
      while (c < size && value[c] != 0) ++c;  // the channel's name
      c += 17;                                 // its \0, type, pLinear, reserved, x and y sampling
    }
    if (c + 1 != size) damaged();
  } else if (type == "preview") {
    if (size < 8) damaged();
    const std::uint64_t w = static_cast<std::uint32_t>(le32(value)), h = static_cast<std::uint32_t>(le32(value + 4));
    if (8 + 4 * w * h != size) damaged();
  } else if (type == "stringvector") {
    for (std::size_t c = 0; c < size;) {
      if (size - c < 4) damaged();
      const std::int32_t n = le32(value + c);
      if (n < 0 || static_cast<std::size_t>(n) > size - c - 4) damaged();
      c += 4 + static_cast<std::size_t>(n);
    }
  }
}

ExrHeader walk_header(const DecodeInput& in) {
  ExrHeader h;
  if (in.size < 8) fail(in, kFormat, "the file is truncated (it ends inside the header)");
  const std::uint32_t flags = static_cast<std::uint32_t>(le32(in.data + 4));
  if ((flags & 0xff) != 2) fail(in, kFormat, "OpenEXR version " + std::to_string(flags & 0xff) + " is unknown (gausslab reads 2)");
  h.tiled = flags & 0x200;
  h.deep = flags & 0x800;
  h.multipart = flags & 0x1000;
  std::size_t at = 8;
  auto text = [&](const char* what) {
    const std::size_t start = at;
    while (at < in.size && in.data[at] != 0 && at - start < 256) ++at;
    if (at >= in.size || in.data[at] != 0)
      fail(in, kFormat, std::string("the header is truncated or damaged (in an attribute's ") + what + ")");
    return std::string(reinterpret_cast<const char*>(in.data) + start, at++ - start);
  };
  int parts = 0;  // multi-part: headers follow each other until an empty one
  for (int attributes = 0;; ++attributes) {
    if (attributes > 100000) fail(in, kFormat, "the header has no end");
    const std::string name = text("name");
    if (name.empty()) {
      if (parts == 0) h.end = at;
      ++parts;
      if (!h.multipart || (at < in.size && in.data[at] == 0)) break;  // the empty header ends the list
      continue;
    }
    const std::string type = text("type");
    if (at + 4 > in.size) fail(in, kFormat, "the header is truncated (in attribute '" + name + "')");
    const std::int32_t size = le32(in.data + at);
    at += 4;
    if (size < 0 || static_cast<std::uint64_t>(size) > in.size - at)
      fail(in, kFormat, "attribute '" + name + "' claims " + std::to_string(size) + " bytes, beyond the end of the file");
    const unsigned char* value = in.data + at;
    check_attribute(in, name, type, value, static_cast<std::size_t>(size));
    if (parts > 0) {  // a later part's header: its attributes checked, its values not used
      at += static_cast<std::size_t>(size);
      continue;
    }
    if (name == "dataWindow" && type == "box2i" && size == 16) {
      h.x_min = le32(value), h.y_min = le32(value + 4), h.x_max = le32(value + 8), h.y_max = le32(value + 12);
      h.have_window = true;
    } else if (name == "compression" && type == "compression" && size == 1) {
      h.compression = value[0];
    } else if (name == "tiles" && type == "tiledesc" && size == 9) {
      h.tile_w = static_cast<std::uint32_t>(le32(value)), h.tile_h = static_cast<std::uint32_t>(le32(value + 4));
    } else if (name == "channels" && type == "chlist") {
      h.have_channels = true;
      for (std::size_t c = 0; c < static_cast<std::size_t>(size) && value[c] != 0;) {
        while (c < static_cast<std::size_t>(size) && value[c] != 0) ++c;  // the channel's name
        if (c + 17 > static_cast<std::size_t>(size)) break;
        const std::int32_t pixel_type = le32(value + c + 1);
        h.bytes_per_pixel += pixel_type == 1 /* HALF */ ? 2 : 4;
        c += 17;
      }
    }
    at += static_cast<std::size_t>(size);
  }
  return h;
}

// Scan lines in one chunk, by compression (OpenEXR's table).
std::uint64_t lines_per_chunk(int compression) {
  switch (compression) {
    case 0: case 1: case 2: return 1;  // none, RLE, ZIPS
    case 3: case 5: return 16;         // ZIP, PXR24
    case 9: return 256;                // DWAB
    default: return 32;                // PIZ, B44, B44A, DWAA
  }
}

// The most raster bytes a stored byte can become (deliberately generous: a bound, not a claim).
std::uint64_t best_ratio(int compression) {
  switch (compression) {
    case 0: return 1;                   // none
    case 1: return 64;                  // RLE: two bytes for a run of 128
    case 2: case 3: case 4: return 1032;  // ZIPS, ZIP (zlib's limit); PIZ (Huffman and runs, far below it)
    case 5: return 1376;                // PXR24: zlib over 24 of each 32 bits
    case 6: case 7: return 32;          // B44, B44A: at least 3 bytes a 4×4 block of halves
    default: return 1u << 17;           // DWAA, DWAB (DCT, zlib over the DC values) and what comes
  }
}

void check_before_decoding(const DecodeInput& in, const ExrHeader& h) {
  if (h.deep) fail(in, kFormat, "it holds deep data (several samples a pixel), which is not an image gausslab reads");
  if (!h.have_window || !h.have_channels) fail(in, kFormat, "the header lacks its data window or channel list");
  if (h.x_max < h.x_min || h.y_max < h.y_min)
    fail(in, kFormat, "the data window is empty (" + std::to_string(h.x_min) + ", " + std::to_string(h.y_min) + ") - (" +
                          std::to_string(h.x_max) + ", " + std::to_string(h.y_max) + ")");
  const std::uint64_t width = static_cast<std::uint64_t>(h.x_max - h.x_min + 1);
  const std::uint64_t height = static_cast<std::uint64_t>(h.y_max - h.y_min + 1);
  if (h.tiled && (h.tile_w == 0 || h.tile_h == 0 || h.tile_w > static_cast<std::uint32_t>(in.limits.max_width) ||
                  h.tile_h > static_cast<std::uint32_t>(in.limits.max_height)))
    fail(in, kFormat, "the tile size " + std::to_string(h.tile_w) + "×" + std::to_string(h.tile_h) + " is not valid");
  // OpenEXR's buffers, allocated when it opens the file: a chunk of lines or a tile, decoded and
  // compressed, for the declared size (a tile larger than the image too).
  const std::uint64_t bytes_per_pixel = std::max<std::uint64_t>(h.bytes_per_pixel, 2);
  const std::uint64_t chunk_pixels = h.tiled ? static_cast<std::uint64_t>(h.tile_w) * h.tile_h
                                             : lines_per_chunk(h.compression) * width;
  check_size(in, kFormat, width, height, PixelFormat::Rgba32F, 3 * chunk_pixels * bytes_per_pixel);
  if (h.multipart) return;  // the offset tables follow every part's header: OpenEXR checks them
  std::uint64_t chunks = (height + lines_per_chunk(h.compression) - 1) / lines_per_chunk(h.compression);
  if (h.tiled) {
    chunks = ((width + h.tile_w - 1) / h.tile_w) * ((height + h.tile_h - 1) / h.tile_h);  // level 0 alone
  }
  const std::uint64_t after_header = in.size - std::min<std::uint64_t>(h.end, in.size);
  if (chunks * 8 > after_header)
    fail_too_short(in, kFormat, width, height, chunks * 8, after_header);
  const std::uint64_t stored = after_header - chunks * 8;
  const std::uint64_t raster = width * height * std::max<std::uint64_t>(h.bytes_per_pixel, 2);
  if (stored * best_ratio(h.compression) < raster)
    fail_too_short(in, kFormat, width, height, (raster + best_ratio(h.compression) - 1) / best_ratio(h.compression), stored);
}

std::string channel_names(const Imf::ChannelList& list) {
  std::string names;
  for (auto c = list.begin(); c != list.end(); ++c) names += (names.empty() ? "" : ", ") + std::string(c.name());
  return names;
}

}  // namespace

LoadedImage decode_exr(const DecodeInput& in) {
  static std::once_flag limits_set;
  std::call_once(limits_set, [] {
    Imf::Header::setMaxImageSize(ImageLimits{}.max_width, ImageLimits{}.max_height);
    Imf::Header::setMaxTileSize(ImageLimits{}.max_width, ImageLimits{}.max_height);
  });
  const ExrHeader walked = walk_header(in);
  check_before_decoding(in, walked);
  LoadedImage loaded;
  loaded.format = kFormat;
  try {
    MemoryInput stream(in);
    Imf::InputFile file(stream, 0);  // no threads of OpenEXR's own: a batch decodes several files at once
    if (!file.isComplete())
      fail(in, kFormat, "some of its pixel data is missing (the file is truncated or its offset table is damaged)");
    const Imf::Header& header = file.header();
    const Imath::Box2i window = header.dataWindow();
    const std::uint64_t width = static_cast<std::uint64_t>(window.max.x) - window.min.x + 1;
    const std::uint64_t height = static_cast<std::uint64_t>(window.max.y) - window.min.y + 1;
    const Imf::ChannelList& list = header.channels();
    const char* const layouts[4][4] = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
    int channels = 0;
    for (int n = 4; n >= 1 && channels == 0; --n) {
      int found = 0, total = 0;
      for (auto c = list.begin(); c != list.end(); ++c) ++total;
      for (int i = 0; i < n; ++i) found += list.findChannel(layouts[n - 1][i]) != nullptr;
      if (found == n && total == n) channels = n;
    }
    if (channels == 0)
      fail(in, kFormat, "its channels (" + channel_names(list) +
                            ") are not Y, Y+A, R+G+B or R+G+B+A; gausslab reads those images (extract a layer first, "
                            "e.g. with exrmultipart or oiiotool)");
    bool all_half = true, any_uint = false;
    for (int i = 0; i < channels; ++i) {
      const Imf::Channel& c = *list.findChannel(layouts[channels - 1][i]);
      if (c.xSampling != 1 || c.ySampling != 1)
        fail(in, kFormat, std::string("channel ") + layouts[channels - 1][i] + " is subsampled, which gausslab does not read");
      all_half = all_half && c.type == Imf::HALF;
      any_uint = any_uint || c.type == Imf::UINT;
    }
    const SampleType type = all_half ? SampleType::F16 : SampleType::F32;
    const PixelFormat result = make_pixel_format(type, channels);
    // OpenEXR's line buffers: up to 256 lines (DWAB) of every channel, compressed and not.
    const std::uint64_t working = 2 * std::min<std::uint64_t>(height, 256) * width * 4 * static_cast<std::uint64_t>(channels);
    loaded.image = allocate_image(in, kFormat, width, height, result, working);
    loaded.source_type = all_half ? "float16" : any_uint ? "uint32" : "float32";
    if (!all_half && !any_uint)
      for (int i = 0; i < channels; ++i)
        if (list.findChannel(layouts[channels - 1][i])->type == Imf::HALF) loaded.source_type = "float16 and float32";
    if (loaded.source_type == "float16 and float32") loaded.note = "half and float channels, read as float32 (exactly)";
    if (any_uint)
      add_note(loaded.note, "32-bit unsigned integer channels converted to float32 (exact up to 16777216)");
    if (header.displayWindow() != window)
      add_note(loaded.note, "the data window (" + std::to_string(window.min.x) + ", " + std::to_string(window.min.y) +
                                ") - (" + std::to_string(window.max.x) + ", " + std::to_string(window.max.y) +
                                ") is the picture; the display window differs");
    Imf::FrameBuffer frame;
    const std::size_t sample_bytes = bytes_per_sample(type);
    const std::size_t x_stride = sample_bytes * static_cast<std::size_t>(channels);
    const std::size_t y_stride = loaded.image.pitch_bytes();
    for (int i = 0; i < channels; ++i) {
      // OpenEXR addresses pixel (x, y) of the data window at base + x × xStride + y × yStride.
      char* base = reinterpret_cast<char*>(loaded.image.data()) + static_cast<std::ptrdiff_t>(i * sample_bytes) -
                   static_cast<std::ptrdiff_t>(window.min.x) * static_cast<std::ptrdiff_t>(x_stride) -
                   static_cast<std::ptrdiff_t>(window.min.y) * static_cast<std::ptrdiff_t>(y_stride);
      frame.insert(layouts[channels - 1][i], Imf::Slice(all_half ? Imf::HALF : Imf::FLOAT, base, x_stride, y_stride));
    }
    file.setFrameBuffer(frame);
    file.readPixels(window.min.y, window.max.y);
  } catch (const ImageLoadError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    std::string message = error.what();
    if (message.find("truncated") == std::string::npos) message += " (the file is damaged or truncated)";
    fail(in, kFormat, "OpenEXR: " + message);
  }
  return loaded;
}

void encode_exr(const ConstImageView& image, bool compress, ByteSink& out) {
  const int channels = channel_count(image.format);
  const bool half = sample_type(image.format) == SampleType::F16;
  const char* const layouts[4][4] = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
  MemoryOutput stream;
  try {
    Imf::Header header(image.width, image.height);
    header.compression() = compress ? Imf::ZIP_COMPRESSION : Imf::NO_COMPRESSION;
    for (int i = 0; i < channels; ++i)
      header.channels().insert(layouts[channels - 1][i], Imf::Channel(half ? Imf::HALF : Imf::FLOAT));
    Imf::OutputFile file(stream, header, 0);
    Imf::FrameBuffer frame;
    const std::size_t sample_bytes = half ? 2 : 4;
    for (int i = 0; i < channels; ++i)
      frame.insert(layouts[channels - 1][i],
                   Imf::Slice(half ? Imf::HALF : Imf::FLOAT,
                              const_cast<char*>(static_cast<const char*>(image.data)) + i * sample_bytes,
                              sample_bytes * static_cast<std::size_t>(channels), image.pitch_bytes));
    file.setFrameBuffer(frame);
    file.writePixels(image.height);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    throw ImageSaveError(std::string("OpenEXR could not encode the image: ") + error.what());
  }
  out.write(stream.bytes().data(), stream.bytes().size());
}

}  // namespace gausslab::codec
