#!/usr/bin/env python3
"""Writes the small image files in tests/data/formats (valid files of every layout the loader
reads) and tests/data/malformed (damaged, hostile and refused files, each named after what is
wrong with it). They are committed; this script documents how each was made and can remake them
(the same bytes: everything is deterministic). Also the seed corpus of the image fuzz target.

Valid files come from PIL and OpenCV where they write the layout, and from the small writers
below where they do not (Adam7 PNG, 16-bit BMP, RLE and colour-mapped TGA, plain PNM).

usage: python3 tests/data/make_format_samples.py [--out tests/data]
"""
import argparse
import io
import os
import struct
import zlib

import numpy as np
from PIL import Image

W, H = 23, 17  # odd sides: row padding and partial blocks everywhere


def gradient(channels, bits=8, seed=1):
    rng = np.random.default_rng(seed)
    top = (1 << bits) - 1
    y, x = np.mgrid[0:H, 0:W]
    base = (x * top // (W - 1) + y * 7) % (top + 1)
    planes = [(base + rng.integers(0, top // 8 + 1, size=(H, W)) * c) % (top + 1) for c in range(channels)]
    dtype = np.uint8 if bits <= 8 else np.uint16
    out = np.stack(planes, axis=-1).astype(dtype)
    out[0, 0] = 0
    out[-1, -1] = top  # both ends of the range
    return out if channels > 1 else out[:, :, 0]


# ---- PNG ---------------------------------------------------------------------------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_file(width, height, bit_depth, colour_type, raw_rows, interlace=0, extra=b""):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra +
            png_chunk(b"IDAT", zlib.compress(raw_rows, 9)) + png_chunk(b"IEND", b""))


def png_adam7(pixels, bit_depth, colour_type):
    """An interlaced PNG (PIL cannot write one): the seven Adam7 passes, filter 0."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    big = pixels.astype(">u2") if bit_depth == 16 else pixels
    for x0, y0, dx, dy in passes:
        sub = big[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub:
            raw += b"\x00" + row.tobytes()
    h, w = pixels.shape[:2]
    return png_file(w, h, bit_depth, colour_type, raw, interlace=1)


def png_rows(pixels):
    big = pixels.astype(">u2") if pixels.dtype == np.uint16 else pixels
    return b"".join(b"\x00" + row.tobytes() for row in big)


# ---- BMP ---------------------------------------------------------------------------------------

def bmp_file(width, height, bits, rows, palette=b"", compression=0, header_size=40, masks=b"", top_down=False):
    stride = (width * bits + 31) // 32 * 4
    data = b"".join(r.ljust(stride, b"\0") for r in rows)
    info = struct.pack("<IiiHHIIiiII", header_size, width, -height if top_down else height, 1, bits, compression,
                       len(data), 2835, 2835, len(palette) // 4, 0)
    if header_size > 40:
        info += masks.ljust(header_size - 40, b"\0")
        masks = b""
    offset = 14 + len(info) + len(masks) + len(palette)
    return b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + masks + palette + data


def bmp_rows_bottom_up(rows):
    return list(reversed(rows))


# ---- TGA ---------------------------------------------------------------------------------------

def tga_header(image_type, width, height, depth, descriptor=0, map_type=0, map_first=0, map_length=0, map_bits=0):
    return struct.pack("<BBBHHBHHHHBB", 0, map_type, image_type, map_first, map_length, map_bits, 0, 0, width, height,
                       depth, descriptor)


def tga_rle(pixels_bytes, pixel_size, width=W):
    """RLE packets row by row (the spec: no packet crosses a row): runs of equal pixels as run
    packets, the rest as raw packets (<= 128 each)."""
    row = width * pixel_size
    if len(pixels_bytes) > row:
        return b"".join(tga_rle(pixels_bytes[i:i + row], pixel_size, width) for i in range(0, len(pixels_bytes), row))
    px = [pixels_bytes[i:i + pixel_size] for i in range(0, len(pixels_bytes), pixel_size)]
    out, i = b"", 0
    while i < len(px):
        run = 1
        while i + run < len(px) and run < 128 and px[i + run] == px[i]:
            run += 1
        if run > 1:
            out += bytes([0x80 | (run - 1)]) + px[i]
            i += run
            continue
        raw = 1
        while i + raw < len(px) and raw < 128 and px[i + raw] != px[i + raw - 1]:
            raw += 1
        out += bytes([raw - 1]) + b"".join(px[i:i + raw])
        i += raw
    return out


# ---- GIF ---------------------------------------------------------------------------------------

def gif_lzw(indices, min_code_size):
    """An uncompressed LZW stream: a clear code before every pair of literals keeps the code width."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    width = min_code_size + 1
    bits, nbits, out = 0, 0, bytearray()

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8

    for i, v in enumerate(indices):
        if i % 2 == 0:
            emit(clear)
        emit(v)
    emit(end)
    if nbits:
        out.append(bits & 0xFF)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + bytes(out[i:i + 255]) for i in range(0, len(out), 255))
    return bytes([min_code_size]) + blocks + b"\0"


def gif_file(width, height, palette_rgb, indices, min_code_size=2):
    size_field = (len(palette_rgb) // 3).bit_length() - 2
    screen = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | size_field, 0, 0) + palette_rgb
    image = b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + gif_lzw(indices, min_code_size)
    return screen + image + b";"


# ---- the files ---------------------------------------------------------------------------------

def valid_files():
    f = {}
    rgb, rgba, grey = gradient(3), gradient(4), gradient(1)
    grey16, rgb16 = gradient(1, 16, seed=2), gradient(3, 16, seed=3)

    def pil(image, fmt, **options):
        buf = io.BytesIO()
        image.save(buf, fmt, **options)
        return buf.getvalue()

    f["png_grey8.png"] = pil(Image.fromarray(grey, "L"), "PNG")
    f["png_grey_alpha8.png"] = pil(Image.fromarray(gradient(2), "LA"), "PNG")
    f["png_rgb8.png"] = pil(Image.fromarray(rgb, "RGB"), "PNG")
    f["png_rgba8.png"] = pil(Image.fromarray(rgba, "RGBA"), "PNG")
    f["png_grey16.png"] = png_file(W, H, 16, 0, png_rows(grey16))
    f["png_rgb16.png"] = png_file(W, H, 16, 2, png_rows(rgb16))
    f["png_rgba16.png"] = png_file(W, H, 16, 6, png_rows(gradient(4, 16, seed=4)))
    f["png_grey1.png"] = pil(Image.fromarray(grey > 128).convert("1"), "PNG")
    pal = Image.fromarray(rgb, "RGB").quantize(colors=12)
    f["png_palette4.png"] = pil(pal, "PNG", bits=4)
    f["png_palette_trns.png"] = pil(pal, "PNG", transparency=bytes([255, 0] + [128] * 10))
    f["png_rgb_trns.png"] = pil(Image.fromarray(rgb, "RGB"), "PNG", transparency=tuple(int(v) for v in rgb[3, 5]))
    f["png_interlaced_rgb8.png"] = png_adam7(rgb, 8, 2)
    f["png_interlaced_grey16.png"] = png_adam7(grey16, 16, 0)

    f["jpeg_grey.jpg"] = pil(Image.fromarray(grey, "L"), "JPEG", quality=90)
    f["jpeg_rgb420.jpg"] = pil(Image.fromarray(rgb, "RGB"), "JPEG", quality=85)
    f["jpeg_rgb444.jpg"] = pil(Image.fromarray(rgb, "RGB"), "JPEG", quality=95, subsampling=0)
    f["jpeg_progressive.jpg"] = pil(Image.fromarray(rgb, "RGB"), "JPEG", quality=80, progressive=True)
    f["jpeg_cmyk.jpg"] = pil(Image.fromarray(rgba, "RGBA").convert("CMYK"), "JPEG", quality=90)

    f["tiff_grey8.tif"] = pil(Image.fromarray(grey, "L"), "TIFF")
    f["tiff_grey16.tif"] = pil(Image.fromarray(grey16, "I;16"), "TIFF")
    f["tiff_grey16_lzw.tif"] = pil(Image.fromarray(grey16, "I;16"), "TIFF", compression="tiff_lzw")
    f["tiff_float32.tif"] = pil(Image.fromarray((grey.astype(np.float32) / 255.0 * 1.2 - 0.1), "F"), "TIFF")
    f["tiff_rgb8_deflate.tif"] = pil(Image.fromarray(rgb, "RGB"), "TIFF", compression="tiff_adobe_deflate")
    f["tiff_rgba8_packbits.tif"] = pil(Image.fromarray(rgba, "RGBA"), "TIFF", compression="packbits")
    f["tiff_palette.tif"] = pil(pal, "TIFF")
    f["tiff_bilevel_g4.tif"] = pil(Image.fromarray(grey > 128).convert("1"), "TIFF", compression="group4")
    try:
        import cv2  # 16-bit RGB TIFF (PIL cannot write it)
        ok, data = cv2.imencode(".tif", rgb16[:, :, ::-1].copy())
        if ok:
            f["tiff_rgb16.tif"] = data.tobytes()
    except ImportError:
        pass

    f["bmp_1bit.bmp"] = pil(Image.fromarray(grey > 128).convert("1"), "BMP")
    f["bmp_8bit_palette.bmp"] = pil(pal.convert("P"), "BMP")
    f["bmp_8bit_grey.bmp"] = pil(Image.fromarray(grey, "L"), "BMP")
    f["bmp_24bit.bmp"] = pil(Image.fromarray(rgb, "RGB"), "BMP")
    f["bmp_32bit.bmp"] = pil(Image.fromarray(rgba, "RGBA"), "BMP")
    # 4-bit palette, top-down; 16-bit 5-6-5 BI_BITFIELDS; 32-bit BI_BITFIELDS with alpha (V5 header).
    idx4 = (grey // 16).astype(np.uint8)
    palette16 = b"".join(bytes([i * 16, 255 - i * 16, (i * 40) % 256, 0]) for i in range(16))
    rows4 = [bytes((int(r[x]) << 4) | (int(r[x + 1]) if x + 1 < W else 0) for x in range(0, W, 2)) for r in idx4]
    f["bmp_4bit_top_down.bmp"] = bmp_file(W, H, 4, rows4, palette16, top_down=True)
    r5, g6, b5 = rgb[:, :, 0] >> 3, rgb[:, :, 1] >> 2, rgb[:, :, 2] >> 3
    p565 = ((r5.astype(np.uint16) << 11) | (g6.astype(np.uint16) << 5) | b5).astype("<u2")
    f["bmp_16bit_565.bmp"] = bmp_file(W, H, 16, bmp_rows_bottom_up([r.tobytes() for r in p565]), compression=3,
                                      masks=struct.pack("<III", 0xF800, 0x07E0, 0x001F))
    bgra = rgba[:, :, [2, 1, 0, 3]]
    f["bmp_32bit_v5_alpha.bmp"] = bmp_file(
        W, H, 32, bmp_rows_bottom_up([r.tobytes() for r in bgra]), compression=3, header_size=124,
        masks=struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000))

    f["tga_rgb24.tga"] = pil(Image.fromarray(rgb, "RGB"), "TGA")
    f["tga_rgba32_rle.tga"] = pil(Image.fromarray(rgba, "RGBA"), "TGA", compression="tga_rle")
    f["tga_grey8.tga"] = pil(Image.fromarray(grey, "L"), "TGA")
    f["tga_grey_alpha16.tga"] = pil(Image.fromarray(gradient(2), "LA"), "TGA")
    f["tga_palette.tga"] = pil(pal.convert("P"), "TGA")
    # Top-down, right-to-left, RLE true colour with long runs.
    flat = np.repeat(rgb[:, ::4], 4, axis=1)[:, :W]
    px = flat[:, ::-1, ::-1].astype(np.uint8).tobytes()  # right-to-left, BGR
    f["tga_rgb24_rle_top_right.tga"] = tga_header(10, W, H, 24, 0x30) + tga_rle(px, 3)
    # Colour-mapped RLE with a 24-bit map starting at entry 3.
    cmap = b"".join(bytes([(i * 37) % 256, (i * 91) % 256, (i * 13) % 256]) for i in range(8))
    idx = ((grey // 32) + 3).astype(np.uint8)[::-1].tobytes()  # bottom-up
    f["tga_colormap_rle.tga"] = tga_header(9, W, H, 8, 0, 1, 3, 8, 24) + cmap + tga_rle(idx, 1)
    p1555 = ((rgb[:, :, 0].astype(np.uint16) >> 3 << 10) | (rgb[:, :, 1].astype(np.uint16) >> 3 << 5) |
             (rgb[:, :, 2].astype(np.uint16) >> 3)).astype("<u2")
    f["tga_rgb16.tga"] = tga_header(2, W, H, 16, 0x20) + p1555.tobytes()

    f["pnm_p4.pbm"] = pil(Image.fromarray(grey > 128).convert("1"), "PPM")
    f["pnm_p5.pgm"] = pil(Image.fromarray(grey, "L"), "PPM")
    f["pnm_p6.ppm"] = pil(Image.fromarray(rgb, "RGB"), "PPM")
    f["pnm_p5_16bit.pgm"] = b"P5\n%d %d\n65535\n" % (W, H) + grey16.astype(">u2").tobytes()
    f["pnm_p6_16bit.ppm"] = b"P6 %d %d 65535\n" % (W, H) + rgb16.astype(">u2").tobytes()
    g1023 = (grey16 >> 6).astype(np.uint16)
    f["pnm_p5_maxval1023.pgm"] = b"P5\n# ten bits\n%d %d\n1023\n" % (W, H) + g1023.astype(">u2").tobytes()
    f["pnm_p1.pbm"] = b"P1\n# plain bitmap\n%d %d\n" % (W, H) + b"\n".join(
        b"".join(b"1" if v > 128 else b"0" for v in row) for row in grey) + b"\n"
    f["pnm_p2_maxval15.pgm"] = b"P2\n%d %d\n15\n" % (W, H) + b"\n".join(
        b" ".join(b"%d" % (v // 17) for v in row) for row in grey) + b"\n"
    f["pnm_p3.ppm"] = b"P3 %d %d 255\n" % (W, H) + b"\n".join(
        b" ".join(b"%d %d %d" % tuple(p) for p in row) for row in rgb) + b"\n"

    f["gif_palette.gif"] = pil(pal.convert("P"), "GIF")
    f["gif_interlaced.gif"] = pil(pal.convert("P"), "GIF", interlace=True)
    f.update(wide_files(rgb, rgba, grey, grey16))
    return f


def wide_files(rgb, rgba, grey, grey16):
    """The 16-bit, half and float files PIL cannot write (tests/cpu/check_image_types.py compares
    each with tifffile, astropy, NumPy or OpenCV)."""
    import cv2
    import tifffile
    from astropy.io import fits
    f = {}
    rgb_f = (rgb.astype(np.float32) / 255 * 1.5 - 0.25)
    rgb_f[0, 0] = [np.nan, np.inf, -0.0]

    def tiff(data, **options):
        buf = io.BytesIO()
        tifffile.imwrite(buf, data, **options)
        return buf.getvalue()

    f["tiff_rgb16f.tif"] = tiff(rgb_f.astype(np.float16), photometric="rgb", compression="zlib")
    f["tiff_rgba16_tiled_planar.tif"] = tiff(np.moveaxis(gradient(4, 16, seed=5), -1, 0), photometric="rgb",
                                             planarconfig="separate", tile=(16, 16), compression="zlib",
                                             extrasamples=["unassalpha"])
    rgba_h = np.concatenate([rgb_f, rgba[:, :, 3:].astype(np.float32) / 255], axis=2).astype(np.float16)
    f["exr_half_rgba.exr"] = cv2.imencode(".exr", rgba_h[:, :, [2, 1, 0, 3]].astype(np.float32),
                                          [cv2.IMWRITE_EXR_TYPE, cv2.IMWRITE_EXR_TYPE_HALF])[1].tobytes()
    f["exr_float_grey.exr"] = cv2.imencode(".exr", rgb_f[:, :, 1].copy())[1].tobytes()

    def fits_bytes(data):
        buf = io.BytesIO()
        fits.PrimaryHDU(data).writeto(buf)
        return buf.getvalue()

    f["fits_uint16.fits"] = fits_bytes(grey16)
    f["fits_float64_rgb_cube.fits"] = fits_bytes(np.moveaxis(rgb.astype(np.float64) / 255, -1, 0))

    def npy(data):
        buf = io.BytesIO()
        np.save(buf, data)
        return buf.getvalue()

    f["npy_uint16_rgb.npy"] = npy(gradient(3, 16, seed=6))
    f["npy_float32_grey.npy"] = npy(rgb_f[:, :, 0].copy())
    f["npy_float16_grey_alpha.npy"] = npy(rgba_h[:, :, [0, 3]].copy())
    f["pfm_rgb.pfm"] = b"PF\n%d %d\n-1.0\n" % (W, H) + rgb_f[::-1].astype("<f4").tobytes()
    f["pfm_grey_big_endian.pfm"] = b"Pf\n%d %d\n1.0\n" % (W, H) + rgb_f[::-1, :, 2].astype(">f4").tobytes()
    return f


def tiff_with_strip_counts_cut(data, keep):
    """The TIFF with every StripByteCounts entry cut to `keep` of its value: strips that end early."""
    import tifffile
    data = bytearray(data)
    with tifffile.TiffFile(io.BytesIO(bytes(data))) as t:
        tag = t.pages[0].tags["StripByteCounts"]
        counts = list(tag.value) if isinstance(tag.value, (tuple, list)) else [tag.value]
        at = tag.valueoffset
        for i, n in enumerate(counts):
            struct.pack_into("<I", data, at + 4 * i, int(n * keep))
    return bytes(data)


def damaged_tiffs():
    """Pixel data that libtiff's fax and JPEG decoders 'recover' with blank or grey rows (issue #40)."""
    from PIL import ImageDraw
    f = {}
    bilevel = Image.new("1", (256, 300), 1)
    draw = ImageDraw.Draw(bilevel)
    for i in range(0, 300, 7):
        draw.line([(0, i), (255, (i * 3) % 300)], fill=0)
    draw.ellipse([20, 20, 230, 280], outline=0)
    buf = io.BytesIO()
    bilevel.save(buf, "TIFF", compression="group4")
    f["tiff_g4_strip_cut_to_a_third.tif"] = tiff_with_strip_counts_cut(buf.getvalue(), 1 / 3)
    y, x = np.mgrid[0:200, 0:160]
    photo = np.stack([(x * 1.5).astype(np.uint8), y.astype(np.uint8), ((x ^ y) * 3 % 256).astype(np.uint8)], axis=-1)
    buf = io.BytesIO()
    Image.fromarray(photo, "RGB").save(buf, "TIFF", compression="jpeg", quality=90)
    f["tiff_jpeg_strips_cut.tif"] = tiff_with_strip_counts_cut(buf.getvalue(), 0.4)
    # 130 bytes declaring 32768×32767 bilevel G4 pixels (4.3 GB decoded as RGBA8) in a 20-byte strip.
    entries = [(256, 4, 32768), (257, 4, 32767), (258, 3, 1), (259, 3, 4), (262, 3, 0), (273, 4, 118),
               (278, 4, 32767), (279, 4, 20)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", t, k, 1, v) for t, k, v in entries) + bytes(4)
    f["tiff_g4_130_bytes_32768x32767.tif"] = b"II*\0" + struct.pack("<I", 8) + ifd + bytes(20)
    return f


def malformed_files(valid):
    """Name → bytes. Each file is named after what is wrong with it; the tests expect an error."""
    f = {}
    png = valid["png_rgb8.png"]
    # A palette of 2 entries and pixels that use entry 5.
    f["png_palette_index_out_of_range.png"] = png_file(
        4, 2, 8, 3, b"\0\0\1\5\1\0\1\1\0\0", extra=png_chunk(b"PLTE", b"\xff\0\0\0\xff\0"))
    f["png_huge_header.png"] = png_file(100000, 100000, 8, 2, b"\0" * 64)
    f["png_header_bigger_than_data.png"] = png_file(20000, 20000, 8, 6, b"\0" * 64)
    f["png_truncated.png"] = png[: len(png) // 2]
    f["png_idat_too_short.png"] = png_file(W, H, 8, 2, png_rows(gradient(3))[: W * 3 * 5])
    idat = png.index(b"IDAT") + 10  # a byte of the compressed data: the chunk's CRC no longer matches
    f["png_bad_crc.png"] = png[:idat] + bytes([png[idat] ^ 0xFF]) + png[idat + 1:]

    jpg = valid["jpeg_rgb420.jpg"]
    f["jpeg_truncated.jpg"] = jpg[: len(jpg) * 2 // 3]
    f["jpeg_no_end_marker.jpg"] = jpg[:-2]
    # A Huffman table whose counts add up to more than 256 codes.
    dht = b"\xff\xc4" + struct.pack(">H", 2 + 1 + 16 + 400) + b"\x00" + bytes([0] * 14 + [200, 200]) + bytes(400)
    f["jpeg_huffman_table_over_256_codes.jpg"] = b"\xff\xd8" + dht + jpg[2:]
    sof_at = jpg.index(b"\xff\xc0")
    f["jpeg_huge_header.jpg"] = jpg[:sof_at + 5] + struct.pack(">HH", 60000, 60000) + jpg[sof_at + 9:]
    prog = valid["jpeg_progressive.jpg"]
    f["jpeg_progressive_truncated.jpg"] = prog[: len(prog) // 2]

    bmp = valid["bmp_24bit.bmp"]
    f["bmp_truncated.bmp"] = bmp[: len(bmp) - 200]
    f["bmp_palette_index_out_of_range.bmp"] = bmp_file(4, 1, 8, [bytes([0, 1, 2, 7])], b"\0\0\xff\0\0\xff\0\0")
    f["bmp_huge_header.bmp"] = bmp_file(30000, 30000, 24, [b"\0" * 12])[:200]
    f["bmp_rle8.bmp"] = bmp_file(4, 1, 8, [b"\x04\x01\x00\x01"], b"\0\0\xff\0" * 2, compression=1)
    f["bmp_bad_header_size.bmp"] = bmp[:14] + struct.pack("<I", 77) + bmp[18:]

    f["tga_70_bytes_29801x11877.tga"] = (tga_header(2, 29801, 11877, 24) + bytes(range(52)))[:70]
    tga = valid["tga_rgb24.tga"]
    f["tga_truncated.tga"] = tga[: len(tga) - 100]
    cmap = b"\0\0\xff\xff\0\0"
    f["tga_colormap_index_out_of_range.tga"] = tga_header(1, 2, 1, 8, 0, 1, 0, 2, 24) + cmap + b"\x00\x05"
    f["tga_rle_truncated.tga"] = valid["tga_rgba32_rle.tga"][:-60]

    f["pnm_truncated.ppm"] = valid["pnm_p6.ppm"][:-50]
    f["pnm_value_above_maxval.pgm"] = b"P2\n2 1\n15\n3 200\n"
    f["pnm_16bit_truncated.pgm"] = valid["pnm_p5_16bit.pgm"][:-1]
    f["pnm_huge_header.ppm"] = b"P6\n1000000 1000000\n255\n" + bytes(100)
    f["pnm_maxval_zero.pgm"] = b"P5\n2 2\n0\n\0\0\0\0"

    gif_pal = b"\0\0\0\xff\xff\xff"  # two colours
    f["gif_index_out_of_range.gif"] = gif_file(4, 1, gif_pal, [0, 1, 3, 2])
    g = valid["gif_palette.gif"]
    f["gif_truncated.gif"] = g[: len(g) - 40]

    tif = valid["tiff_grey16.tif"]
    f["tiff_truncated.tif"] = tif[: len(tif) // 2]
    # Its first directory (9 entries at byte 8, before the samples) cut after 3 entries, and the
    # header pointing at a directory beyond the file's end: libtiff cannot read the directory.
    f["tiff_directory_cut_short.tif"] = tif[: 8 + 2 + 3 * 12]
    f["tiff_directory_beyond_the_file.tif"] = tif[:4] + struct.pack("<I", len(tif) + 4096) + tif[8:]
    f["tiff_huge_header.tif"] = (b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", 6) +
                                 struct.pack("<HHII", 256, 4, 1, 200000) + struct.pack("<HHII", 257, 4, 1, 200000) +
                                 struct.pack("<HHII", 258, 3, 1, 8) + struct.pack("<HHII", 262, 3, 1, 1) +
                                 struct.pack("<HHII", 273, 4, 1, 100) + struct.pack("<HHII", 279, 4, 1, 10) +
                                 b"\0\0\0\0" + bytes(30))

    rle_hdr = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 64\n" + b"\x02\x02\x00\x40" + b"\x80\x10"
    f["hdr_truncated_rle.hdr"] = rle_hdr
    f["psd_truncated.psd"] = b"8BPS\0\x01" + bytes(6) + b"\0\x03\0\0\0\x10\0\0\0\x10\0\x08\0\x03" + bytes(8)
    f["pic_refused.pic"] = b"\x53\x80\xf6\x34" + bytes(84) + b"PICT" + bytes(20)
    f["png_zero_width.png"] = png_file(0, 5, 8, 0, b"\0" * 5)
    f["pnm_zero_size.pgm"] = b"P5\n0 0\n255\n"
    f["tga_zero_height.tga"] = tga_header(2, 4, 0, 24) + bytes(12)
    # 35 bytes declaring a 32768×32767 logical screen with a 1×1 frame (4.2 GB decoded, issue #40).
    f["gif_35_bytes_32768x32767.gif"] = (b"GIF89a" + struct.pack("<HHBBB", 32768, 32767, 0x80, 0, 0) + bytes(6) + b"," +
                                         struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00;")
    f.update(damaged_tiffs())
    for name in ("exr_half_rgba.exr", "npy_uint16_rgb.npy", "pfm_rgb.pfm"):
        kind, ext = name.split("_")[0], name.rsplit(".", 1)[1]
        f[f"{kind}_truncated.{ext}"] = valid[name][: len(valid[name]) * 2 // 3]
    f["fits_truncated.fits"] = valid["fits_uint16.fits"][:2880 + W * H]  # half of the 16-bit samples
    f["npy_five_channels.npy"] = b"\x93NUMPY\x01\x00v\x00" + (
        b"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 5), }".ljust(117) + b"\n") + bytes(30)
    f["pfm_huge_header.pfm"] = b"PF\n100000 100000\n-1.0\n" + bytes(64)
    f["text_named_png.png"] = b"this is not a picture\n"
    f["empty.png"] = b""
    return f


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    valid = valid_files()
    for folder, files in (("formats", valid), ("malformed", malformed_files(valid))):
        os.makedirs(os.path.join(args.out, folder), exist_ok=True)
        for name, data in sorted(files.items()):
            with open(os.path.join(args.out, folder, name), "wb") as out:
                out.write(data)
        print(f"{folder}: {len(files)} files, {sum(len(d) for d in files.values())} bytes")


if __name__ == "__main__":
    main()
