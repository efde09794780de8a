#!/usr/bin/env python3
"""Every pixel type through every image file format, against readers and writers nobody here wrote:
NumPy (.npy), tifffile (TIFF), astropy (FITS), OpenCV (16-bit PNG and PNM, PFM, OpenEXR through
OpenCV's own OpenEXR client code) and OpenEXR's exrheader.

1. Round trips: an image of each type a format holds (u8, u16, f16, f32; 1-4 channels; 13x7, with
   NaN, infinities, -0 and subnormals among the floats) written by gausslab and read back by gausslab
   is bit-exact (alpha dropped where the format has none, grey as RGB in BMP); float64 is written
   back as float64 where asked (FITS, NPY).
2. gausslab's files read by the peer readers give the same samples, bit for bit.
3. The peers' files (tiles, separate planes, Deflate/LZW, big-endian, Fortran order, BZERO/BSCALE,
   BLANK, min-is-white, premultiplied alpha, float64, signed integers) read by gausslab give the
   samples the peer wrote, converted as the note says.
4. Damaged and unwritable cases are refused with a message naming the file (and, for a type a
   format cannot hold, the formats that can).

Skips (exit 77) when NumPy, tifffile, astropy or OpenCV is missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
try:
    import numpy as np
    import tifffile
    from astropy.io import fits
    import cv2
except ImportError as missing:
    print(f"skipped: {missing} (install python3-numpy, python3-tifffile, python3-astropy and python3-opencv)")
    sys.exit(77)

DTYPES = {"u8": np.uint8, "u16": np.dtype("<u2"), "f16": np.dtype("<f2"), "f32": np.dtype("<f4")}
# What each format writes (image_io.hpp's table) and whether it keeps alpha.
WRITES = {
    "png": ("u8", "u16"), "tif": ("u8", "u16", "f16", "f32"), "pnm": ("u8", "u16"), "pfm": ("f32",),
    "exr": ("f16", "f32"), "fits": ("u8", "u16", "f32"), "npy": ("u8", "u16", "f16", "f32"),
    "bmp": ("u8",), "tga": ("u8",),
}
NO_ALPHA = ("pnm", "pfm")
FAILURES = []


def check(what, ok, detail=""):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        FAILURES.append(f"{what}: {detail}")


class Tool:
    def __init__(self, path):
        self.path = path

    def samples(self, path):
        """(info, array of shape (h, w, c)) or (None, message)."""
        run = subprocess.run([self.path, "samples", path], capture_output=True, timeout=120)
        if run.returncode != 0:
            return None, run.stderr.decode(errors="replace").strip()
        header, _, data = run.stdout.partition(b"\n")
        info = json.loads(header)
        a = np.frombuffer(data, DTYPES[info["type"]]).reshape(info["height"], info["width"], info["channels"])
        return info, a

    def convert(self, source, target, *flags):
        run = subprocess.run([self.path, "convert", source, target, "--overwrite", *flags], capture_output=True,
                             timeout=120)
        return run.returncode, run.stderr.decode(errors="replace").strip()


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize and a.tobytes() == b.tobytes()


def random_image(kind, channels, rng, h=7, w=13):
    if kind == "u8":
        a = rng.integers(0, 256, (h, w, channels), dtype=np.uint8)
    elif kind == "u16":
        a = rng.integers(0, 65536, (h, w, channels), dtype=np.uint16)
        a.flat[:2] = [0, 65535]
    else:
        a = (rng.standard_normal((h, w, channels)) * 100).astype(DTYPES[kind])
        special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-7 if kind == "f16" else 1e-40, 65504 if kind == "f16" else 3e38]
        a.flat[:len(special)] = np.array(special).astype(DTYPES[kind])
    return a


def save_npy(path, a):
    np.save(path, a[:, :, 0] if a.shape[2] == 1 else a)


def expected_after(fmt, a):
    """What gausslab writes into `fmt` for `a` and reads back."""
    c = a.shape[2]
    if fmt in NO_ALPHA and c in (2, 4):
        a = a[:, :, :c - 1]
    if fmt == "bmp":  # 8-bit grey indices for grey, 24-bit RGB, 32-bit RGBA for alpha (grey+alpha too)
        if a.shape[2] == 2:
            a = np.concatenate([a[:, :, :1]] * 3 + [a[:, :, 1:2]], axis=2)
    return a


def peer_read(fmt, path, channels):
    """The samples a peer reader gives for a file gausslab wrote (shape (h, w, c)), or None."""
    if fmt == "tif":
        with tifffile.TiffFile(path) as t:
            a = t.asarray()
            if t.pages[0].planarconfig == tifffile.PLANARCONFIG.SEPARATE:
                a = np.moveaxis(a, 0, -1)
    elif fmt == "npy":
        a = np.load(path)
    elif fmt == "fits":
        with fits.open(path) as f:
            a = f[0].data
            a = np.moveaxis(a, 0, -1) if a.ndim == 3 else a
            a = a.astype(a.dtype.newbyteorder("="))
    elif fmt in ("png", "pnm", "pfm", "exr"):
        a = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if a is None:
            return None
        if a.ndim == 3 and a.shape[2] >= 3:  # OpenCV's channel order is BGR(A)
            a = a[:, :, [2, 1, 0, 3][:a.shape[2]]]
        if fmt == "png" and channels == 2 and a.ndim == 3:  # OpenCV expands grey+alpha to BGRA
            a = a[:, :, [0, 3]]
    else:
        return None
    return a[:, :, None] if a.ndim == 2 else a


def check_round_trips(tool, scratch):
    print("round trips through gausslab's writers and readers, and the peers' readers:")
    rng = np.random.default_rng(35)
    for fmt, kinds in WRITES.items():
        for kind in kinds:
            for channels in (1, 2, 3, 4):
                a = random_image(kind, channels, rng)
                source = os.path.join(scratch, f"src-{kind}-{channels}.npy")
                save_npy(source, a)
                out = os.path.join(scratch, f"out-{kind}-{channels}.{fmt}")
                status, message = tool.convert(source, out)
                name = f"{fmt} {kind} x{channels}"
                if status != 0:
                    check(f"{name}: written", False, message)
                    continue
                want = expected_after(fmt, a)
                info, back = tool.samples(out)
                if info is None:
                    check(f"{name}: read back", False, back)
                    continue
                check(f"{name}: gausslab reads back its samples bit for bit", same_bits(back, want),
                      f"type {info['type']} shape {back.shape}")
                if fmt in ("bmp", "tga"):
                    continue
                if fmt == "exr" and kind == "f16":
                    peer = peer_read(fmt, out, channels)  # OpenCV gives halves as float32
                    ok = peer is not None and same_bits(peer.astype(np.float16), want)
                else:
                    peer = peer_read(fmt, out, channels)
                    ok = peer is not None and same_bits(peer.astype(peer.dtype.newbyteorder("<")), want)
                check(f"{name}: the peer reader gives the same samples", ok,
                      "unreadable" if peer is None else f"peer {peer.dtype} {peer.shape}")
    # float64 written back as float64 where asked.
    wide = rng.standard_normal((7, 13)) * 1e3
    src = os.path.join(scratch, "f64.npy")
    np.save(src, wide)
    for fmt in ("npy", "fits"):
        out = os.path.join(scratch, f"f64-out.{fmt}")
        status, message = tool.convert(src, out, "--float64")
        peer = peer_read(fmt, out, 1) if status == 0 else None
        check(f"float64 npy -> {fmt} --float64: float64 samples equal to the float32 ones it filters",
              peer is not None and peer.dtype.kind == "f" and peer.dtype.itemsize == 8 and
              np.array_equal(peer[:, :, 0], wide.astype(np.float32).astype(np.float64)), message)
        status, message = tool.convert(src, os.path.join(scratch, "f64-out.tif"), "--float64")
        check("float64 into TIFF is refused naming fits and npy", status == 1 and "fits or npy" in message, message)
    # Uncompressed TIFF and EXR.
    a = random_image("f32", 3, rng)
    save_npy(os.path.join(scratch, "plain.npy"), a)
    for fmt in ("tif", "exr"):
        out = os.path.join(scratch, f"plain.{fmt}")
        status, message = tool.convert(os.path.join(scratch, "plain.npy"), out, "--uncompressed")
        info, back = tool.samples(out) if status == 0 else (None, message)
        check(f"uncompressed {fmt} round trip", info is not None and same_bits(back, a), str(message))
    exr = os.path.join(scratch, "out-f16-4.exr")
    run = subprocess.run(["exrheader", exr], capture_output=True, text=True) if os.path.exists(exr) else None
    if run is None or run.returncode != 0 and "No such file" in (run.stderr or ""):
        print("  (exrheader not installed: install the openexr package)")
    else:
        check("exrheader reads gausslab's EXR: 4 half channels A, B, G, R, zip", run.returncode == 0 and
              run.stdout.count("16-bit floating-point") == 4 and "zip" in run.stdout, run.stdout + run.stderr)


def check_peer_files(tool, scratch):
    print("files the peers wrote, read by gausslab:")
    rng = np.random.default_rng(40)

    def read(path):
        info, a = tool.samples(path)
        if info is None:
            check(f"{os.path.basename(path)}: read", False, a)
        return info, a

    # TIFF: tiles, separate planes, compressions, every type.
    for kind in ("u8", "u16", "f16", "f32"):
        for channels in (1, 3, 4):
            a = random_image(kind, channels, rng, 37, 41)
            extra = {"extrasamples": ["unassalpha"]} if channels == 4 else {}
            photometric = "rgb" if channels >= 3 else "minisblack"
            for variant, options in (("strips-deflate", {"compression": "zlib", "rowsperstrip": 5}),
                                     ("tiles-deflate", {"compression": "zlib", "tile": (16, 16)}),
                                     ("planes", {"planarconfig": "separate"})):
                path = os.path.join(scratch, f"tifffile-{kind}-{channels}-{variant}.tif")
                data = a[:, :, 0] if channels == 1 else np.moveaxis(a, -1, 0) if variant == "planes" else a
                opts = {k: v for k, v in options.items() if v is not None}
                if variant == "planes" and channels == 1:
                    continue
                tifffile.imwrite(path, data, photometric=photometric, **opts, **extra)
                info, back = read(path)
                if info:
                    check(f"tifffile {kind} x{channels} {variant}: same samples", same_bits(back, a) and not info["note"],
                          info["note"])
    # More pages or frames than the one read: the first, and a note that says so.
    pages = rng.integers(0, 65536, (3, 9, 11), dtype=np.uint16)
    for i, page in enumerate(pages):  # three pages of 9 x 11
        tifffile.imwrite(os.path.join(scratch, "pages.tif"), page, photometric="minisblack", append=i > 0)
    info, back = read(os.path.join(scratch, "pages.tif"))
    if info:
        check("tifffile three pages: page 1, and the note says 'page 1 of 3'",
              same_bits(back[:, :, 0], pages[0]) and "page 1 of 3" in info["note"], info["note"])
    from PIL import Image
    frames = [Image.fromarray(rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)).quantize(16) for _ in range(3)]
    frames[0].save(os.path.join(scratch, "anim.gif"), save_all=True, append_images=frames[1:])
    frames[0].save(os.path.join(scratch, "still.gif"))
    info, _ = read(os.path.join(scratch, "anim.gif"))
    if info:
        check("PIL animated GIF of 3 frames: the note says the first frame only", "first frame only" in info["note"],
              info["note"])
    info, _ = read(os.path.join(scratch, "still.gif"))
    if info:
        check("PIL GIF of one frame: no word of other frames", "frame" not in info["note"], info["note"])
    # TIFF conversions: float64, int16, min-is-white, premultiplied alpha.
    f64 = rng.standard_normal((9, 11)) * 1e6
    tifffile.imwrite(os.path.join(scratch, "f64.tif"), f64)
    info, back = read(os.path.join(scratch, "f64.tif"))
    if info:
        check("tifffile float64: float32 with a note counting the rounded samples",
              same_bits(back[:, :, 0], f64.astype(np.float32)) and "64-bit floats" in info["note"] and
              info["source_type"] == "float64", info["note"])
    i16 = rng.integers(-32768, 32768, (9, 11), dtype=np.int16)
    tifffile.imwrite(os.path.join(scratch, "i16.tif"), i16)
    info, back = read(os.path.join(scratch, "i16.tif"))
    if info:
        check("tifffile int16: float32, exactly, with a note", same_bits(back[:, :, 0], i16.astype(np.float32)) and
              "signed 16-bit" in info["note"], info["note"])
    white = rng.integers(0, 65536, (9, 11), dtype=np.uint16)
    tifffile.imwrite(os.path.join(scratch, "white.tif"), white, photometric="miniswhite")
    info, back = read(os.path.join(scratch, "white.tif"))
    if info:
        check("tifffile min-is-white u16: inverted exactly (65535 - v)", same_bits(back[:, :, 0], 65535 - white) and
              "min-is-white" in info["note"], info["note"])
    premultiplied = np.array([[[1, 0, 0, 1], [100, 50, 0, 200], [0, 0, 0, 0]]], np.uint8)
    tifffile.imwrite(os.path.join(scratch, "assoc.tif"), premultiplied, photometric="rgb", extrasamples=["assocalpha"])
    info, back = read(os.path.join(scratch, "assoc.tif"))
    if info:
        want = np.array([[[255, 0, 0, 1], [128, 64, 0, 200], [0, 0, 0, 0]]], np.uint8)
        check("premultiplied alpha [1,0,0,1] is read as straight [255,0,0,1] (issue #40)", same_bits(back, want) and
              "un-premultiplied" in info["note"], f"{back.tolist()} {info['note']}")

    # FITS: every BITPIX, the unsigned convention, a cube, scaling, BLANK.
    cases = [("uint8", rng.integers(0, 256, (9, 11), dtype=np.uint8), "u8", None),
             ("uint16", rng.integers(0, 65536, (9, 11), dtype=np.uint16), "u16", None),
             ("int16", rng.integers(-32768, 32768, (9, 11), dtype=np.int16), "f32", "int16 samples as float32"),
             ("int32", rng.integers(-2**31, 2**31, (9, 11), dtype=np.int32), "f32", "rounded to the nearest float32"),
             ("float32", rng.standard_normal((9, 11)).astype(np.float32), "f32", None),
             ("float64", rng.standard_normal((9, 11)), "f32", "float64 samples as float32")]
    for name, data, kind, note in cases:
        path = os.path.join(scratch, f"astropy-{name}.fits")
        fits.PrimaryHDU(data).writeto(path, overwrite=True)
        info, back = read(path)
        if info:
            want = data.astype(DTYPES[kind]) if kind != "f32" else data.astype(np.float32)
            check(f"astropy {name}: {kind}, row 0 = data[0]", info["type"] == kind and same_bits(back[:, :, 0], want) and
                  (note is None and info["note"] == "" or note is not None and note in info["note"]), info["note"])
    # 64-bit integers are narrowed to float32 without float64 in between (53 bits would lose
    # 2^62 + i before the count of rounded samples saw it), and float64 beyond float32's range says so.
    big = (2**62 + np.arange(99, dtype=np.int64)).reshape(9, 11)
    small = rng.integers(-2**24, 2**24, (9, 11), dtype=np.int64)
    huge = rng.standard_normal((9, 11))
    huge[4, 5] = 1e300
    for name, data, note in (("int64 2^62 + i", big, "98 rounded to the nearest float32"),  # 2^62 itself is exact
                             ("int64 within 2^24", small, "every sample exactly"),
                             ("uint64 2^63 + i", (2**63 + np.arange(99, dtype=np.uint64)).reshape(9, 11),
                              "rounded to the nearest float32"),
                             ("float64 with 1e300", huge, "1 beyond float32's range")):
        path = os.path.join(scratch, f"astropy-{name.split()[0]}-{len(note)}.fits")
        fits.PrimaryHDU(data).writeto(path, overwrite=True)
        info, back = read(path)
        if info:
            with np.errstate(over="ignore"):
                want = data.astype(np.float32)
            check(f"astropy {name}: float32 of each sample (numpy's rounding), the note says '{note}'",
                  info["type"] == "f32" and same_bits(back[:, :, 0], want) and note in info["note"], info["note"])
    np.save(os.path.join(scratch, "huge.npy"), huge)
    info, back = read(os.path.join(scratch, "huge.npy"))
    if info:
        check("numpy float64 with 1e300: inf there, and the note says so",
              np.isinf(back[4, 5, 0]) and "1 beyond float32's range" in info["note"], info["note"])
    cube = rng.integers(0, 65536, (3, 9, 11), dtype=np.uint16)
    fits.PrimaryHDU(cube).writeto(os.path.join(scratch, "cube.fits"), overwrite=True)
    info, back = read(os.path.join(scratch, "cube.fits"))
    if info:
        check("astropy uint16 cube of 3 planes: RGB", same_bits(back, np.moveaxis(cube, 0, -1)))
    packed = rng.integers(0, 65536, (19, 21), dtype=np.uint16)
    fits.HDUList([fits.PrimaryHDU(), fits.CompImageHDU(packed, compression_type="RICE_1")]).writeto(
        os.path.join(scratch, "fpack.fits"), overwrite=True)
    info, back = read(os.path.join(scratch, "fpack.fits"))
    if info:
        check("astropy tile-compressed (RICE_1) uint16 in an extension: same samples, noted",
              same_bits(back[:, :, 0], packed) and "HDU 2" in info["note"], info["note"])
    raw = rng.integers(-1000, 1000, (9, 11), dtype=np.int16)
    hdu = fits.PrimaryHDU(raw)
    hdu.header["BSCALE"], hdu.header["BZERO"], hdu.header["BLANK"] = 0.5, 100.0, int(raw[0, 0])
    hdu.writeto(os.path.join(scratch, "scaled.fits"), overwrite=True)
    info, back = read(os.path.join(scratch, "scaled.fits"))
    if info:
        want = (raw * 0.5 + 100).astype(np.float32)
        want[raw == raw[0, 0]] = np.nan
        check("astropy BSCALE 0.5 BZERO 100 BLANK: v*0.5+100 as float32, BLANK as NaN", np.array_equal(
            back[:, :, 0], want, equal_nan=True) and "BSCALE" in info["note"] and "BLANK" in info["note"], info["note"])

    # NPY: every dtype, Fortran order, big-endian.
    for dtype in ("<u2", ">u2", ">f4", "<f2"):
        data = rng.integers(0, 60000, (9, 11, 3)).astype(dtype)
        for order in ("C", "F"):
            path = os.path.join(scratch, f"npy-{dtype[1:]}-{'be' if dtype[0] == '>' else 'le'}-{order}.npy")
            np.save(path, np.asarray(data, order=order))
            info, back = read(path)
            if info:
                check(f"numpy {dtype} order {order}: same values", np.array_equal(back, data.astype(back.dtype)))
    np.save(os.path.join(scratch, "signal.npy"), np.zeros(10, np.float32))
    info, message = tool.samples(os.path.join(scratch, "signal.npy"))
    check("a 1D .npy is refused as an image, named a signal", info is None and "signal" in message, message)

    # PFM and EXR from OpenCV; PNG 16 from OpenCV.
    a = rng.standard_normal((9, 11, 3)).astype(np.float32)
    cv2.imwrite(os.path.join(scratch, "cv.pfm"), a[:, :, ::-1])
    info, back = read(os.path.join(scratch, "cv.pfm"))
    if info:
        check("OpenCV PFM (RGB, bottom-to-top rows): same samples", same_bits(back, a))
    for exr_type, dtype in ((1, np.float16), (2, np.float32)):
        path = os.path.join(scratch, f"cv-{exr_type}.exr")
        cv2.imwrite(path, a[:, :, ::-1], [cv2.IMWRITE_EXR_TYPE, exr_type])
        info, back = read(path)
        if info:
            check(f"OpenCV EXR {'half' if exr_type == 1 else 'float'}: same samples",
                  same_bits(back, a.astype(dtype)))
    rgba16 = rng.integers(0, 65536, (9, 11, 4), dtype=np.uint16)
    cv2.imwrite(os.path.join(scratch, "cv16.png"), rgba16[:, :, [2, 1, 0, 3]])
    info, back = read(os.path.join(scratch, "cv16.png"))
    if info:
        check("OpenCV 16-bit RGBA PNG: same samples", same_bits(back, rgba16))
    grey12 = rng.integers(0, 4096, (9, 11), dtype=np.uint16)
    with open(os.path.join(scratch, "12bit.pgm"), "wb") as f:
        f.write(b"P5\n11 9\n4095\n" + grey12.astype(">u2").tobytes())
    info, back = read(os.path.join(scratch, "12bit.pgm"))
    if info:
        check("PGM maxval 4095: u16 with the values as they are, maxval 4095 recorded",
              same_bits(back[:, :, 0], grey12) and info["maxval"] == 4095 and "4095" in info["note"], info["note"])
        status, message = tool.convert(os.path.join(scratch, "12bit.pgm"), os.path.join(scratch, "12back.pgm"),
                                       "--maxval", "4095")
        data = open(os.path.join(scratch, "12back.pgm"), "rb").read() if status == 0 else b""
        check("... and written back with maxval 4095, the same bytes", data == open(os.path.join(scratch, "12bit.pgm"),
                                                                                   "rb").read(), message)


def check_samples(tool, data):
    """tests/data/formats' wide and float samples (make_format_samples.py) against the peers."""
    print("tests/data/formats' wide and float samples against the peer readers:")
    folder = os.path.join(data, "formats")
    for name in sorted(os.listdir(folder)):
        kind = {"exr_": "exr", "fits_": "fits", "npy_": "npy", "pfm_": "pfm", "tiff_rgb16f": "tif",
                "tiff_rgba16_tiled": "tif"}
        fmt = next((v for k, v in kind.items() if name.startswith(k)), None)
        if fmt is None:
            continue
        path = os.path.join(folder, name)
        info, ours = tool.samples(path)
        if info is None:
            check(f"{name}: read", False, ours)
            continue
        peer = peer_read(fmt, path, info["channels"])
        if peer is not None and peer.dtype == np.float64:  # float64 FITS: gausslab filters it in float32
            peer = peer.astype(np.float32)
        if peer is not None and fmt == "exr" and info["type"] == "f16":
            peer = peer.astype(np.float16)
        ok = peer is not None and same_bits(peer.astype(peer.dtype.newbyteorder("<")), ours)
        check(f"{name}: {info['type']} x{info['channels']}, the peer's samples", ok,
              "unreadable" if peer is None else f"peer {peer.dtype} {peer.shape}")


def check_refusals(tool, scratch):
    print("damaged files and formats that cannot hold the type:")
    rng = np.random.default_rng(7)
    a = random_image("f32", 3, rng, 64, 64)
    save_npy(os.path.join(scratch, "big.npy"), a)
    for fmt in ("tif", "exr", "pfm", "fits", "npy"):
        good = os.path.join(scratch, f"good.{fmt}")
        tool.convert(os.path.join(scratch, "big.npy"), good)
        data = open(good, "rb").read()
        for keep in (0.5, 0.9):
            cut = os.path.join(scratch, f"cut-{int(keep * 100)}.{fmt}")
            with open(cut, "wb") as f:
                f.write(data[:int(len(data) * keep)])
            info, message = tool.samples(cut)
            check(f"{fmt} cut to {int(keep * 100)} %: refused naming the file", info is None and cut in message,
                  "loaded" if info else message)
    for fmt, kind in (("png", "f32"), ("jpg", "u16"), ("pfm", "u16"), ("exr", "u8"), ("fits", "f16"), ("bmp", "f16")):
        src = os.path.join(scratch, f"refuse-{kind}.npy")
        save_npy(src, random_image(kind, 3, rng))
        out = os.path.join(scratch, f"refused.{fmt}")
        status, message = tool.convert(src, out)
        check(f"{kind} into {fmt}: refused naming the formats that can", status == 1 and " or " in message and
              not os.path.exists(out), message)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    tool = Tool(args.tool)
    with tempfile.TemporaryDirectory() as scratch:
        check_round_trips(tool, scratch)
        check_peer_files(tool, scratch)
        check_refusals(tool, scratch)
    check_samples(tool, args.data)
    for failure in FAILURES:
        print("FAIL:", failure)
    print("ok" if not FAILURES else f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
