#pragma once
// The decoders and encoders, one file each; image_io.cpp picks one by the file's signature
// (reading) or the requested format (writing).
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

// True when the first bytes are a plausible TGA header (TGA has no signature).
bool looks_like_tga(const unsigned char* data, std::size_t size);

// Each encoder writes `channels` (1 grey = red, 2 grey+alpha, 3 RGB, 4 RGBA) of `image` in its
// format's nearest layout (see save_image) and throws ImageSaveError or what the sink throws.
void encode_png(const ImageRgba8& image, int channels, ByteSink& out);
void encode_jpeg(const ImageRgba8& image, int channels, int quality, ByteSink& out);
void encode_bmp(const ImageRgba8& image, int channels, ByteSink& out);
void encode_tga(const ImageRgba8& image, int channels, ByteSink& out);
void encode_pnm(const ImageRgba8& image, int channels, ByteSink& out);

}  // namespace gausslab::codec
