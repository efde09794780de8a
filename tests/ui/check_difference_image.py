#!/usr/bin/env python3
"""Checks a saved difference image (Ctrl+D, save_difference) of a method against the exact Gaussian
at a gain that puts its sub-level error on the scale (issue 35): most pixels are lit. The 8-bit
results' difference lights only where the rounding flips (a few pixels in ten thousand), so a
difference view that still worked in whole levels fails this.

    check_difference_image.py FOLDER MIN_LIT_FRACTION
"""
import glob
import sys

import numpy as np
from PIL import Image


def main():
    folder, min_lit = sys.argv[1], float(sys.argv[2])
    files = sorted(glob.glob(folder + "/gausslab-difference-*.png"))
    if len(files) != 1:
        print(f"expected one saved difference image in {folder}, found {files}")
        return 1
    pixels = np.asarray(Image.open(files[0]).convert("RGB"), dtype=np.int32)
    lit = float(np.mean(pixels.max(axis=2) > 0))
    print(f"{files[0]}: {lit:.4f} of the pixels lit (at least {min_lit} wanted)")
    return 0 if lit >= min_lit else 1


if __name__ == "__main__":
    sys.exit(main())
