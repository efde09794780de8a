#!/usr/bin/env python3
"""The reference slot and --watch in a window under Xvfb, with synthetic X input (XTest), waiting on
the viewer's --events lines (numbers, titles, messages), never on fixed sleeps.

A = the picture at sigma 3 (the default method, auto), B = a float32 .npy written here by SciPy
(scipy.ndimage.gaussian_filter of the picture, reflect, truncate 4, in [0, 1]) with one sample
raised by a known amount. Checks:
  - the A-vs-B numbers the viewer prints equal those computed here with NumPy against SciPy's
    float64 result: max |A-B| and its place, mean |A-B| (the viewer's float32 path is within ~1e-4
    levels of float64, so the figures agree to 1e-3 and 5e-5 levels);
  - the title says what auto runs ('A: auto → cpu_openmp' on a machine without CUDA);
  - the file rewritten: a truncated version (a writer caught half-way) keeps the old one, said;
    the whole new version is reloaded and the numbers follow it;
  - the Slots menu's "B: image file..." (Ctrl+Shift+B, a path typed, Enter): a file of another size
    is refused naming both sizes, B keeping its file; one of the right size is taken;
  - --watch: the picture's file rewritten is reloaded and the comparison reruns;
  - Ctrl+Q quits with status 0.
    under_xvfb.sh python3 drive_reference_slot.py VIEWER DATA_DIR
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import os
import re
import shutil
import sys
import tempfile

import numpy as np
from PIL import Image
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xdriver import Checks, Viewer, drive, open_display  # noqa: E402  the viewer's event lines, X input, the verdict

WIDTH, HEIGHT = 1000, 700
PICTURE = (250, 400)
SIGMA = 3.0
NUMBERS = re.compile(r"numbers A=(\S+) B=(\S+) ab_max_abs=(\S+) ab_mean_abs=(\S+) ab_psnr=\S+ ab_max_at=(\d+),(\d+),(\d+)")


def blurred(rgb):
    """SciPy's Gaussian of an RGB picture in levels (float64), as the viewer's 'reflect' border."""
    return np.stack([ndimage.gaussian_filter(rgb[..., c], SIGMA, mode="reflect", truncate=4.0)
                     for c in range(3)], axis=-1)


def write_reference(path, levels, bump_at, bump):
    """levels / 255 as float32 (H, W, 3), with sample bump_at = (x, y, c) raised by `bump` levels;
    returns the file's samples as the viewer measures them (float32 x 255, in levels)."""
    samples = (levels / 255.0).astype(np.float32)
    x, y, c = bump_at
    samples[y, x, c] = np.float32((levels[y, x, c] + bump) / 255.0)
    np.save(path, samples)
    return (samples.astype(np.float64) * 255.0).astype(np.float32).astype(np.float64)


def expected(a_levels, b_levels):
    """max |A-B|, its (x, y, c) and mean |A-B| over the four channels (alpha: 255 on both sides)."""
    diff = np.abs(a_levels - b_levels)
    y, x, c = np.unravel_index(np.argmax(diff), diff.shape)
    return diff.max(), (int(x), int(y), int(c)), diff.sum() / (diff.shape[0] * diff.shape[1] * 4)


def main() -> int:
    viewer_path, data = sys.argv[1], sys.argv[2]
    x, status = open_display()
    if not x:
        return status
    check = Checks()
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(os.path.join(data, "chelsea.png"), os.path.join(folder, "pic.png"))
        picture = np.asarray(Image.open(os.path.join(folder, "pic.png")).convert("RGB")).astype(np.float64)
        a_levels = blurred(picture)
        b_levels = write_reference(os.path.join(folder, "ref.npy"), a_levels, (100, 50, 1), 4.0)
        np.save(os.path.join(folder, "small.npy"), np.zeros((30, 40, 3), np.float32))
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"))
        viewer = Viewer([viewer_path, "pic.png", "--sigma", "3", "--compare-file", "ref.npy", "--watch",
                         "--window", f"{WIDTH}x{HEIGHT}", "--events"], folder, env)

        def numbers(since, b_name, what):
            line = viewer.wait_line(rf"gausslab-event: numbers A=\S+ B={re.escape(b_name)} ", since, what)
            m = NUMBERS.search(line)
            return float(m.group(3)), (int(m.group(5)), int(m.group(6)), int(m.group(7))), float(m.group(4))

        def agrees(seen, a, b):
            max_abs, at, mean_abs = expected(a, b)
            return abs(seen[0] - max_abs) < 1e-3 and seen[1] == at and abs(seen[2] - mean_abs) < 5e-5

        def compare(what, seen, a, b):
            max_abs, at, mean_abs = expected(a, b)
            check(what, agrees(seen, a, b),
                  f"viewer max {seen[0]:.6f} at {seen[1]}, mean {seen[2]:.3e}; "
                  f"NumPy against SciPy max {max_abs:.6f} at {at}, mean {mean_abs:.3e}")

        def numbers_after_reload(reloaded_pattern, since, b_name, a, b, what):
            """The numbers of the reloaded file. A comparison started before the reload may still
            report the previous version's numbers after it (on a loaded machine it often does), so
            the lines after the reload's message are read in turn until one is the new version's;
            none within the driver's timeout fails (the numbers seen are printed)."""
            reloaded = viewer.wait_line(reloaded_pattern, since, what)
            with viewer.cond:
                at = viewer.lines.index(reloaded, since) + 1
            while True:
                line = viewer.wait_line(rf"gausslab-event: numbers A=\S+ B={re.escape(b_name)} ", at, what)
                with viewer.cond:
                    at = viewer.lines.index(line, at) + 1
                m = NUMBERS.search(line)
                seen = float(m.group(3)), (int(m.group(5)), int(m.group(6)), int(m.group(7))), float(m.group(4))
                print(f"  numbers after the reload: max {seen[0]:.6f} at {seen[1]}")
                if agrees(seen, a, b):
                    return seen

        def set_b_through_the_menu(name):
            x.move(*PICTURE)
            viewer.frames(2)
            since = viewer.mark()
            x.tap("b", "Control_L", "Shift_L")  # Slots > B: image file...
            viewer.wait_line(r"action b_file", since)
            viewer.frames(3)  # the field takes the focus
            x.tap("a", "Control_L")  # its text (B's file now) selected, to be replaced
            viewer.frames(2)
            x.type_text(name)
            viewer.frames(2)
            x.tap("Return")
            return since

        def steps():
            banner = viewer.wait_line(r"gausslab-event: banner ", 0, "the cpu path banner's state")
            seen = numbers(0, "ref.npy", "the first A-vs-B numbers")
            compare("A against SciPy's file: the viewer's numbers are NumPy's", seen, a_levels, b_levels)
            runs = r"cpu_openmp" if "banner none" not in banner else r"\S+"
            title = viewer.wait_line(rf"title .*A: auto \u2192 {runs} vs B: ref\.npy", 0,
                                     "auto's choice and the file in the title")
            check("the title names auto's choice and B's file", True, title.split("title ")[1])

            # A writer caught half-way: the truncated file is refused by the reader, the old one stays.
            with open(os.path.join(folder, "ref.npy"), "rb") as f:
                whole = f.read()
            since = viewer.mark()
            with open(os.path.join(folder, "ref.npy"), "wb") as f:
                f.write(whole[: len(whole) // 2])
            line = viewer.wait_line(r"gausslab-event: error B: could not reload \(the previous version stays\)", since,
                                    "the truncated version refused")
            check("a half-written file keeps the previous version", True, line.split("error ")[1][:120])
            since = viewer.mark()
            b2_levels = write_reference(os.path.join(folder, "ref.npy"), a_levels, (200, 120, 0), 7.0)
            compare("the rewritten file's numbers",
                    numbers_after_reload(r"gausslab-event: message B: reloaded ref\.npy", since, "ref.npy",
                                         a_levels, b2_levels, "the rewritten file reloaded and its numbers"),
                    a_levels, b2_levels)

            # The Slots menu: another size refused with both sizes, B keeps its file; the right size taken.
            since = set_b_through_the_menu("small.npy")
            line = viewer.wait_line(r"gausslab-event: error B keeps what it showed: .*small\.npy is 40 x 30 but the "
                                    r"picture is 451 x 300", since, "the size mismatch refused with both sizes")
            check("a file of another size is refused naming both sizes", True, line.split("error ")[1][:120])
            b3_levels = write_reference(os.path.join(folder, "ref3.npy"), a_levels, (10, 10, 2), 5.0)
            since = set_b_through_the_menu("ref3.npy")
            compare("B set through the Slots menu", numbers(since, "ref3.npy", "the numbers of the file set in the menu"),
                    a_levels, b3_levels)

            # --watch: the picture rewritten (a dark patch), reloaded; A against B's file again.
            changed = picture.copy()
            changed[100:140, 200:260] = 0
            Image.fromarray(changed.astype(np.uint8)).save(os.path.join(folder, "new.png"))
            since = viewer.mark()
            os.replace(os.path.join(folder, "new.png"), os.path.join(folder, "pic.png"))
            compare("--watch: the picture reloaded and compared again",
                    numbers_after_reload(r"gausslab-event: message reloaded pic\.png", since, "ref3.npy",
                                         blurred(changed), b3_levels, "--watch to reload the picture and its numbers"),
                    blurred(changed), b3_levels)

        return drive(viewer, x, check, steps)


if __name__ == "__main__":
    sys.exit(main())
