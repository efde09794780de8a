#!/usr/bin/env python3
"""The image loader and writer against peers nobody here wrote: PIL (Debian's python3-pil, which
decodes JPEG with the same libjpeg-turbo) and OpenCV.

1. Every file in tests/data/formats loads with PIL's pixels and channel count. Samples above
   8 bits are compared after round(v * 255 / max) of the values PIL (or OpenCV, where PIL keeps
   only 8 bits) reads; JPEG must give libjpeg's pixels exactly, also for the real photograph.
2. Every file in tests/data/malformed is refused: exit status 1, a message naming the file.
3. Written files read back in PIL: PNG, BMP, TGA and PNM exactly; JPEG close to the source.

Skips (exit 77) when PIL or NumPy is missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from PIL import Image
except ImportError as missing:
    print(f"skipped: {missing} (install python3-pil and python3-numpy)")
    sys.exit(77)
try:
    import cv2
except ImportError:
    cv2 = None


def load_ours(tool, path):
    run = subprocess.run([tool, "load", path], capture_output=True, timeout=120)
    if run.returncode != 0:
        return None, run.stderr.decode(errors="replace").strip()
    header, _, pixels = run.stdout.partition(b"\n")
    info = json.loads(header)
    image = np.frombuffer(pixels, np.uint8).reshape(info["height"], info["width"], 4)
    return info, image


def reduce16(values, max_value=65535):
    v = np.asarray(values, dtype=np.uint64)
    return ((2 * v * 255 + max_value) // (2 * max_value)).astype(np.uint8)


def grey_to_rgba(grey, alpha=None):
    a = np.full(grey.shape, 255, np.uint8) if alpha is None else alpha
    return np.stack([grey, grey, grey, a], axis=-1)


def cv2_rgba16(path):
    """16-bit samples as OpenCV reads them, reduced, in RGBA order."""
    raw = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if raw.ndim == 2:
        return grey_to_rgba(reduce16(raw))
    order = [2, 1, 0] + ([3] if raw.shape[2] == 4 else [])
    rgba = reduce16(raw[:, :, order])
    if rgba.shape[2] == 3:
        rgba = np.concatenate([rgba, np.full(rgba.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return rgba


# The wide and float samples PIL cannot read, checked by check_image_types.py instead.
PEER_CHECKED = ("exr_", "fits_", "npy_", "pfm_", "tiff_rgb16f", "tiff_rgba16_tiled")

CHANNELS = {"1": 1, "L": 1, "LA": 2, "I": 1, "I;16": 1, "I;16B": 1, "F": 1, "RGB": 3, "RGBA": 4, "CMYK": 3}


def expected(path):
    """(RGBA pixels, channel count, tolerance) that a correct loader gives for `path`."""
    name = os.path.basename(path)
    image = Image.open(path)
    image.load()
    mode = image.mode
    channels = CHANNELS.get(mode)
    if mode == "P":
        channels = 4 if "transparency" in image.info else 3
    elif mode in ("L", "RGB") and "transparency" in image.info:  # a tRNS colour key becomes alpha
        channels += 1
    tolerance = 0
    if mode in ("I", "I;16", "I;16B"):
        values = np.array(image).astype(np.int64)  # PIL scales PNM to 0..65535; PNG/TIFF are raw
        pixels = grey_to_rgba(reduce16(values))
    elif mode == "F":
        f = np.array(image, dtype=np.float32)
        scaled = np.clip(np.nan_to_num(f, nan=0.0) * np.float32(255), 0, 255)
        pixels = grey_to_rgba((scaled + np.float32(0.5)).astype(np.uint8))
    elif mode == "CMYK":  # ours: R = (255-C)(255-K)/255 rounded, from the ink values PIL reads
        ink = np.array(image).astype(np.int64)
        rgb = ((255 - ink[:, :, :3]) * (255 - ink[:, :, 3:4]) + 127) // 255
        pixels = np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 255)], axis=2).astype(np.uint8)
    elif "16" in name and name.startswith(("png_", "tiff_")) and mode in ("RGB", "RGBA"):
        pixels = cv2_rgba16(path)  # PIL keeps only the high byte of 16-bit colour
    elif name == "bmp_32bit.bmp":
        # PIL (and OpenCV) ignore the fourth byte of a 32-bit BI_RGB bitmap, though PIL writes its
        # alpha there; we read it as alpha when it is not all 0: compare it with the bytes themselves.
        pixels = np.array(image.convert("RGBA"))
        data = open(path, "rb").read()
        offset = int.from_bytes(data[10:14], "little")
        h, w = pixels.shape[:2]
        raw = np.frombuffer(data[offset:offset + w * h * 4], np.uint8).reshape(h, w, 4)[::-1]
        pixels[:, :, 3] = raw[:, :, 3]
        channels = 4
    else:
        pixels = np.array(image.convert("RGBA"))
        if name in ("bmp_16bit_565.bmp", "tga_rgb16.tga"):
            tolerance = 1  # PIL widens 5/6-bit channels by bit replication, we round v * 255 / 31
    return pixels, channels, tolerance


def check_valid(tool, folder, extra):
    failures = []
    paths = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n != "README.md") + extra
    for path in paths:
        name = os.path.basename(path)
        if name.startswith(PEER_CHECKED):
            continue  # PIL cannot read them: check_image_types.py compares them with tifffile, astropy, NumPy, OpenCV
        if cv2 is None and "16" in name:
            print(f"  {name}: skipped (no OpenCV)")
            continue
        info, ours = load_ours(tool, path)
        if info is None:
            failures.append(f"{name}: refused: {ours}")
            continue
        want, channels, tolerance = expected(path)
        if ours.shape != want.shape:
            failures.append(f"{name}: size {ours.shape} != PIL's {want.shape}")
            continue
        diff = int(np.abs(ours.astype(np.int64) - want.astype(np.int64)).max())
        status = "ok" if diff <= tolerance else "DIFFERENT"
        print(f"  {name:34s} {info['format']:5s} {info['width']}x{info['height']} channels {info['channels']}"
              f" max |ours - peer| = {diff} (allowed {tolerance}) {status}")
        if diff > tolerance:
            failures.append(f"{name}: max difference {diff} > {tolerance}")
        if info["channels"] != channels:
            failures.append(f"{name}: {info['channels']} channels, PIL's mode says {channels}")
        wide = name.startswith(("png_", "tiff_", "pnm_")) and any(
            key in name for key in ("grey16", "rgb16", "rgba16", "16bit", "maxval1023", "float"))
        if wide and not info["note"]:
            failures.append(f"{name}: samples above 8 bits were reduced without a note saying so")
    return failures


def check_malformed(tool, folder):
    failures = []
    for name in sorted(n for n in os.listdir(folder) if n != "README.md"):
        path = os.path.join(folder, name)
        run = subprocess.run([tool, "load", path], capture_output=True, timeout=120)
        message = run.stderr.decode(errors="replace").strip()
        print(f"  {name:40s} exit {run.returncode}: {message.replace(path, 'FILE')[:150]}")
        if run.returncode != 1:
            failures.append(f"{name}: exit status {run.returncode}, expected 1 (refused)")
        elif path not in message:
            failures.append(f"{name}: the message does not name the file: {message}")
    return failures


def check_writers(tool, folder, photo):
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        for source in ("png_rgba8.png", "png_rgb8.png", "png_grey8.png", "png_grey_alpha8.png"):
            src = os.path.join(folder, source)
            _, original = load_ours(tool, src)
            for fmt in ("png", "bmp", "tga", "pnm", "jpg"):
                out = os.path.join(scratch, f"{source}.{fmt}")
                run = subprocess.run([tool, "convert", src, out, "--format", fmt, "--jpeg-quality", "95"],
                                     capture_output=True, timeout=120)
                if run.returncode != 0:
                    failures.append(f"writing {source} as {fmt}: {run.stderr.decode().strip()}")
                    continue
                back = np.array(Image.open(out).convert("RGBA"))
                keeps_alpha = fmt in ("png", "bmp", "tga")
                want = original if keeps_alpha else np.concatenate(
                    [original[:, :, :3], np.full(original.shape[:2] + (1,), 255, np.uint8)], axis=2)
                diff = np.abs(back.astype(np.int64) - want.astype(np.int64))
                if fmt == "jpg" and source in ("png_rgba8.png", "png_rgb8.png"):
                    continue  # synthetic noise: 4:2:0 chroma cannot keep it; the photograph below is the test
                if fmt == "jpg":
                    mse = float((diff[:, :, :3] ** 2).mean())
                    psnr = 10 * np.log10(255 ** 2 / max(mse, 1e-9))
                    print(f"  {source} -> jpg q95: PIL reads it back, PSNR {psnr:.1f} dB")
                    if psnr < 30:
                        failures.append(f"{source} as JPEG q95: PSNR {psnr:.1f} dB < 30")
                else:
                    print(f"  {source} -> {fmt}: PIL reads it back, max difference {int(diff.max())}")
                    if diff.max() != 0:
                        failures.append(f"{source} as {fmt}: PIL reads back different pixels")
        _, original = load_ours(tool, photo)
        out = os.path.join(scratch, "photo.jpg")
        subprocess.run([tool, "convert", photo, out, "--jpeg-quality", "95"], check=True, timeout=120)
        back = np.array(Image.open(out).convert("RGB")).astype(np.float64)
        mse = float(((back - original[:, :, :3]) ** 2).mean())
        psnr = 10 * np.log10(255 ** 2 / mse)
        print(f"  {os.path.basename(photo)} -> jpg q95: PIL reads it back, PSNR {psnr:.1f} dB")
        if psnr < 35:
            failures.append(f"{os.path.basename(photo)} as JPEG q95: PSNR {psnr:.1f} dB < 35")
        sizes = {}
        for quality in (30, 95):
            out = os.path.join(scratch, f"q{quality}.jpg")
            subprocess.run([tool, "convert", os.path.join(folder, "png_rgb8.png"), out, "--jpeg-quality",
                            str(quality)], check=True, timeout=120)
            sizes[quality] = os.path.getsize(out)
        print(f"  JPEG sizes: quality 30 {sizes[30]} bytes, quality 95 {sizes[95]} bytes")
        if not sizes[30] < sizes[95]:
            failures.append("--jpeg-quality has no effect on the file size")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    print("valid files against PIL/OpenCV:")
    photo = os.path.join(args.data, "hubble_deep_field.jpg")
    failures = check_valid(args.tool, os.path.join(args.data, "formats"), [photo])
    print("malformed files:")
    failures += check_malformed(args.tool, os.path.join(args.data, "malformed"))
    print("writers:")
    failures += check_writers(args.tool, os.path.join(args.data, "formats"), os.path.join(args.data, "chelsea.png"))
    for failure in failures:
        print("FAIL:", failure)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
