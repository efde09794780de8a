#pragma once
// The decoders and encoders, one file each; image_io.cpp picks one by the file's signature
// (reading) or the requested format (writing).
#include <cstdint>

#include "codec_support.hpp"

namespace gausslab::codec {

// Each decoder assumes its format's signature has been recognised, and either returns a fully
// decoded image or throws ImageLoadError through fail()/check_size().
LoadedImage decode_png(const DecodeInput& in);
LoadedImage decode_jpeg(const DecodeInput& in);
LoadedImage decode_tiff(const DecodeInput& in);
LoadedImage decode_gif(const DecodeInput& in);
LoadedImage decode_bmp(const DecodeInput& in);
LoadedImage decode_tga(const DecodeInput& in);
LoadedImage decode_pnm(const DecodeInput& in);
LoadedImage decode_pfm(const DecodeInput& in);
LoadedImage decode_exr(const DecodeInput& in);
LoadedImage decode_fits(const DecodeInput& in);
LoadedImage decode_npy(const DecodeInput& in);

// True when the first bytes are a plausible TGA header (TGA has no signature).
bool looks_like_tga(const unsigned char* data, std::size_t size);

// How many bytes of a file of `file_size` bytes the decoder can need, from its first `size` bytes
// (the header): the header and the raster it declares for the raw formats; `file_size` when the
// header does not say (or is not all in the first bytes: the decoder then says what is wrong).
std::uint64_t pnm_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size);
std::uint64_t pfm_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size);
std::uint64_t npy_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size);
std::uint64_t fits_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size);

// The 8-bit encoders write `channels` (1 grey = red, 2 grey+alpha, 3 RGB, 4 RGBA) of `image` (an
// RGBA8 view, in any memory: an image's own or the batch's pinned buffer) in their format's
// nearest layout (see save_image) and throw ImageSaveError or what the sink throws.
void encode_jpeg(const ConstImageView& image, int channels, int quality, ByteSink& out);
void encode_bmp(const ConstImageView& image, int channels, ByteSink& out);
void encode_tga(const ConstImageView& image, int channels, ByteSink& out);
void encode_png(const ConstImageView& image, int channels, ByteSink& out);

// The typed encoders write `image` in its own type and channels; image_io has checked that the
// format holds them (check_output_type).
void encode_png(const ConstImageView& image, ByteSink& out);
void encode_pnm(const ConstImageView& image, std::uint32_t maxval, ByteSink& out);
void encode_tiff(const ConstImageView& image, bool compress, ByteSink& out);
void encode_pfm(const ConstImageView& image, ByteSink& out);
void encode_exr(const ConstImageView& image, bool compress, ByteSink& out);
void encode_fits(const ConstImageView& image, bool float64, ByteSink& out);
void encode_npy(const ConstImageView& image, bool float64, ByteSink& out);

}  // namespace gausslab::codec
