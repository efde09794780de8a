#!/usr/bin/python3
"""gausslab-filter with custom kernels and roundings, end to end:

- the 1D tiled convolution's worked example: the signal 1 1 1 1 1 correlated with --kernel 1,1,1 and
  a zero border gives 2 3 3 3 2 exactly (float32 and float64 .npy), and an asymmetric mask,
  correlated and convolved, matches scipy.ndimage.correlate1d / convolve1d;
- 8-bit images (RGB and grey PNGs) with a mask, a separable pair, a 2D matrix from a text file and
  from a .npy, correlated and convolved, unnormalised and normalised, at every border, against
  scipy.ndimage.correlate / convolve clamped to [0, 255]: within 0.51 levels (half up);
- --rounding floor and ceil: the floor (ceil) of SciPy's float64 result, ties aside (a sample whose
  float64 value is not a whole number but lies within 1e-3 of one may differ by one; their count is
  printed);
- the original BMP batch system's kind of run: a 24-bit BMP, a fixed 5×5 table, zero border, floor.
  Its table: the Gaussian of sigma 1.5 and radius 2 in 8-bit fixed point, round(256 G) (sum 254),
  given as integers with --normalize; checked byte for byte, ties included, against an integer
  implementation written here (NumPy: the sum of the 25 shifted products of the zero-padded image,
  then // 254), one file and a batch, whole and in bands; and the same sigma-1.5 table in float64,
  equal to floor of SciPy's float64 result except at ties;
- --list-methods marks the methods that take custom kernels and roundings, and with --size says
  what each does with a custom kernel; every bad kernel option ends with exit 2 and a message
  that names it.

Exit status: 0 passed, 1 failed, 77 skipped (no NumPy/SciPy). Run with Debian's /usr/bin/python3.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    from scipy import ndimage
    from PIL import Image
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error}; install python3-numpy, python3-scipy and python3-pil and run with /usr/bin/python3")
    sys.exit(77)

import check_kit  # noqa: E402
import png_io  # noqa: E402
from kernel_kit import expected_levels, scipy_filter, tie_mask, weights_text  # noqa: E402

MODES = ["reflect", "mirror", "nearest", "constant", "wrap"]
LEVEL_TOLERANCE = 0.51
CPU = ["--method", "cpu_openmp", "--quiet"]


def sigma15_table():
    """The 5×5 Gaussian of sigma 1.5 (radius 2), normalised, in float64."""
    x = np.arange(-2, 3)
    g = np.exp(-x * x / (2 * 1.5 ** 2))
    g /= g.sum()
    return np.outer(g, g)


class Checks(check_kit.Checks):
    def __init__(self, tool, work):
        super().__init__()
        self.tool, self.work = tool, work
        self.runs = 0
        self.ties = 0

    def filter(self, args, expect=0):
        done = subprocess.run([self.tool, *args], capture_output=True, text=True, timeout=300)
        if done.returncode != expect:
            raise RuntimeError(f"exit {done.returncode} (expected {expect}): {self.tool} {' '.join(args)}\n"
                               f"{done.stderr.strip()}")
        return done

    def path(self, name):
        return os.path.join(self.work, name)

    def refused(self, name, args, words):
        """The run ends with exit 2 and a message on stderr that holds each of `words`."""
        done = subprocess.run([self.tool, *args], capture_output=True, text=True, timeout=300)
        missing = [w for w in words if w.lower() not in done.stderr.lower()]
        crash = any(sign in done.stderr for sign in ("terminate called", "Segmentation", "core dumped"))
        self.check(f"refused: {name}", done.returncode == 2 and not missing and not crash,
                   f"exit {done.returncode}, missing {missing}: {done.stderr.strip()[:400]}")


def check_signals(c):
    for dtype in ("float32", "float64"):
        signal = c.path(f"ones_{dtype}.npy")
        np.save(signal, np.ones(5, dtype=dtype))
        out = c.path(f"ones_{dtype}_out.npy")
        for method in ("cpu_openmp", "cpu_separable"):
            if os.path.exists(out):
                os.remove(out)
            c.filter([signal, "-o", out, "--kernel", "1,1,1", "--border", "constant", "--method", method, "--quiet"])
            result = np.load(out)
            c.check(f"1D worked example, {dtype}, {method}: 2 3 3 3 2 exactly",
                    result.dtype == np.dtype(dtype) and result.tolist() == [2, 3, 3, 3, 2], f"got {result.tolist()}")
    # Without --method: the default rule's choice takes the kernel (cpu_openmp here, tiled_1d refuses it).
    out = c.path("ones_default.npy")
    c.filter([c.path("ones_float64.npy"), "-o", out, "--kernel", "1,1,1", "--border", "constant", "--quiet"])
    c.check("1D worked example with the default method", np.load(out).tolist() == [2, 3, 3, 3, 2], str(np.load(out)))

    rng = np.random.default_rng(7)
    signal = c.path("random.npy")
    data = rng.uniform(-1, 1, 301)
    np.save(signal, data)
    mask = rng.uniform(-0.3, 1, 9)
    for convolve in (False, True):
        for mode in MODES:
            out = c.path(f"random_{convolve}_{mode}.npy")
            c.filter([signal, "-o", out, "--kernel", weights_text(mask), "--border", mode, *CPU]
                     + (["--convolve"] if convolve else []))
            expected = (ndimage.convolve1d if convolve else ndimage.correlate1d)(data, mask, mode=mode)
            error = float(np.max(np.abs(np.load(out) - expected)) / np.max(np.abs(expected)))
            c.check(f"1D mask of 9, {'convolved' if convolve else 'correlated'}, {mode}: within 1e-5 of SciPy",
                    error <= 1e-5, f"relative error {error:.3g}")


def image_cases(c):
    """(name, flags, SciPy keyword arguments) for the 8-bit image comparisons."""
    rng = np.random.default_rng(11)
    full = rng.uniform(-0.3, 1, (5, 3))
    full[2, 1] += 1
    np.savetxt(c.path("full.txt"), full, fmt="%.17g", delimiter=",")
    table = rng.uniform(0, 1, (3, 7)).astype(np.float32)
    np.save(c.path("table.npy"), table)
    mask = rng.uniform(-0.2, 1, 5)
    x, y = rng.uniform(0, 1, 7), rng.uniform(-0.2, 1, 3)
    return [
        ("mask 5", ["--kernel", weights_text(mask)], dict(mask=mask)),
        ("mask 1,2,1 normalised", ["--kernel", "1,2,1", "--normalize"], dict(mask=[1, 2, 1], normalize=True)),
        ("pair 7/3 convolved", ["--kernel-x", weights_text(x), "--kernel-y", weights_text(y), "--convolve"],
         dict(x=x, y=y, convolve=True)),
        ("matrix 5x3 text", ["--kernel-2d", c.path("full.txt")], dict(matrix=full)),
        ("matrix 3x7 .npy convolved normalised", ["--kernel-2d", c.path("table.npy"), "--convolve", "--normalize"],
         dict(matrix=table.astype(float), convolve=True, normalize=True)),
    ]


def check_images(c):
    rng = np.random.default_rng(5)
    inputs = {"rgb": rng.integers(0, 256, (29, 37, 3), dtype=np.uint8),
              "grey": rng.integers(0, 256, (17, 23, 1), dtype=np.uint8)}
    for name, pixels in inputs.items():
        png_io.write_png(c.path(f"{name}.png"), pixels)
    for case, flags, kwargs in image_cases(c):
        for mode in MODES:
            for name, pixels in inputs.items():
                out = c.path(f"out_{len(os.listdir(c.work))}.png")
                c.filter([c.path(f"{name}.png"), "-o", out, "--border", mode, *CPU, *flags])
                got = png_io.read_png(out).astype(float)
                expected = np.clip(scipy_filter(pixels, mode, **kwargs), 0, 255)
                levels = float(np.max(np.abs(got - expected)))
                c.check(f"{case}, {name}, {mode}: within {LEVEL_TOLERANCE} levels of SciPy", levels <= LEVEL_TOLERANCE,
                        f"{levels:.3g} levels")
        # Floor and ceil: SciPy's float64 result floored (ceiled), ties aside.
        for rounding in ("floor", "ceil"):
            pixels = inputs["rgb"]
            out = c.path(f"out_{len(os.listdir(c.work))}.png")
            c.filter([c.path("rgb.png"), "-o", out, "--border", "constant", "--rounding", rounding, *CPU, *flags])
            got = png_io.read_png(out).astype(float)
            exact = scipy_filter(pixels, "constant", **kwargs)
            expected = expected_levels(exact, rounding)
            ties = tie_mask(exact)
            c.ties += int(ties.sum())
            wrong = int(((got != expected) & ~ties).sum())
            c.check(f"{case}, --rounding {rounding}: the {rounding} of SciPy's float64 result ({int(ties.sum())} ties)",
                    wrong == 0 and not (np.abs(got - expected)[ties] > 1).any(), f"{wrong} samples differ")


def original_floor(pixels, table, divisor):
    """The original system's arithmetic, written independently: integer sums of the zero-padded
    image's 25 shifted products, divided by the table's sum and truncated."""
    height, width = pixels.shape[:2]
    padded = np.zeros((height + 4, width + 4, pixels.shape[2]), np.int64)
    padded[2:-2, 2:-2] = pixels
    total = np.zeros(pixels.shape, np.int64)
    for j in range(5):
        for i in range(5):
            total += int(table[j][i]) * padded[j:j + height, i:i + width]
    return (total // divisor).astype(np.uint8)


def check_original_bmp(c, data):
    table = np.round(256 * sigma15_table()).astype(np.int64)
    divisor = int(table.sum())
    c.check("the sigma-1.5 table in 8-bit fixed point sums to 254", divisor == 254, str(divisor))
    np.savetxt(c.path("original_table.txt"), table, fmt="%d")
    photo = np.asarray(Image.open(os.path.join(data, "astronaut.png")).convert("RGB"))
    inputs = []
    for k, (y0, x0) in enumerate(((0, 0), (200, 260))):
        path = c.path(f"original_{k}.bmp")
        Image.fromarray(photo[y0:y0 + 160, x0:x0 + 211]).save(path)  # 24-bit BMP, an odd width (row padding)
        inputs.append(path)
    flags = ["--kernel-2d", c.path("original_table.txt"), "--normalize", "--border", "constant", "--rounding", "floor"]
    expected = [original_floor(np.asarray(Image.open(p)), table, divisor) for p in inputs]

    out = c.path("original_out.bmp")
    c.filter([inputs[0], "-o", out, *CPU, *flags])
    with Image.open(out) as written:
        c.check("the BMP output is a 24-bit BMP", written.format == "BMP" and written.mode == "RGB",
                f"{written.format} {written.mode}")
        got = np.asarray(written)
    c.check("the original's 5×5 table, zero border, floor: byte for byte (one file)",
            np.array_equal(got, expected[0]), f"{int((got != expected[0]).sum())} bytes differ")
    for label, extra in (("a batch, the default method", []), ("a batch in 3 bands", ["--bands", "3", *CPU]),
                         ("a batch, one CPU thread", ["--method", "cpu_separable", "--quiet"])):
        folder = c.path(f"original_batch_{len(os.listdir(c.work))}")
        c.filter([*inputs, "--out-dir", folder, "--format", "bmp", *flags, *extra])
        same = [np.array_equal(np.asarray(Image.open(os.path.join(folder, f"original_{k}.bmp"))), expected[k])
                for k in range(len(inputs))]
        c.check(f"the original's table byte for byte: {label}", all(same), str(same))

    # The same table in float64 (the normalised Gaussian itself): floor of SciPy's float64 result, ties aside.
    np.savetxt(c.path("sigma15.txt"), sigma15_table(), fmt="%.17g")
    out = c.path("sigma15_out.bmp")
    c.filter([inputs[1], "-o", out, *CPU, "--kernel-2d", c.path("sigma15.txt"), "--border", "constant",
              "--rounding", "floor"])
    pixels = np.asarray(Image.open(inputs[1]))
    exact = scipy_filter(pixels, "constant", matrix=sigma15_table())
    ties = tie_mask(exact)
    got = np.asarray(Image.open(out)).astype(float)
    wrong = int(((got != expected_levels(exact, "floor")) & ~ties).sum())
    c.check(f"the sigma-1.5 table in float64 with floor: floor of SciPy's result ({int(ties.sum())} ties of "
            f"{exact.size})", wrong == 0, f"{wrong} samples differ")


def check_listing_and_refusals(c):
    listing = c.filter(["--list-methods"]).stdout.splitlines()
    cpu_lines = [line for line in listing if line.split("\t")[0] in ("cpu_openmp", "cpu_separable")]
    c.check("--list-methods marks the CPU methods: any 2D kernel, every rounding, [1D] last",
            len(cpu_lines) == 2 and all("[kernels: any 2D] [rounding: nearest, floor, ceil] [1D]" in line.split("\t")[2]
                                        and line.split("\t")[2].endswith("[1D]") for line in cpu_lines),
            "\n".join(cpu_lines))
    sized = c.filter(["--list-methods", "--size", "64x48", "--kernel-2d", c.path("full.txt")]).stdout.splitlines()
    rows = {line.split("\t")[0]: line.split("\t") for line in sized}
    c.check("--list-methods --size with a 2D kernel: the CPU methods give their bound",
            all(rows[m][3].startswith("bound:") for m in ("cpu_openmp", "cpu_separable")), str(rows.get("cpu_openmp")))
    for method, columns in rows.items():
        if len(columns) > 3 and columns[1] == "cuda" and columns[3].startswith("refuses"):
            c.check(f"{method} refuses a custom kernel with the reason", "custom kernel" in columns[3], columns[3])

    good = c.path("rgb.png")
    out = c.path("refused.png")
    np.save(c.path("one_d.npy"), np.ones(3))
    with open(c.path("ragged.txt"), "w") as f:
        f.write("1 2 3\n4 5\n6 7 8\n")
    with open(c.path("even.txt"), "w") as f:
        f.write("1 2\n3 4\n")
    with open(c.path("nan.txt"), "w") as f:
        f.write("1 2 1\n2 nan 2\n1 2 1\n")
    with open(c.path("words.txt"), "w") as f:
        f.write("1 2 1\n2 four 2\n1 2 1\n")
    with open(c.path("empty.txt"), "w") as f:
        f.write("# nothing\n")
    base = [good, "-o", out, "--method", "cpu_openmp"]
    c.refused("even mask", [*base, "--kernel", "1,2,3,4"], ["--kernel", "even", "pad it with a 0"])
    c.refused("empty mask", [*base, "--kernel", ""], ["--kernel", "empty"])
    c.refused("non-numeric weight", [*base, "--kernel", "1,two,1"], ["--kernel", "weight 2", "not a number"])
    c.refused("NaN weight", [*base, "--kernel", "1,nan,1"], ["NaN"])
    c.refused("zero sum with --normalize", [*base, "--kernel", "-1,0,1", "--normalize"], ["sum to 0"])
    c.refused("--kernel with --sigma", [*base, "--kernel", "1,2,1", "--sigma", "2"], ["--kernel", "--sigma"])
    c.refused("--kernel with --radius", [*base, "--kernel", "1,2,1", "--radius", "3"], ["--radius"])
    c.refused("two kernels", [*base, "--kernel", "1,2,1", "--kernel-2d", c.path("full.txt")], ["give one"])
    c.refused("--kernel-x alone", [*base, "--kernel-x", "1,2,1"], ["--kernel-y"])
    c.refused("--convolve without a kernel", [*base, "--sigma", "2", "--convolve"], ["--convolve", "custom kernel"])
    c.refused("--normalize without a kernel", [*base, "--sigma", "2", "--normalize"], ["--normalize"])
    c.refused("unknown rounding", [*base, "--sigma", "2", "--rounding", "truncate"], ["--rounding", "floor"])
    c.refused("missing kernel file", [*base, "--kernel-2d", c.path("missing.txt")], ["missing.txt", "cannot open"])
    c.refused("ragged matrix", [*base, "--kernel-2d", c.path("ragged.txt")], ["row 2 has 2 numbers"])
    c.refused("even matrix", [*base, "--kernel-2d", c.path("even.txt")], ["each side must be odd"])
    c.refused("NaN in a matrix", [*base, "--kernel-2d", c.path("nan.txt")], ["row 2, column 2", "NaN"])
    c.refused("words in a matrix", [*base, "--kernel-2d", c.path("words.txt")], ["'four' is not a number"])
    c.refused("empty matrix", [*base, "--kernel-2d", c.path("empty.txt")], ["no numbers"])
    c.refused("1D .npy as a matrix", [*base, "--kernel-2d", c.path("one_d.npy")], ["1D", "--kernel"])
    c.refused("a pair on a signal", [c.path("random.npy"), "-o", c.path("pair_signal.npy"), "--kernel-x", "1,2,1",
                                     "--kernel-y", "1,2,1", "--method", "cpu_openmp"], ["1D mask"])
    c.refused("no sigma and no kernel", [good, "-o", out, "--method", "cpu_openmp"], ["sigma", "--kernel"])
    c.check("no output file was left by a refused run", not os.path.exists(out), out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the gausslab-filter executable")
    parser.add_argument("--data", default=os.path.join(HERE, "..", "data"), help="the tests/data folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gausslab-kernels-") as work:
        c = Checks(args.filter, work)
        check_signals(c)
        check_images(c)
        check_original_bmp(c, os.path.abspath(args.data))
        check_listing_and_refusals(c)
        print(f"{c.ties} rounding ties in all")
        return c.summary()


if __name__ == "__main__":
    sys.exit(main())
