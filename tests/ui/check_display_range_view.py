#!/usr/bin/env python3
"""The range of a float picture in its own units (issue 35): writes a 300x200 float32 ramp from 20
to 820 (a linear sky's counts, far beyond the 8-bit reduction's [0, 1]), shows it offscreen with
--range minmax and the panels hidden, and checks that every drawn pixel is the model's grey,
255 (v - 20) / 800 within 1.5 levels (the two columns at each border aside, which the reflect
border's blur bends, and the bottom quarter, where the slot's label is drawn). An 8-bit copy drawn through the range (black), the nominal range (white)
or a range in other units fails.
    check_display_range_view.py VIEWER WORK_FOLDER"""
import os
import subprocess
import sys

import numpy as np
from PIL import Image

WIDTH, HEIGHT, LOW, HIGH = 300, 200, 20.0, 820.0


def main() -> int:
    viewer, folder = sys.argv[1], sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    ramp = np.tile(np.linspace(LOW, HIGH, WIDTH, dtype=np.float32), (HEIGHT, 1))
    np.save(os.path.join(folder, "ramp.npy"), ramp)
    with open(os.path.join(folder, "panels.script"), "w") as f:
        f.write("0 panels\n0 wait\n")
    view = os.path.join(folder, "view.png")
    if os.path.exists(view):
        os.remove(view)
    run = subprocess.run([viewer, "ramp.npy", "--offscreen", "--path", "cpu", "--window", f"{WIDTH}x{HEIGHT}",
                          "--sigma", "0.6", "--range", "minmax", "--script", "panels.script", "--screenshot-view",
                          "view.png"], cwd=folder, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        print(run.stdout, run.stderr)
        return 1
    grey = np.asarray(Image.open(view).convert("RGB"), dtype=np.float64)
    if grey.shape[:2] != (HEIGHT, WIDTH):
        print(f"the view is {grey.shape[1]} x {grey.shape[0]}, not {WIDTH} x {HEIGHT}")
        return 1
    expected = 255.0 * (ramp - LOW) / (HIGH - LOW)
    rows = HEIGHT * 3 // 4
    error = np.abs(grey[:rows, 2:-2, :] - expected[:rows, 2:-2, None])
    print(f"the ramp drawn through --range minmax: worst {error.max():.2f} levels from the model "
          f"(mean grey {grey.mean():.1f}, the model's {expected.mean():.1f})")
    return 0 if error.max() <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
