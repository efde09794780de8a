#!/usr/bin/python3
"""Compares gausslab's float64 reference with scipy.ndimage.gaussian_filter, and border_index with
SciPy's extension modes, through the test-only tool gausslab_reference_dump.

Random and real images, every border mode, sigmas from 0.1 (radius 0) to radii far beyond the
image side, truncate and fixed radius. Passes when every result is within 1e-10 of SciPy's
(relative to the larger of 1 and the result's peak). Exit status 77 (CTest: skipped) when NumPy or
SciPy is missing. Run with Debian's /usr/bin/python3 (python3-scipy).
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy import ndimage
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error}; install python3-numpy and python3-scipy")
    sys.exit(77)

MODES = ["reflect", "mirror", "nearest", "constant", "wrap"]
TOLERANCE = 1e-10


class Checker:
    def __init__(self, tool, data_dir, work_dir):
        self.tool = tool
        self.data_dir = data_dir
        self.work_dir = work_dir
        self.count = 0
        self.failures = []
        self.worst = 0.0

    def run_tool(self, *args):
        done = subprocess.run([self.tool, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{self.tool} {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def reference(self, what, size, fmt, sigma, mode, truncate=None, radius=None, seed=None, image=None):
        """One comparison: our reference for these settings against gaussian_filter."""
        self.count += 1
        stem = os.path.join(self.work_dir, f"case{self.count}")
        args = ["reference", "--format", fmt, "--sigma", repr(sigma), "--border", mode,
                "--input-out", stem + ".in", "--reference-out", stem + ".ref"]
        if size is not None:
            args += ["--size", f"{size[0]}x{size[1]}"]
        if seed is not None:
            args += ["--seed", str(seed)]
        if image is not None:
            args += ["--image", os.path.join(self.data_dir, image)]
        if truncate is not None:
            args += ["--truncate", repr(truncate)]
        if radius is not None:
            args += ["--radius", str(radius)]
        width, height, channels = (int(v) for v in self.run_tool(*args).split())
        shape = (height, width, channels)
        source = np.fromfile(stem + ".in", dtype="<f8").reshape(shape)
        ours = np.fromfile(stem + ".ref", dtype="<f8").reshape(shape)
        os.remove(stem + ".in")
        os.remove(stem + ".ref")

        options = {"mode": mode, "cval": 0.0, "truncate": 4.0 if truncate is None else truncate}
        if radius is not None:
            options["radius"] = (radius, radius, 0)
        scipy = ndimage.gaussian_filter(source, sigma=(sigma, sigma, 0), **options)

        error = float(np.max(np.abs(ours - scipy)))
        scale = max(1.0, float(np.max(np.abs(scipy))))
        self.worst = max(self.worst, error / scale)
        label = (f"{what} {width}x{height} {fmt} sigma {sigma} {mode}"
                 + (f" truncate {truncate}" if truncate is not None else "")
                 + (f" radius {radius}" if radius is not None else ""))
        if not error <= TOLERANCE * scale:
            self.failures.append(f"{label}: max |ours - scipy| = {error:.3g} (allowed {TOLERANCE * scale:.3g})")

    def border_table(self, n, reach, mode):
        """border_index(i, n) for i in [-reach, n + reach) against SciPy's correlate1d extension."""
        self.count += 1
        ours = [int(v) for v in self.run_tool("border-table", "--n", str(n), "--reach", str(reach),
                                              "--border", mode).split()]
        # correlate1d of [1..n] with a unit impulse at offset d gives x[border(j + d)] at output j;
        # 'constant' gives cval 0 there, i.e. index -1 after subtracting 1.
        line = np.arange(1, n + 1, dtype=np.float64)
        expected = {}
        for d in range(-reach, reach + 1):
            weights = np.zeros(2 * reach + 1)
            weights[reach + d] = 1.0
            out = ndimage.correlate1d(line, weights, mode=mode, cval=0.0)
            for j in (0, n - 1):
                expected[j + d] = int(round(out[j])) - 1
        scipy = [expected[i] for i in range(-reach, n + reach)]
        if ours != scipy:
            wrong = [i - reach for i in range(len(ours)) if ours[i] != scipy[i]]
            self.failures.append(f"border_index n {n} {mode}: differs from SciPy at indices {wrong[:10]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="path of gausslab_reference_dump")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gausslab-scipy-") as work_dir:
        check = Checker(options.tool, options.data, work_dir)
        for n in (1, 2, 3, 7, 10):
            for mode in MODES:
                check.border_table(n, 45, mode)

        seed = 1
        for size in [(1, 1), (1, 9), (9, 1), (7, 5), (13, 17), (37, 23)]:
            for sigma in (0.1, 0.5, 1.0, 2.5, 8.0, 33.0):  # radius 0 up to 132, beyond every side
                for mode in MODES:
                    check.reference("random", size, "f32", sigma, mode, seed=seed)
                    seed += 1
        for size in [(7, 5), (13, 17)]:
            for sigma in (0.5, 2.5, 8.0):
                for mode in MODES:
                    check.reference("random", size, "rgba8", sigma, mode, seed=seed)
                    seed += 1
        for mode in MODES:  # radius 800 on an 11x7 image
            check.reference("random", (11, 7), "f32", 200.0, mode, seed=seed)
            check.reference("random", (23, 19), "f32", 2.0, mode, truncate=2.5, seed=seed)
            check.reference("random", (23, 19), "f32", 1.3, mode, truncate=6.0, seed=seed)
            check.reference("random", (23, 19), "f32", 2.0, mode, radius=5, seed=seed)
            check.reference("random", (23, 19), "rgba8", 3.0, mode, radius=0, seed=seed)

        real_images = [("palette_color.png", None, "rgba8", (1.0, 5.0, 50.0)),
                       ("camera.png", (64, 48), "f32", (0.7, 3.0, 40.0)),
                       ("chelsea.png", (45, 31), "rgba8", (2.0, 20.0)),
                       ("hubble_deep_field.jpg", (50, 40), "f32", (1.5,))]
        for image, size, fmt, sigmas in real_images:
            for sigma in sigmas:
                for mode in MODES:
                    check.reference(image, size, fmt, sigma, mode, image=image)

    for failure in check.failures:
        print("FAIL", failure)
    print(f"{check.count} comparisons with SciPy {__import__('scipy').__version__}, "
          f"worst relative difference {check.worst:.3g} (allowed {TOLERANCE:g}), {len(check.failures)} failed")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
