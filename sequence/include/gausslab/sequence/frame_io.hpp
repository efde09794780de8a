#pragma once
// Frames as files: grey float in through core's codecs (load_image: every format and check of
// image_io.hpp), 16-bit grey PNG out, and the staged (temporary file + rename) writing that every
// sequence output goes through.
#include <cstddef>
#include <string>

#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/image_io.hpp"

namespace gausslab {

// Loads a frame as grey float through core's load_image (every check it makes, with its message):
// integer samples as fractions of full scale (8-bit / 255, 16-bit / 65535, a PNM's / its maxval),
// half and float samples as they are; colour → Rec. 709 luminance; alpha dropped. Throws
// ImageLoadError naming the file and the problem, also for a NaN or infinite sample.
ImageF32 load_grey_frame(const std::string& path);

// Writes a grey float image in [0, 1] (clamped, NaN as 0) as a 16-bit grey PNG through core's writer, staged.
void save_grey_png16(const std::string& path, const ImageF32& image, Overwrite overwrite);

// An output file written through core's AtomicFile (a temporary name beside its target, moved
// into place by commit(): a reader never sees a partial file; without commit() the temporary file
// is removed; with Overwrite::Never an existing file is never replaced), with the sequence's
// error type: every failure is an ImageSaveError naming the file.
class StagedFile {
 public:
  // Throws ImageSaveError when the folder is not writable or (Never) `path` exists.
  StagedFile(std::string path, Overwrite overwrite);

  void write(const void* data, std::size_t size);  // throws ImageSaveError (a full disk, ...)
  void commit();                                   // throws ImageSaveError
  const std::string& path() const { return file_.path(); }

 private:
  AtomicFile file_;
};

// The whole content at once through a StagedFile.
void write_staged(const std::string& path, const std::string& content, Overwrite overwrite);

}  // namespace gausslab
