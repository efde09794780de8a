#!/usr/bin/python3
"""gausslab-filter keeps every pixel type, checked against SciPy in float64 (issue 35, must-show 1).

Inputs are written by other tools where one can (NumPy for .npy, OpenCV for PNG, TIFF and OpenEXR,
this script for PFM, FITS and PNM; the half TIFF by gausslab's own writer, which nothing else here
writes) and read back the same way, so that a reader and a writer of gausslab cannot hide each
other's mistake. For each case of a small matrix (every format x type it holds at least once,
every border, sigma 0.6 to 20, odd sizes, both CPU methods):

- the output, compared with scipy.ndimage.gaussian_filter(x.astype(float64), sigma, mode, truncate,
  radius) per channel (gausslab's border names are SciPy's modes): integer outputs within 0.51 of
  their own levels, float32 within 1e-5 relative, half within 1e-3 relative;
- the output's type and channels equal the input's (the written file's own dtype and shape);
- a round trip (--radius 0, the identity) through the same format is bit-exact.

Then: --output-type conversions by the stated rule (u16 -> u8, u8 -> u16, f32 -> u16 with
clamping, u16 -> f32, f32 -> f16) with the rule's line on stderr; refusals before any work (a type
the output format cannot hold, with --output-type and without, naming the formats that can);
float64 .npy filtered in float32 with a line naming the file, written back as float64; a 1D .npy
stays a signal; the pipelined batch (--out-dir, --threads 2) and --bands 3 write what a single
pass writes; with --mpiexec, one folder over 3 ranks by files and one image's rows over 3 ranks
keep the type and write the single process's bytes.

With --method ID every filtering run uses that method instead (the GPU check: a GPU method's
typed paths through the lanes, bands and ranks, against the same bounds).

usage: check_filter_types_vs_scipy.py --filter PATH/gausslab-filter [--mpiexec PATH/mpirun] [--method ID]
Exit status 0 when every check holds, 1 otherwise, 77 (skipped) without SciPy or OpenCV.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_kit  # noqa: E402

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")  # before cv2 is imported
try:
    import cv2
    from scipy import ndimage
except ImportError as missing:  # pragma: no cover
    print(f"-- skipped: {missing}")
    sys.exit(77)

LEVELS = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0}
# Integer outputs: half a level of rounding plus the arithmetic's error, within 0.51 levels at 8 and
# 16 bits. At 16 bits float32 sums carry a few ulps of 65535 (up to 0.044 levels), so the CPU
# methods sum 16-bit images in float64 (core/src/cpu_filter.cpp): the rounding's half level and at
# most 2^-9 more (their row pass's float32 image).
LEVEL_BOUND = {np.dtype(np.uint8): 0.51, np.dtype(np.uint16): 0.51}
CPU_METHODS = ("cpu_separable", "cpu_openmp")
# A GPU method (--method) sums 16-bit images in float32: 0.5 + 4e-7 x 65535 = 0.526 levels there.
GPU_LEVEL_BOUND_16BIT = 0.5 + 4e-7 * 65535.0


# ---- writers and readers that are not gausslab ---------------------------------------------------

def to_cv(a):
    """RGB(A) -> OpenCV's BGR(A)."""
    if a.ndim == 3 and a.shape[2] in (3, 4):
        return a[:, :, [2, 1, 0, 3][:a.shape[2]]]
    return a


def from_cv(a):
    return to_cv(a)  # the same swap


def write_pfm(path, a):
    """Pf (grey) or PF (RGB), little-endian, rows bottom to top."""
    kind = b"Pf" if a.ndim == 2 else b"PF"
    with open(path, "wb") as f:
        f.write(kind + b"\n%d %d\n-1.0\n" % (a.shape[1], a.shape[0]))
        f.write(np.ascontiguousarray(a[::-1]).astype("<f4").tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        width, height = map(int, f.readline().split())
        scale = float(f.readline())
        channels = 1 if kind == b"Pf" else 3
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    a = data.reshape(height, width, channels)[::-1].astype(np.float32)
    return a[:, :, 0] if channels == 1 else a


def write_fits(path, a):
    """A primary image: uint16 as BITPIX 16 with BZERO 32768, float32 as BITPIX -32; H x W x C as
    NAXIS1 = W, NAXIS2 = H, NAXIS3 = C (planes), row 0 first (astropy's data[0])."""
    planes = a[None] if a.ndim == 2 else np.moveaxis(a, 2, 0)
    cards = ["SIMPLE  =                    T", f"BITPIX  = {16 if a.dtype == np.uint16 else -32:>20}",
             f"NAXIS   = {2 if a.ndim == 2 else 3:>20}", f"NAXIS1  = {a.shape[1]:>20}", f"NAXIS2  = {a.shape[0]:>20}"]
    if a.ndim == 3:
        cards.append(f"NAXIS3  = {a.shape[2]:>20}")
    if a.dtype == np.uint16:
        cards += ["BZERO   =                32768", "BSCALE  =                    1"]
        data = (planes.astype(np.int32) - 32768).astype(">i2").tobytes()
    else:
        data = planes.astype(">f4").tobytes()
    cards.append("END")
    header = "".join(card.ljust(80) for card in cards).encode()
    header += b" " * (-len(header) % 2880)
    with open(path, "wb") as f:
        f.write(header + data + b"\0" * (-len(data) % 2880))


def read_fits(path):
    with open(path, "rb") as f:
        raw = f.read()
    cards, at = {}, 0
    while True:
        card = raw[at:at + 80].decode()
        at += 80
        if card.startswith("END"):
            break
        if "=" in card[:10]:
            cards[card[:8].strip()] = card[10:].split("/")[0].strip()
    at += -at % 2880
    bitpix, naxis = int(cards["BITPIX"]), int(cards["NAXIS"])
    shape = [int(cards[f"NAXIS{i}"]) for i in range(naxis, 0, -1)]
    dtype = {8: ">u1", 16: ">i2", 32: ">i4", -32: ">f4", -64: ">f8"}[bitpix]
    count = int(np.prod(shape))
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=at).reshape(shape)
    bzero, bscale = float(cards.get("BZERO", 0)), float(cards.get("BSCALE", 1))
    if bitpix == 16 and bzero == 32768 and bscale == 1:
        data = (data.astype(np.int32) + 32768).astype(np.uint16)
    elif bitpix == 8:
        data = data.astype(np.uint8)
    else:
        data = data.astype(np.float32 if bitpix == -32 else data.dtype.newbyteorder("="))
    return data if naxis == 2 else np.moveaxis(data, 0, 2)


def write_pnm(path, a):
    """P5/P6 with maxval 65535 (big-endian samples)."""
    kind = b"P5" if a.ndim == 2 else b"P6"
    with open(path, "wb") as f:
        f.write(kind + b"\n%d %d\n65535\n" % (a.shape[1], a.shape[0]))
        f.write(a.astype(">u2").tobytes())


def read_pnm(path):
    with open(path, "rb") as f:
        raw = f.read()
    fields, at = [], 0
    while len(fields) < 4:
        while raw[at:at + 1].isspace():
            at += 1
        end = at
        while not raw[end:end + 1].isspace():
            end += 1
        fields.append(raw[at:end])
        at = end
    at += 1
    kind, width, height, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    channels = 1 if kind == b"P5" else 3
    data = np.frombuffer(raw, dtype=">u2" if maxval > 255 else "u1", count=width * height * channels, offset=at)
    a = data.reshape(height, width, channels).astype(np.uint16 if maxval > 255 else np.uint8)
    return a[:, :, 0] if channels == 1 else a


def write_other(path, a):
    """Writes `a` with a tool that is not gausslab; False where none here writes this type."""
    ext = os.path.splitext(path)[1]
    if ext == ".npy":
        np.save(path, a)
    elif ext == ".pfm":
        write_pfm(path, a)
    elif ext == ".fits":
        write_fits(path, a)
    elif ext == ".ppm" or ext == ".pgm":
        write_pnm(path, a)
    elif ext == ".exr":
        flags = [cv2.IMWRITE_EXR_TYPE, cv2.IMWRITE_EXR_TYPE_HALF] if a.dtype == np.float16 else []
        return cv2.imwrite(path, to_cv(a.astype(np.float32)), flags)
    elif a.dtype == np.float16 or (a.ndim == 3 and a.shape[2] == 4 and a.dtype == np.float32):
        return False  # OpenCV writes no half TIFF, and marks a float TIFF's 4th sample as not alpha
    else:
        return cv2.imwrite(path, to_cv(a))
    return True


def read_other(path, half=False):
    """The file's samples by a reader that is not gausslab, or None where none here reads it
    (a half TIFF; OpenCV reads a half EXR as float32: its dtype is checked through .npy)."""
    ext = os.path.splitext(path)[1]
    if half and ext == ".tif":
        return None
    if ext == ".npy":
        return np.load(path)
    if ext == ".pfm":
        return read_pfm(path)
    if ext == ".fits":
        return read_fits(path)
    if ext in (".ppm", ".pgm"):
        return read_pnm(path)
    a = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    return None if a is None else from_cv(a)


# ---- the checks ---------------------------------------------------------------------------------

class Checks(check_kit.Checks):
    def __init__(self, tool, mpiexec, work):
        super().__init__()
        self.tool, self.mpiexec, self.work = tool, mpiexec, work

    def run(self, args, ranks=0):
        prefix = []
        if ranks:
            prefix = [self.mpiexec, "--oversubscribe", "-np", str(ranks)]
            if os.geteuid() == 0:
                prefix.insert(1, "--allow-run-as-root")
        env = dict(os.environ)
        env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        return subprocess.run(prefix + [self.tool, *args], capture_output=True, text=True, timeout=600, env=env)

    def ran(self, name, done, status=0):
        bad = [sign for sign in ("terminate called", "Segmentation", "core dumped") if sign in done.stderr]
        return self.check(f"{name}: exit {status}", done.returncode == status and not bad,
                          f"exit {done.returncode}\n      stderr: {done.stderr.strip()[-1500:]}")

    def as_npy(self, path):
        """The file as gausslab reads it, through its identity filter into .npy: dtype and shape as stored."""
        out = path + ".seen.npy"
        if os.path.exists(out):
            os.remove(out)
        done = self.run([path, "-o", out, "--sigma", "1", "--radius", "0", "--method", "cpu_separable", "--quiet"])
        if done.returncode != 0:
            raise RuntimeError(f"{path} could not be read back: {done.stderr.strip()[-800:]}")
        return np.load(out)


def scipy_reference(a, sigma, mode, truncate, radius):
    x = a.astype(np.float64)
    keyword = {"radius": radius} if radius is not None else {}
    if x.ndim == 2:
        return ndimage.gaussian_filter(x, sigma, mode=mode, truncate=truncate, **keyword)
    return np.stack([ndimage.gaussian_filter(x[:, :, c], sigma, mode=mode, truncate=truncate, **keyword)
                     for c in range(x.shape[2])], axis=2)


def worst_error(out, ref, dtype):
    """(worst, bound, unit): levels for integers, relative for floats."""
    got = out.astype(np.float64)
    if dtype in LEVELS:
        gpu_16bit = METHOD and METHOD not in CPU_METHODS and dtype == np.uint16
        return float(np.max(np.abs(got - ref))), GPU_LEVEL_BOUND_16BIT if gpu_16bit else LEVEL_BOUND[dtype], "levels"
    bound = 1e-5 if dtype == np.float32 else 1e-3
    return float(np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-30))), bound, "relative"


def make_input(rng, dtype, height, width, channels):
    shape = (height, width) if channels == 1 else (height, width, channels)
    if dtype in (np.uint8, np.uint16):
        return rng.integers(0, int(LEVELS[np.dtype(dtype)]) + 1, shape, dtype=dtype)
    if dtype == np.float32:  # positive, several decades: relative error means something
        return (rng.random(shape) * 1000.0 + 0.01).astype(np.float32)
    return (rng.random(shape) * 4.0 + 0.001).astype(np.float16)


# name, dtype, channels, extension, (height, width), border, sigma, method, truncate, radius
CASES = [
    ("u8-rgba-png", np.uint8, 4, ".png", (23, 37), "wrap", 3.0, "cpu_separable", 4.0, None),
    ("u16-grey-png", np.uint16, 1, ".png", (23, 37), "reflect", 0.6, "cpu_openmp", 4.0, None),
    ("u16-rgb-png", np.uint16, 3, ".png", (37, 23), "nearest", 3.0, "cpu_separable", 4.0, None),
    ("u16-rgb-tiff", np.uint16, 3, ".tif", (29, 41), "wrap", 2.0, "cpu_openmp", 4.0, None),
    ("u16-grey-fits", np.uint16, 1, ".fits", (23, 37), "constant", 20.0, "cpu_separable", 4.0, None),
    ("u16-rgb-pnm", np.uint16, 3, ".ppm", (19, 23), "mirror", 1.3, "cpu_openmp", 4.0, None),
    ("u16-grey-npy", np.uint16, 1, ".npy", (31, 29), "mirror", 5.0, "cpu_separable", 3.0, None),
    ("f32-grey-tiff", np.float32, 1, ".tif", (23, 37), "mirror", 5.0, "cpu_openmp", 4.0, None),
    ("f32-grey-pfm", np.float32, 1, ".pfm", (21, 33), "reflect", 20.0, "cpu_separable", 4.0, None),
    ("f32-rgba-exr", np.float32, 4, ".exr", (23, 37), "wrap", 0.6, "cpu_openmp", 4.0, None),
    ("f32-rgba-tiff", np.float32, 4, ".tif", (27, 19), "constant", 2.5, "cpu_separable", 4.0, None),
    ("f32-grey-fits", np.float32, 1, ".fits", (17, 21), "nearest", 1.0, "cpu_openmp", 4.0, None),
    ("f32-rgba-npy", np.float32, 4, ".npy", (23, 37), "reflect", 4.0, "cpu_openmp", 2.5, None),
    ("f16-rgb-exr", np.float16, 3, ".exr", (23, 37), "nearest", 1.5, "cpu_separable", 4.0, None),
    ("f16-rgb-tiff", np.float16, 3, ".tif", (19, 31), "reflect", 8.0, "cpu_openmp", 4.0, None),
    ("f16-rgb-npy", np.float16, 3, ".npy", (23, 37), "constant", 0.6, "cpu_separable", 4.0, 3),
]


METHOD = ""  # --method: every filtering run with it


def filter_args(sigma, border, method, truncate, radius):
    args = ["--sigma", str(sigma), "--border", border, "--method", METHOD or method]
    args += ["--radius", str(radius)] if radius is not None else ["--truncate", str(truncate)]
    return args


def check_output(c, name, out_path, source, ref, want_dtype):
    seen = c.as_npy(out_path)
    c.check(f"{name}: the output keeps the type and channels ({want_dtype}, {source.shape})",
            seen.dtype == want_dtype and seen.shape == source.shape, f"written {seen.dtype} {seen.shape}")
    # OpenCV reads a half EXR as float32: the .npy above has its dtype.
    other = read_other(out_path, want_dtype == np.float16)
    if other is not None and other.dtype != want_dtype and not (want_dtype == np.float16 and other.dtype == np.float32):
        c.check(f"{name}: the other reader sees {want_dtype}", False, f"it sees {other.dtype}")
    values = other if other is not None and other.shape == source.shape else seen
    worst, bound, unit = worst_error(values, ref, np.dtype(want_dtype))
    c.check(f"{name}: within {bound} {unit} of SciPy float64 (worst {worst:.3g})", worst <= bound, f"worst {worst}")
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--filter", required=True)
    parser.add_argument("--mpiexec", default="")
    parser.add_argument("--method", default="", help="every filtering run with this method (default: the cases')")
    args = parser.parse_args()
    global METHOD
    METHOD = args.method
    rng = np.random.default_rng(35)
    with tempfile.TemporaryDirectory(prefix="gausslab-types-") as work:
        c = Checks(os.path.abspath(args.filter), args.mpiexec, work)
        inputs = {}
        for name, dtype, channels, ext, (height, width), border, sigma, method, truncate, radius in CASES:
            source = make_input(rng, dtype, height, width, channels)
            path = os.path.join(work, name + ext)
            if not write_other(path, source):  # gausslab's own writer, from .npy (the identity filter)
                np.save(path + ".npy", source)
                c.ran(f"{name}: written by gausslab", c.run([path + ".npy", "-o", path, "--sigma", "1", "--radius", "0",
                                                             "--method", "cpu_separable", "--quiet"]))
            back = read_other(path, dtype == np.float16)
            if back is not None and dtype != np.float16:
                c.check(f"{name}: the input reads back as written", np.array_equal(back, source), "it does not")
            inputs[name] = (path, source)

            out = os.path.join(work, name + ".out" + ext)
            done = c.run([path, "-o", out, *filter_args(sigma, border, method, truncate, radius)])
            if not c.ran(f"{name}: {border}, sigma {sigma}, {method}", done):
                continue
            ref = scipy_reference(source, sigma, border, truncate, radius)
            check_output(c, name, out, source, ref, np.dtype(dtype))

            trip = os.path.join(work, name + ".trip" + ext)
            c.run([path, "-o", trip, "--sigma", "1", "--radius", "0", "--method", METHOD or method, "--quiet"])
            first, second = c.as_npy(path), c.as_npy(trip)
            exact = first.dtype == second.dtype and first.tobytes() == second.tobytes() and \
                np.array_equal(first, source)
            other = read_other(trip, dtype == np.float16)
            if other is not None and dtype != np.float16:
                exact = exact and np.array_equal(other, source)
            c.check(f"{name}: a round trip through {ext} is bit-exact", exact, "the samples differ")

        check_output_types(c, work, inputs)
        check_float64_and_signals(c, work)
        check_batch_bands_and_ranks(c, work, inputs)
        return c.summary()


def check_output_types(c, work, inputs):
    """--output-type: the rule per pair, its line on stderr, and the refusals before any work."""
    u16_path, u16 = inputs["u16-rgb-tiff"]
    f32_path, _ = inputs["f32-grey-tiff"]
    kept = os.path.join(work, "kept-u16.tif")
    c.run([u16_path, "-o", kept, "--sigma", "2", "--method", METHOD or "cpu_openmp", "--quiet"])
    kept16 = c.as_npy(kept).astype(np.float64)

    as8 = os.path.join(work, "as-u8.png")
    done = c.run([u16_path, "-o", as8, "--sigma", "2", "--method", METHOD or "cpu_openmp", "--output-type", "u8"])
    if c.ran("--output-type u8 from u16", done):
        got = read_other(as8)
        c.check("u16 -> u8: round(level x 255/65535) half up, of the 16-bit result",
                got.dtype == np.uint8 and np.array_equal(got, np.floor(kept16 * 255.0 / 65535.0 + 0.5)), "differs")
        c.check("u16 -> u8: the rule is on stderr", "u16 written as u8: levels × 255/65535, rounded half up" in
                done.stderr, done.stderr[-600:])

    back16 = os.path.join(work, "back-u16.png")
    done = c.run([as8, "-o", back16, "--sigma", "1", "--radius", "0", "--method", "cpu_separable",
                  "--output-type", "u16"])
    if c.ran("--output-type u16 from u8", done):
        got = read_other(back16)
        c.check("u8 -> u16: level x 257 exactly", got.dtype == np.uint16 and
                np.array_equal(got, read_other(as8).astype(np.uint16) * 257), "differs")

    as_f32 = os.path.join(work, "as-f32.exr")
    done = c.run([u16_path, "-o", as_f32, "--sigma", "2", "--method", METHOD or "cpu_openmp", "--output-type", "f32"])
    if c.ran("--output-type f32 from u16", done):
        got = c.as_npy(as_f32)
        worst = float(np.max(np.abs(got - kept16 / 65535.0)))
        c.check(f"u16 -> f32: level / 65535 (worst {worst:.2g})", got.dtype == np.float32 and worst <= 6e-8,
                f"{got.dtype}, worst {worst}")
        c.check("u16 -> f32: the rule is on stderr", "u16 written as f32: levels ÷ 65535" in done.stderr,
                done.stderr[-600:])

    # float -> integer clamps to [0, 1]: values of -0.5 .. 1.5 go out of range on both sides.
    wide = (np.random.default_rng(7).random((19, 23)) * 2.0 - 0.5).astype(np.float32)
    wide_path = os.path.join(work, "wide.npy")
    np.save(wide_path, wide)
    clamp = os.path.join(work, "clamped-u16.png")
    done = c.run([wide_path, "-o", clamp, "--sigma", "0.6", "--border", "nearest",
                  "--method", METHOD or "cpu_openmp", "--output-type", "u16"])
    if c.ran("--output-type u16 from f32", done):
        got = read_other(clamp).astype(np.float64)
        ref = np.clip(scipy_reference(wide, 0.6, "nearest", 4.0, None), 0.0, 1.0) * 65535.0
        worst = float(np.max(np.abs(got - ref)))
        c.check(f"f32 -> u16: clamp [0, 1] x 65535 rounded, within 0.51 levels of SciPy (worst {worst:.3g})",
                worst <= 0.51 and got.min() == 0 and got.max() == 65535, f"worst {worst}, {got.min()}..{got.max()}")
        c.check("f32 -> u16: the rule and the clamped count are on stderr",
                "f32 written as u16: values clamped to [0, 1], × 65535, rounded half up" in done.stderr and
                "samples clamped to the range of u16" in done.stderr, done.stderr[-600:])

    f32_kept = os.path.join(work, "kept-f32.npy")
    c.run([f32_path, "-o", f32_kept, "--sigma", "1.5", "--method", METHOD or "cpu_openmp", "--quiet"])
    as16f = os.path.join(work, "as-f16.npy")
    done = c.run([f32_path, "-o", as16f, "--sigma", "1.5", "--method", METHOD or "cpu_openmp", "--output-type", "f16"])
    if c.ran("--output-type f16 from f32", done):
        got = np.load(as16f)
        c.check("f32 -> f16: the float32 result rounded to the nearest half (NumPy's astype)",
                got.dtype == np.float16 and np.array_equal(got, np.load(f32_kept).astype(np.float16)), "differs")

    # --pool keeps the type: the 2x2 mean of the 16-bit result, rounded half up, in 16 bits.
    pooled = os.path.join(work, "pooled-u16.tif")
    done = c.run([u16_path, "-o", pooled, "--sigma", "2", "--method", METHOD or "cpu_openmp", "--pool", "avg2x2"])
    if c.ran("--pool avg2x2 of a 16-bit RGB image", done):
        got = read_other(pooled)
        h, w = kept16.shape[0] // 2 * 2, kept16.shape[1] // 2 * 2
        k = kept16[:h, :w]
        want = np.floor((k[0::2, 0::2] + k[0::2, 1::2] + k[1::2, 0::2] + k[1::2, 1::2]) / 4.0 + 0.5)
        c.check("--pool avg2x2: 16-bit kept, the mean of each 2x2 block rounded half up",
                got.dtype == np.uint16 and np.array_equal(got, want), f"{got.dtype} {got.shape}")

    # A 12-bit PGM (maxval 4095) written back as PGM keeps its maxval and its samples' scale.
    twelve = np.random.default_rng(12).integers(0, 4096, (17, 23)).astype(np.uint16)
    pgm = os.path.join(work, "twelve.pgm")
    with open(pgm, "wb") as f:
        f.write(b"P5\n23 17\n4095\n" + twelve.astype(">u2").tobytes())
    out = os.path.join(work, "twelve.out.pgm")
    done = c.run([pgm, "-o", out, "--sigma", "1.2", "--method", METHOD or "cpu_openmp"])
    if c.ran("a 12-bit PGM", done):
        with open(out, "rb") as f:
            head = f.read(20)
        got = read_pnm(out).astype(np.float64)
        worst = float(np.max(np.abs(got - scipy_reference(twelve, 1.2, "reflect", 4.0, None))))
        c.check(f"12-bit PGM: maxval 4095 kept, within 0.51 levels of SciPy (worst {worst:.3g})",
                b"\n4095\n" in head and worst <= 0.51, f"header {head!r}, worst {worst}")

    # Refusals, before any work: nothing written, the formats that can hold it named.
    refused = os.path.join(work, "refused.png")
    done = c.run([u16_path, "-o", refused, "--sigma", "2", "--output-type", "f32"])
    c.check("--output-type f32 into .png: refused up front (exit 2), naming tiff, pfm, exr, fits or npy",
            done.returncode == 2 and "tiff, pfm, exr, fits or npy" in done.stderr and not os.path.exists(refused),
            done.stderr[-600:])
    c.check("  ... before any work (no method line, no summary)", "images/s" not in done.stderr, done.stderr[-600:])
    done = c.run([u16_path, "--out-dir", os.path.join(work, "never"), "--format", "jpg", "--sigma", "2",
                  "--output-type", "u16"])
    c.check("--output-type u16 --format jpg: refused up front (exit 2), naming png, pnm, tiff, fits or npy",
            done.returncode == 2 and "png, pnm, tiff, fits or npy" in done.stderr and
            not os.path.exists(os.path.join(work, "never")), done.stderr[-600:])
    done = c.run([f32_path, "-o", refused, "--sigma", "2", "--method", METHOD or "cpu_openmp"])
    c.check("float32 kept into .png: refused before filtering (exit 2), naming tiff, pfm, exr, fits or npy",
            done.returncode == 2 and "tiff, pfm, exr, fits or npy" in done.stderr and not os.path.exists(refused),
            done.stderr[-600:])
    done = c.run([u16_path, "-o", os.path.join(work, "refused.jpg"), "--sigma", "2", "--output-type", "x16"])
    c.check("--output-type x16: refused with the four types", done.returncode == 2 and
            "u8, u16, f16 or f32" in done.stderr, done.stderr[-600:])


def check_float64_and_signals(c, work):
    x = np.random.default_rng(64).random((23, 37, 3))
    path = os.path.join(work, "double.npy")
    np.save(path, x)
    out = os.path.join(work, "double.out.npy")
    done = c.run([path, "-o", out, "--sigma", "2.5", "--border", "mirror", "--method", METHOD or "cpu_openmp"])
    if c.ran("float64 3D .npy", done):
        named = [line for line in done.stderr.splitlines() if "double.npy" in line and "float64" in line
                 and "float32" in line]
        c.check("float64: a line on stderr names the file and says it is filtered in float32", bool(named),
                done.stderr[-800:])
        got = np.load(out)
        ref = scipy_reference(x, 2.5, "mirror", 4.0, None)
        worst = float(np.max(np.abs(got - ref) / np.abs(ref)))
        c.check(f"float64: written back as float64 H×W×C, within 1e-5 relative (worst {worst:.2g})",
                got.dtype == np.float64 and got.shape == x.shape and worst <= 1e-5, f"{got.dtype} {got.shape}")
    signal = np.random.default_rng(1).random(101).astype(np.float32)
    path = os.path.join(work, "signal.npy")
    np.save(path, signal)
    out = os.path.join(work, "signal.out.npy")
    done = c.run([path, "-o", out, "--sigma", "3", "--method", "cpu_openmp"])
    if c.ran("1D .npy", done):
        got = np.load(out)
        ref = ndimage.gaussian_filter1d(signal.astype(np.float64), 3.0, mode="reflect")
        c.check("1D .npy stays a signal (filtered along its axis)",
                got.shape == signal.shape and float(np.max(np.abs(got - ref))) <= 1e-5, f"{got.shape}")


def check_batch_bands_and_ranks(c, work, inputs):
    """The pipelined batch, --bands and MPI ranks write a single pass's samples in the input's type."""
    folder = os.path.join(work, "folder")
    os.makedirs(folder)
    names = ("u16-grey-png", "u16-rgb-tiff", "f32-rgba-exr", "f16-rgb-npy", "f32-grey-fits")
    for name in names:
        path, _ = inputs[name]
        os.link(path, os.path.join(folder, os.path.basename(path)))
    common = ["--sigma", "1.8", "--border", "wrap", "--method", METHOD or "cpu_openmp"]
    single = {}
    for name in names:
        path, source = inputs[name]
        out = os.path.join(work, name + ".single.tif" if not path.endswith(".npy") else name + ".single.npy")
        c.run([path, "-o", out, *common, "--quiet"])
        single[name] = c.as_npy(out)

    def same_as_single(label, out_dir, ext_of):
        good = True
        for name in names:
            path, source = inputs[name]
            stem = os.path.splitext(os.path.basename(path))[0]
            written = os.path.join(out_dir, stem + ext_of(path))
            seen = c.as_npy(written) if os.path.exists(written) else None
            good = good and seen is not None and seen.dtype == single[name].dtype and \
                seen.tobytes() == single[name].tobytes()
        c.check(f"{label}: every file keeps its type and holds the single pass's samples", good, "differs")

    ext_of = (lambda p: ".npy" if p.endswith(".npy") else ".tif")
    batch = os.path.join(work, "batch")
    done = c.run([folder, "--out-dir", batch, "--format", "tiff", "--threads", "2", *common])
    if c.ran("pipelined batch of typed files", done):
        same_as_single("pipelined batch", batch, ext_of)
        c.check("pipelined batch: the progress names each file's type",
                "16-bit RGB" in done.stderr and "float32 RGBA" in done.stderr and "half RGB" in done.stderr,
                done.stderr[-800:])
    bands = os.path.join(work, "bands")
    done = c.run([folder, "--out-dir", bands, "--format", "tiff", "--bands", "3", *common])
    if c.ran("--bands 3 of typed files", done):
        same_as_single("--bands 3", bands, ext_of)
    if not c.mpiexec:
        print("--  no --mpiexec: the MPI checks are skipped")
        return
    ranks = os.path.join(work, "ranks-files")
    done = c.run([folder, "--out-dir", ranks, "--format", "tiff", *common], ranks=3)
    if c.ran("mpirun -np 3, split by files", done):
        same_as_single("3 ranks by files", ranks, ext_of)
    path, _ = inputs["u16-rgb-tiff"]
    out = os.path.join(work, "rows.tif")
    done = c.run([path, "-o", out, *common, "--split", "bands"], ranks=3)
    if c.ran("mpirun -np 3, one 16-bit RGB image's rows over the ranks", done):
        seen = c.as_npy(out)
        c.check("3 ranks by rows: 16-bit RGB kept, the single pass's samples",
                seen.dtype == np.uint16 and seen.tobytes() == single["u16-rgb-tiff"].tobytes(), f"{seen.dtype}")
    path, _ = inputs["f32-rgba-exr"]
    out = os.path.join(work, "rows.exr")
    done = c.run([path, "-o", out, *common, "--split", "bands"], ranks=3)
    if c.ran("mpirun -np 3, one float32 RGBA image's rows over the ranks", done):
        seen = c.as_npy(out)
        c.check("3 ranks by rows: float32 RGBA kept, the single pass's samples",
                seen.dtype == np.float32 and seen.tobytes() == single["f32-rgba-exr"].tobytes(), f"{seen.dtype}")


if __name__ == "__main__":
    sys.exit(main())
