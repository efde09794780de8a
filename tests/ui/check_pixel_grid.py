#!/usr/bin/env python3
"""Checks a view screenshot of the picture zoomed far in (issue 39): a pixel grid, a one-pixel line
every ZOOM screen pixels across and down (a thin line, brighter or darker than both its neighbours:
the edge between two nearest-sampled pixels is a step and does not count; far stronger at one phase
of the period than at the median one), and the values in the cells, drawn one line per channel in
red, green and blue text. With --absent: that neither is there (the grid switched off).
    check_pixel_grid.py [--absent] VIEW.png ZOOM X0 Y0 X1 Y1   (the part of the picture area to look at)
Exit status 0 when both are there (--absent: neither), 1 otherwise."""
import sys

import numpy as np
from PIL import Image

TEXT_COLOURS = {"red": (255, 150, 150), "green": (150, 255, 150), "blue": (160, 190, 255)}  # picture_overlays.cpp


def grid_contrast(luminance, zoom, axis):
    """How much more the lines stand out at the grid's phase than at the median phase, and that phase."""
    v = luminance if axis == 1 else luminance.T
    left, centre, right = v[:, :-2], v[:, 1:-1], v[:, 2:]
    line = np.maximum(0, np.minimum(left, right) - centre) + np.maximum(0, centre - np.maximum(left, right))
    edge = line.mean(axis=0)  # per column
    by_phase = np.array([edge[p::zoom].mean() for p in range(zoom)])
    best = int(by_phase.argmax())
    return by_phase[best] / max(np.median(by_phase), 1e-6), best


def main() -> int:
    args = sys.argv[1:]
    absent = args[0] == "--absent"
    if absent:
        args = args[1:]
    path, zoom = args[0], int(args[1])
    x0, y0, x1, y1 = (int(v) for v in args[2:6])
    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)[y0:y1, x0:x1]
    luminance = rgb @ np.array([0.2126, 0.7152, 0.0722])
    found = []
    for axis, name in ((1, "columns"), (0, "rows")):
        contrast, phase = grid_contrast(luminance, zoom, axis)
        print(f"grid {name}: every {zoom} px at phase {phase}, {contrast:.1f}x the median phase's line strength")
        found.append(contrast >= 3.0)
    for name, colour in TEXT_COLOURS.items():
        count = int((np.abs(rgb - np.array(colour)).max(axis=2) <= 12).sum())
        print(f"value text in {name}: {count} pixels")
        found.append(count >= 100)
    ok = not any(found) if absent else all(found)
    if not ok:
        print("FAIL: " + ("a grid line or value text where the grid is off" if absent
                          else "no grid line every ZOOM px across and down, or no values in the cells"))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
