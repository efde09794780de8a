#pragma once
// Frames as files: grey float in, 16-bit grey PNG and 8-bit previews out, and the staged
// (temporary file + rename) writing that every sequence output goes through.
#include <cstddef>
#include <string>

#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/image_io.hpp"

namespace gausslab {

// Loads a frame as grey float in [0, 1]: PNG through libpng with its full depth (16-bit values
// divided by 65535, 8-bit by 255; colour → Rec. 709 luminance, the loader's weights; alpha
// dropped), every other format the image loader reads through load_image. Throws ImageLoadError
// naming the file and the problem.
ImageF32 load_grey_frame(const std::string& path);

// Writes a grey float image in [0, 1] (clamped) as a 16-bit grey PNG, staged.
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
