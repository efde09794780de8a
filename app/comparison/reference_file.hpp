#pragma once
// The reference slot: A or B shows an image file (a user's SciPy, OpenCV or camera-pipeline output)
// instead of a method. Any file core's readers take (u8/u16/f16/f32, 1 to 4 channels), measured as
// its own samples in 8-bit levels (picture_levels.hpp: a float sample x 255, a 16-bit one x
// 255/65535), shown as its 8-bit reduction. It must have the picture's size; it has no sigma or
// method: its label names the file and its samples. Reloaded when the file changes (file_watcher.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "comparison/file_watcher.hpp"
#include "gausslab/core/image.hpp"
#include "viewer/picture_levels.hpp"

namespace gausslab {

struct ReferenceImage {
  std::string path;
  std::string name;  // the file name without its folder: the id in titles and file names
  std::string type;  // "float32, 3 channels"
  std::shared_ptr<const ImageRgba8> shown;       // the 8-bit reduction the view draws
  std::shared_ptr<const PictureLevels> levels;   // what the numbers measure (never null)
  int width() const { return shown ? shown->width() : 0; }
  int height() const { return shown ? shown->height() : 0; }
};

// Reads `path`; throws ImageLoadError (core's reader: missing, truncated, unsupported, ...).
ReferenceImage load_reference(const std::string& path);

// Why a reference of `reference_width` x `reference_height` cannot be compared with a picture of
// `width` x `height` ("" when the sizes agree): both sizes named.
std::string reference_size_problem(const std::string& name, int reference_width, int reference_height, int width,
                                   int height);

// "file B.tif (float32, 3 channels)": the slot's label in lists, on the picture and in the panel.
std::string reference_label(const ReferenceImage& reference);

// A slot's reference file: the image and the watcher that reloads it; `number` counts its loads so
// that a result or figures of an older version never count as current (SlotSetting::reference).
struct ReferenceSlot {
  ReferenceImage image;
  FileWatcher watcher;
  std::uint64_t number = 0;
  bool held() const { return image.shown != nullptr; }
};

// What a comparison watches: its reference slots' files and, with --watch, the picture's.
struct WatchedFiles {
  ReferenceSlot reference[2];
  FileWatcher picture;
};

}  // namespace gausslab
