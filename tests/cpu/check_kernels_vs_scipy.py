#!/usr/bin/python3
"""Custom kernels against scipy.ndimage.correlate / convolve (and correlate1d / convolve1d for masks),
through the test-only tool gausslab_reference_dump: gausslab's float64 reference and its CPU filter
(one thread and OpenMP, which must agree byte for byte) on random float32 and 8-bit images.

Kernels: 1D masks (symmetric and not), separable x/y pairs, 2D matrices (full rank, rank 1, one
column), all odd sizes, asymmetric and unnormalised, some with negative weights, some convolved,
some normalised, some reaching beyond the image side; every SciPy border mode. Passes when
- the reference is within 1e-10 of SciPy (relative to the larger of 1 and SciPy's peak);
- the float32 CPU result is within 1e-5 of SciPy relative to its peak;
- the 8-bit CPU result (half-up rounding) is within 0.51 levels of SciPy's result clamped to [0, 255];
- with --rounding floor (ceil) the 8-bit result is floor (ceil) of SciPy's, except at ties: samples
  whose float64 value is not a whole number but lies within 1e-3 of one (the float32 error is below
  1e-4 levels here), which may differ by one; their count is printed.
Exit status 77 (CTest: skipped) when NumPy or SciPy is missing. Run with Debian's /usr/bin/python3.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
try:
    import numpy as np
    from kernel_kit import expected_levels, scipy_filter, tie_mask, weights_text  # NumPy and SciPy
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error}; install python3-numpy and python3-scipy")
    sys.exit(77)

MODES = ["reflect", "mirror", "nearest", "constant", "wrap"]
REFERENCE_TOLERANCE = 1e-10
FLOAT_TOLERANCE = 1e-5
LEVEL_TOLERANCE = 0.51



class Kernel:
    """One custom kernel: how to give it to the tool and how SciPy applies it."""

    def __init__(self, name, kind, x=None, y=None, matrix=None, convolve=False, normalize=False):
        self.name, self.kind = name, kind
        self.x, self.y, self.matrix = x, y, matrix
        self.convolve, self.normalize = convolve, normalize

    def flags(self, work):
        if self.kind == "mask":
            args = ["--kernel", weights_text(self.x)]
        elif self.kind == "pair":
            args = ["--kernel-x", weights_text(self.x), "--kernel-y", weights_text(self.y)]
        else:
            path = os.path.join(work, self.name + ".txt")
            if not os.path.exists(path):
                np.savetxt(path, self.matrix, fmt="%.17g")  # every digit: the same float64 weights
            args = ["--kernel-2d", path]
        return args + (["--convolve"] if self.convolve else []) + (["--normalize"] if self.normalize else [])

    def scipy(self, image, mode):
        """float64 result of SciPy on an H×W×C image."""
        if self.kind == "mask":
            return scipy_filter(image, mode, mask=self.x, convolve=self.convolve, normalize=self.normalize)
        if self.kind == "pair":
            return scipy_filter(image, mode, x=self.x, y=self.y, convolve=self.convolve, normalize=self.normalize)
        return scipy_filter(image, mode, matrix=self.matrix, convolve=self.convolve, normalize=self.normalize)

def kernels():
    rng = np.random.default_rng(2026)
    asym = lambda n, low=-0.3: rng.uniform(low, 1.0, n)  # noqa: E731 - mostly positive, some negative
    full = rng.uniform(-0.3, 1.0, (3, 5))
    full[1, 2] += 1.0  # a clear peak, not symmetric
    return [
        Kernel("mask5", "mask", x=asym(5)),
        Kernel("mask3_unnormalised", "mask", x=[1.0, 2.0, 1.0]),
        Kernel("mask7_convolved", "mask", x=asym(7), convolve=True),
        Kernel("pair7x3", "pair", x=asym(7), y=asym(3)),
        Kernel("pair5x9_normalised_convolved", "pair", x=asym(5, 0.1), y=asym(9, 0.1), convolve=True, normalize=True),
        Kernel("matrix3x5", "matrix", matrix=full),
        Kernel("matrix5x3_convolved", "matrix", matrix=asym(15).reshape(5, 3), convolve=True),
        Kernel("matrix_rank1", "matrix", matrix=np.outer(asym(3, 0.2), asym(7))),
        Kernel("matrix7x1", "matrix", matrix=asym(7).reshape(7, 1)),
        Kernel("matrix9x7_normalised", "matrix", matrix=rng.uniform(0.0, 1.0, (9, 7)), normalize=True),
        Kernel("mask41", "mask", x=asym(41, 0.0)),  # beyond the small image's sides
    ]


class Checker:
    def __init__(self, tool, work):
        self.tool, self.work = tool, work
        self.count = 0
        self.failures = []
        self.worst = {"reference": 0.0, "f32": 0.0, "rgba8": 0.0}
        self.ties = 0

    def run(self, kernel, size, fmt, mode, seed, rounding=None):
        self.count += 1
        stem = os.path.join(self.work, f"case{self.count}")
        args = [self.tool, "reference", "--size", f"{size[0]}x{size[1]}", "--format", fmt, "--seed", str(seed),
                "--border", mode, "--input-out", stem + ".in", "--reference-out", stem + ".ref",
                "--cpu-out", stem + ".cpu", *kernel.flags(self.work)]
        if rounding:
            args += ["--rounding", rounding]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()}")
        width, height, channels = (int(v) for v in done.stdout.split())
        shape = (height, width, channels)
        arrays = [np.fromfile(stem + ext, dtype="<f8").reshape(shape) for ext in (".in", ".ref", ".cpu")]
        for ext in (".in", ".ref", ".cpu"):
            os.remove(stem + ext)
        return arrays

    def check(self, kernel, size, fmt, mode, seed):
        label = f"{kernel.name} {size[0]}x{size[1]} {fmt} {mode}"
        source, ours, cpu = self.run(kernel, size, fmt, mode, seed)
        scipy = kernel.scipy(source, mode)
        scale = max(1.0, float(np.max(np.abs(scipy))))
        error = float(np.max(np.abs(ours - scipy)))
        self.worst["reference"] = max(self.worst["reference"], error / scale)
        if not error <= REFERENCE_TOLERANCE * scale:
            self.failures.append(f"{label}: reference: max |ours - scipy| = {error:.3g} (allowed {REFERENCE_TOLERANCE * scale:.3g})")
        if fmt == "f32":
            peak = float(np.max(np.abs(scipy)))
            relative = float(np.max(np.abs(cpu - scipy))) / peak if peak > 0 else float(np.max(np.abs(cpu)))
            self.worst["f32"] = max(self.worst["f32"], relative)
            if not relative <= FLOAT_TOLERANCE:
                self.failures.append(f"{label}: CPU float32: relative error {relative:.3g} (allowed {FLOAT_TOLERANCE})")
        else:
            levels = float(np.max(np.abs(cpu - np.clip(scipy, 0, 255))))
            self.worst["rgba8"] = max(self.worst["rgba8"], levels)
            if not levels <= LEVEL_TOLERANCE:
                self.failures.append(f"{label}: CPU 8-bit: {levels:.3g} levels from SciPy (allowed {LEVEL_TOLERANCE})")

    def check_rounding(self, kernel, size, mode, seed, rounding):
        label = f"{kernel.name} {size[0]}x{size[1]} rgba8 {mode} --rounding {rounding}"
        source, _, cpu = self.run(kernel, size, "rgba8", mode, seed, rounding)
        exact = kernel.scipy(source, mode)
        expected = expected_levels(exact, rounding)
        ties = tie_mask(exact)
        self.ties += int(ties.sum())
        wrong = (cpu != expected) & ~ties
        if wrong.any():
            at = tuple(int(i) for i in np.argwhere(wrong)[0])
            self.failures.append(f"{label}: {int(wrong.sum())} samples are not the {rounding} of SciPy's result "
                                 f"(first at {at}: {cpu[at]:.0f}, SciPy {exact[at]!r})")
        if (np.abs(cpu - expected)[ties] > 1).any():
            self.failures.append(f"{label}: a tie is more than one level off")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="the gausslab_reference_dump binary")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gausslab_kernels_") as work:
        c = Checker(args.tool, work)
        for k, kernel in enumerate(kernels()):
            for mode in MODES:
                # 23×17: borders and an interior; 4×3: every kernel beyond the image side.
                for size, fmt in (((23, 17), "f32"), ((23, 17), "rgba8"), ((4, 3), "f32")):
                    c.check(kernel, size, fmt, mode, seed=100 * k + len(mode))
        for kernel in kernels()[:6]:
            for rounding in ("floor", "ceil"):
                c.check_rounding(kernel, (31, 19), "constant", 7, rounding)
        print(f"{c.count} comparisons; worst: reference {c.worst['reference']:.2g} relative, CPU float32 "
              f"{c.worst['f32']:.2g} relative, CPU 8-bit {c.worst['rgba8']:.3g} levels; {c.ties} rounding ties")
        if c.failures:
            print(f"FAILED: {len(c.failures)} case(s)")
            for failure in c.failures[:40]:
                print("  " + failure)
            return 1
        print("passed")
        return 0


if __name__ == "__main__":
    sys.exit(main())
