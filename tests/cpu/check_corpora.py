#!/usr/bin/python3
"""The outside corpora (tests/data/corpora: PngSuite, the BMP Suite, libtiff's and libpng's test
files, and cases derived from them) through gausslab's image reader, one subprocess a file
(gausslab_image_tool load), against the outcome tests/data/corpora/manifest.txt gives each:

- 0 crashes: no signal, no sanitizer report, exit status 0 (decoded) or 1 (refused) only;
- 0 hangs: each file within TIMEOUT_S;
- 0 silent acceptances: a file the manifest says is refused must be refused, with a message that
  names it and gives a reason of its class; a file it says decodes must decode, to the reference
  decoder's pixels (PIL or OpenCV, converted to gausslab's conventions);
- memory: the child's peak resident memory (/usr/bin/time's %M, its wait4 ru_maxrss) at most
  MEMORY_FACTOR x the decoded RGBA8 bytes + MEMORY_BASE (2 x + 32 MiB; for a refused file derived
  from a corpus file, that file's decoded bytes; for another refused file, the base alone), and at
  most SMALL_FILE_PEAK (64 MiB) for any file under 1 KB. Each child also runs under an address-space limit (ADDRESS_SPACE), so that a reader
  that tries to allocate gigabytes for a tiny file fails here at once instead of taking the
  machine's memory; a refusal for want of memory is then a memory failure.

Cases that fail today and that work in progress fixes are in tests/data/corpora/known_failures.txt:
they are reported as known failures and do not fail the test, but a listed case that passes does
(remove it from the list), and a crash or a hang fails the test whatever the list says.

Under AddressSanitizer (the tool's binary holds __asan_init) the address-space limit is replaced
by ASan's max_allocation_size_mb (its operator new then aborts with an out-of-memory report, which
counts as the memory failure it is, not as a crash) and the peak-memory bounds are not checked
(its shadow memory counts in the resident size); every other rule holds.

usage: check_corpora.py --tool gausslab_image_tool --corpora tests/data/corpora [--only SUBSTRING]
Exit status 0 when every case behaves (known failures aside), 1 otherwise, 77 (skipped) without
numpy, PIL, OpenCV or /usr/bin/time.
"""
import argparse
import json
import os
import re
import resource
import signal
import struct
import subprocess
import sys
import tempfile

try:
    import cv2
    import numpy as np
    import tifffile
    from PIL import Image
except ImportError as missing:
    print(f"skipped: {missing} (install python3-numpy, python3-pil, python3-opencv and python3-tifffile)")
    sys.exit(77)

TIMEOUT_S = 60
MEMORY_FACTOR = 2
MEMORY_BASE = 32 << 20
SMALL_FILE = 1024
SMALL_FILE_PEAK = 64 << 20
ADDRESS_SPACE = 1 << 30
TIME = "/usr/bin/time"

# The reason a refusal gives, by its message; the first class that matches is the message's.
CLASSES = [
    ("unsupported", r"not supported|cannot convert this kind|does not read|cannot handle|wider than 16 bits"),
    ("limit", r"limit|too large|larger than|more than"),
    ("not-image", r"is not an image in a supported format"),
    ("damaged", r"not a valid|truncat|damaged|corrupt|crc|checksum|data check|no image data|invalid|beyond|"
                r"need at least|not enough data|not terminated|premature|ends (early|before)|overflow|error"),
]
CRASH_SIGNS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "terminate called", "Segmentation fault")


# ---- the cases ------------------------------------------------------------------------------------

class Case:
    def __init__(self, name, outcome, detail, note):
        self.name, self.outcome, self.detail, self.note = name, outcome, detail, note


def read_manifest(path):
    cases = []
    with open(path) as manifest:
        for number, line in enumerate(manifest, 1):
            text, _, note = line.partition("#")
            words = text.split()
            if not words:
                continue
            if len(words) != 3 or words[1] not in ("decode", "refuse"):
                raise SystemExit(f"{path} line {number}: expected 'CASE decode REFERENCE' or 'CASE refuse CLASS'")
            if words[1] == "refuse" and words[2] not in dict(CLASSES):
                raise SystemExit(f"{path} line {number}: unknown class '{words[2]}'")
            cases.append(Case(words[0], words[1], words[2], note.strip()))
    return cases


def read_known_failures(path):
    known = {}
    if os.path.exists(path):
        with open(path) as listed:
            for line in listed:
                text, _, why = line.partition("#")
                if text.strip():
                    known[text.strip()] = why.strip()
    return known


def cut_strips(data, fraction):
    """The TIFF with each strip (tile) byte count cut to `fraction`: the directory intact, the data short."""
    data = bytearray(data)
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack_from(order + "I", data, 4)
    (count,) = struct.unpack_from(order + "H", data, ifd)
    for i in range(count):
        at = ifd + 2 + 12 * i
        tag, kind, values = struct.unpack_from(order + "HHI", data, at)
        if tag not in (279, 325):  # StripByteCounts, TileByteCounts
            continue
        size, fmt = (2, order + "H") if kind == 3 else (4, order + "I")
        where = at + 8 if size * values <= 4 else struct.unpack_from(order + "I", data, at + 8)[0]
        for k in range(values):
            (value,) = struct.unpack_from(fmt, data, where + k * size)
            struct.pack_into(fmt, data, where + k * size, max(1, int(value * fraction)))
    return bytes(data)


def gif_declaring(width, height):
    """A GIF89a whose screen and one frame declare width x height, with a 2-colour palette and an
    LZW stream of a clear code and an end code: under 40 bytes."""
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + bytes(6) + b"," +
            struct.pack("<HHHHB", 0, 0, width, height, 0) + bytes([2, 1, 0x44, 0]) + b";")


def tiff_g4_declaring(width, height):
    """A little-endian TIFF, one CCITT G4 strip of 4 zero bytes declared as width x height, 1 bit."""
    entries = [(256, 4, width), (257, 4, height), (258, 3, 1), (259, 3, 4), (262, 3, 0), (273, 4, 0),
               (277, 3, 1), (278, 4, height), (279, 4, 4)]
    data_at = 8 + 2 + 12 * len(entries) + 4
    out = bytearray(b"II*\0" + struct.pack("<IH", 8, len(entries)))
    for tag, kind, value in entries:
        value = data_at if tag == 273 else value
        out += struct.pack("<HHI", tag, kind, 1) + (struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value))
    return bytes(out + struct.pack("<I", 0) + bytes(4))


MADE = {"gif-32768x32767": (gif_declaring, 32768, 32767, ".gif"),
        "tiff-g4-32768x32768": (tiff_g4_declaring, 32768, 32768, ".tif")}


def materialise(case, corpora, scratch):
    """The path of the case's file: in the corpora, or derived into `scratch`."""
    kind, _, rest = case.name.partition(":")
    if not rest:
        return os.path.join(corpora, case.name)
    if kind == "made":
        build, width, height, extension = MADE[rest]
        data = build(width, height)
        name = rest + extension
    else:
        source, _, fraction = rest.rpartition(":")
        with open(os.path.join(corpora, source), "rb") as f:
            original = f.read()
        fraction = float(fraction)
        data = cut_strips(original, fraction) if kind == "cut-strips" else original[:int(len(original) * fraction)]
        name = f"{kind}-{fraction}-" + source.replace("/", "_")
    path = os.path.join(scratch, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ---- the references -----------------------------------------------------------------------------

def reduce16(values, max_value=65535):
    v = np.asarray(values, dtype=np.uint64)
    return ((2 * v * 255 + max_value) // (2 * max_value)).astype(np.uint8)


def to_rgba(pixels, alpha=None):
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.shape[2] == 1:
        pixels = np.concatenate([pixels] * 3, axis=2)
    elif pixels.shape[2] == 2:
        alpha = pixels[:, :, 1] if alpha is None else alpha
        pixels = np.concatenate([pixels[:, :, :1]] * 3, axis=2)
    if pixels.shape[2] == 3:
        a = np.full(pixels.shape[:2], 255, np.uint8) if alpha is None else alpha.astype(np.uint8)
        pixels = np.concatenate([pixels, a[:, :, None]], axis=2)
    return pixels.astype(np.uint8)


def png_bit_depth(path):
    with open(path, "rb") as f:
        head = f.read(25)
    return head[24] if head[:8] == b"\x89PNG\r\n\x1a\n" else 8


def pil_pixels(path):
    image = Image.open(path)
    image.load()
    key = image.info.get("transparency")
    if image.mode in ("I", "I;16", "I;16B", "I;16L"):  # 16-bit grey: the raw values, reduced
        raw = np.array(image).astype(np.int64)
        alpha = None if key is None else np.where(raw == key, 0, 255)
        return to_rgba(reduce16(raw), alpha)
    if image.mode == "L" and isinstance(key, int):  # PIL widens 1-4 bit grey but not its tRNS key
        depth = png_bit_depth(path)
        grey = np.array(image)
        alpha = np.where(grey == key * (255 // ((1 << depth) - 1)), 0, 255)
        return to_rgba(grey, alpha)
    return np.array(image.convert("RGBA"))


def quietly(read, path):
    """read(path) with the C libraries' warnings on stderr (libpng's, under OpenCV) kept out of the log."""
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            return read(path)
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def cv2_pixels(path):
    raw = quietly(lambda p: cv2.imread(p, cv2.IMREAD_UNCHANGED), path)
    if raw is None:
        raise ValueError("OpenCV does not read it")
    if raw.ndim == 3:
        raw = raw[:, :, [2, 1, 0] + ([3] if raw.shape[2] == 4 else [])]
    if raw.dtype == np.uint16:
        raw = reduce16(raw)
    return to_rgba(raw)


def tifffile_pixels(path):
    """An 8-bit TIFF's stored samples (tifffile), associated alpha made straight as gausslab keeps
    alpha: round(v * 255 / a) half up, at most 255, 0 where a is 0 (PIL and OpenCV keep it
    premultiplied)."""
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[0]
        raw = page.asarray()
        if raw.ndim == 3 and page.planarconfig == tifffile.PLANARCONFIG.SEPARATE:
            raw = np.moveaxis(raw, 0, -1)
        associated = tuple(page.extrasamples)[:1] == (tifffile.EXTRASAMPLE.ASSOCALPHA,)
    if raw.dtype != np.uint8:
        raise ValueError("the tifffile reference reads 8-bit samples only")
    if associated:
        alpha = raw[:, :, -1:].astype(np.float64)
        colour = np.where(alpha > 0, np.minimum(255, np.floor(raw[:, :, :-1] * 255.0 / np.maximum(alpha, 1) + 0.5)), 0)
        raw = np.concatenate([colour, alpha], axis=2).astype(np.uint8)
    return to_rgba(raw)


def reference(detail, path, corpora):
    """(pixels or None, tolerance, compare alpha) for a manifest REFERENCE."""
    match = re.fullmatch(r"(pil|cv2|tifffile|none)(?::([^~+]+))?(?:~(\d+))?(\+rgb)?", detail)
    if not match:
        raise SystemExit(f"unknown reference '{detail}'")
    decoder, other, tolerance, rgb_only = match.groups()
    source = os.path.join(corpora, other) if other else path
    readers = {"pil": pil_pixels, "cv2": cv2_pixels, "tifffile": tifffile_pixels}
    pixels = None if decoder == "none" else readers[decoder](source)
    return pixels, int(tolerance or 0), not rgb_only


# ---- running one ------------------------------------------------------------------------------------

def instrumented(tool):
    with open(tool, "rb") as f:
        return b"__asan_init" in f.read()


def run_reader(tool, path, asan):
    """(status or None on timeout, stdout, stderr, peak bytes or None)."""
    def limit():
        if not asan:
            resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    env = dict(os.environ)
    if asan:
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + f":allocator_may_return_null=1:max_allocation_size_mb={ADDRESS_SPACE >> 20}"
    with tempfile.NamedTemporaryFile("r", suffix=".time") as peak_file:
        child = subprocess.Popen([TIME, "-q", "-o", peak_file.name, "-f", "%M", tool, "load", path],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit, env=env,
                                 start_new_session=True)
        try:
            out, err = child.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            return None, b"", b"", None
        peak_text = peak_file.read().split()
    peak = int(peak_text[-1]) * 1024 if peak_text and peak_text[-1].isdigit() else None
    # time exits with its child's status; a child killed by a signal is reported as 128 + the signal.
    return child.returncode, out, err.decode(errors="replace"), peak


def message_class(message):
    for name, pattern in CLASSES:
        if re.search(pattern, message, re.IGNORECASE):
            return name
    return "unclassified"


def source_of(case):
    """The corpus file a derived case is made from (None for a corpus file or a made one)."""
    kind, _, rest = case.name.partition(":")
    return rest.rpartition(":")[0] if kind in ("cut-strips", "cut-file") else None


def check_case(case, path, tool, corpora, asan, decoded_sizes):
    """(problems, summary): problems is a list of (kind, text); kind 'crash' or 'hang' cannot be excused.
    A refused file's memory bound is the base alone, or for a file derived from a corpus file, the
    bound of that file's decoded size (a reader may allocate what the file declares before it finds
    the damage); decoded_sizes holds the corpus files' decoded sizes, filled in as they are read."""
    status, out, err, peak = run_reader(tool, path, asan)
    if status is None:
        return [("hang", f"still running after {TIMEOUT_S} s")], "hang"
    problems = []
    if asan and re.search(r"AddressSanitizer: (out-of-memory|allocation-size-too-big|requested allocation size)", err):
        # ASan's operator new aborts where the address-space limit would have thrown bad_alloc.
        return [("memory", f"tried to allocate more than the {ADDRESS_SPACE >> 20} MiB the test allows "
                           "(AddressSanitizer's report)")], "out of memory"
    if status not in (0, 1) or any(sign in err for sign in CRASH_SIGNS):
        return [("crash", f"exit status {status}: {err.strip()[-300:]}")], "crash"
    decoded_bytes = 0
    summary = ""
    if status == 0:
        header, _, pixels = out.partition(b"\n")
        info = json.loads(header)
        decoded_bytes = info["width"] * info["height"] * 4
        decoded_sizes[case.name] = decoded_bytes
        ours = np.frombuffer(pixels, np.uint8).reshape(info["height"], info["width"], 4)
        summary = f"{info['format']} {info['width']}x{info['height']}, {info['channels']} channels"
        if case.outcome == "refuse":
            problems.append(("accepted", f"decoded ({summary}) where it must be refused as {case.detail}"))
        else:
            want, tolerance, with_alpha = reference(case.detail, path, corpora)
            if want is not None:
                if want.shape != ours.shape:
                    problems.append(("pixels", f"{ours.shape[1]}x{ours.shape[0]}, the reference {want.shape[1]}x{want.shape[0]}"))
                else:
                    channels = slice(None) if with_alpha else slice(0, 3)
                    diff = int(np.abs(ours[:, :, channels].astype(np.int64) - want[:, :, channels].astype(np.int64)).max())
                    summary += f", max |ours - {case.detail}| = {diff}"
                    if diff > tolerance:
                        problems.append(("pixels", f"differs from {case.detail} by up to {diff} levels (allowed {tolerance})"))
    else:
        message = err.strip()
        found = message_class(message)
        summary = f"refused ({found}): {message.replace(path, 'FILE')[:110]}"
        if "not enough memory" in message:
            problems.append(("memory", f"ran out of the {ADDRESS_SPACE >> 20} MiB of address space the test gives it "
                                       f"(it tried to allocate more): {message[:160]}"))
        elif case.outcome == "decode":
            problems.append(("refused", f"refused a file that decodes: {message[:200]}"))
        elif path not in message:
            problems.append(("message", f"the message does not name the file: {message[:200]}"))
        elif found != case.detail:
            problems.append(("reason", f"refused as {found}, expected {case.detail}: {message[:200]}"))
    if peak is not None and not asan:
        size = os.path.getsize(path)
        declared = decoded_bytes or decoded_sizes.get(source_of(case), 0)
        bound = SMALL_FILE_PEAK if size < SMALL_FILE else MEMORY_FACTOR * declared + MEMORY_BASE
        summary += f", peak {peak / 2**20:.1f} MiB"
        if peak > bound:
            problems.append(("memory", f"peak {peak / 2**20:.1f} MiB for a {size}-byte file, over its bound "
                                       f"{bound / 2**20:.1f} MiB"))
    return problems, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--corpora", required=True)
    parser.add_argument("--only", help="run the cases whose name holds this")
    args = parser.parse_args()
    if not os.access(TIME, os.X_OK):
        print(f"skipped: {TIME} is missing (Debian's package 'time' measures the peak memory)")
        return 77
    cases = read_manifest(os.path.join(args.corpora, "manifest.txt"))
    known_path = os.path.join(args.corpora, "known_failures.txt")
    known = read_known_failures(known_path)
    listed = {c.name for c in cases}
    failures = [f"known_failures.txt lists '{name}', which the manifest does not" for name in known if name not in listed]
    # Every file of the corpora has its line: none is left out unnoticed.
    for base, _, files in os.walk(args.corpora):
        for name in files:
            relative = os.path.relpath(os.path.join(base, name), args.corpora)
            if not (name.startswith(("LICENSE", "README")) or name in ("manifest.txt", "known_failures.txt")) \
                    and relative not in listed:
                failures.append(f"{relative} has no line in manifest.txt")
    asan = instrumented(args.tool)
    if asan:
        print("AddressSanitizer build: peak-memory bounds not checked (its shadow memory counts); allocations "
              f"above {ADDRESS_SPACE >> 20} MiB fail as they would under the address-space limit")
    counts = {"ok": 0, "known": 0}
    decoded_sizes = {}
    with tempfile.TemporaryDirectory(prefix="gausslab-corpora-") as scratch:
        for case in cases:
            if args.only and args.only not in case.name:
                continue
            path = materialise(case, args.corpora, scratch)
            problems, summary = check_case(case, path, args.tool, args.corpora, asan, decoded_sizes)
            fatal = [p for p in problems if p[0] in ("crash", "hang")]
            if case.name in known and not fatal:
                if problems:
                    counts["known"] += 1
                    print(f"known   {case.name}: {'; '.join(text for _, text in problems)}")
                else:
                    failures.append(f"{case.name}: passes now; remove it from known_failures.txt")
                    print(f"FIXED   {case.name}: {summary} (remove it from known_failures.txt)")
                continue
            if problems:
                failures.append(f"{case.name}: {'; '.join(f'{kind}: {text}' for kind, text in problems)}")
                print(f"FAIL    {case.name}: {'; '.join(f'{kind}: {text}' for kind, text in problems)}")
            else:
                counts["ok"] += 1
                print(f"ok      {case.name}: {summary}")
    print(f"{counts['ok']} cases as the manifest says, {counts['known']} known failures "
          f"({os.path.relpath(known_path)}), {len(failures)} failures")
    for failure in failures:
        print("  FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
