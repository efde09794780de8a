// FITS through cfitsio (Debian's libcfitsio 4.2, NASA's reference library).
//
// Read: the primary image, or, when the primary HDU holds none (NAXIS = 0, as fpack writes), the
// first image extension (tile-compressed images included: cfitsio decompresses them). 2D, or 3D
// with NAXIS3 = 1-4 planes as channels (grey, grey+alpha, RGB, RGBA). BZERO/BSCALE are applied
// as cfitsio applies them:
//   BITPIX 8 unscaled: u8;  BITPIX 16 with BZERO 32768 (the unsigned convention): u16;
//   BITPIX -32 unscaled: f32 as stored;
//   everything else (signed 8/16-bit, 32/64-bit integers, BITPIX -64, other scalings): f32 with a
//   note, which counts the samples float32 cannot hold exactly; BLANK pixels of an integer image
//   become NaN (and the image f32).
// Rows: row 0 of the image is the FILE'S FIRST ROW (FITS y = 1, astropy's data[0]), so the array
// equals what astropy and NumPy give; a viewer that puts FITS y = 1 at the bottom (ds9, astropy's
// imshow(origin='lower')) shows it flipped relative to gausslab's picture.
//
// Bounded: the size against the limits before allocation; an uncompressed image's data must be
// in the file (the header's size against the file's) before a row is read; only the primary HDU is
// read from a file when it holds the image (fits_bytes_needed).
//
// Written: a primary image of BITPIX 8 (u8), 16 with BZERO 32768 (u16), -32 (f32) or -64 (f32
// widened, SaveOptions::float64); 2D for one channel, 3D (NAXIS3 = channels) for more; rows in the
// same order as read.
#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "codecs.hpp"
#include "rice_stream_check.hpp"

namespace gausslab::codec {

namespace {

constexpr const char* kFormat = "FITS";
constexpr std::uint64_t kBlock = 2880;

std::string fits_message(int status) {
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  std::string message = text;
  char detail[FLEN_ERRMSG] = {};
  if (fits_read_errmsg(detail) && detail[0] && message.find(detail) == std::string::npos) message += ": " + std::string(detail);
  while (fits_read_errmsg(detail)) {}  // the rest of cfitsio's message stack
  return message;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

struct File {
  fitsfile* fits = nullptr;
  ~File() {
    int status = 0;
    if (fits) fits_close_file(fits, &status);
  }
};

// A card's value as a number (keyword in the first 8 columns, "= " in 9-10); nullopt if not that keyword.
// The value is read from column 10 on, as cfitsio reads a card whose "= " lacks its space
// (fuzz_fits: "ZVAL1   =0      32" is 0 to cfitsio), and must be one whole number (a float's ".0"
// allowed) before the comment: anything after it makes the card no number.
bool card_number(const unsigned char* card, const char* keyword, long long& value) {
  const std::size_t n = std::strlen(keyword);
  if (std::memcmp(card, keyword, n) != 0) return false;
  for (std::size_t i = n; i < 8; ++i)
    if (card[i] != ' ') return false;
  if (card[8] != '=') return false;
  char text[72] = {};
  std::memcpy(text, card + 9, 71);
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(text, &end, 10);
  if (end == text || errno == ERANGE) return false;  // beyond 64 bits is no number for a header either
  if (*end == '.')
    while (*++end == '0') {}
  while (*end == ' ') ++end;
  return *end == '\0' || *end == '/';
}

// The bytes of data the header at `head` declares (FITS 4.0, 4.4.1.1: |BITPIX| / 8 × GCOUNT ×
// (PCOUNT + NAXIS1 × ... × NAXISn)), read from the cards themselves (cfitsio presents a compressed
// image's table keywords as an image's). Fails when the header has no END before the data.
std::uint64_t declared_data_bytes(const DecodeInput& in, std::uint64_t head, std::uint64_t data_start) {
  long long bitpix = 0, naxis = 0, pcount = 0, gcount = 1, axes[1000] = {};
  bool ended = false;
  for (std::uint64_t at = head; at + 80 <= std::min<std::uint64_t>(data_start, in.size) && !ended; at += 80) {
    const unsigned char* card = in.data + at;
    long long v = 0;
    char keyword[9] = {};
    std::memcpy(keyword, card, 8);
    if (card_number(card, "BITPIX", v)) bitpix = v;
    else if (card_number(card, "NAXIS", v)) naxis = v;
    else if (card_number(card, "PCOUNT", v)) pcount = v;
    else if (card_number(card, "GCOUNT", v)) gcount = v;
    else if (std::memcmp(card, "NAXIS", 5) == 0 && card[5] >= '1' && card[5] <= '9') {
      const int n = std::atoi(keyword + 5);
      if (n >= 1 && n < 1000 && card_number(card, keyword, v)) axes[n] = v;
    }
    ended = std::memcmp(card, "END     ", 8) == 0;
  }
  if (!ended) fail(in, kFormat, "the file is truncated (a header has no END card)");
  if (naxis <= 0) return 0;
  if (naxis >= 1000 || pcount < 0 || gcount < 0) fail(in, kFormat, "the header's NAXIS, PCOUNT or GCOUNT is not valid");
  std::uint64_t product = 1;
  for (long long i = 1; i <= naxis; ++i) {
    if (axes[i] < 0 || (axes[i] > 0 && product > (1ull << 50) / static_cast<std::uint64_t>(axes[i])))
      fail(in, kFormat, "the header's NAXIS" + std::to_string(i) + " is not valid");
    product *= static_cast<std::uint64_t>(axes[i]);
  }
  const std::uint64_t bytes_per = static_cast<std::uint64_t>(std::llabs(bitpix) / 8);
  if (static_cast<std::uint64_t>(pcount) > (1ull << 50) || static_cast<std::uint64_t>(gcount) > (1ull << 20))
    fail(in, kFormat, "the header declares more data than any file holds");
  return bytes_per * static_cast<std::uint64_t>(gcount) * (static_cast<std::uint64_t>(pcount) + product);
}

// Rice's BLOCKSIZE and BYTEPIX are divisors too, and cfitsio takes them from ZVAL1 and ZVAL2 by
// position, whatever ZNAME1 and ZNAME2 say: a ZVAL1 of .32 (fuzz_fits) or of "0   32" (its next
// run, under ZNAME1 = 'BLOCIZSEK') is read as 0 and divided by in imcomp_calc_max_elem.
void check_compression_parameters(const DecodeInput& in, std::uint64_t head, std::uint64_t end) {
  bool rice = false;
  for (std::uint64_t at = head; at + 80 <= end; at += 80) {
    const std::string card(reinterpret_cast<const char*>(in.data) + at, 80);
    if (card.compare(0, 8, "ZCMPTYPE") == 0)
      rice = rice || card.find("'RICE_1") != std::string::npos || card.find("'RICE_ONE") != std::string::npos;
  }
  if (!rice) return;
  for (std::uint64_t at = head; at + 80 <= end; at += 80) {
    const unsigned char* card = in.data + at;
    for (const auto& [keyword, name] : {std::pair{"ZVAL1", "BLOCKSIZE"}, std::pair{"ZVAL2", "BYTEPIX"}}) {
      if (std::memcmp(card, keyword, 5) != 0 || std::memcmp(card + 5, "   ", 3) != 0) continue;
      long long number = 0;
      if (!card_number(card, keyword, number) || number < 1)
        fail(in, kFormat, std::string("a Rice-compressed image's ") + keyword + " (its " + name +
                              ") is not a whole number of at least 1; the file is damaged");
    }
  }
}

// Whether `keyword` is one of `whole` or one of `numbered` followed by a digit 1-9 (NAXIS1, TFORM12).
template <std::size_t W, std::size_t N>
bool keyword_in(const char* keyword, const char* const (&whole)[W], const char* const (&numbered)[N]) {
  for (const char* name : whole)
    if (std::strcmp(keyword, name) == 0) return true;
  for (const char* prefix : numbered) {
    const std::size_t n = std::strlen(prefix);
    if (std::strncmp(keyword, prefix, n) == 0 && keyword[n] >= '1' && keyword[n] <= '9') return true;
  }
  return false;
}

// A card's keyword: its first 8 columns without the trailing spaces.
std::string keyword_of(const unsigned char* card) {
  std::string keyword(reinterpret_cast<const char*>(card), 8);
  keyword.erase(keyword.find_last_not_of(' ') + 1);
  return keyword;
}

// The keywords cfitsio reads as integers while it opens and walks a file. Its conversion (ffc2j
// and kin) copies a value it cannot convert into an 81-byte message after a 52-byte prefix, and
// overflows it for a value of 28 characters or more (fuzz_fits: glibc's fortify abort in ffc2j):
// their values must be numbers.
bool read_as_integer(const char* keyword) {
  static const char* const whole[] = {"BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "TFIELDS", "THEAP", "EXTVER", "EXTLEVEL",
                                      "BLANK", "ZBITPIX", "ZNAXIS", "ZPCOUNT", "ZGCOUNT", "ZBLANK", "ZTHEAP", "ZDITHER0"};
  static const char* const numbered[] = {"NAXIS", "TBCOL", "TNULL", "ZNAXIS", "ZTILE", "ZVAL"};
  return keyword_in(keyword, whole, numbered);
}

// The keywords that size or describe an HDU's data (each once in a header, FITS 4.0, 4.4).
bool describes_the_data(const char* keyword) {
  static const char* const whole[] = {"SIMPLE", "XTENSION", "BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "TFIELDS",
                                      "THEAP", "BZERO", "BSCALE", "BLANK", "ZIMAGE", "ZCMPTYPE", "ZBITPIX",
                                      "ZNAXIS", "ZPCOUNT", "ZGCOUNT"};
  static const char* const numbered[] = {"NAXIS", "TFORM", "TTYPE", "ZVAL", "ZNAME"};
  return keyword_in(keyword, whole, numbered);
}

// A value as FITS writes one (4.2): a string in quotes (a quote inside doubled), T or F, a number, a
// complex number in parentheses, or none; then at most a comment. cfitsio copies what it takes for a
// value into fixed buffers and overflowed one on "TTYPE1  = [[[[...[['" (fuzz_fits: glibc's fortify
// abort in ffgtbp).
bool well_formed_value(const unsigned char* card) {
  int at = 9;
  while (at < 80 && card[at] == ' ') ++at;
  if (at < 80 && card[at] == '\'') {
    for (++at;; ++at) {
      if (at >= 80) return false;  // no closing quote
      if (card[at] != '\'') continue;
      if (at + 1 < 80 && card[at + 1] == '\'') ++at;  // '' stands for a quote
      else break;
    }
    ++at;
  } else if (at < 80 && (card[at] == 'T' || card[at] == 'F')) {
    ++at;
  } else if (at < 80 && card[at] == '(') {
    while (at < 80 && card[at] != ')') ++at;
    if (at >= 80) return false;
    ++at;
  } else if (at < 80 && card[at] != '/') {
    char text[72] = {};
    std::memcpy(text, card + at, static_cast<std::size_t>(80 - at));
    for (char& c : text)
      if (c == 'D' || c == 'd') c = 'E';  // FITS allows a D exponent; strtod does not
    char* end = nullptr;
    std::strtod(text, &end);
    if (end == text) return false;
    at += static_cast<int>(end - text);
  }
  while (at < 80 && card[at] == ' ') ++at;
  return at >= 80 || card[at] == '/';
}

// A card's keyword and value indicator in ASCII text (FITS 4.0, 4.1.1: decimal 32 to 126), and an
// integer keyword with a number for its value (fuzz_fits: ZNAXIS = 57 bytes of 255), before cfitsio
// parses the card. Comments are not checked: archives write Latin-1 there.
void check_card(const DecodeInput& in, const unsigned char* card) {
  for (int i = 0; i < 10; ++i)
    if (card[i] < 32 || card[i] > 126)
      fail(in, kFormat, "a header card's keyword holds a byte that is not ASCII text (" + std::to_string(card[i]) +
                            "); the header is damaged");
  char keyword[9] = {};
  std::memcpy(keyword, card, 8);
  for (int i = 7; i >= 0 && keyword[i] == ' '; --i) keyword[i] = '\0';
  // A keyword is letters, digits, '-' and '_', then spaces (4.1.2.1): cfitsio reads "ZVAL1  E" as
  // ZVAL1 (fuzz_fits), which the checks here would not.
  for (std::size_t i = 0; keyword[i]; ++i)
    if (!std::isalnum(static_cast<unsigned char>(keyword[i])) && keyword[i] != '-' && keyword[i] != '_')
      fail(in, kFormat, std::string("a header card's keyword \"") + keyword +
                            "\" holds a character a FITS keyword cannot; the header is damaged");
  if (card[8] == '=' && !well_formed_value(card))
    fail(in, kFormat, std::string("the header's ") + keyword +
                          " has a value that is neither a string, a number nor T or F; the header is damaged");
  long long value = 0;
  if (card[8] == '=' && (std::strcmp(keyword, "PCOUNT") == 0 || std::strcmp(keyword, "GCOUNT") == 0) &&
      card_number(card, keyword, value) && value < 0)
    fail(in, kFormat, std::string("the header's ") + keyword + " is " + std::to_string(value) +
                          " (at least 0); the header is damaged");
  // FITS counts fields and axes in three digits (4.4.1.1, 7.2.1); cfitsio allocates a column
  // table of TFIELDS entries before it checks it (fuzz_fits: TFIELDS = 10^50, calloc of 2^63 × 160).
  if (card[8] == '=' && (std::strcmp(keyword, "TFIELDS") == 0 || std::strcmp(keyword, "NAXIS") == 0 ||
                         std::strcmp(keyword, "ZNAXIS") == 0) &&
      card_number(card, keyword, value) && (value < 0 || value > 999))
    fail(in, kFormat, std::string("the header's ") + keyword + " is " + std::to_string(value) +
                          " (FITS allows 0 to 999); the header is damaged");
  if (card[8] == '=' && read_as_integer(keyword) && !card_number(card, keyword, value)) {
    // A number may be written as a float (BITPIX = -32.0 is read as -32): only what is neither fails,
    // read as card_number reads (from column 10, nothing but a comment after it).
    char text[72] = {};
    std::memcpy(text, card + 9, 71);
    char* end = nullptr;
    const double number = std::strtod(text, &end);
    while (end != text && *end == ' ') ++end;
    if (end == text || (*end != '\0' && *end != '/'))
      fail(in, kFormat, std::string("the header's ") + keyword + " is not a number; the header is damaged");
    if (!(std::fabs(number) < 9.2e18))  // what cfitsio would saturate to 2^63 - 1
      fail(in, kFormat, std::string("the header's ") + keyword + " is " + number_text(number) +
                            ", beyond any count a FITS header holds; the header is damaged");
  }
}

// cfitsio divides by a compressed image's ZTILEn and ZNAXISn while it merely walks the HDUs
// (fits_get_num_hdus: fuzz_fits found a SIGFPE from ZTILE2 = 0): every header's are checked first,
// and every card of every header (check_card).
void check_tiling_keywords(const DecodeInput& in) {
  std::uint64_t head = 0;
  for (int hdu = 0; hdu < 1000 && head + 80 <= in.size; ++hdu) {
    if (hdu > 0 && std::memcmp(in.data + head, "XTENSION", 8) != 0) return;  // not another HDU
    std::uint64_t at = head;
    bool ended = false;
    std::set<std::string> seen, tiling_seen;
    for (; at + 80 <= in.size && !ended; at += 80) {
      const unsigned char* card = in.data + at;
      ended = std::memcmp(card, "END     ", 8) == 0;
      if (!ended) {
        check_card(in, card);
        // A keyword that sizes or describes the data given twice: cfitsio reads the first, the
        // checks here the last (fuzz_fits: NAXIS = 2 then NAXIS = 0 beside GCOUNT = -32, and cfitsio
        // walked on for minutes).
        const std::string name = keyword_of(card);
        if (card[8] == '=' && describes_the_data(name.c_str()) && !seen.insert(name).second)
          fail(in, kFormat, std::string("the header gives ") + name + " twice; the header is damaged");
      }
      for (const char* prefix : {"ZTILE", "ZNAXIS"}) {
        const std::size_t n = std::strlen(prefix);
        if (std::memcmp(card, prefix, n) != 0 || card[n] < '1' || card[n] > '9') continue;
        char keyword[9] = {};
        std::memcpy(keyword, card, 8);
        for (int i = 7; i >= 0 && keyword[i] == ' '; --i) keyword[i] = '\0';
        // A value that is not a whole number (fuzz_fits: a second ZTILE1 = 'BLOCKSIZE') is read by
        // cfitsio as 0, and which of two cards of one keyword it reads depends on where it last looked.
        long long value = 0;
        if (!card_number(card, keyword, value))
          fail(in, kFormat, std::string("a compressed image's ") + keyword + " is not a whole number; the file is damaged");
        if (value <= 0)
          fail(in, kFormat, std::string("a compressed image's ") + keyword + " is " + std::to_string(value) +
                                " (at least 1); the file is damaged");
        if (!tiling_seen.insert(keyword).second)
          fail(in, kFormat, std::string("a compressed image's ") + keyword + " is given twice; the file is damaged");
      }
    }
    if (!ended) return;  // cfitsio says the header is truncated
    check_compression_parameters(in, head, at);
    const std::uint64_t data_start = (at + kBlock - 1) / kBlock * kBlock;
    head = data_start + (declared_data_bytes(in, head, data_start) + kBlock - 1) / kBlock * kBlock;
  }
}

// The pixels of tile `row` (1-based; tiles in raster order, the first axis fastest).
std::uint64_t tile_pixels(const FITSfile& file, LONGLONG row) {
  std::uint64_t index = static_cast<std::uint64_t>(row - 1), pixels = 1;
  for (int axis = 0; axis < std::min(file.zndim, MAX_COMPRESS_DIM); ++axis) {
    const std::uint64_t side = static_cast<std::uint64_t>(std::max(file.znaxis[axis], 1L));
    const std::uint64_t tile = static_cast<std::uint64_t>(std::max(file.tilesize[axis], 1L));
    const std::uint64_t tiles = (side + tile - 1) / tile;
    const std::uint64_t at = index % tiles;
    index /= tiles;
    pixels *= std::min(tile, side - at * tile);
  }
  return pixels;
}

// A Rice tile's codes must end within its bytes before cfitsio decodes it (rice_stream_check.hpp).
void check_rice_tile(const DecodeInput& in, const FITSfile& file, LONGLONG row, std::uint64_t table_start,
                     LONGLONG bytes, LONGLONG offset, LONGLONG element_bytes) {
  const std::string tile = "tile " + std::to_string(row) + " of the Rice-compressed image";
  if (element_bytes != 1) fail(in, kFormat, tile + " is not stored as bytes (the file is damaged)");
  const std::uint64_t start = table_start + static_cast<std::uint64_t>(file.heapstart) + static_cast<std::uint64_t>(offset);
  if (file.heapstart < 0 || start > in.size || static_cast<std::uint64_t>(bytes) > in.size - start)
    fail(in, kFormat, tile + " lies beyond the end of the file (the file is truncated)");
  const std::uint64_t pixels = tile_pixels(file, row);
  if (!rice_tile_is_complete(in.data + start, static_cast<std::uint64_t>(bytes), pixels, file.rice_bytepix,
                             file.rice_blocksize))
    fail(in, kFormat, tile + "'s " + std::to_string(bytes) + " bytes end before its " + std::to_string(pixels) +
                          " pixels (the file is damaged or truncated)");
}

}  // namespace

std::uint64_t fits_bytes_needed(const unsigned char* data, std::size_t size, std::uint64_t file_size) {
  long long bitpix = 0, naxis = -1, axes[4] = {0, 0, 0, 0};
  for (std::size_t at = 0; at + 80 <= size; at += 80) {
    const unsigned char* card = data + at;
    long long v = 0;
    if (card_number(card, "BITPIX", v)) bitpix = v;
    else if (card_number(card, "NAXIS", v)) naxis = v;
    else if (card_number(card, "NAXIS1", v)) axes[1] = v;
    else if (card_number(card, "NAXIS2", v)) axes[2] = v;
    else if (card_number(card, "NAXIS3", v)) axes[3] = v;
    if (std::memcmp(card, "END     ", 8) == 0) {
      if (naxis < 2 || naxis > 3 || bitpix == 0) return file_size;  // the image is elsewhere or not one: the decoder says
      const std::uint64_t header = (at + 80 + kBlock - 1) / kBlock * kBlock;
      std::uint64_t samples = 1;
      for (long long i = 1; i <= naxis; ++i) {
        if (axes[i] <= 0 || axes[i] > (1ll << 31)) return file_size;
        samples *= static_cast<std::uint64_t>(axes[i]);
      }
      const std::uint64_t bytes = samples * static_cast<std::uint64_t>(std::llabs(bitpix) / 8);
      return std::min<std::uint64_t>(file_size, header + (bytes + kBlock - 1) / kBlock * kBlock);
    }
  }
  return file_size;  // no END in the first bytes: the decoder reads all
}

LoadedImage decode_fits(const DecodeInput& in) {
  if (in.size == 0) fail(in, kFormat, "the file is empty");
  check_tiling_keywords(in);
  // cfitsio reads whole 2880-byte records: it gets a copy padded with zeros to them. It also takes
  // the file to be as long as each header says (it reads past a buffer that is not, as fuzz_fits
  // found): each HDU's data must lie in the buffer (in_buffer) before cfitsio reads it or moves
  // beyond it. The copy outlives the cfitsio handle (declared first), which keeps pointers to it.
  std::vector<unsigned char> padded((in.size + kBlock - 1) / kBlock * kBlock, 0);
  std::memcpy(padded.data(), in.data, in.size);
  void* memory = padded.data();  // READONLY: cfitsio does not write to it
  std::size_t memory_size = padded.size();
  File f;
  int status = 0;
  // Where the current HDU's data starts and how many bytes its header declares, once they are
  // known to lie in the buffer (the file's real end is checked against them later).
  auto in_buffer = [&](const char* what) {
    LONGLONG head = 0, data_start = 0, data_end = 0;
    if (fits_get_hduaddrll(f.fits, &head, &data_start, &data_end, &status))
      fail(in, kFormat, "cfitsio: " + fits_message(status));
    if (data_end < data_start || static_cast<std::uint64_t>(data_end) > padded.size())
      fail(in, kFormat, std::string("the header of ") + what + " declares data up to byte " + std::to_string(data_end) +
                            " but the file holds only " + std::to_string(in.size) +
                            " bytes (the file is truncated or its header is damaged)");
    return std::pair<std::uint64_t, std::uint64_t>(static_cast<std::uint64_t>(head), static_cast<std::uint64_t>(data_start));
  };
  if (fits_open_memfile(&f.fits, "memory.fits", READONLY, &memory, &memory_size, 0, nullptr, &status))
    fail(in, kFormat, "cfitsio could not read its header: " + fits_message(status));
  int bitpix = 0, naxis = 0;
  LONGLONG axes[3] = {0, 0, 0};
  auto image_params = [&] {
    if (fits_get_img_paramll(f.fits, 3, &bitpix, &naxis, axes, &status))
      fail(in, kFormat, "cfitsio could not read the image's size: " + fits_message(status));
  };
  image_params();
  std::string where;
  if (naxis == 0) {  // the image is in an extension (fpack, many archives)
    int hdus = 0;
    fits_get_num_hdus(f.fits, &hdus, &status);
    for (int h = 2; h <= std::min(hdus, 1000) && naxis == 0; ++h) {
      int type = 0;
      in_buffer(h == 2 ? "the primary HDU" : "an extension");  // before cfitsio reads the next header after it
      if (fits_movabs_hdu(f.fits, h, &type, &status)) fail(in, kFormat, "cfitsio: " + fits_message(status));
      int compressed = fits_is_compressed_image(f.fits, &status);
      if (type == IMAGE_HDU || compressed) {
        image_params();
        where = "the image of HDU " + std::to_string(h) + " (the primary HDU holds none)";
      }
    }
    if (naxis == 0) fail(in, kFormat, "it holds no image (the primary HDU and every extension have NAXIS = 0, or are tables)");
  }
  if (naxis < 2 || naxis > 3)
    fail(in, kFormat, "the image has " + std::to_string(naxis) +
                          " axes; gausslab reads 2D images and 3D cubes of 1-4 planes (channels)");
  const LONGLONG channels = naxis == 3 ? axes[2] : 1;
  if (channels < 1 || channels > 4)
    fail(in, kFormat, "the cube has " + std::to_string(channels) +
                          " planes (NAXIS3); gausslab reads 1-4 planes as channels (for a sequence of frames, use "
                          "one file a frame)");
  if (axes[0] <= 0 || axes[1] <= 0) fail(in, kFormat, "the image is empty (NAXIS1 or NAXIS2 is 0)");
  const std::uint64_t width = static_cast<std::uint64_t>(axes[0]), height = static_cast<std::uint64_t>(axes[1]);
  if (width > (1ull << 31) || height > (1ull << 31)) check_size(in, kFormat, width, height, PixelFormat::F32);

  int equivalent = 0;
  fits_get_img_equivtype(f.fits, &equivalent, &status);
  double bzero = 0, bscale = 1;
  int key_status = 0;
  fits_read_key_dbl(f.fits, "BZERO", &bzero, nullptr, &key_status);
  key_status = 0;
  fits_read_key_dbl(f.fits, "BSCALE", &bscale, nullptr, &key_status);
  key_status = 0;
  LONGLONG blank = 0;
  const bool has_blank = bitpix > 0 && fits_read_key_lnglng(f.fits, "BLANK", &blank, nullptr, &key_status) == 0;
  const bool scaled = bzero != 0 || bscale != 1;

  SampleType type = SampleType::F32;
  if (!has_blank && equivalent == BYTE_IMG) type = SampleType::U8;
  if (!has_blank && equivalent == USHORT_IMG) type = SampleType::U16;
  const PixelFormat result = make_pixel_format(type, static_cast<int>(channels));
  // cfitsio decompresses a tile-compressed image a tile at a time, into buffers of the tile's
  // declared size (ZTILEn: one larger than the image is possible) and its compressed length; a
// Rice tile's codes must end inside its bytes (cfitsio's decoder reads on past them otherwise).
  // Each tile's compressed bytes (a descriptor in the table: a length and an offset in the heap)
  // are allocated as the descriptor says (fuzz_fits: 539 MB from spaces read as a length): every
  // descriptor must point inside the heap before a tile is read.
  std::uint64_t tile_bytes = 0;
  if (fits_is_compressed_image(f.fits, &status)) {
    const std::uint64_t table_start = in_buffer("the compressed image's table").second;  // its rows hold the descriptors
    const FITSfile& file = *f.fits->Fptr;
    // cfitsio decodes from whichever of these columns it found, and from column 0 when it found none
    // (fuzz_fits: TTYPE0 for TTYPE1, then a malloc of 2.3e18 bytes read from header text).
    if (file.cn_compressed <= 0 && file.cn_gzip_data <= 0 && file.cn_uncompressed <= 0)
      fail(in, kFormat, "the compressed image's table has no COMPRESSED_DATA column (the file is damaged)");
    if (file.zbitpix != 8 && file.zbitpix != 16 && file.zbitpix != 32 && file.zbitpix != 64 && file.zbitpix != -32 &&
        file.zbitpix != -64)
      fail(in, kFormat, "the compressed image's ZBITPIX is " + std::to_string(file.zbitpix) +
                            " (8, 16, 32, 64, -32 or -64); the file is damaged");
    tile_bytes = 2 * static_cast<std::uint64_t>(std::max(file.maxtilelen, 0L)) * sizeof(double);
    for (int column : {file.cn_compressed, file.cn_gzip_data, file.cn_uncompressed}) {
      if (column <= 0) continue;
      int code = 0;
      LONGLONG repeat = 0, element_bytes = 0;
      fits_get_coltypell(f.fits, column, &code, &repeat, &element_bytes, &status);
      for (LONGLONG row = 1; row <= file.numrows && status == 0; ++row) {
        LONGLONG length = 0, offset = 0;
        fits_read_descriptll(f.fits, column, row, &length, &offset, &status);
        if (status != 0 || length < 0 || offset < 0 || element_bytes <= 0 || element_bytes > 16 ||
            length > file.heapsize / element_bytes || offset > file.heapsize - length * element_bytes)
          fail(in, kFormat, "tile " + std::to_string(row) + " of the compressed image points outside the table's heap (the "
                            "file is damaged)");
        tile_bytes = std::max<std::uint64_t>(tile_bytes, 2 * static_cast<std::uint64_t>(file.maxtilelen) * sizeof(double) +
                                                             static_cast<std::uint64_t>(length * element_bytes));
        if (column == file.cn_compressed && file.compress_type == RICE_1 && length > 0)
          check_rice_tile(in, file, row, table_start, length * element_bytes, offset, element_bytes);
      }
    }
    if (status != 0) fail(in, kFormat, "cfitsio: " + fits_message(status));
  }
  const std::uint64_t working = width * sizeof(double) + padded.size() + tile_bytes;
  check_size(in, kFormat, width, height, result, working);

  {  // the data the HDU's header declares (an image, or a compressed image's table) must be in the file
    const auto [head, data_start] = in_buffer("the image's HDU");
    std::uint64_t bytes = declared_data_bytes(in, head, data_start);
    if (!fits_is_compressed_image(f.fits, &status))  // as cfitsio reads the header (it is lenient with damaged cards)
      bytes = std::max<std::uint64_t>(bytes, width * height * static_cast<std::uint64_t>(channels) *
                                                 static_cast<std::uint64_t>(std::abs(bitpix) / 8));
    const std::uint64_t available = in.size > data_start ? in.size - data_start : 0;
    if (bytes > available) fail_too_short(in, kFormat, width, height, bytes, available);
  }

  LoadedImage loaded;
  loaded.format = kFormat;
  loaded.image = allocate_image(in, kFormat, width, height, result, working);
  switch (bitpix) {
    case 8: loaded.source_type = "uint8"; break;
    case 16: loaded.source_type = equivalent == USHORT_IMG ? "uint16" : "int16"; break;
    case 32: loaded.source_type = equivalent == ULONG_IMG ? "uint32" : "int32"; break;
    case 64: loaded.source_type = bscale == 1 && bzero == 9223372036854775808.0 ? "uint64" : "int64"; break;
    case -32: loaded.source_type = "float32"; break;
    default: loaded.source_type = "float64"; break;
  }
  if (equivalent == SBYTE_IMG) loaded.source_type = "int8";

  std::vector<double> row(width);
  std::uint64_t blanks = 0;
  Float32Narrowing narrowing;
  const bool exact_float32 = bitpix == -32 && !scaled;
  // 64-bit integers (BZERO 2^63 and BSCALE 1: unsigned) are read as integers: through float64,
  // which holds 53 bits, 2^62 + 1 would already be 2^62 before its float32 was compared with it.
  const bool unsigned64 = bitpix == 64 && bscale == 1 && bzero == 9223372036854775808.0;
  const bool integer64 = bitpix == 64 && (!scaled || unsigned64);
  const int sample_bytes = static_cast<int>(bytes_per_sample(type));
  for (LONGLONG c = 0; c < channels; ++c)
    for (std::uint64_t y = 0; y < height; ++y) {
      LONGLONG first[3] = {1, static_cast<LONGLONG>(y) + 1, c + 1};
      unsigned char* dst = loaded.image.row<unsigned char>(static_cast<int>(y));
      int any_null = 0;
      if (type == SampleType::U8 || type == SampleType::U16) {
        unsigned char* line = reinterpret_cast<unsigned char*>(row.data());  // a row of doubles holds a row of either
        if (fits_read_pixll(f.fits, type == SampleType::U8 ? TBYTE : TUSHORT, first, static_cast<LONGLONG>(width), nullptr,
                            line, &any_null, &status))
          fail(in, kFormat, "cfitsio could not read row " + std::to_string(y + 1) + ": " + fits_message(status) +
                                " (the file is damaged or truncated)");
        for (std::uint64_t x = 0; x < width; ++x)
          std::memcpy(dst + (x * channels + c) * sample_bytes, line + x * sample_bytes, sample_bytes);
        continue;
      }
      float* out = reinterpret_cast<float*>(dst);
      // Null checking only for BLANK: with it, cfitsio also turns infinities into nulls and
      // subnormals into 0; without it, float samples arrive bit for bit.
      double null_value = std::numeric_limits<double>::quiet_NaN();
      if (exact_float32) {
        float* line = reinterpret_cast<float*>(row.data());
        if (fits_read_pixll(f.fits, TFLOAT, first, static_cast<LONGLONG>(width), nullptr, line, &any_null, &status))
          fail(in, kFormat, "cfitsio could not read row " + std::to_string(y + 1) + ": " + fits_message(status) +
                                " (the file is damaged or truncated)");
        for (std::uint64_t x = 0; x < width; ++x) out[x * channels + c] = line[x];
        continue;
      }
      if (integer64) {
        static_assert(sizeof(LONGLONG) == sizeof(double) && sizeof(ULONGLONG) == sizeof(double),
                      "a row of doubles holds a row of 64-bit integers");
        void* line = row.data();
        if (fits_read_pixll(f.fits, unsigned64 ? TULONGLONG : TLONGLONG, first, static_cast<LONGLONG>(width), nullptr,
                            line, &any_null, &status))
          fail(in, kFormat, "cfitsio could not read row " + std::to_string(y + 1) + ": " + fits_message(status) +
                                " (the file is damaged or truncated)");
        for (std::uint64_t x = 0; x < width; ++x) {
          ULONGLONG u = 0;
          std::memcpy(&u, static_cast<unsigned char*>(line) + x * 8, 8);
          // BLANK names the stored value: for unsigned data, the value less 2^63.
          const LONGLONG stored = static_cast<LONGLONG>(unsigned64 ? u ^ (1ULL << 63) : u);
          if (has_blank && stored == blank) {
            ++blanks;
            out[x * channels + c] = std::numeric_limits<float>::quiet_NaN();
          } else {
            out[x * channels + c] = unsigned64 ? narrowing.narrow(static_cast<std::uint64_t>(u))
                                               : narrowing.narrow(static_cast<std::int64_t>(stored));
          }
        }
        continue;
      }
      if (fits_read_pixll(f.fits, TDOUBLE, first, static_cast<LONGLONG>(width), has_blank ? &null_value : nullptr,
                          row.data(), &any_null, &status))
        fail(in, kFormat, "cfitsio could not read row " + std::to_string(y + 1) + ": " + fits_message(status) +
                              " (the file is damaged or truncated)");
      for (std::uint64_t x = 0; x < width; ++x) {
        if (std::isnan(row[x])) ++blanks;  // only BLANK pixels are NaN in an integer image
        out[x * channels + c] = narrowing.narrow(row[x]);
      }
    }

  if (!where.empty()) add_note(loaded.note, where);
  if (scaled && type == SampleType::F32 && !(bitpix == 16 && equivalent == USHORT_IMG) && !unsigned64)
    add_note(loaded.note, "BZERO " + number_text(bzero) + " and BSCALE " + number_text(bscale) +
                              " applied (v × BSCALE + BZERO)");
  if (type == SampleType::F32 && !exact_float32)
    add_note(loaded.note, loaded.source_type + " samples as float32 (" +
                              narrowing.describe() + ")");
  if (has_blank)
    add_note(loaded.note, "BLANK " + std::to_string(blank) + " pixels as NaN (" + std::to_string(blanks) + " of them)");
  return loaded;
}

void encode_fits(const ConstImageView& image, bool float64, ByteSink& out) {
  const int channels = channel_count(image.format);
  const SampleType type = sample_type(image.format);
  struct Memory {
    void* bytes = nullptr;
    ~Memory() { std::free(bytes); }
  } memory;
  std::size_t size = kBlock;
  memory.bytes = std::malloc(size);
  if (!memory.bytes) throw std::bad_alloc();
  int status = 0;
  fitsfile* fits = nullptr;
  auto failed = [&](const char* what) {
    const std::string message = fits_message(status);
    int ignored = 0;
    if (fits) fits_close_file(fits, &ignored);
    throw ImageSaveError(std::string("cfitsio could not ") + what + ": " + message);
  };
  if (fits_create_memfile(&fits, &memory.bytes, &size, kBlock * 16, std::realloc, &status)) failed("start the file");
  const int bitpix = type == SampleType::U8 ? BYTE_IMG : type == SampleType::U16 ? USHORT_IMG : float64 ? DOUBLE_IMG : FLOAT_IMG;
  LONGLONG axes[3] = {image.width, image.height, channels};
  if (fits_create_imgll(fits, bitpix, channels > 1 ? 3 : 2, axes, &status)) failed("write the header");
  const int datatype = type == SampleType::U8 ? TBYTE : type == SampleType::U16 ? TUSHORT : float64 ? TDOUBLE : TFLOAT;
  const std::size_t sample_bytes = float64 ? 8 : bytes_per_sample(type);
  std::vector<unsigned char> plane_row(static_cast<std::size_t>(image.width) * sample_bytes);
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < image.height; ++y) {
      const unsigned char* src = image.row<unsigned char>(y);
      for (int x = 0; x < image.width; ++x) {
        const unsigned char* s = src + (static_cast<std::size_t>(x) * channels + c) * bytes_per_sample(type);
        unsigned char* d = plane_row.data() + static_cast<std::size_t>(x) * sample_bytes;
        if (float64) {
          float v;
          std::memcpy(&v, s, 4);
          const double wide = v;
          std::memcpy(d, &wide, 8);
        } else {
          std::memcpy(d, s, sample_bytes);
        }
      }
      LONGLONG first[3] = {1, y + 1, c + 1};
      if (fits_write_pixll(fits, datatype, first, image.width, plane_row.data(), &status)) failed("write the pixels");
    }
  LONGLONG head = 0, data_start = 0, data_end = 0;  // data_end: padded to 2880 bytes, the file's length
  if (fits_get_hduaddrll(fits, &head, &data_start, &data_end, &status)) failed("finish the file");
  const int closed = fits_close_file(fits, &status);
  fits = nullptr;
  if (closed) failed("finish the file");
  out.write(memory.bytes, std::min<std::size_t>(size, static_cast<std::size_t>(data_end)));
}

}  // namespace gausslab::codec
