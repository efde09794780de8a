// Whether a Rice-coded FITS tile holds the pixels it must decode to, checked before cfitsio
// decodes it.
//
// cfitsio 4.2's Rice decoders (fits_rdecomp, _short, _byte) check for the end of the compressed
// bytes only after each block of pixels; inside a block, a run of zero bits makes them read on
// past the tile's buffer without limit (fuzz_fits: an ASan SEGV in fits_rdecomp_short on a tile
// whose declared length reaches into the heap's zero padding). This walk reads the stream as the
// FITS tiled-image convention defines it (Pence et al. 2009; White's Rice coder) and as a decoder
// must: the first pixel raw, then per block of BLOCKSIZE pixels a code of fsbits bits, FS = code - 1,
// and per pixel nothing (FS < 0), BITPIX raw bits (FS = fsmax) or a unary count and FS low bits.
// It fetches a byte only when it needs its bits, as cfitsio does, so a stream this walk finishes
// inside `length` bytes is one cfitsio decodes without reading beyond them. Cost: one pass over
// the compressed bits, no output.
#pragma once

#include <cstdint>

namespace gausslab::codec {

// `bytepix` is Rice's BYTEPIX (1, 2, or 4; cfitsio takes any other value as 4), `block` its
// BLOCKSIZE (at least 1), `pixels` the tile's pixel count.
bool rice_tile_is_complete(const unsigned char* data, std::uint64_t length, std::uint64_t pixels, int bytepix,
                           int block);

}  // namespace gausslab::codec
