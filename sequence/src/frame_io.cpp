// Frames through core's codecs (image_io.hpp): every check core makes on a file (its type from the
// first bytes, the declared size against the data, the memory budget, palette indices) holds for
// frames too, and a frame keeps the file's depth. Here only the reduction to one grey channel.
#include "gausslab/sequence/frame_io.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gausslab/core/host_image.hpp"

namespace gausslab {

namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

// The divisor that takes the file's samples to the frame's scale: integers to [0, 1] by their
// full range (a PNM's maxval where it declares one), floats as they are.
float sample_scale(const LoadedImage& loaded) {
  switch (sample_type(loaded.image.format())) {
    case SampleType::U8: return 255.0f;
    case SampleType::U16: return loaded.maxval > 0 ? static_cast<float>(loaded.maxval) : 65535.0f;
    default: return 1.0f;
  }
}

// One grey channel of the file's samples, refused where a sample is not finite.
ImageF32 grey_frame(const LoadedImage& loaded, const std::string& path) {
  const HostImage& image = loaded.image;
  const int width = image.width(), height = image.height();
  const int channels = image.channels();
  const bool colour = channels >= 3;  // grey + alpha and RGBA: the alpha is not light, dropped
  const float scale = sample_scale(loaded);
  ImageF32 grey(width, height);
  std::vector<float> row(static_cast<std::size_t>(width) * channels);
  std::size_t non_finite = 0;
  int first_x = -1, first_y = -1;
  for (int y = 0; y < height; ++y) {
    load_row_samples(image.view(), y, row.data());
    float* out = grey.data() + static_cast<std::size_t>(y) * width;
    for (int x = 0; x < width; ++x) {
      const float* p = row.data() + static_cast<std::size_t>(x) * channels;
      // The same arithmetic as the reader before it (and to_grey_f32): identical frames, identical shifts.
      const float v = colour ? (0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2]) / scale : p[0] / scale;
      if (!std::isfinite(v) && non_finite++ == 0) first_x = x, first_y = y;
      out[x] = v;
    }
  }
  if (non_finite > 0)
    throw ImageLoadError(in_quotes(path) + " has " + std::to_string(non_finite) +
                         " samples that are not finite (NaN or infinity; the first at x " + std::to_string(first_x) +
                         ", y " + std::to_string(first_y) +
                         "): shifts and whitening need a value at every pixel; replace them (a FITS frame's "
                         "BLANK pixels, a float file's holes) with finite values first");
  return grey;
}

}  // namespace

ImageF32 load_grey_frame(const std::string& path) { return grey_frame(load_image(path), path); }

void save_grey_png16(const std::string& path, const ImageF32& image, Overwrite overwrite) {
  // Clamped to [0, 1] and rounded to the nearest of 65535 levels (half up), written by core's PNG writer.
  HostImage levels(image.width(), image.height(), PixelFormat::Grey16);
  for (int y = 0; y < image.height(); ++y) {
    const float* in = image.data() + static_cast<std::size_t>(y) * image.width();
    std::uint16_t* out = levels.row<std::uint16_t>(y);
    for (int x = 0; x < image.width(); ++x) {
      const float v = std::isnan(in[x]) ? 0.0f : std::fmin(std::fmax(in[x], 0.0f), 1.0f);
      out[x] = static_cast<std::uint16_t>(v * 65535.0f + 0.5f);
    }
  }
  SaveOptions options;
  options.format = ImageFormat::Png;
  options.overwrite = overwrite;
  save_image(path, levels.view(), options);
}

// ---- staged output -------------------------------------------------------------------------

namespace {

// Runs `step` with AtomicFile's errors as the sequence's ImageSaveError (same message).
template <class Step>
auto as_save_error(Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const FileWriteError& error) {
    throw ImageSaveError(error.what());
  }
}

AtomicFile open_atomic(const std::string& path, Overwrite overwrite) {
  return as_save_error([&] { return AtomicFile(path, overwrite); });
}

}  // namespace

StagedFile::StagedFile(std::string path, Overwrite overwrite) : file_(open_atomic(path, overwrite)) {}

void StagedFile::write(const void* data, std::size_t size) {
  as_save_error([&] { file_.write(data, size); });
}

void StagedFile::commit() {
  as_save_error([&] { file_.commit(); });
}

void write_staged(const std::string& path, const std::string& content, Overwrite overwrite) {
  StagedFile file(path, overwrite);
  file.write(content.data(), content.size());
  file.commit();
}

}  // namespace gausslab
